"""What the tournament routes answer: the tournament object, the listing's summaries, the
standings as CSV, the JSON export, a player's live feed and history (docs/TOURNAMENTS.md).
Plain functions over the stored rows; the standings and duplicate boards are the core's
(:mod:`bela.tournament`), computed from the stored results.  The tournament object is
built once per version of the tournament (:class:`TournamentViews`): pages that poll it
several times a second cost a read of its row."""

from __future__ import annotations

import csv
import dataclasses
import io
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from ...storage import Database
from ...tournament import Format, TournamentError, board_table, standings
from .results import correctable
from .scorers import real_cards, scorer_link
from .stored import entries_of, results_of, settings_of

Row = Mapping[str, Any]

CSV_FIELDS = ("rank", "entry", "name", "players", "played", "wins", "draws", "losses",
              "match_points", "buchholz", "points_diff", "percentage")


def plain(value: Any) -> Any:
    """A value of the core (dataclasses, tuples, enums) or of a row (times) as JSON values.

    >>> from bela.tournament import Game
    >>> plain(Game(1, (3, 4)))
    {'table': 1, 'entries': [3, 4], 'leg': 1, 'boards': []}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, datetime):  # stored in UTC (SQLite gives it back without its zone)
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return value


def _players(entry: Row, names: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"player_id": p, "name": names.get(p, p)}
            for p in (entry["player_id"], entry["partner_id"]) if p]


def _names(db: Database, entries: Iterable[Row], also: Iterable[str] = ()) -> dict[str, str]:
    ids = {p for e in entries for p in (e["player_id"], e["partner_id"]) if p} | set(also)
    found = db.tournaments.player_names(ids)
    return {pid: found.get(pid, pid) for pid in ids}


def _entry(entry: Row, names: Mapping[str, str]) -> dict[str, Any]:
    return {"id": entry["id"], "name": entry["name"], "players": _players(entry, names),
            "bot": entry["bot"], "status": entry["status"], "rating": entry["rating"],
            "checked_in": entry["bot"] is not None or bool(entry["checked_in"])}


def _game(game: Row, scorer: str | None, correctable: bool | None) -> dict[str, Any]:
    table = game["table_id"] if game["status"] != "pending" else None
    out = {"table_no": game["table_no"], "entries": list(game["entries"]),
           "leg": game["leg"], "boards": list(game["boards"]), "table": table,
           "link": None if table is None else f"/?table={table}", "status": game["status"],
           "result": game["result"]}
    if scorer is not None:
        out["scorer"] = scorer
    if correctable is not None:  # the director's: whether its result may be corrected
        out["correctable"] = correctable
    return out


def ranked(row: Row, entries: Sequence[Row], rounds: Sequence[Row]) -> list[dict[str, Any]]:
    """The standings (the core's, over the stored results), each with the entry's name."""
    names = {int(e["id"]): e["name"] for e in entries}
    core = entries_of(entries)
    if not core or row["status"] in ("registering", "closed", "cancelled"):
        return []
    try:
        table = standings(settings_of(row), core, results_of(rounds))
    except TournamentError:
        return []  # a tournament ended midway: its void games leave nothing to rank
    return [{**plain(s), "name": names.get(s.entry, "")} for s in table]


def boards(row: Row, rounds: Sequence[Row]) -> list[dict[str, Any]]:
    """Duplicate: each finished round's board tables (frequencies, matchpoints)."""
    if row["format"] != Format.DUPLICATE:
        return []
    settings, results = settings_of(row), results_of(rounds)
    out = []
    for rnd in rounds:
        if rnd["finished_at"] is None:
            continue
        out.append({"round": rnd["round"],
                    "boards": plain(board_table(settings, results, int(rnd["round"])))})
    return out


def tournament(db: Database, row: Row, viewer: Row | None = None) -> dict[str, Any]:
    """The tournament object (the invite code for its director only)."""
    entries = db.tournaments.entries(row["id"])
    rounds = db.tournaments.rounds(row["id"])
    names = _names(db, entries, [row["director_id"]])
    settings = {k: v for k, v in row["settings"].items() if k != "seed"}
    director = viewer is not None and viewer["id"] == row["director_id"]

    def scorer(rnd: Row, game: Row) -> str | None:  # real cards: the director's links
        if not director or not real_cards(row):
            return None
        return scorer_link(row, int(rnd["round"]), int(game["table_no"]))

    settings["starts_at"] = plain(row["starts_at"])
    out = {"id": row["id"], "name": row["name"], "variant": row["variant"],
           "format": row["format"], "status": row["status"],
           "director": {"player_id": row["director_id"],
                        "name": names.get(row["director_id"], "")},
           "settings": settings, "created_at": plain(row["created_at"]),
           "started_at": plain(row["started_at"]), "finished_at": plain(row["finished_at"]),
           "round": row["round"], "next_round_at": plain(row["next_round_at"]),
           "entries": [_entry(e, names) for e in entries],
           "rounds": [{"round": r["round"], "stage": r["stage"], "byes": list(r["byes"]),
                       "started_at": plain(r["created_at"]),
                       "finished_at": plain(r["finished_at"]),
                       "finished": r["finished_at"] is not None,
                       "games": [_game(g, scorer(r, g), correctable(row, rounds, r["round"], g)
                                       if director else None) for g in r["games"]]}
                      for r in rounds],
           "standings": ranked(row, entries, rounds), "boards": boards(row, rounds)}
    if row["private"] and director:
        out["invite_code"] = row["invite_code"]
    return out


class TournamentViews:
    """The tournament objects of ``db``, each built once per ``version`` of its tournament
    (the stored counter that every change of the tournament, its entries, rounds or games
    moves, whichever instance made it), for the director and for everyone else; at most
    :attr:`SIZE` kept, the least recently asked dropped.  A player's new name shows with the
    tournament's next change."""

    SIZE = 256

    def __init__(self, db: Database) -> None:
        self.db = db
        self._built: OrderedDict[tuple[str, bool], tuple[int, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()  # built in worker threads
        self.builds = 0  # how many objects were built (tests)

    def tournament(self, row: Row, viewer: Row | None = None) -> dict[str, Any]:
        """:func:`tournament` of ``row`` (just read: its version) for ``viewer``."""
        key = (str(row["id"]), viewer is not None and viewer["id"] == row["director_id"])
        version = int(row["version"])
        with self._lock:
            found = self._built.get(key)
            if found is not None and found[0] == version:
                self._built.move_to_end(key)
                return found[1]
        obj = tournament(self.db, row, viewer)
        with self._lock:
            self.builds += 1
            held = self._built.get(key)
            if held is None or held[0] <= version:  # a slower build of an older version
                self._built[key] = (version, obj)  # does not replace a newer one
                self._built.move_to_end(key)
            while len(self._built) > self.SIZE:
                self._built.popitem(last=False)
        return obj


def summary(row: Row) -> dict[str, Any]:
    """A tournament in the listing."""
    return {"id": row["id"], "name": row["name"], "variant": row["variant"],
            "format": row["format"], "status": row["status"],
            "rounds": row["settings"].get("rounds", 0), "round": row["round"],
            "entries": int(row.get("entries") or 0), "starts_at": plain(row["starts_at"]),
            "rated": bool(row["settings"].get("rated")), "director": row["director_id"]}


def standings_csv(obj: Mapping[str, Any]) -> str:
    """The standings of a tournament object as CSV (:data:`CSV_FIELDS`)."""
    players = {e["id"]: " & ".join(p["name"] for p in e["players"]) or (e["bot"] or "")
               for e in obj["entries"]}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for s in obj["standings"]:
        row = {**s, "players": players.get(s["entry"], "")}
        writer.writerow(["" if row.get(f) is None else row.get(f) for f in CSV_FIELDS])
    return out.getvalue()


def export(db: Database, row: Row) -> dict[str, Any]:
    """The JSON export: the tournament object and every stored result."""
    return {"tournament": tournament(db, row),
            "results": plain(results_of(db.tournaments.rounds(row["id"])))}


def feed(db: Database, player_id: str) -> dict[str, Any]:
    """The player's live feed: his tournaments not over, with the table he plays now."""
    out = []
    games = db.tournaments.games_of_players(player_id)
    for e in db.tournaments.player_entries(player_id):
        if e["tournament_status"] not in ("registering", "closed", "running", "paused") or \
                e["status"] not in ("invited", "seeking", "registered"):
            continue
        mine = [g for g in games if g["tournament_id"] == e["tournament_id"]
                and e["id"] in g["entries"] and g["status"] == "playing"]
        game = mine[-1] if mine else None
        out.append({"id": e["tournament_id"], "name": e["tournament_name"],
                    "status": e["tournament_status"], "round": e["round"], "entry": e["id"],
                    "table": None if game is None else game["table_id"],
                    # real cards: a game at a table in the room has none online
                    "link": None if game is None or game["table_id"] is None
                    else f"/?table={game['table_id']}"})
    return {"tournaments": out}


def history(db: Database, player_id: str) -> dict[str, Any]:
    """The finished tournaments the player played in, newest first, with his rank."""
    out = []
    for e in db.tournaments.player_entries(player_id):
        if e["tournament_status"] != "finished" or e["status"] != "registered":
            continue
        row = db.tournaments.get(e["tournament_id"])
        assert row is not None
        entries = db.tournaments.entries(row["id"])
        table = ranked(row, entries, db.tournaments.rounds(row["id"]))
        mine = next((s for s in table if s["entry"] == e["id"]), None)
        out.append({"id": row["id"], "name": row["name"], "variant": row["variant"],
                    "format": row["format"], "status": row["status"],
                    "finished_at": plain(row["finished_at"]), "entry": e["id"],
                    "rank": None if mine is None else mine["rank"], "entries": len(table),
                    "match_points": None if mine is None else mine["match_points"]})
    return {"player_id": player_id, "tournaments": out}

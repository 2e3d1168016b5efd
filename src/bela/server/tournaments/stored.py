"""The tournament core's values (:mod:`bela.tournament`) from the stored rows, and a game's
result from its finished table: the one place the server's rows meet the core.

The core is pure and deterministic: the server hands it the stored settings, entries and
results, and gets the same plan and standings after any restart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...tournament import Entry, Format, Result, Settings

Row = Mapping[str, Any]

PLAYING = "registered"  # the entry status of the entries that play


def settings_of(row: Row) -> Settings:
    """The core's settings of a stored tournament (raises the core's
    :class:`~bela.tournament.TournamentError` for impossible ones)."""
    s = row["settings"]
    return Settings(variant=row["variant"], format=Format(row["format"]),
                    rounds=int(s.get("rounds", 0)), best_of=int(s.get("best_of", 1)),
                    groups=int(s.get("groups", 1)),
                    knockout_after=bool(s.get("knockout_after", False)),
                    boards=int(s.get("boards", 0)), seed=int(s.get("seed", 0)))


def entries_of(rows: Iterable[Row]) -> list[Entry]:
    """The core's entries: those registered, with the rating fixed at the start."""
    return [Entry(id=int(r["id"]), rating=float(r["rating"] or 0.0))
            for r in rows if r["status"] == PLAYING]


def result_of(rnd: int, game: Row) -> Result | None:
    """The core's result of a stored game (``None`` until it finished)."""
    res = game.get("result")
    if game["status"] != "finished" or res is None:
        return None
    return Result(round=rnd, table=int(game["table_no"]),
                  entries=tuple(int(e) for e in game["entries"]),
                  scores=tuple(int(x) for x in res["scores"]),
                  winner=None if res.get("winner") is None else int(res["winner"]),
                  forfeit=tuple(int(e) for e in res.get("forfeit", ())),
                  leg=int(game.get("leg") or 1),
                  board_scores=tuple((int(b), tuple(int(x) for x in sc))
                                     for b, sc in res.get("board_scores", ())))


def results_of(rounds: Iterable[Row]) -> list[Result]:
    """Every stored result, round by round, table by table."""
    out = []
    for rnd in rounds:
        for game in rnd["games"]:
            found = result_of(int(rnd["round"]), game)
            if found is not None:
                out.append(found)
    return out


def result_json(scores: Sequence[int], winner: int | None, forfeit: Sequence[int] = (),
                bot_played: Sequence[int] = (),
                board_scores: Sequence[tuple[int, Sequence[int]]] = ()) -> dict[str, Any]:
    """A game's result as stored (docs/TOURNAMENTS.md, the tournament object).

    >>> result_json([1001, 742], 11)
    {'scores': [1001, 742], 'winner': 11, 'forfeit': [], 'bot_played': [], 'board_scores': []}
    """
    return {"scores": [int(x) for x in scores], "winner": winner,
            "forfeit": [int(e) for e in forfeit], "bot_played": [int(e) for e in bot_played],
            "board_scores": [[int(b), [int(x) for x in sc]] for b, sc in board_scores]}


def table_result(game: Row, table_result_json: Mapping[str, Any], boards: Sequence[int],
                 bot_played: Sequence[int] = ()) -> dict[str, Any]:
    """A game's result from its table's (the ``bela score --json`` object of a finished
    match): the sides' totals, the winning side's entry (``None`` for a table with boards:
    a duplicate table has no winner), and per board the score of each side of that deal.

    >>> game = {"entries": [11, 12]}
    >>> r = {"rounds": [{"scores": [100, 62]}, {"scores": [0, 182]}], "totals": [100, 244],
    ...      "winner": None}
    >>> table_result(game, r, [3, 4])["board_scores"]
    [[3, [100, 62]], [4, [0, 182]]]
    >>> table_result(game, {"rounds": [], "totals": [501, 320], "winner": 0}, [])["winner"]
    11
    """
    entries = [int(e) for e in game["entries"]]
    side = table_result_json.get("winner")
    winner = None if boards or side is None else entries[int(side)]
    board_scores = [(b, r["scores"]) for b, r in zip(boards, table_result_json["rounds"])]
    return result_json(table_result_json["totals"], winner, (), bot_played, board_scores)


def forfeit_result(game: Row, absent: Sequence[int], target: int) -> dict[str, Any]:
    """A game's result when the entries ``absent`` did not show up: each present side
    scores the target and the absent ones 0; the winner is the entry present when it is
    the only one (none when nobody came, or when two of a table of three came).

    >>> forfeit_result({"entries": [11, 12]}, [12], 1001)["scores"]
    [1001, 0]
    >>> forfeit_result({"entries": [11, 12]}, [11, 12], 1001)["winner"] is None
    True
    """
    entries = [int(e) for e in game["entries"]]
    present = [e for e in entries if e not in absent]
    scores = [0 if e in absent else target for e in entries]
    return result_json(scores, present[0] if len(present) == 1 else None, absent)

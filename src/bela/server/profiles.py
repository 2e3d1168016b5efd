"""Profiles and leaderboards: ratings, their history, stats and finished matches.

A profile is a player's (his id) or a bot's (``bot-<name>``, :mod:`bela.server.ratings`):
per variant its rating, the rating's history over the rated matches and the stats of every
finished match (rated or not); then its newest finished matches.  A private table's match
is listed only to the profile's own player (to others its points in the history have no
table).  Nothing is said about running matches.  An account's profile lists his friends
(only friendships both accepted, each a name and an avatar: no requests, no presence).
The leaderboard of a variant lists the rated accounts and bots, best first; guests are not
listed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ..bots import BOTS
from ..engine.variants import DEFAULT_VARIANT, VARIANTS
from ..storage import Database
from .answers import Leaderboard, Profile
from .auth import Viewer
from .errors import InvalidInput, NotFound
from .ratings import MU, PROVISIONAL_GAMES, SIGMA, bot_of, shown

router = APIRouter()

MATCHES = 50  # finished matches in a profile, newest first
RECENT = 1000  # lines the contracts and the rating history are read from, newest first
CONTRACTS = 6  # contracts in a variant's stats, most called first
TRUMPS = ("H", "D", "C", "S", "VC", "BC")  # the order of contracts called equally often
PAGE, MAX_PAGE = 50, 200  # entries in one answer of GET /api/leaderboard: default, most
MAX_OFFSET = 1_000_000




@router.get("/api/players/{player_id}", response_model=Profile)
async def get_profile(player_id: str, request: Request, v: Viewer) -> dict[str, Any]:
    """A player's or a bot's profile (see the module)."""
    db: Database = request.app.state.lobby.store.db
    return await asyncio.to_thread(profile, db, player_id, v)


@router.get("/api/leaderboard", response_model=Leaderboard)
async def get_leaderboard(request: Request,
                          variant: Annotated[str, Query(max_length=16)] = DEFAULT_VARIANT,
                          limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
                          offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0
                          ) -> dict[str, Any]:
    """The rated accounts and bots of ``variant``, best first, ``limit`` from ``offset``;
    ``total`` counts them all."""
    return leaderboard(request.app.state.lobby.store.db, variant, limit, offset,
                       request.app.state.config.board_opponents)


def profile(db: Database, player_id: str, viewer: Mapping[str, Any] | None) -> dict[str, Any]:
    """The profile of ``player_id`` (a player's id or ``bot-<name>``) as ``viewer`` sees
    it; raises :class:`NotFound` (``unknown_player``) for nobody known."""
    out = _who(db, player_id)
    own = viewer is not None and viewer["id"] == player_id
    lines = db.ratings.line_stats(player_id, RECENT)  # newest first
    totals = db.ratings.line_totals(player_id)
    rated = {r["variant"]: r for r in db.ratings.ratings_of(player_id)}
    played = set(totals) | set(rated)
    out["variants"] = [_variant(name, rated.get(name), totals.get(name),
                                [ln for ln in lines if ln["variant"] == name], own)
                       for name in sorted(played, key=_variant_order)]
    out["matches"] = _matches(db, player_id, lines, own)
    out["friends"] = db.friends.of(player_id)["friends"] if out["account"] else []
    return out


def leaderboard(db: Database, variant: str, limit: int, offset: int,
                min_opponents: int = 0) -> dict[str, Any]:
    """A page of ``variant``'s leaderboard (see :func:`get_leaderboard`): an account is
    listed once it met ``min_opponents`` distinct opponents in rated matches."""
    if variant not in VARIANTS:
        raise InvalidInput("bad_variant", f"unknown variant {variant!r} "
                           f"(known: {', '.join(VARIANTS)})")
    rows, total = db.ratings.leaderboard(variant, limit, offset, min_opponents,
                                         VARIANTS[variant].sides)
    entries = []
    for rank, row in enumerate(rows, start=offset + 1):
        bot = bot_of(row["entry"])
        entries.append({"rank": rank, "player_id": row["entry"],
                        "name": row["name"] if bot is None else bot, "bot": bot,
                        "rating": shown(row["mu"], row["sigma"]),
                        "provisional": row["games"] < PROVISIONAL_GAMES,
                        "games": row["games"], "wins": row["wins"]})
    return {"variant": variant, "total": total, "entries": entries}


def _who(db: Database, player_id: str) -> dict[str, Any]:
    """Who a profile is of: a known bot (named by its spec) or a stored player."""
    bot = bot_of(player_id)
    if bot is not None:
        if bot not in BOTS:
            raise NotFound("unknown_player", f"there is no bot {bot!r} "
                           f"(known: {', '.join(BOTS)})")
        return {"player_id": player_id, "name": bot, "account": False, "bot": bot,
                "since": None}
    found = db.players.player(player_id) if len(player_id) <= 32 else None
    if found is None:
        raise NotFound("unknown_player", f"there is no player {player_id!r}")
    return {"player_id": player_id, "name": found["name"], "account": found["account"],
            "bot": None, "since": _iso(found["created_at"])}


def _variant(name: str, rating: Mapping[str, Any] | None, totals: Mapping[str, int] | None,
             lines: list[dict[str, Any]], own: bool) -> dict[str, Any]:
    """A variant's part of a profile: the rating (1000, provisional, before a rated match),
    the stats of every match (``totals``), and from ``lines`` (the entry's newest lines in
    the variant, newest first: :data:`RECENT` at most) the contracts called and the rating
    history.  A bot in several seats of a match counts the match once (won if all its seats
    won); its points, deals and contracts count in every seat."""
    mu, sigma = (rating["mu"], rating["sigma"]) if rating else (MU, SIGMA)
    got = totals or {"games": 0, "wins": 0, "points": 0, "deals": 0}
    called: dict[str, int] = {}
    for ln in lines:
        for trump, count in ln["contracts"].items():
            called[trump] = called.get(trump, 0) + int(count)
    top = sorted(called.items(), key=lambda tc: (-tc[1], _trump_order(tc[0])))[:CONTRACTS]
    history = [{"at": _iso(first["finished_at"]), "rating": first["rating_after"],
                "table": first["table_id"] if own or not first["private"] else None}
               for first, _won in reversed(_by_table(lines))
               if first["rated"] and first["rating_after"] is not None]
    return {"variant": name, "rating": shown(mu, sigma),
            "provisional": (rating["games"] if rating else 0) < PROVISIONAL_GAMES,
            "games": got["games"], "wins": got["wins"],
            "points_per_deal": round(got["points"] / got["deals"], 1) if got["deals"] else None,
            "contracts": [{"trump": t, "count": c} for t, c in top], "history": history}


def _matches(db: Database, entry: str, lines: list[dict[str, Any]], own: bool
             ) -> list[dict[str, Any]]:
    """The newest finished matches ``own`` (the profile's player) or anyone may see, from
    the entry's ``lines`` (newest first), one per table (a bot's first seat)."""
    shown_tables: set[str] = set()
    upto = 0  # the lines to read with their results: up to the last match shown
    for i, ln in enumerate(lines):
        if len(shown_tables) == MATCHES and ln["table_id"] not in shown_tables:
            break
        if own or not ln["private"]:
            shown_tables.add(ln["table_id"])
            upto = i + 1
    rows = [r for r in (db.ratings.lines(entry, limit=upto) if upto else [])
            if r["table_id"] in shown_tables]
    firsts = [first for first, _won in _by_table(rows)][:MATCHES]
    names = db.tables.seat_names(r["table_id"] for r in firsts)
    return [{"table": r["table_id"], "variant": r["variant"],
             "finished_at": _iso(r["finished_at"]), "seat": r["seat"], "won": r["won"],
             "left": r["left"], "rated": r["rated"], "rating_before": r["rating_before"],
             "rating_after": r["rating_after"], "totals": (r["result"] or {}).get("totals"),
             "players": names.get(r["table_id"], []),
             "record": f"/api/tables/{r['table_id']}/record"} for r in firsts]


def _by_table(lines: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """Lines grouped by table, in their order: each table's line of its lowest seat, and
    whether all its lines won."""
    found: dict[str, tuple[dict[str, Any], bool]] = {}
    for ln in lines:
        first, won = found.get(ln["table_id"], (ln, True))
        if ln["seat"] < first["seat"]:
            first = ln
        found[ln["table_id"]] = (first, won and bool(ln["won"]))
    return list(found.values())


def _variant_order(name: str) -> tuple[int, str]:
    names = list(VARIANTS)
    return (names.index(name) if name in names else len(names), name)


def _trump_order(trump: str) -> int:
    return TRUMPS.index(trump) if trump in TRUMPS else len(TRUMPS)


def _iso(when: datetime) -> str:
    """A stored time in ISO 8601 (SQLite gives it back without its zone: UTC)."""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()

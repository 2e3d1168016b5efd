"""A playing game of a tournament watched (a step of
:class:`~bela.server.tournaments.Scheduler`, on the event loop, from the game's stored
table read off it): who connected, the result of a finished table, the no-show rule.
What it decides is handed back as writes (run off the loop, in one thread hop) and tables
to close after them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ...engine.variants import VARIANTS
from ...storage.repos import Tournaments
from ..lobby import Lobby
from ..model import Table, TableStatus
from .results import finish_game
from .stored import forfeit_result, table_result

log = logging.getLogger("bela.server.tournaments")

Row = Mapping[str, Any]
Write = tuple[Callable[[], object], bool]  # a write, and whether it ends the game


def watch(lobby: Lobby, rows: Tournaments, row: Row, game: Row, stored: Row | None,
          writes: list[Write], closing: list[Table]) -> None:
    """A playing game (on the loop, from its stored table read off it): the seats whose
    player connected noted; its result once its table finished (an entry with a seat
    whose player never came is marked ``bot_played``: the table's bot played it); the
    no-show rule.  What it decides goes to ``writes`` (run off the loop) and
    ``closing`` (tables to close after them), each write with whether it ends the
    game."""
    if stored is None:
        return
    rnd, no = int(game["round"]), int(game["table_no"])
    present = dict(game["present"] or {})
    seen = set(present.get("seen", ()))
    table = lobby.tables.get(game["table_id"])
    if table is not None:  # run here: its connections are known here
        seen |= {i for i, s in enumerate(table.seats)
                 if not s.is_bot and lobby.hub.seat_connected(table, i)}
    seats = [{"is_bot": bool(s["is_bot"])} for s in stored["seats"]]
    if stored["status"] == TableStatus.FINISHED:
        marked = set(present.get("bot_played", ())) | set(
            absent_entries(row, game, seats, seen))
        result = table_result(game, stored["result"], game["boards"], sorted(marked))
        writes.append((lambda: finish_game(rows, row, game, result), True))
        return
    if stored["status"] == TableStatus.CLOSED:  # closed under it (not by a forfeit,
        # which ends the game first): the game is played again at a new table
        log.warning("tournament %s: the table %s of round %s closed unfinished: its "
                    "game is played again", row["id"], game["table_id"], rnd)
        writes.append((lambda: rows.update_game(
            row["id"], rnd, no, ["playing"], status="pending", table_id=None, present={},
            started_at=None), True))
        return
    if table is None or stored["status"] != TableStatus.RUNNING:
        return  # run by another instance (it notes its players)
    table.watched_at = time.time()  # the tournament watches it: the sweep leaves it
    absent: list[int] = []
    started = game["started_at"]
    if started is not None and (datetime.now(UTC) - aware(started)).total_seconds() \
            > int(row["settings"]["no_show"]):
        absent = absent_entries(row, game, seats, seen)
    marked_now = sorted(set(present.get("bot_played", ())) | set(absent))
    if absent and not row["settings"].get("no_show_bot"):
        target = int(row["settings"]["options"].get("target", 0))
        forfeit = forfeit_result(game, absent, target)
        writes.append((lambda: finish_game(rows, row, game, forfeit), True))
        closing.append(table)
        return
    if sorted(seen) != sorted(present.get("seen", ())) or marked_now != sorted(
            present.get("bot_played", ())):
        writes.append((lambda: rows.update_game(
            row["id"], rnd, no, ["playing"], present={"seen": sorted(seen),
                                                      "bot_played": marked_now}), False))


def absent_entries(row: Row, game: Row, seats: list[dict[str, bool]], seen: set[int]
                   ) -> list[int]:
    """The entries of ``game`` with a human seat whose player never connected."""
    v = VARIANTS[row["variant"]]
    entries = [int(e) for e in game["entries"]]
    return sorted({entries[v.side_of(i)] for i, s in enumerate(seats)
                   if not s["is_bot"] and i not in seen})


def aware(when: datetime) -> datetime:
    """A stored time with its zone (SQLite gives it back without: UTC)."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)

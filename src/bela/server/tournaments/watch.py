"""A playing game of a tournament watched (a step of
:class:`~bela.server.tournaments.Scheduler`, on the event loop, from the game's stored
table read off it): who connected, the result of a finished table, the no-show rule.
What it decides is handed back as writes (run off the loop, in one thread hop) and tables
to close after them.  With several instances, the instance that runs a game's table
notes who connected to it (:func:`note_tables`), for the instance that steps the
tournament.
"""

from __future__ import annotations

import asyncio
import functools
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
        seen |= connected(lobby, table)
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
    if stored["status"] != TableStatus.RUNNING:
        return
    if table is not None:  # else run by another instance, which notes its players
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
        if table is not None:  # else its instance closes it (:func:`note_tables`)
            closing.append(table)
        return
    if sorted(seen) != sorted(present.get("seen", ())) or marked_now != sorted(
            present.get("bot_played", ())):
        writes.append((lambda: rows.note_present(row["id"], rnd, no, seen, marked_now),
                       False))


def connected(lobby: Lobby, table: Table) -> set[int]:
    """The human seats of a table run here whose player is connected now."""
    return {i for i, s in enumerate(table.seats)
            if not s.is_bot and lobby.hub.seat_connected(table, i)}


async def note_tables(lobby: Lobby, rows: Tournaments) -> None:
    """Several instances: what the tournaments' games at the tables run here need from
    here, whichever instance steps their tournaments (a failover may move a table and not
    its tournament): the seats whose player connected added to the game's ``present``
    (where :func:`watch` reads them), the tables kept from the sweep, and the tables of
    games decided elsewhere (a forfeit, a pad, the tournament's end) closed."""
    running = {t.id: t for t in lobby.tables.values() if t.status == TableStatus.RUNNING}
    if not running:
        return
    notes: list[Callable[[], object]] = []
    closing: list[Table] = []
    for game in await asyncio.to_thread(rows.games_at, list(running)):
        table = running[game["table_id"]]
        if game["status"] in ("finished", "void"):
            closing.append(table)
            continue
        if game["status"] != "playing":
            continue
        table.watched_at = time.time()
        seen = connected(lobby, table)
        if not seen <= set((game["present"] or {}).get("seen", ())):
            notes.append(functools.partial(rows.note_present, game["tournament_id"],
                                           int(game["round"]), int(game["table_no"]), seen))
    if notes:
        await asyncio.to_thread(lambda: [note() for note in notes])
    for table in closing:
        if table.status == TableStatus.RUNNING:
            log.info("tournament game at table %s decided elsewhere: table closed", table.id)
            await lobby.close_table(table)


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

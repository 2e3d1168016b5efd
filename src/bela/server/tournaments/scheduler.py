"""The rounds of the running tournaments: paired, stored, seated, watched to their end.

Every :data:`TICK` seconds (and at once when woken: a start, a resume, a result from a pad)
the scheduler steps each running tournament, from what the database holds and nothing
else, so a server killed at any moment goes on where it was:

1. the current round's games: a game's table is made with the id stored for it (stored
   first, so a restart makes that table, never a second one), started, and the game marked
   ``playing``; a playing game whose table has finished gets its result from the table's
   stored result; a player who never connected within ``no_show`` seconds forfeits his
   entry's game (or, with ``no_show_bot``, the bot that plays for him goes on and the
   result is marked);
2. once every game of the round has ended, the round is marked finished and, unless the
   tournament is paused (or during its ``round_break``), the core plans the next round
   (:func:`bela.tournament.plan_round` over the stored results) and the plan is stored, once
   (the round's key), before any table is made; no round left: ``finished``.

Several instances: a tournament is stepped by the instance that holds its lease in Redis
(``bela:lease:tournament:<id>``, taken with ``SET NX`` and renewed at each tick with the
cluster's :data:`~bela.server.cluster.RENEW` script), so nothing is paired or made twice;
an instance that dies stops renewing and another takes the tournament over after
``lease_ttl``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from redis.exceptions import RedisError

from ...engine.variants import VARIANTS
from ...tournament import plan_round
from ..cluster import RENEW, lease_key
from ..errors import Conflict, NotFound, Refused
from ..hub import Hub
from ..model import TableStatus
from ..router import Router
from ..stopping import ended
from .director import Director
from .results import DONE, find_game, given_result
from .scorers import real_cards
from .stored import entries_of, forfeit_result, results_of, settings_of, table_result
from .tables import GameTables

log = logging.getLogger("bela.server.tournaments")

TICK = 0.5  # seconds between two steps of the running tournaments
START_RETRY = 5.0  # seconds between two tries to start a tournament whose time has come

Row = dict[str, Any]
T = TypeVar("T")


def lease_name(tournament_id: str) -> str:
    return lease_key(f"tournament:{tournament_id}")


class Scheduler:
    """The rounds of the tournaments of ``router``'s server (see the module); ``director``
    starts those whose ``starts_at`` has come."""

    def __init__(self, router: Router, director: Director) -> None:
        self.router = router
        self.director = director
        self._tried: dict[str, float] = {}  # tournament -> time.monotonic() of a start tried
        self.lobby = router.lobby
        self.rows = router.lobby.store.db.tournaments
        self.tables = GameTables(router.lobby)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopped: asyncio.Event | None = None
        self._lock = asyncio.Lock()  # one step at a time (the loop, a route, a pad)
        self._failing = False
        cluster = router.cluster
        self._renew = None if cluster is None else cluster.redis.register_script(RENEW)

    # -- life ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._stopped = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(self._stopped),
                                                            name="bela tournaments")

    async def stop(self) -> None:
        if self._stopped is not None:
            self._stopped.set()
            self._wake.set()
        if self._task is not None:
            await ended(self._task)
            self._task = None

    def wake(self) -> None:
        """Step the tournaments now (a start, a resume, a result came)."""
        self._wake.set()

    async def _run(self, stopped: asyncio.Event) -> None:
        while not stopped.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK)
            self._wake.clear()
            if stopped.is_set():
                return
            try:
                await self.tick()
            except Exception:
                if not self._failing:
                    log.exception("the tournaments could not be stepped: trying again")
                self._failing = True
            else:
                if self._failing:
                    log.warning("the tournaments are stepped again")
                self._failing = False

    async def tick(self) -> None:
        """Start the tournaments whose time has come, and step every running tournament
        this instance holds (takes) the lease of."""
        await self._start_due()
        for tournament_id in await asyncio.to_thread(self.rows.running_ids):
            if await self._held(tournament_id):
                await self.step(tournament_id)

    async def _start_due(self) -> None:
        """Start each tournament whose ``starts_at`` has come, as its director would; one
        that cannot start (too few entries) is tried again every :data:`START_RETRY`
        seconds, until its director starts, changes or ends it."""
        now = time.monotonic()
        for tournament_id in await asyncio.to_thread(self.rows.due, datetime.now(UTC)):
            if now - self._tried.get(tournament_id, -START_RETRY) < START_RETRY or \
                    not await self._held(tournament_id):
                continue
            self._tried[tournament_id] = now
            row = await asyncio.to_thread(self.rows.get, tournament_id)
            if row is None:
                continue
            try:
                async with self._lock:
                    await asyncio.to_thread(self.director.begin, row)
            except Refused as exc:
                log.debug("tournament %s could not start at its time: %s", tournament_id,
                          exc.message)
                continue
            log.info("tournament %s started at its time", tournament_id)
            await self.step(tournament_id)

    async def locked(self, change: Callable[[], T]) -> T:
        """Run ``change`` (a director's change that ends games) off the loop while no step
        runs, so that no table is made for a game it voids."""
        async with self._lock:
            return await asyncio.to_thread(change)

    async def nudge(self, tournament_id: str) -> None:
        """Step the tournament now if this instance holds it (else its holder's next tick
        does)."""
        if await self._held(tournament_id):
            await self.step(tournament_id)

    async def _held(self, tournament_id: str) -> bool:
        """Whether this instance steps the tournament: one process always; in a cluster the
        holder of its lease (taken when nobody holds it, renewed)."""
        cluster = self.router.cluster
        if cluster is None or self._renew is None:
            return True
        key = lease_name(tournament_id)
        try:
            if await cluster.redis.set(key, cluster.id, nx=True, px=cluster.leases.ttl_ms):
                return True
            kept = await self._renew(keys=[key], args=[cluster.id, cluster.leases.ttl_ms])
        except (RedisError, OSError):
            return False
        return bool(kept and kept[0])

    # -- one step --------------------------------------------------------------------------
    async def step(self, tournament_id: str) -> None:
        """Bring one tournament up to date (see the module)."""
        async with self._lock:
            row = self.rows.get(tournament_id)
            if row is None or row["status"] not in ("running", "paused"):
                return
            rounds = self.rows.rounds(tournament_id)
            entries = {int(e["id"]): e for e in self.rows.entries(tournament_id)}
            if rounds and rounds[-1]["finished_at"] is None:
                current = rounds[-1]
                for game in current["games"]:
                    if game["status"] not in DONE:
                        await self._advance(row, game, entries)
                games = self.rows.rounds(tournament_id)[-1]["games"]
                if any(g["status"] not in DONE for g in games):
                    return
                self.rows.finish_round(tournament_id, int(current["round"]))
                rounds = self.rows.rounds(tournament_id)
            if row["status"] != "running" or self._breaking(row, rounds):
                return
            await self._next_round(row, rounds, entries)

    def _breaking(self, row: Row, rounds: list[Row]) -> bool:
        """Whether the tournament waits for its ``round_break`` to end (starting it)."""
        pause = int(row["settings"].get("round_break", 0))
        if not pause or not rounds:
            return False
        when = row["next_round_at"]
        if when is None:
            self.rows.set_next_round_at(row["id"], datetime.now(UTC) + timedelta(seconds=pause))
            return True
        return _aware(when) > datetime.now(UTC)

    async def _next_round(self, row: Row, rounds: list[Row], entries: dict[int, Row]) -> None:
        plan = plan_round(settings_of(row), entries_of(entries.values()), results_of(rounds))
        if plan is None:
            if self.rows.set_status(row["id"], ["running"], "finished",
                                    finished_at=datetime.now(UTC)):
                log.info("tournament %s finished after %d rounds", row["id"], len(rounds))
            return
        games = [{"table_no": g.table, "entries": list(g.entries), "leg": g.leg,
                  "boards": list(g.boards)} for g in plan.games]
        if self.rows.store_round(row["id"], plan.round, plan.stage, plan.byes, games,
                                 finished=not games):
            log.info("tournament %s: round %d paired (%d tables, %d byes)", row["id"],
                     plan.round, len(games), len(plan.byes))
        for game in self.rows.rounds(row["id"])[-1]["games"]:
            if game["status"] == "pending":
                await self._advance(row, game, entries)
        self.wake()  # a round of byes only is over at once

    async def _advance(self, row: Row, game: Row, entries: dict[int, Row]) -> None:
        """A pending game's table made and started; a playing game's end noted."""
        rnd, no = int(game["round"]), int(game["table_no"])
        if game["status"] == "pending" and real_cards(row):  # no table: a pad scores it
            self.rows.update_game(row["id"], rnd, no, ["pending"], status="playing",
                                  started_at=datetime.now(UTC))
            return
        if game["status"] == "pending":
            if game["table_id"] is None:
                table_id = secrets.token_urlsafe(6)
                self.rows.update_game(row["id"], rnd, no, ["pending"], table_id=table_id)
                game = {**game, "table_id": table_id}
            if self.lobby.store.db.tables.load_table(game["table_id"]) is None:
                table = await self.tables.make(row, game, entries)
                if self.router.cluster is not None:
                    await self.router.cluster.leases.claim(table.id)
            if self.rows.update_game(row["id"], rnd, no, ["pending"], status="playing",
                                     started_at=datetime.now(UTC)):
                tell(self.lobby.hub, row, game, entries)
            return
        await self._watch(row, game)

    async def _watch(self, row: Row, game: Row) -> None:
        """A playing game: the seats whose player connected noted; its result once its
        table finished (an entry with a seat whose player never came is marked
        ``bot_played``: the table's bot played it); the no-show rule."""
        table_id = game["table_id"]
        if table_id is None:  # real cards: its result comes from its pad
            return
        stored = self.lobby.store.db.tables.load_table(table_id)
        if stored is None:
            return
        present = dict(game["present"] or {})
        seen = set(present.get("seen", ()))
        table = self.lobby.tables.get(table_id)
        if table is not None:  # run here: its connections are known here
            seen |= {i for i, s in enumerate(table.seats)
                     if not s.is_bot and self.lobby.hub.seat_connected(table, i)}
        seats = [{"is_bot": bool(s["is_bot"])} for s in stored["seats"]]
        if stored["status"] == TableStatus.FINISHED:
            marked = set(present.get("bot_played", ())) | set(
                absent_entries(row, game, seats, seen))
            self._finish(row, game, table_result(game, stored["result"], game["boards"],
                                                 sorted(marked)))
            return
        if stored["status"] == TableStatus.CLOSED:  # closed under it (not by a forfeit,
            # which ends the game first): the game is played again at a new table
            log.warning("tournament %s: the table %s of round %s closed unfinished: its "
                        "game is played again", row["id"], table_id, game["round"])
            self.rows.update_game(row["id"], int(game["round"]), int(game["table_no"]),
                                  ["playing"], status="pending", table_id=None, present={},
                                  started_at=None)
            self.wake()
            return
        if table is None or stored["status"] != TableStatus.RUNNING:
            return  # run by another instance (it notes its players)
        table.watched_at = time.time()  # the tournament watches it: the sweep leaves it
        absent: list[int] = []
        started = game["started_at"]
        if started is not None and (datetime.now(UTC) - _aware(started)).total_seconds() \
                > int(row["settings"]["no_show"]):
            absent = absent_entries(row, game, seats, seen)
        marked_now = sorted(set(present.get("bot_played", ())) | set(absent))
        if absent and not row["settings"].get("no_show_bot"):
            target = int(row["settings"]["options"].get("target", 0))
            self._finish(row, game, forfeit_result(game, absent, target))
            await self.lobby.close_table(table)
            return
        if sorted(seen) != sorted(present.get("seen", ())) or marked_now != sorted(
                present.get("bot_played", ())):
            self.rows.update_game(row["id"], int(game["round"]), int(game["table_no"]),
                                  ["playing"], present={"seen": sorted(seen),
                                                        "bot_played": marked_now})

    def _finish(self, row: Row, game: Mapping[str, Any], result: dict[str, Any]) -> None:
        if self.rows.update_game(row["id"], int(game["round"]), int(game["table_no"]),
                                 ["pending", "playing"], status="finished", result=result,
                                 finished_at=datetime.now(UTC)):
            log.info("tournament %s: round %s table %s finished %s", row["id"],
                     game["round"], game["table_no"], result["scores"])
        self.wake()

    # -- results from elsewhere ------------------------------------------------------------
    async def record_result(self, tournament_id: str, rnd: int, table_no: int,
                            scores: list[int],
                            board_scores: list[tuple[int, list[int]]] | None = None) -> None:
        """A game's result given its ``scores`` per side (side 0 first), as a score pad
        kept at the table tells it (and, duplicate, each board's): stored, the game's
        table (if any still plays) closed, the tournament stepped.  The winner is the side
        with the most points (none on equal points, or for a duplicate game)."""
        async with self._lock:
            row = self.rows.get(tournament_id)
            if row is None:
                raise NotFound("unknown_tournament", f"there is no tournament {tournament_id!r}")
            game = find_game(self.rows.rounds(tournament_id), rnd, table_no)
            if game["status"] in DONE:
                raise Conflict("game_over", f"round {rnd} table {table_no} has its result")
            self._finish(row, game, given_result(game, scores, board_scores))
            table = self.lobby.tables.get(game["table_id"] or "")
        if table is not None and table.status == TableStatus.RUNNING:
            await self.lobby.close_table(table)

    async def close_tables(self, table_ids: list[str]) -> None:
        """Close the tables of an ended tournament's void games (those run here)."""
        for table_id in table_ids:
            table = self.lobby.tables.get(table_id)
            if table is not None and table.status in (TableStatus.OPEN, TableStatus.RUNNING):
                await self.lobby.close_table(table)


def tell(hub: Hub, row: Row, game: Row, entries: dict[int, Row]) -> None:
    """Tell the game's players their table on every WebSocket they have open here (at
    the table of their last round, say): the message ``tournament``."""
    msg = {"type": "tournament", "tournament": row["id"], "name": row["name"],
           "round": int(game["round"]), "table": game["table_id"],
           "link": f"/?table={game['table_id']}"}
    for e in game["entries"]:
        entry = entries[int(e)]
        for pid in (entry["player_id"], entry["partner_id"]):
            if pid:
                hub.send_player(pid, {**msg, "entry": int(e)})


def absent_entries(row: Row, game: Row, seats: list[dict[str, bool]], seen: set[int]
                   ) -> list[int]:
    """The entries of ``game`` with a human seat whose player never connected."""
    v = VARIANTS[row["variant"]]
    entries = [int(e) for e in game["entries"]]
    return sorted({entries[v.side_of(i)] for i, s in enumerate(seats)
                   if not s["is_bot"] and i not in seen})


def _aware(when: datetime) -> datetime:
    """A stored time with its zone (SQLite gives it back without: UTC)."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)

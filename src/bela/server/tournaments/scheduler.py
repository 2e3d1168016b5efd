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

A step holds the scheduler's lock (one step at a time: the loop's, a route's, a pad's) and
does its database work off the event loop, in a few thread hops (the reads of a step in
one, the writes of a round's games in one or two transactions), and the tables' changes on
it.

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
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from redis.exceptions import RedisError

from ...tournament import plan_round
from ..cluster import RENEW, lease_key
from ..errors import Conflict, NotFound, Refused
from ..hub import Hub
from ..model import Table, TableStatus
from ..router import Router
from ..stopping import ended
from .director import Director
from .results import DONE, find_game, finish_game, given_result
from .scorers import real_cards
from .stored import entries_of, results_of, settings_of
from .tables import GameTables, Seating
from .watch import Write, aware, note_tables, watch

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
        """Start the tournaments whose time has come, note who connected to the games'
        tables run here (several instances), and step every running tournament this
        instance holds (takes) the lease of."""
        await self._start_due()
        if self.router.cluster is not None:  # the tables run here, whoever steps them
            await note_tables(self.lobby, self.rows)
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
        """Bring one tournament up to date (see the module).  The database's reads and
        writes run off the event loop, a few thread hops a step (a hop reads or writes
        every game of a round), the tables' changes on it."""
        async with self._lock:
            found = await asyncio.to_thread(self._read, tournament_id)
            if found is None:
                return
            row, rounds, entries, stored = found
            if rounds and rounds[-1]["finished_at"] is None:
                await self._play(row, rounds[-1]["games"], entries, stored)
                ended = await asyncio.to_thread(self._end_round, row, rounds[-1])
                if ended is None:
                    return
                rounds = ended
            if row["status"] != "running":
                return
            games = await asyncio.to_thread(self._next_round, row, rounds, entries)
            if games:
                await self._play(row, games, entries, {})
        if games is not None:
            self.wake()  # a round of byes only is over at once

    def _read(self, tournament_id: str
              ) -> tuple[Row, list[Row], dict[int, Row], dict[str, Row | None]] | None:
        """What a step starts from (off the loop): the tournament if it is running or
        paused, its rounds, its entries by id, and the stored table of each unfinished
        game of its current round."""
        row = self.rows.get(tournament_id)
        if row is None or row["status"] not in ("running", "paused"):
            return None
        rounds = self.rows.rounds(tournament_id)
        entries = {int(e["id"]): e for e in self.rows.entries(tournament_id)}
        stored: dict[str, Row | None] = {}
        if rounds and rounds[-1]["finished_at"] is None:
            for game in rounds[-1]["games"]:
                if game["status"] not in DONE and game["table_id"] is not None:
                    stored[game["table_id"]] = self.lobby.store.db.tables.load_table(
                        game["table_id"])
        return row, rounds, entries, stored

    def _end_round(self, row: Row, current: Row) -> list[Row] | None:
        """The rounds once the current one has ended (marked finished), else ``None``."""
        games = self.rows.rounds(row["id"])[-1]["games"]
        if any(g["status"] not in DONE for g in games):
            return None
        self.rows.finish_round(row["id"], int(current["round"]))
        return self.rows.rounds(row["id"])

    def _breaking(self, row: Row, rounds: list[Row]) -> bool:
        """Whether the tournament waits for its ``round_break`` to end (starting it)."""
        pause = int(row["settings"].get("round_break", 0))
        if not pause or not rounds:
            return False
        when = row["next_round_at"]
        if when is None:
            self.rows.set_next_round_at(row["id"], datetime.now(UTC) + timedelta(seconds=pause))
            return True
        return aware(when) > datetime.now(UTC)

    def _next_round(self, row: Row, rounds: list[Row], entries: dict[int, Row]
                    ) -> list[Row] | None:
        """Off the loop: the next round planned and stored (once), or the tournament
        finished: the new round's games to start (``None``: nothing was planned)."""
        if self._breaking(row, rounds):
            return None
        plan = plan_round(settings_of(row), entries_of(entries.values()), results_of(rounds))
        if plan is None:
            if self.rows.set_status(row["id"], ["running"], "finished",
                                    finished_at=datetime.now(UTC)):
                log.info("tournament %s finished after %d rounds", row["id"], len(rounds))
            return None
        games = [{"table_no": g.table, "entries": list(g.entries), "leg": g.leg,
                  "boards": list(g.boards)} for g in plan.games]
        if self.rows.store_round(row["id"], plan.round, plan.stage, plan.byes, games,
                                 finished=not games):
            log.info("tournament %s: round %d paired (%d tables, %d byes)", row["id"],
                     plan.round, len(games), len(plan.byes))
        return list(self.rows.rounds(row["id"])[-1]["games"])

    async def _play(self, row: Row, games: list[Row], entries: dict[int, Row],
                    stored: dict[str, Row | None]) -> None:
        """The round's pending games started (:meth:`_start`); its playing games watched:
        what :func:`~.watch.watch` decides written in one hop, then the tables it ends closed."""
        pending = [g for g in games if g["status"] == "pending"]
        if pending:
            await self._start(row, pending, entries)
        writes: list[Write] = []
        closing: list[Table] = []
        for game in games:
            if game["status"] == "playing" and game["table_id"] is not None:
                watch(self.lobby, self.rows, row, game, stored.get(game["table_id"]), writes,
                      closing)
        if writes:
            await asyncio.to_thread(lambda: [write() for write, _ in writes])
        if any(ends for _, ends in writes):
            self.wake()  # a game ended (or is to be played again): step on
        for table in closing:
            await self.lobby.close_table(table)

    async def _start(self, row: Row, games: list[Row], entries: dict[int, Row]) -> None:
        """Pending games started: each game's table id stored (one transaction) before its
        table is made (a restart makes that table, never a second one), the tables not made
        yet made, the games marked ``playing`` (one transaction) and their players told.  A
        club night's games (real cards) have no table: marked ``playing`` at once."""
        keys = [(int(g["round"]), int(g["table_no"])) for g in games]
        if real_cards(row):
            await asyncio.to_thread(self.rows.start_games, row["id"], keys, datetime.now(UTC))
            return
        ids = {(int(g["round"]), int(g["table_no"])): secrets.token_urlsafe(6)
               for g in games if g["table_id"] is None}
        games = [{**g, "table_id": g["table_id"] or ids[int(g["round"]), int(g["table_no"])]}
                 for g in games]

        def prepare() -> list[Seating]:  # a table id stored before (a restart): its
            # table may be made already; a new one's is not
            self.rows.set_table_ids(row["id"], ids)
            db = self.lobby.store.db.tables
            return self.tables.seating(row, [
                g for g in games if (int(g["round"]), int(g["table_no"])) in ids
                or db.load_table(g["table_id"]) is None], entries)

        for seating in await asyncio.to_thread(prepare):
            table = await self.tables.make(row, seating)
            if self.router.cluster is not None:
                await self.router.cluster.leases.claim(table.id)
        started = set(await asyncio.to_thread(self.rows.start_games, row["id"], keys,
                                              datetime.now(UTC)))
        for game in games:
            if (int(game["round"]), int(game["table_no"])) in started:
                tell(self.lobby.hub, row, game, entries)

    # -- results from elsewhere ------------------------------------------------------------
    async def record_result(self, tournament_id: str, rnd: int, table_no: int,
                            scores: list[int],
                            board_scores: list[tuple[int, list[int]]] | None = None) -> None:
        """A game's result given its ``scores`` per side (side 0 first), as a score pad
        kept at the table tells it (and, duplicate, each board's): stored, the game's
        table (if any still plays) closed, the tournament stepped.  The winner is the side
        with the most points (none on equal points, or for a duplicate game)."""

        def store() -> str | None:
            row = self.rows.get(tournament_id)
            if row is None:
                raise NotFound("unknown_tournament", f"there is no tournament {tournament_id!r}")
            game = find_game(self.rows.rounds(tournament_id), rnd, table_no)
            if game["status"] in DONE:
                raise Conflict("game_over", f"round {rnd} table {table_no} has its result")
            finish_game(self.rows, row, game, given_result(game, scores, board_scores))
            return str(game["table_id"] or "")

        table_id = await self.locked(store)
        self.wake()
        table = self.lobby.tables.get(table_id or "")
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

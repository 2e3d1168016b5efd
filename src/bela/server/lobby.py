"""The lobby: the server's tables, from creation to the end of their match.

It lists tables, creates them, seats players and bots while a table is open, starts it
(from then on the table's :class:`~bela.server.actor.TableActor` owns the match and the
lobby routes every change to it), and answers the lookups of summaries, records and
history.  Refusals are the domain errors of :mod:`bela.server.errors`.

A single server process rebuilds every open or running table from the database on start
(:meth:`Store.rebuild`, :meth:`Lobby.resume_all`) and resumes the running ones, so a server
killed at any point goes on where the last committed event left it.  Several processes on
one Redis (:mod:`bela.server.cluster`) each keep the tables whose lease they hold: a table
is taken over with :meth:`Lobby.adopt` and let go with :meth:`Lobby.evict`; the hooks
``on_change``, ``on_drop`` and ``on_conflict`` tell the cluster what the lobby did.

Only a table's creator fills its seats with bots, starts it and closes it; a private table's
seats are taken with its invite code.  A periodic sweep (:mod:`bela.server.sweep`) closes
the open tables nobody sat at or left for ``open_table_ttl`` and the running all-bot tables
nobody watched for ``unwatched_bot_table_ttl``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .actor import Act, Begin, Join, Leave, Reply, TableActor, inactive_refusal
from .board_match import table_match
from .botpool import BotPool
from .catalog import BotCatalog
from .errors import Conflict, NotFound
from .factory import TableFactory
from .hub import Conn, Hub
from .listing import ACTIVE as ACTIVE  # re-exported: the tables a lobby runs
from .listing import Listing
from .logs import TableLog
from .metrics import Metrics
from .model import ServerConfig, Table, TableStatus
from .seating import Seating, require_open, require_owner
from .stopping import STEP_LIMIT, within
from .store import BrokenLog, Store

log = logging.getLogger("bela.server")

ENDED = (TableStatus.FINISHED, TableStatus.CLOSED)
ENDED_CACHE = 16  # finished or closed tables kept in memory after a lookup (most recent)
PLAY_ON_BOT = "heuristic"  # the bots of a table that goes on from a record's position


class Lobby:
    """All tables of one server process (used from its event loop only)."""

    def __init__(self, store: Store, hub: Hub, config: ServerConfig,
                 bots: BotPool | None = None) -> None:
        self.store = store
        self.hub = hub
        self.config = config
        self.bots = bots  # where strong bots think (None: in threads)
        self.metrics: Metrics = store.metrics
        self.metrics.watch(lambda: len(self.actors), lambda: sum(
            1 for t in self.tables.values() if t.status == TableStatus.OPEN))
        # what the lobby did, for the cluster: a table's summary changed, a table left
        # memory, a table's log was written by another process (no-ops for one process)
        self.on_change: Callable[[Table], None] = lambda table: None
        self.on_drop: Callable[[Table], None] = lambda table: None
        self.on_conflict: Callable[[Table], None] = self._reload
        self.tables: dict[str, Table] = {}
        self.actors: dict[str, TableActor] = {}  # of tables started and still in memory
        self.broken: dict[str, str] = {}  # tables whose log no longer replays: id -> reason
        # ended tables loaded from the database for a lookup, least recently used first
        self.ended: OrderedDict[str, Table] = OrderedDict()
        self.catalog = BotCatalog()  # the bots this server can run
        self.listed = Listing(self.tables, self.summary, config)  # the lobby list
        self.seating = Seating(self)  # players and bots in the seats of the open tables
        self.factory = TableFactory(self, self.seating)  # new tables
        self._tasks: set[asyncio.Task[None]] = set()  # reloads under way

    # -- start and stop ----------------------------------------------------------------------
    async def resume_all(self) -> None:
        """Rebuild every open or running table from the database and resume it (a single
        server process, at its start)."""
        for row in self.store.db.tables.load_active():
            self.adopt(row)

    def adopt(self, row: dict[str, Any]) -> Table | None:
        """Keep and run the table of a stored row from its last stored event: an open table
        waits for its players, a running one's actor resumes it.  ``None`` (noted in
        ``broken``) when its log does not replay."""
        try:
            table = self.store.rebuild(row)
        except BrokenLog as exc:
            TableLog(log, row["id"]).error("table %s cannot be replayed: %s", row["id"], exc)
            self.broken[row["id"]] = str(exc)
            return None
        self.tables[table.id] = table
        self.listed.stale()
        if table.status == TableStatus.RUNNING:
            table.watched_at = time.time()
            self._spawn(table).post(Begin())
        return table

    async def evict(self, table_id: str) -> None:
        """Let a table go without changing it (another process runs it now, or it is
        reloaded): its actor stops, its connections are closed with
        :data:`~bela.server.hub.RECONNECT` (their clients connect again, to whichever
        process runs it)."""
        table = self.tables.pop(table_id, None)
        actor = self.actors.pop(table_id, None)
        if actor is not None:
            await actor.stop()
        if table is not None:
            self.hub.forget(table)
        self.listed.stale()

    def _reload(self, table: Table) -> None:
        """A single process's answer to a log written by another process on its database:
        the table is read again from the database (the log is the truth)."""
        async def reload() -> None:
            await self.evict(table.id)
            row = self.store.db.tables.load_table(table.id, with_log=True)
            if row is not None and row["status"] in ACTIVE:
                self.adopt(row)

        task = asyncio.get_running_loop().create_task(reload())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def shutdown(self) -> None:
        """Stop every table here (at most :data:`~.stopping.STEP_LIMIT` seconds, all
        together) and close the connections."""
        stops = [actor.stop() for actor in self.actors.values()]
        if stops:
            await within(asyncio.gather(*stops), STEP_LIMIT, "the tables' actors")
        self.hub.close_all()

    def _spawn(self, table: Table) -> TableActor:
        actor = TableActor(table, self.store, self.hub, self.config, on_idle=self._drop,
                           on_conflict=lambda t: self.on_conflict(t), metrics=self.metrics,
                           bots=self.bots)
        self.actors[table.id] = actor
        actor.start()
        return actor

    def _drop(self, table: Table) -> None:
        """Forget a finished or closed table nobody watches (it is in the database: loaded
        again on demand)."""
        self.tables.pop(table.id, None)
        self.actors.pop(table.id, None)
        self.on_drop(table)

    # -- lookups -----------------------------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """A table in memory, or an ended one loaded from the database; of those only the
        ``ENDED_CACHE`` used last stay in memory."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        table = self.ended.get(table_id)
        if table is not None:
            self.ended.move_to_end(table_id)
            return table
        if not isinstance(table_id, str) or len(table_id) > 32 or table_id in self.broken:
            return None
        row = self.store.db.tables.load_table(table_id, with_log=True)
        if row is None or row["status"] not in ENDED:
            return None
        try:
            table = self.store.rebuild(row)
        except BrokenLog as exc:
            self.broken[table_id] = str(exc)
            return None
        self.ended[table.id] = table
        if len(self.ended) > ENDED_CACHE:
            self.ended.popitem(last=False)
        return table

    def require(self, table_id: str) -> Table:
        table = self.get(table_id)
        if table is None:
            raise NotFound("unknown_table", f"there is no table {table_id!r}")
        return table

    def summary(self, table: Table, viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        """The table summary, with ``private``; for the creator of a private table also its
        ``invite_code`` and an ``invite`` link that carries it."""
        out = self.hub.summary(table)
        out["private"] = table.private
        if table.private and viewer is not None and viewer["id"] == table.owner_id:
            out["invite_code"] = table.invite_code
            out["invite"] = f"/?table={table.id}&code={table.invite_code}"
        return out

    def changed(self, table: Table) -> None:
        """A change the lobby made to a table: its clients hear of it, the lobby list is
        rebuilt at the next poll."""
        self.hub.broadcast_table(table)
        self.listed.stale()
        self.on_change(table)

    # -- start and close ---------------------------------------------------------------------
    async def start(self, table: Table, player: dict[str, Any]) -> None:
        """Start the match (the creator's call): its actor takes the table over and deals
        the first round."""
        require_open(table)
        require_owner(table, player)
        self._require_strong_quota(table, player)
        await self.start_match(table)

    def strong(self, table: Table) -> bool:
        """Does a bot of ``table`` think in the bot pool (a strong bot, shared by all)?"""
        return (self.bots is not None and self.bots.pooled(table.bot)
                and any(s.is_bot for s in table.seats))

    def _require_strong_quota(self, table: Table, player: dict[str, Any]) -> None:
        """At most ``strong_bot_tables`` running tables with strong bots per player and per
        address (the bot pool is shared: SECURITY.md, "Fair shares and ratings")."""
        limit = self.config.strong_bot_tables
        if not limit or not self.strong(table):
            return
        address = player.get("address")
        mine = [t for t in self.tables.values()
                if t.status == TableStatus.RUNNING and t is not table and self.strong(t)
                and (t.owner_id == player["id"] or (address is not None and (
                    t.owner_address == address
                    or any(s.address == address for s in t.seats))))]
        if len(mine) >= limit:
            raise Conflict("too_many_bot_tables", f"you (or your address) run {limit} tables "
                           f"with strong bots: finish or close one first, or play the "
                           f"heuristic bot")

    async def start_match(self, table: Table) -> None:
        free = [i for i, s in enumerate(table.seats) if s.free]
        if free:
            raise Conflict("seats_free", f"seats {', '.join(map(str, free))} are empty: "
                           "wait for players or fill them with bots")
        table.status = TableStatus.RUNNING
        try:
            self.store.save_status(table)
        except Exception:  # the database refused: the table stays open
            table.status = TableStatus.OPEN
            raise
        table.match = table_match(table.variant, table.options, table.seed, table.boards)
        table.watched_at = time.time()
        actor = self._spawn(table)
        self.changed(table)
        await actor.ask(Begin())

    async def close(self, table: Table, player: dict[str, Any]) -> None:
        """The creator closes his open table, or stops his running table of bots only."""
        require_owner(table, player)
        if table.status not in ACTIVE:
            raise Conflict("not_open", f"table {table.id} is over")
        if table.status == TableStatus.RUNNING and not all(s.is_bot for s in table.seats):
            raise Conflict("has_players", "a running table with players ends with its match")
        await self.close_table(table)

    async def close_table(self, table: Table) -> None:
        """Status ``closed``, stored first (raises, changing nothing, when the database
        refuses); a running table's actor stops; the table's clients are told."""
        status, table.status = table.status, TableStatus.CLOSED
        try:
            self.store.save_status(table)
        except Exception:
            table.status = status
            raise
        actor = self.actors.pop(table.id, None)
        if actor is not None:
            await actor.stop()
            for conn in self.hub.conns(table):  # gone, but the actor stopped before it heard
                if conn.closed:
                    self.hub.remove(table, conn)
        self.changed(table)
        if not self.hub.conns(table):
            self._drop(table)

    # -- connections -------------------------------------------------------------------------
    async def connect(self, table: Table, conn: Conn) -> None:
        """A connection opens: it is welcomed (a player's return stops the bot playing for
        him)."""
        table.watched_at = time.time()
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Join(conn))
            return
        self.hub.add(table, conn)
        self.hub.welcome(table, conn)

    async def disconnect(self, table: Table, conn: Conn) -> None:
        """A connection closes (an absent player's grace period begins)."""
        conn.close()
        table.watched_at = time.time()
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Leave(conn))
            return
        self.hub.remove(table, conn)
        if table.status in ENDED and not self.hub.conns(table):
            self._drop(table)
            return
        self.hub.announce(table)

    async def act(self, table: Table, conn: Conn, token: str, seq: int | None) -> Reply:
        """A client's action: ``None`` when applied, else the error message for it."""
        actor = self.actors.get(table.id)
        if actor is not None:
            return await actor.ask(Act(conn, token, seq))
        return inactive_refusal(table, conn)

    def sync(self, table: Table, conn: Conn) -> None:
        """The current state and summary to one connection again."""
        self.hub.send_state(table, conn)
        conn.send({"type": "table", "table": self.summary(table)})

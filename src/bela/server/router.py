"""Where a request about a table is served: in this process, or at the instance that runs it.

One server process (no Redis) serves everything itself: the router hands each request to
its :class:`~bela.server.lobby.Lobby`.  Several instances on one Redis
(:mod:`bela.server.cluster`) serve a table where its lease is: a REST change or a
WebSocket's join, action, sync and leave made at another instance travel there as a call,
and the table's messages come back for the connection; a table nobody runs (its instance
died) is taken over by the instance that is asked about it, as by the periodic scan.

The table operations are one set of functions (:data:`TABLE_OPS`), run here for a local
table and at the table's instance for a call from another: the same code either way.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .actor import Reply
from .cluster import Cluster, Moved, Relay
from .errors import NotFound, Unavailable
from .hub import Conn
from .lobby import Lobby
from .model import Table
from .protocol import error
from .talk import BotTalk, TableTalk, TalkRules
from .talk.lobby_room import LobbyRoom

Player = dict[str, Any]
TableOp = Callable[[Lobby, Table, Player | None, dict[str, Any]], Awaitable[None]]


async def _summary(lobby: Lobby, table: Table, player: Player | None,
                   args: dict[str, Any]) -> None:
    return None


async def _sit(lobby: Lobby, table: Table, player: Player | None, args: dict[str, Any]) -> None:
    assert player is not None
    lobby.seating.sit(table, player, args["seat"], args.get("code"))


async def _leave(lobby: Lobby, table: Table, player: Player | None,
                 args: dict[str, Any]) -> None:
    assert player is not None
    lobby.seating.leave(table, player)


async def _bots(lobby: Lobby, table: Table, player: Player | None, args: dict[str, Any]) -> None:
    assert player is not None
    lobby.seating.fill_bots(table, player, args.get("seats"))


async def _start(lobby: Lobby, table: Table, player: Player | None,
                 args: dict[str, Any]) -> None:
    assert player is not None
    await lobby.start(table, player)


async def _close(lobby: Lobby, table: Table, player: Player | None,
                 args: dict[str, Any]) -> None:
    assert player is not None
    await lobby.close(table, player)


# the REST operations on one table; each answers with the table's summary for the player
TABLE_OPS: dict[str, TableOp] = {"summary": _summary, "sit": _sit, "leave": _leave,
                                 "bots": _bots, "start": _start, "close": _close}
TRIES = 3  # lookups of a table's instance before a request is refused as "moving"


class Session(Protocol):
    """A WebSocket's link to its table, wherever the table runs."""

    async def act(self, token: str, seq: int | None) -> Reply: ...
    async def sync(self) -> None: ...
    async def close(self) -> None: ...
    async def say(self, phrase: str) -> Reply: ...
    async def chat(self, name: str, text: str) -> Reply: ...
    async def report(self, line_id: int) -> Reply: ...


class LocalSession:
    """A connection to a table run here."""

    def __init__(self, lobby: Lobby, talk: TableTalk, table: Table, conn: Conn) -> None:
        self.lobby, self.talk, self.table, self.conn = lobby, talk, table, conn

    async def say(self, phrase: str) -> Reply:
        return self.talk.say(self.table, self.conn.seat, phrase)

    async def chat(self, name: str, text: str) -> Reply:
        return await self.talk.chat(self.table, self.conn, name, text)

    async def report(self, line_id: int) -> Reply:
        return await self.talk.report(self.table, self.conn, line_id)

    async def act(self, token: str, seq: int | None) -> Reply:
        return await self.lobby.act(self.table, self.conn, token, seq)

    async def sync(self) -> None:
        self.lobby.sync(self.table, self.conn)

    async def close(self) -> None:
        await self.lobby.disconnect(self.table, self.conn)


class RelaySession:
    """A connection to a table run by another instance."""

    def __init__(self, cluster: Cluster, relay: Relay) -> None:
        self.cluster, self.relay = cluster, relay

    async def act(self, token: str, seq: int | None) -> Reply:
        try:
            reply: Reply = await self.relay.call("act", token=token, seq=seq)
        except Unavailable as exc:  # the connection is closed: the client connects again
            return error(exc.code, exc.message)
        return reply

    async def sync(self) -> None:
        try:
            await self.relay.call("sync")
        except Unavailable:
            pass

    async def _talk(self, op: str, **args: Any) -> Reply:
        try:
            reply: Reply = await self.relay.call(op, **args)
        except Unavailable as exc:
            return error(exc.code, exc.message)
        return reply

    async def say(self, phrase: str) -> Reply:
        return await self._talk("say", phrase=phrase)

    async def chat(self, name: str, text: str) -> Reply:
        return await self._talk("chat", name=name, text=text)

    async def report(self, line_id: int) -> Reply:
        return await self._talk("report", line_id=line_id)

    async def close(self) -> None:
        await self.cluster.relays.unrelay(self.relay)


class Router:
    """The server's tables, wherever they run (``redis_url``: several instances share them;
    ``None``: this process alone)."""

    def __init__(self, lobby: Lobby, redis_url: str | None = None, instance: str = "",
                 lease_ttl: float = 5.0) -> None:
        self.lobby = lobby
        self.instance = instance
        cfg = lobby.config
        self.talk = TableTalk(lobby.hub.conns, TalkRules(cfg.talk_max_length, cfg.talk_words),
                              lobby.store.db.talk.add_report, lobby.store.db.blocks.blockers)
        lobby.hub.after_state = BotTalk(self.talk.say).after_state
        self.cluster = (Cluster(redis_url, instance, lobby, lobby.metrics, lease_ttl,
                                self._serve) if redis_url else None)
        self.lobby_room = LobbyRoom(self.talk.rules, lobby.store.db.talk.add_report,
                                    lobby.store.db.blocks,
                                    self._tell_lobby_line if self.cluster else None)
        if self.cluster is not None:
            self.cluster.on_lobby_line = self.lobby_room.heard
        self._listed: list[str] | None = None  # the cluster's lobby list, as summaries' JSON
        self._listed_at = 0.0

    async def _tell_lobby_line(self, line: dict[str, Any]) -> None:
        assert self.cluster is not None
        await self.cluster.inbox.tell_everyone("lobby_line", line=line)

    # -- life ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Resume the stored tables (one process), or join the cluster (its scans take over
        the tables nobody runs)."""
        if self.cluster is None:
            await self.lobby.resume_all()
        else:
            await self.cluster.start()

    async def stop(self) -> None:
        if self.cluster is None:
            await self.lobby.shutdown()
        else:
            await self.cluster.stop()

    async def ready(self) -> bool:
        """Whether the cluster link works (always, for one process)."""
        return self.cluster is None or await self.cluster.ready()

    # -- where a table runs ----------------------------------------------------------------
    async def _owner(self, table_id: str) -> str | None:
        """The instance that runs ``table_id``, or ``None`` when it is served here: run
        here, taken over here (nobody ran it), or not active (read from the database)."""
        c = self.cluster
        if c is None or c.leases.holds(table_id):
            return None
        owner = await c.leases.owner(table_id)
        if owner is not None and owner != c.id:
            return owner
        if await c.leases.take(table_id) is not None:
            return None
        owner = await c.leases.owner(table_id)  # another instance took it first
        return None if owner is None or owner == c.id else owner

    async def table_op(self, op: str, table_id: str, player: Player | None,
                       **args: Any) -> dict[str, Any]:
        """Run a REST operation (:data:`TABLE_OPS`) on a table: its summary for ``player``
        afterwards."""
        for _ in range(TRIES):
            owner = await self._owner(table_id)
            if owner is None:
                return await self._run(op, self.lobby.require(table_id), player, args)
            assert self.cluster is not None
            try:
                result: dict[str, Any] = await self.cluster.inbox.call(owner, op, table_id,
                                                                       player, args)
                return result
            except Moved:
                continue
        raise _moving()

    async def _run(self, op: str, table: Table, player: Player | None,
                   args: dict[str, Any]) -> dict[str, Any]:
        await TABLE_OPS[op](self.lobby, table, player, args)
        return self.lobby.summary(table, player)

    async def _serve(self, op: str, table_id: str, player: Player | None,
                     args: dict[str, Any]) -> Any:
        """A call from another instance about a table run here (``_from``, ``_epoch``: that
        instance and its inbox subscription)."""
        assert self.cluster is not None
        table = self.lobby.tables[table_id]
        if op in TABLE_OPS:
            return await self._run(op, table, player, args)
        key = (args["_from"], args["conn"])
        if op == "join":
            rconn = self.cluster.relays.join(table, args["_from"], args["_epoch"],
                                             args["conn"], args.get("player_id"))
            try:
                self.lobby.seating.admit(table, rconn, args.get("code"))
            except Exception:
                self.cluster.relays.remote.pop(key, None)
                raise
            await self.lobby.connect(table, rconn)
            return None
        if op == "part":
            await self.cluster.relays.part(key, table_id)
            return None
        joined = self.cluster.relays.remote_conn(*key)
        if joined is None:  # the table moved here after that connection joined it
            raise Moved(table_id)
        if op == "act":
            return await self.lobby.act(table, joined, args["token"], args.get("seq"))
        if op == "sync":
            self.lobby.sync(table, joined)
            return None
        if op == "say":
            return self.talk.say(table, joined.seat, args["phrase"])
        if op == "chat":
            return await self.talk.chat(table, joined, args["name"], args["text"])
        if op == "report":
            return await self.talk.report(table, joined, args["line_id"])
        raise NotFound("unknown_call", f"no call {op!r}")

    # -- tables ----------------------------------------------------------------------------
    async def create(self, player: Player, **kwargs: Any) -> dict[str, Any]:
        """A new table, run here (see :meth:`TableFactory.create`): its summary for its
        creator."""
        table = self.lobby.factory.create(player, **kwargs)
        if self.cluster is not None:
            await self.cluster.leases.claim(table.id)
        return self.lobby.summary(table, player)

    async def create_match(self, variant: str, players: list[Player], bot: str) -> str:
        """A quick-play table, run here and started (see
        :meth:`TableFactory.create_match`): its id."""
        table = await self.lobby.factory.create_match(variant, players, bot)
        if self.cluster is not None:
            await self.cluster.leases.claim(table.id)
        return table.id

    async def play_on(self, player: Player, log: dict[str, Any], seat: int) -> dict[str, Any]:
        """A table going on from a record's position, run here and started (see
        :meth:`TableFactory.play_on`): its summary for its creator."""
        table = await self.lobby.factory.play_on(player, log, seat)
        if self.cluster is not None:
            await self.cluster.leases.claim(table.id)
        return self.lobby.summary(table, player)

    async def listing(self, offset: int, limit: int) -> tuple[bytes, int]:
        """A page of the lobby list (JSON) and the length of the whole list: this process's
        tables, or every instance's (read from Redis at most every ``listing_ttl``)."""
        if self.cluster is None:
            return self.lobby.listed.page(offset, limit)
        now = time.monotonic()
        if self._listed is None or now - self._listed_at >= self.lobby.config.listing_ttl:
            self._listed = await self.cluster.lobby_list.listing()
            self._listed_at = now
        page = "[" + ",".join(self._listed[offset:offset + limit]) + "]"
        return page.encode(), len(self._listed)

    # -- connections -----------------------------------------------------------------------
    async def open(self, table_id: str, conn: Conn, code: str | None) -> Session:
        """Connect ``conn`` (its ``player_id`` set) to its table: welcomed with the current
        state, then sent every change.  Raises the refusal (unknown table, private table
        without its code, table moving)."""
        for _ in range(TRIES):
            owner = await self._owner(table_id)
            if owner is None:
                table = self.lobby.require(table_id)
                self.lobby.seating.admit(table, conn, code)
                await self.lobby.connect(table, conn)
                return LocalSession(self.lobby, self.talk, table, conn)
            assert self.cluster is not None
            try:
                relay = await self.cluster.relays.relay(owner, table_id, conn, conn.player_id,
                                                         code)
            except Moved:
                continue
            return RelaySession(self.cluster, relay)
        raise _moving()


def _moving() -> Unavailable:
    return Unavailable("table_moving", "the table is moving to another server process: try "
                       "again in a few seconds")

"""Connections relayed between the instances of a cluster: at the instance holding a
WebSocket, its :class:`Relay` to the table's instance; at the table's instance, a
:class:`RemoteConn` standing for it (see :mod:`bela.server.cluster`)."""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from ..errors import Refused, Unavailable
from ..hub import RECONNECT, Conn, dumps
from ..model import Table
from .common import EVERYONE, Moved, Part, instance_key, lease_key, log

if TYPE_CHECKING:
    from . import Cluster
    from .inbox import Inbox


class RemoteConn(Conn):
    """At a table's instance: a connection held by another instance.  What the table sends
    it goes to that instance's inbox; it lives as long as that instance's ``epoch``."""

    def __init__(self, inbox: Inbox, instance: str, epoch: str, conn_id: str,
                 player_id: str | None) -> None:
        super().__init__(self._unused, player_id, None)
        self.inbox = inbox
        self.instance = instance
        self.epoch = epoch
        self.conn_id = conn_id

    @staticmethod
    async def _unused(_text: str) -> None:  # pragma: no cover - never called
        raise AssertionError("a remote connection is sent to through its instance")

    def send(self, msg: dict[str, Any] | str) -> None:
        if not self.closed:
            text = msg if isinstance(msg, str) else dumps(msg)
            self.inbox.forward(self.instance, {"c": self.conn_id, "t": text})

    def close(self, code: int | None = None) -> None:
        if not self.closed:
            self.closed = True
            self.inbox.forward(self.instance, {"c": self.conn_id, "x": code or 1000})


class Relay:
    """At the instance holding a WebSocket: the connection's link to its table running at
    another instance (``owner``)."""

    def __init__(self, inbox: Inbox, owner: str, table_id: str, conn: Conn) -> None:
        self.inbox = inbox
        self.owner = owner
        self.table_id = table_id
        self.conn = conn
        self.id = secrets.token_hex(8)

    async def call(self, op: str, **args: Any) -> Any:
        """Ask the table's instance; a link that fails closes the connection with
        :data:`RECONNECT` (the client connects again, to whichever instance runs the table)
        and raises :class:`Unavailable`."""
        try:
            return await self.inbox.call(self.owner, op, self.table_id, None,
                                         {"conn": self.id, **args})
        except (Moved, Unavailable) as exc:
            log.warning("a connection to table %s relayed to %s is closed (%s: %s)",
                        self.table_id, self.owner, type(exc).__name__, exc,
                        extra={"table": self.table_id})
            self.conn.close(RECONNECT)
            if isinstance(exc, Unavailable):
                raise
            raise Unavailable("table_moving", "the table moved to another server process: "
                              "connect again") from None


class Relays(Part):
    """The connections this instance relays to tables run elsewhere (``relays``, by id),
    those other instances relay to tables run here (``remote``), and a player's connections
    closed everywhere."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self.relays: dict[str, Relay] = {}  # relayed connections by id
        self.remote: dict[tuple[str, str], tuple[str, RemoteConn]] = {}  # (instance, id) ->
        self._absent: set[str] = set()  # instances whose key was missing at the last tick

    def join(self, table: Table, instance: str, epoch: str, conn_id: str,
             player_id: str | None) -> RemoteConn:
        """Register a connection another instance holds at a table run here."""
        rconn = RemoteConn(self.cluster.inbox, instance, epoch, conn_id, player_id)
        self.remote[(instance, conn_id)] = (table.id, rconn)
        return rconn

    def remote_conn(self, instance: str, conn_id: str) -> RemoteConn | None:
        entry = self.remote.get((instance, conn_id))
        return None if entry is None else entry[1]

    async def part(self, key: tuple[str, str], table_id: str) -> None:
        """A connection of another instance left (or its instance is gone)."""
        entry = self.remote.pop(key, None)
        table = self.lobby.tables.get(table_id)
        if entry is not None and table is not None:
            await self.lobby.disconnect(table, entry[1])

    async def drop_stale_remotes(self) -> None:
        """Connections registered here at tables no longer here are forgotten; those of an
        earlier inbox subscription of their instance, or of an instance gone (its key
        missing at two ticks in a row: one late renewal is not a death), are disconnected;
        the clients of those still there connect again."""
        for key, (table_id, _rconn) in list(self.remote.items()):
            if table_id not in self.lobby.tables:  # the table ended or moved: forget them
                del self.remote[key]
        instances = sorted({inst for inst, _ in self.remote})
        if not instances:
            self._absent = set()
            return
        epochs = dict(zip(instances, await self.redis.mget(
            [instance_key(i) for i in instances])))
        absent = {i for i, epoch in epochs.items() if epoch is None}
        gone = absent & self._absent
        self._absent = absent
        for key, (table_id, rconn) in list(self.remote.items()):
            epoch = epochs.get(rconn.instance)
            if rconn.instance in gone or (epoch is not None and epoch != rconn.epoch):
                rconn.close(RECONNECT)
                await self.part(key, table_id)

    async def check(self) -> None:
        """Relayed connections whose table another instance runs now than the one they
        joined are closed (their clients connect again).  A lease missing for a moment (its
        instance renews late) is no move: a dead instance's tables show as moved once
        another instance took them."""
        tables = sorted({relay.table_id for relay in self.relays.values()})
        if not tables:
            return
        owners = dict(zip(tables, await self.redis.mget([lease_key(t) for t in tables])))
        for relay in list(self.relays.values()):
            holder = owners.get(relay.table_id)
            if holder is not None and holder != relay.owner:
                log.info("table %s moved from %s: its relayed connection is closed",
                         relay.table_id, relay.owner, extra={"table": relay.table_id})
                relay.conn.close(RECONNECT)

    async def relay(self, owner: str, table_id: str, conn: Conn, player_id: str | None,
                    code: str | None) -> Relay:
        """Join ``conn`` to the table that ``owner`` runs (raises its refusal, or
        :class:`Moved`)."""
        relay = Relay(self.cluster.inbox, owner, table_id, conn)
        self.relays[relay.id] = relay
        try:
            await self.cluster.inbox.call(owner, "join", table_id, None,
                                          {"conn": relay.id, "player_id": player_id, "code": code})
        except BaseException:
            self.relays.pop(relay.id, None)
            raise
        return relay

    async def unrelay(self, relay: Relay) -> None:
        self.relays.pop(relay.id, None)
        with contextlib.suppress(Refused, Moved):
            await relay.call("part")

    def close_player(self, player_id: str, code: int) -> int:
        """Close the player's WebSockets held here, at tables run here and relayed to
        tables run elsewhere, with ``code``; how many."""
        closed = self.lobby.hub.close_player(player_id, code)
        for relay in list(self.relays.values()):
            if relay.conn.player_id == player_id and not relay.conn.closed:
                relay.conn.close(code)
                closed += 1
        return closed

    async def close_player_everywhere(self, player_id: str, code: int) -> int:
        """:meth:`close_player` here and at every other instance (told on
        :data:`EVERYONE`); how many were closed here.  Redis out of reach: logged, and the
        other instances' connections stay open until they are next made."""
        closed = self.close_player(player_id, code)
        msg = {"k": "close_player", "from": self.id, "player": player_id, "code": code}
        try:
            await self.redis.publish(EVERYONE, dumps(msg))
        except (RedisError, OSError) as exc:
            self.metrics.errors.labels(kind="cluster").inc()
            log.warning("the other instances could not be told to close player %s's "
                        "connections (%s)", player_id, type(exc).__name__)
        return closed

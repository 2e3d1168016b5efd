"""The inbox of an instance (pub/sub channel ``bela:inbox:<instance>``, and ``bela:everyone``
heard by all): the calls one instance makes to the instance that runs a table and their
answers, and the messages for connections relayed between them, batched per instance
(see :mod:`bela.server.cluster`)."""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from redis.asyncio.connection import AbstractConnection
from redis.exceptions import RedisError

from ..errors import Refused, Unavailable
from ..hub import RECONNECT, dumps, loads
from ..logs import TableLog
from .common import (
    CALL_TIMEOUT,
    EVERYONE,
    Moved,
    Part,
    inbox,
    instance_key,
    log,
    refusal_from_json,
    refusal_json,
)
from .subscription import Subscription, subscribe

if TYPE_CHECKING:
    from . import Cluster


class Inbox(Part):
    """The calls this instance makes and answers, its subscription (``epoch``: of the
    current one, "" while there is none) and its outbox to the other instances.

    ``serve(op, table, player, args)`` runs a call another instance made about a table this
    instance runs (see :mod:`bela.server.router`)."""

    def __init__(self, cluster: Cluster,
                 serve: Callable[[str, str, dict[str, Any] | None, dict[str, Any]],
                                 Awaitable[Any]]) -> None:
        super().__init__(cluster)
        self._serve = serve
        self.epoch = ""  # of the current inbox subscription ("" while there is none)
        self._subscribed = asyncio.Event()
        self._ids = itertools.count()
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._outbox: dict[str, list[dict[str, Any]]] = {}  # the messages for each instance
        self._outbox_calls: dict[str, list[str]] = {}  # the calls among them
        self._outbox_ready = asyncio.Event()
        self._wire: AbstractConnection | None = None  # the outbox's own connection to Redis
        self._wire_lock = asyncio.Lock()  # a flush at stop while the outbox task flushes

    async def call(self, owner: str, op: str, table_id: str, player: dict[str, Any] | None,
                   args: dict[str, Any]) -> Any:
        """Run ``op`` at the instance that runs the table; its result, or its refusal
        raised here.  Raises :class:`Moved` when that instance does not run the table and
        :class:`Unavailable` when it does not answer.  The call goes out with the other
        messages for that instance of the same turn of the loop (:meth:`flush`)."""
        call_id = f"{self.id}:{next(self._ids)}"
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = reply
        self._post(owner, {"k": "call", "id": call_id, "from": self.id, "epoch": self.epoch,
                           "op": op, "table": table_id, "player": player, "args": args},
                   call_id)
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                answer = await reply
        except TimeoutError:
            self.metrics.errors.labels(kind="cluster").inc()
            raise Unavailable("table_moving", "the server process running this table does "
                              "not answer: try again in a few seconds") from None
        finally:
            self._pending.pop(call_id, None)
        if answer.get("moved"):
            raise Moved(table_id)
        if "error" in answer:
            raise refusal_from_json(answer["error"])
        return answer.get("result")

    async def _answer(self, msg: dict[str, Any]) -> None:
        """Run a call another instance made, and send its answer back."""
        out: dict[str, Any] = {"k": "answer", "id": msg["id"]}
        table_id = msg["table"]
        try:
            if not self.cluster.leases.holds(table_id):
                raise Moved(table_id)
            out["result"] = await self._serve(msg["op"], table_id, msg.get("player"),
                                              {**msg["args"], "_from": msg["from"],
                                               "_epoch": msg.get("epoch", "")})
        except Moved:
            out["moved"] = True
        except Refused as exc:
            out["error"] = refusal_json(exc)
        except Exception as exc:
            self.metrics.errors.labels(kind="internal").inc()
            TableLog(log, table_id).exception("table %s: a call %r from %s failed", table_id,
                                              msg["op"], msg["from"])
            out["error"] = refusal_json(Unavailable("internal", f"the call failed "
                                                    f"({type(exc).__name__})"))
        self._post(msg["from"], out)

    async def tell_everyone(self, kind: str, **fields: Any) -> None:
        """A message of ``kind`` to every other instance (:data:`EVERYONE`); Redis out of
        reach: lost (counted)."""
        try:
            await self.redis.publish(EVERYONE, dumps({"k": kind, "from": self.id,
                                                           **fields}))
        except (RedisError, OSError):
            self.metrics.errors.labels(kind="cluster").inc()

    def forward(self, instance: str, item: dict[str, Any]) -> None:
        """Queue a message (``t``: text) or a close (``x``: code) for a connection held by
        ``instance``: sent with the others queued in the same turn of the loop, in order."""
        queued = self._outbox.setdefault(instance, [])
        if queued and queued[-1]["k"] == "out":
            queued[-1]["items"].append(item)
        else:
            queued.append({"k": "out", "items": [item]})
        self._outbox_ready.set()

    def _post(self, instance: str, msg: dict[str, Any], call_id: str | None = None) -> None:
        """Queue a message for ``instance`` (a call's: ``call_id``), after those queued."""
        self._outbox.setdefault(instance, []).append(msg)
        if call_id is not None:
            self._outbox_calls.setdefault(instance, []).append(call_id)
        self._outbox_ready.set()

    async def send_outbox(self, closed: asyncio.Event) -> None:
        while not closed.is_set():
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            await self.flush()

    async def flush(self) -> None:
        """Send what is queued: one message to each instance (a ``batch`` of them where
        several are queued), all in one round trip to Redis.  A call to an instance that
        nobody listens for (it is gone), or that Redis did not take, fails at once."""
        batches, self._outbox = self._outbox, {}
        calls, self._outbox_calls = self._outbox_calls, {}
        if not batches:
            return
        order = list(batches)
        try:
            heard = await self._publish([("PUBLISH", inbox(instance), dumps(
                batches[instance][0] if len(batches[instance]) == 1
                else {"k": "batch", "msgs": batches[instance]})) for instance in order])
        except (RedisError, OSError) as exc:
            # lost: that instance closes its relays when its subscription breaks, and
            # this one drops its connections when its epoch changes; the calls fail
            failed = self._unavailable(exc)
            for instance in order:
                self._fail(calls.get(instance, ()), failed)
            return
        for instance, listeners in zip(order, heard):
            if not listeners:  # nobody listens there: the instance is gone
                self._fail(calls.get(instance, ()), Unavailable(
                    "table_moving", "the server process running this table stopped; "
                    "another takes it over within seconds: try again"))

    async def _publish(self, commands: list[tuple[str, str, str]]) -> list[int]:
        """The ``PUBLISH`` commands sent in one write on the outbox's own connection, and
        how many listened to each: no pool, pipeline object or task per command, which
        took about half of a flush's CPU (docs/CAPACITY.md).  The whole exchange has
        :data:`CALL_TIMEOUT`.  A connection that fails or times out mid-way is closed by
        redis-py, and the next flush connects again, so a late answer is never read by
        the wrong flush (tests/server/test_server_cluster_outbox.py)."""
        async with self._wire_lock:
            if self._wire is None:
                pool = self.redis.connection_pool  # its settings, with the timeout here
                self._wire = pool.connection_class(
                    **{**pool.connection_kwargs, "socket_timeout": None})
            wire = self._wire
            async with asyncio.timeout(CALL_TIMEOUT):
                await wire.send_packed_command(wire.pack_commands(commands),
                                               check_health=False)
                return [await wire.read_response() for _ in commands]

    async def close(self) -> None:
        """Close the outbox's connection (the instance stops)."""
        async with self._wire_lock:
            wire, self._wire = self._wire, None
            if wire is not None:
                await wire.disconnect()

    def _fail(self, call_ids: Iterable[str], exc: Unavailable) -> None:
        for call_id in call_ids:
            reply = self._pending.get(call_id)
            if reply is not None and not reply.done():
                reply.set_exception(Unavailable(exc.code, exc.message))

    async def listen(self, closed: asyncio.Event) -> None:
        """Read the inbox (:mod:`~bela.server.cluster.subscription`: its messages go to
        :meth:`_incoming` as they arrive); when the subscription breaks, every relayed
        connection is closed (its messages may be lost) and the inbox is subscribed again
        with a new epoch.  Ends when cancelled (the instance stops)."""
        pause = 0.2
        while not closed.is_set():
            link: Subscription | None = None
            try:
                link = await subscribe(self.redis, [inbox(self.id), EVERYONE],
                                       self._incoming, CALL_TIMEOUT)
                self.epoch = secrets.token_hex(6)
                await self.redis.set(instance_key(self.id), self.epoch, px=self.ttl_ms)
                self._subscribed.set()
                pause = 0.2
                await link.lost  # raises once the connection is gone
            except (RedisError, OSError) as exc:
                self.metrics.errors.labels(kind="cluster").inc()
                if self.epoch:
                    log.warning("the inbox subscription broke (%s): relayed connections "
                                "are closed; subscribing again", exc)
            finally:
                self.epoch = ""
                self._link_lost()
                if link is not None:
                    link.close()
            await asyncio.sleep(pause)
            pause = min(2.0, pause * 2)

    def _link_lost(self) -> None:
        for relay in list(self.cluster.relays.relays.values()):
            relay.conn.close(RECONNECT)
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(Unavailable("cluster", "the link to the other server "
                                                "processes broke: try again"))

    def _incoming(self, data: bytes) -> None:
        msg = loads(data)
        for one in msg["msgs"] if msg.get("k") == "batch" else (msg,):
            self._receive(one)

    def _receive(self, msg: dict[str, Any]) -> None:
        kind = msg.get("k")
        if kind == "out":
            for item in msg["items"]:
                relay = self.cluster.relays.relays.get(item["c"])
                if relay is None:
                    continue
                if "t" in item:
                    relay.conn.send(item["t"])
                else:
                    relay.conn.close(item["x"])
        elif kind == "answer":
            reply = self._pending.get(msg["id"])
            if reply is not None and not reply.done():
                reply.set_result(msg)
        elif kind == "call":
            self._job(self._answer(msg))
        elif kind == "lobby_line" and msg["from"] != self.id:
            if self.cluster.on_lobby_line is not None:
                self.cluster.on_lobby_line(msg["line"])
        elif kind == "close_player" and msg["from"] != self.id:
            closed = self.cluster.relays.close_player(msg["player"], msg["code"])
            if closed:
                log.info("player %s's %d connections closed here (asked by %s)",
                         msg["player"], closed, msg["from"])

"""Several server processes ("instances") of one site, on one database and one Redis.

PostgreSQL is the store of record; Redis carries only what the instances share, all of it
rebuilt by them when Redis restarts empty:

- **Leases** (``bela:lease:<table>`` = the instance id, with a time to live): the instance
  that holds a table's lease keeps the table in its :class:`~bela.server.lobby.Lobby` and
  runs its actor; every change of the table happens there.  The holder renews its leases
  every ``lease_ttl / 3`` seconds; an instance killed stops renewing, and after
  ``lease_ttl`` another instance's scan finds the table without a lease, takes it
  (``SET NX``), replays it from the database and resumes it.  A process that still believed
  it ran the table cannot append to its log: each write checks the table's stored event
  count (:class:`~bela.storage.LogConflict`).
- **Inboxes** (pub/sub channel ``bela:inbox:<instance>``): calls to the instance that runs a
  table (a REST change, a WebSocket joining, acting, syncing, leaving) and their replies,
  and the messages for connections one instance holds at tables another runs, batched per
  instance in the order they were made.
- **Everyone** (pub/sub channel ``bela:everyone``): what every instance must do, heard by
  all: a player logged out everywhere (or his password changed) has his WebSockets closed
  on every instance, not only on the one that took the request.
- **The lobby list**: each listed table's summary (``bela:summary:<table>``, refreshed with
  the leases, gone when its instance dies) in a sorted set by creation time.
- **Instances** (``bela:instance:<id>`` = the epoch of its inbox subscription): a connection
  registered at a table by another instance lives as long as that instance's epoch; an
  instance whose subscription broke (Redis restarted) closes the connections it relayed and
  starts a new epoch, so the tables' instances drop the old ones.

A browser may connect to any instance: the connection is served where it arrives, and when
its table runs elsewhere its messages are relayed (:class:`Relay`).  A relayed connection
whose table moves, or whose instance loses Redis, is closed with
:data:`~bela.server.hub.RECONNECT`: the client connects again and gets the current state.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
import random
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from .errors import REFUSALS, Refused, Unavailable
from .hub import RECONNECT, Conn, dumps
from .lobby import ACTIVE, Lobby
from .logs import TableLog
from .metrics import Metrics
from .model import Table
from .stopping import STEP_LIMIT, ended

log = logging.getLogger("bela.server.cluster")

CALL_TIMEOUT = 5.0  # seconds an instance waits for the answer of another

# Renew the caller's leases (KEYS), taking back those that expired meanwhile (Redis
# restarted, or this instance stalled) unless another instance took them: 1 kept, 0 lost.
RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

LISTED = "bela:listed"
EVERYONE = "bela:everyone"  # the channel every instance hears


def lease_key(table_id: str) -> str:
    return f"bela:lease:{table_id}"


def summary_key(table_id: str) -> str:
    return f"bela:summary:{table_id}"


def inbox(instance: str) -> str:
    return f"bela:inbox:{instance}"


def instance_key(instance: str) -> str:
    return f"bela:instance:{instance}"


class Moved(Exception):
    """The instance asked does not run the table (any more): look its owner up again."""


def refusal_json(exc: Refused) -> dict[str, Any]:
    """A refusal as it travels between instances."""
    return {"kind": type(exc).__name__, "code": exc.code, "message": exc.message,
            "retry_after": getattr(exc, "retry_after", None)}


def refusal_from_json(data: dict[str, Any]) -> Refused:
    """The refusal an instance sent, as the same kind of error here.

    >>> from .errors import Conflict
    >>> exc = refusal_from_json(refusal_json(Conflict("seat_taken", "seat 2 is taken")))
    >>> type(exc).__name__, exc.code, exc.message
    ('Conflict', 'seat_taken', 'seat 2 is taken')
    """
    kind = REFUSALS.get(data.get("kind", ""), Refused)
    if data.get("retry_after") is not None:
        return kind(data["code"], data["message"], data["retry_after"])  # type: ignore[call-arg]
    return kind(data["code"], data["message"])


class RemoteConn(Conn):
    """At a table's instance: a connection held by another instance.  What the table sends
    it goes to that instance's inbox; it lives as long as that instance's ``epoch``."""

    def __init__(self, cluster: Cluster, instance: str, epoch: str, conn_id: str,
                 player_id: str | None) -> None:
        super().__init__(self._unused, player_id, None)
        self.cluster = cluster
        self.instance = instance
        self.epoch = epoch
        self.conn_id = conn_id

    @staticmethod
    async def _unused(_text: str) -> None:  # pragma: no cover - never called
        raise AssertionError("a remote connection is sent to through its instance")

    def send(self, msg: dict[str, Any] | str) -> None:
        if not self.closed:
            text = msg if isinstance(msg, str) else dumps(msg)
            self.cluster.forward(self.instance, {"c": self.conn_id, "t": text})

    def close(self, code: int | None = None) -> None:
        if not self.closed:
            self.closed = True
            self.cluster.forward(self.instance, {"c": self.conn_id, "x": code or 1000})


class Relay:
    """At the instance holding a WebSocket: the connection's link to its table running at
    another instance (``owner``)."""

    def __init__(self, cluster: Cluster, owner: str, table_id: str, conn: Conn) -> None:
        self.cluster = cluster
        self.owner = owner
        self.table_id = table_id
        self.conn = conn
        self.id = secrets.token_hex(8)

    async def call(self, op: str, **args: Any) -> Any:
        """Ask the table's instance; a link that fails closes the connection with
        :data:`RECONNECT` (the client connects again, to whichever instance runs the table)
        and raises :class:`Unavailable`."""
        try:
            return await self.cluster.call(self.owner, op, self.table_id, None,
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


def connect(url: str) -> Redis:
    """A client of the site's Redis: no retries (a caller fails at once and knows what to
    do), a second to connect and ten to answer."""
    client: Redis = Redis.from_url(url, decode_responses=True, retry=Retry(NoBackoff(), 0),
                                   socket_connect_timeout=1.0, socket_timeout=10.0)
    return client


class Cluster:
    """This instance's part of a site of several: its leases, its inbox, the calls it makes
    to the others and the connections it relays (used from the event loop only).

    ``serve(op, table, player, args)`` runs a call another instance made about a table this
    instance runs (see :mod:`bela.server.router`)."""

    def __init__(self, url: str, instance: str, lobby: Lobby, metrics: Metrics,
                 lease_ttl: float,
                 serve: Callable[[str, str, dict[str, Any] | None, dict[str, Any]],
                                 Awaitable[Any]]) -> None:
        self.redis = connect(url)
        self.url = url
        self.id = instance
        self.lobby = lobby
        self.metrics = metrics
        self.ttl_ms = max(300, int(lease_ttl * 1000))
        self.every = lease_ttl / 3
        self._serve = serve
        self.epoch = ""  # of the current inbox subscription ("" while there is none)
        self._subscribed = asyncio.Event()
        self._ids = itertools.count()
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._outbox: dict[str, list[dict[str, Any]]] = {}
        self._outbox_ready = asyncio.Event()
        self.relays: dict[str, Relay] = {}  # relayed connections by id
        self.remote: dict[tuple[str, str], tuple[str, RemoteConn]] = {}  # (instance, id) ->
        self._missing: set[str] = set()  # active tables found without a lease at the last scan
        self._absent: set[str] = set()  # instances whose key was missing at the last tick
        self._tasks: list[asyncio.Task[None]] = []
        self._jobs: set[asyncio.Task[None]] = set()
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._down_logged = False
        self._db_down_logged = False  # a database error of the lease tick was logged
        self._closed = asyncio.Event()  # this run's stop began: its loops end, a cancel lost
        lobby.on_change = self._changed
        lobby.on_drop = self._dropped
        lobby.on_conflict = self._conflict

    # -- life ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Subscribe to the inbox and start the lease ticks (Redis may be down: both keep
        trying)."""
        loop = asyncio.get_running_loop()
        self._closed = closed = asyncio.Event()
        self._tasks = [loop.create_task(self._listen(closed), name="bela inbox"),
                       loop.create_task(self._send_outbox(closed), name="bela outbox"),
                       loop.create_task(self._ticks(closed), name="bela leases")]
        # asyncio.timeout, not wait_for: Python 3.11's can lose a cancel (stopping.ended)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await self._subscribed.wait()

    async def stop(self) -> None:
        """Stop: the tables here stop and their connections (those relayed by other
        instances too) are told to reconnect, the leases are given back (the other instances
        take the tables over at their next scan, not after ``lease_ttl``), and the
        connections this instance relays are closed with :data:`RECONNECT`."""
        self._closed.set()
        held = list(self.lobby.tables)
        await self.lobby.shutdown()
        await self._flush_outbox()
        if not await ended(*self._tasks, seconds=STEP_LIMIT):
            log.warning("the inbox, outbox and lease tasks had not ended %.0f s after "
                        "their cancel: going on", STEP_LIMIT)
        for relay in list(self.relays.values()):
            relay.conn.close(RECONNECT)
        for table_id in held:
            await self._let_go(table_id)
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(instance_key(self.id))
        await self.redis.aclose()

    async def ready(self) -> bool:
        """Whether Redis answers and the inbox is subscribed."""
        try:
            await self.redis.ping()
        except (RedisError, OSError):
            return False
        return bool(self.epoch)

    # -- leases ----------------------------------------------------------------------------
    async def owner(self, table_id: str) -> str | None:
        """The instance that runs ``table_id`` (``None``: no instance does)."""
        try:
            holder: str | None = await self.redis.get(lease_key(table_id))
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
        return holder

    async def take(self, table_id: str) -> Table | None:
        """Take an active table nobody runs, replayed from the database, and run it here;
        ``None`` when it is not active or another instance holds it."""
        row = self.lobby.store.db.tables.load_table(table_id)
        if row is None or row["status"] not in ACTIVE or table_id in self.lobby.broken:
            return None
        try:
            if not await self.redis.set(lease_key(table_id), self.id, nx=True, px=self.ttl_ms):
                return None
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
        if table_id in self.lobby.tables:
            return self.lobby.tables[table_id]
        # the log as of the lease
        row = self.lobby.store.db.tables.load_table(table_id, with_log=True)
        table = None if row is None or row["status"] not in ACTIVE else self.lobby.adopt(row)
        if table is None:
            await self._let_go(table_id)
            return None
        TableLog(log, table_id).info("table %s taken over (%s, event %d)", table_id,
                                     table.status, table.seq)
        self._publish_summary(table)
        return table

    async def claim(self, table_id: str) -> None:
        """The lease of a table just created here (when Redis is down, the next tick's
        renewal takes it)."""
        try:
            await self.redis.set(lease_key(table_id), self.id, px=self.ttl_ms)
        except (RedisError, OSError):
            self.metrics.errors.labels(kind="cluster").inc()

    def holds(self, table_id: str) -> bool:
        return table_id in self.lobby.tables

    async def _let_go(self, table_id: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self._release(keys=[lease_key(table_id)], args=[self.id])
            await self.redis.delete(summary_key(table_id))
            await self.redis.zrem(LISTED, table_id)

    def _dropped(self, table: Table) -> None:
        """The lobby forgot a finished or closed table: its lease and listing go."""
        self._job(self._let_go(table.id))

    def _conflict(self, table: Table) -> None:
        """Another process wrote to a table this one ran: let it go (its lease too); the
        instance that holds the lease, or the next scan, runs it from the database."""
        async def let_go() -> None:
            await self.lobby.evict(table.id)
            await self._let_go(table.id)

        self._job(let_go())

    async def _ticks(self, closed: asyncio.Event) -> None:
        while not closed.is_set():
            await asyncio.sleep(self.every * random.uniform(0.8, 1.0))
            try:
                await self.tick()
                if self._down_logged:
                    log.warning("Redis answers again")
                if self._db_down_logged:
                    log.warning("the lease tick's database answers again")
                self._down_logged = self._db_down_logged = False
            except (RedisError, OSError) as exc:
                self.metrics.errors.labels(kind="cluster").inc()
                if not self._down_logged:
                    log.warning("Redis is not reachable (%s): the tables here go on; "
                                "connections through other instances wait", exc)
                self._down_logged = True
            except SQLAlchemyError as exc:  # the database is down: once, then at debug level
                self.metrics.errors.labels(kind="storage").inc()
                cause = exc.orig if isinstance(exc, DBAPIError) else exc  # without the SQL
                if not self._db_down_logged:
                    log.warning("the lease tick failed in the database (%s: %s): it is "
                                "tried again each tick", type(cause).__name__, cause)
                else:
                    log.debug("the lease tick failed in the database again: %s: %s",
                              type(cause).__name__, cause)
                self._db_down_logged = True
            except Exception:
                self.metrics.errors.labels(kind="internal").inc()
                log.exception("the lease tick failed")

    async def tick(self) -> None:
        """One round of the instance's upkeep: say it lives, renew its leases (tables lost
        to another instance are let go), refresh its listed tables, drop the connections of
        instances gone, close relays whose table moved, and take over the tables nobody
        runs."""
        r = self.redis
        if self.epoch:
            await r.set(instance_key(self.id), self.epoch, px=self.ttl_ms)
        held = list(self.lobby.tables)
        if held:
            kept = await self._renew(keys=[lease_key(t) for t in held],
                                     args=[self.id, self.ttl_ms])
            for table_id, ok in zip(held, kept):
                if not ok:
                    self.metrics.errors.labels(kind="lease_lost").inc()
                    TableLog(log, table_id).warning("table %s: another instance runs it now",
                                                    table_id)
                    await self.lobby.evict(table_id)
            async with r.pipeline(transaction=False) as pipe:
                for table in list(self.lobby.tables.values()):
                    self._summary_into(pipe, table)
                await pipe.execute()
        await self._drop_stale_remotes()
        await self._check_relays()
        await self._scan()

    async def _drop_stale_remotes(self) -> None:
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

    async def _check_relays(self) -> None:
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

    async def _scan(self) -> None:
        """Take over the active tables found without a lease at two scans in a row (an
        instance whose lease expired because Redis restarted renews it first), at most this
        instance's share of them at once."""
        ids = [t for t in self.lobby.store.db.tables.active_table_ids()
               if t not in self.lobby.tables and t not in self.lobby.broken]
        if not ids:
            self._missing = set()
            return
        held = await self.redis.mget([lease_key(t) for t in ids])
        missing = {t for t, holder in zip(ids, held) if holder is None}
        ready = sorted(missing & self._missing)
        self._missing = missing
        if not ready:
            return
        alive = 0
        async for _key in self.redis.scan_iter(match=instance_key("*"), count=100):
            alive += 1
        share = math.ceil(len(ready) / max(1, alive))
        random.shuffle(ready)
        for table_id in ready[:share]:
            await self.take(table_id)

    # -- the lobby list --------------------------------------------------------------------
    def _listed(self, table: Table) -> bool:
        return table.status in ACTIVE and not table.private

    def _summary_into(self, pipe: Any, table: Table) -> None:
        if self._listed(table):
            text = dumps(self.lobby.summary(table))
            pipe.set(summary_key(table.id), text, px=self.ttl_ms)
            pipe.zadd(LISTED, {table.id: table.created_at})
        else:
            pipe.delete(summary_key(table.id))
            pipe.zrem(LISTED, table.id)

    def _publish_summary(self, table: Table) -> None:
        async def publish() -> None:
            with contextlib.suppress(RedisError, OSError):
                async with self.redis.pipeline(transaction=False) as pipe:
                    self._summary_into(pipe, table)
                    await pipe.execute()

        self._job(publish())

    def _changed(self, table: Table) -> None:
        self._publish_summary(table)

    async def listing(self) -> list[str]:
        """The summaries (JSON texts) of the listed tables of every instance, newest first."""
        try:
            ids = await self.redis.zrevrange(LISTED, 0, -1)
            texts = await self.redis.mget([summary_key(t) for t in ids]) if ids else []
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
        gone = [t for t, text in zip(ids, texts) if text is None]
        if gone:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.zrem(LISTED, *gone)
        return [text for text in texts if text is not None]

    # -- calls between instances -----------------------------------------------------------
    async def call(self, owner: str, op: str, table_id: str, player: dict[str, Any] | None,
                   args: dict[str, Any]) -> Any:
        """Run ``op`` at the instance that runs the table; its result, or its refusal
        raised here.  Raises :class:`Moved` when that instance does not run the table and
        :class:`Unavailable` when it does not answer."""
        call_id = f"{self.id}:{next(self._ids)}"
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = reply
        msg = {"k": "call", "id": call_id, "from": self.id, "epoch": self.epoch, "op": op,
               "table": table_id, "player": player, "args": args}
        try:
            heard = await self.redis.publish(inbox(owner), json.dumps(msg))
            if not heard:  # nobody listens there: the instance is gone
                raise Unavailable("table_moving", "the server process running this table "
                                  "stopped; another takes it over within seconds: try again")
            async with asyncio.timeout(CALL_TIMEOUT):
                answer = await reply
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from None
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
            if not self.holds(table_id):
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
        with contextlib.suppress(RedisError, OSError):
            await self.redis.publish(inbox(msg["from"]), json.dumps(out))

    # -- connections of other instances ----------------------------------------------------
    def join(self, table: Table, instance: str, epoch: str, conn_id: str,
             player_id: str | None) -> RemoteConn:
        """Register a connection another instance holds at a table run here."""
        rconn = RemoteConn(self, instance, epoch, conn_id, player_id)
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

    def forward(self, instance: str, item: dict[str, Any]) -> None:
        """Queue a message (``t``: text) or a close (``x``: code) for a connection held by
        ``instance``: sent with the others queued in the same turn of the loop, in order."""
        self._outbox.setdefault(instance, []).append(item)
        self._outbox_ready.set()

    async def _send_outbox(self, closed: asyncio.Event) -> None:
        while not closed.is_set():
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            await self._flush_outbox()

    async def _flush_outbox(self) -> None:
        batches, self._outbox = self._outbox, {}
        for instance, items in batches.items():
            try:
                await self.redis.publish(inbox(instance),
                                         json.dumps({"k": "out", "items": items}))
            except (RedisError, OSError):
                # lost: that instance closes its relays when its subscription breaks, and
                # this one drops its connections when its epoch changes
                self.metrics.errors.labels(kind="cluster").inc()

    # -- relays (connections held here, tables run elsewhere) ------------------------------
    async def relay(self, owner: str, table_id: str, conn: Conn, player_id: str | None,
                    code: str | None) -> Relay:
        """Join ``conn`` to the table that ``owner`` runs (raises its refusal, or
        :class:`Moved`)."""
        relay = Relay(self, owner, table_id, conn)
        self.relays[relay.id] = relay
        try:
            await self.call(owner, "join", table_id, None,
                            {"conn": relay.id, "player_id": player_id, "code": code})
        except BaseException:
            self.relays.pop(relay.id, None)
            raise
        return relay

    async def unrelay(self, relay: Relay) -> None:
        self.relays.pop(relay.id, None)
        with contextlib.suppress(Refused, Moved):
            await relay.call("part")

    # -- a player's connections everywhere ------------------------------------------------
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
            await self.redis.publish(EVERYONE, json.dumps(msg))
        except (RedisError, OSError) as exc:
            self.metrics.errors.labels(kind="cluster").inc()
            log.warning("the other instances could not be told to close player %s's "
                        "connections (%s)", player_id, type(exc).__name__)
        return closed

    # -- the inbox -------------------------------------------------------------------------
    async def _listen(self, closed: asyncio.Event) -> None:
        """Read the inbox; when the subscription breaks, every relayed connection is closed
        (its messages may be lost) and the inbox is subscribed again with a new epoch."""
        pause = 0.2
        while not closed.is_set():
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(inbox(self.id), EVERYONE)
                self.epoch = secrets.token_hex(6)
                await self.redis.set(instance_key(self.id), self.epoch, px=self.ttl_ms)
                self._subscribed.set()
                pause = 0.2
                while not closed.is_set():  # waits of a second: an idle inbox is not broken
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is not None and msg["type"] == "message":
                        self._incoming(msg["data"])
            except (RedisError, OSError) as exc:
                self.metrics.errors.labels(kind="cluster").inc()
                if self.epoch:
                    log.warning("the inbox subscription broke (%s): relayed connections "
                                "are closed; subscribing again", exc)
            finally:
                self.epoch = ""
                self._link_lost()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(pause)
            pause = min(2.0, pause * 2)

    def _link_lost(self) -> None:
        for relay in list(self.relays.values()):
            relay.conn.close(RECONNECT)
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(Unavailable("cluster", "the link to the other server "
                                                "processes broke: try again"))

    def _incoming(self, data: str) -> None:
        msg = json.loads(data)
        kind = msg.get("k")
        if kind == "out":
            for item in msg["items"]:
                relay = self.relays.get(item["c"])
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
        elif kind == "close_player" and msg["from"] != self.id:
            closed = self.close_player(msg["player"], msg["code"])
            if closed:
                log.info("player %s's %d connections closed here (asked by %s)",
                         msg["player"], closed, msg["from"])

    def _job(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            await work

        task = asyncio.get_running_loop().create_task(run())
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    def _unavailable(self, exc: BaseException) -> Unavailable:
        self.metrics.errors.labels(kind="cluster").inc()
        return Unavailable("cluster", f"the server processes cannot reach each other "
                           f"({type(exc).__name__}): try again in a few seconds")

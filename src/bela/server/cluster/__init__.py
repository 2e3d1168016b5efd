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
  table (a REST change, a WebSocket joining, acting, syncing, leaving), their replies, and
  the messages for connections one instance holds at tables another runs: what one turn of
  the event loop made for an instance goes in one message, in the order it was made, and
  one round trip to Redis sends them all.  Each instance reads its inbox on a connection
  of its own, cut into replies by :mod:`~bela.server.cluster.subscription`.
- **Everyone** (pub/sub channel ``bela:everyone``): what every instance must do, heard by
  all: a player logged out everywhere (or his password changed) has his WebSockets closed
  on every instance, not only on the one that took the request.
- **The lobby list**: each listed table's summary (``bela:summary:<table>``, refreshed with
  the leases, gone when its instance dies) in a sorted set by creation time.
- **Presence** (``bela:online``, ``bela:where:<player>``, ``bela:invites:<player>``): who
  is online and at which table, and the invitations waiting, for every instance
  (:class:`SharedPresence`); a killed instance's players drop off within ``2 * lease_ttl``.
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
import random
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ..hub import RECONNECT
from ..lobby import Lobby
from ..metrics import Metrics
from ..stopping import STEP_LIMIT, ended
from .common import (
    CALL_TIMEOUT,
    EVERYONE,
    LISTED,
    RELEASE,
    RENEW,
    Moved,
    connect,
    inbox,
    instance_key,
    lease_key,
    log,
    refusal_from_json,
    refusal_json,
    summary_key,
)
from .inbox import Inbox
from .leases import Leases
from .listing import LobbyList
from .presence import SharedPresence
from .relays import Relay, Relays, RemoteConn

__all__ = ["CALL_TIMEOUT", "EVERYONE", "LISTED", "RELEASE", "RENEW", "Cluster", "Inbox",
           "Leases", "LobbyList", "Moved", "Relay", "Relays", "RemoteConn", "SharedPresence",
           "connect",
           "inbox", "instance_key", "lease_key", "refusal_from_json", "refusal_json",
           "summary_key"]


class Cluster:
    """This instance's part of a site of several, wired here: its ``leases``, its
    ``lobby_list``, its ``inbox`` (the calls it makes to the others and answers) and its
    ``relays`` (the connections it relays, and those relayed to it); its life and its
    upkeep's ticks (used from the event loop only).

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
        self._tasks: list[asyncio.Task[None]] = []
        self.jobs: set[asyncio.Task[None]] = set()  # the parts' background work
        self._down_logged = False
        self._db_down_logged = False  # a database error of the lease tick was logged
        self._closed = asyncio.Event()  # this run's stop began: its loops end, a cancel lost
        self.leases = Leases(self)
        self.lobby_list = LobbyList(self)
        self.inbox = Inbox(self, serve)
        self.relays = Relays(self)
        self.presence = SharedPresence(self)
        # a lobby line said at another instance (bela.server.talk.LobbyRoom.heard)
        self.on_lobby_line: Callable[[dict[str, Any]], None] | None = None
        lobby.on_change = self.lobby_list.changed
        lobby.on_drop = self.leases.dropped
        lobby.on_conflict = self.leases.conflict

    async def start(self) -> None:
        """Subscribe to the inbox and start the lease ticks (Redis may be down: both keep
        trying)."""
        loop = asyncio.get_running_loop()
        self._closed = closed = asyncio.Event()
        self._tasks = [loop.create_task(self.inbox.listen(closed), name="bela inbox"),
                       loop.create_task(self.inbox.send_outbox(closed),
                                         name="bela outbox"),
                       loop.create_task(self._ticks(closed), name="bela leases")]
        # asyncio.timeout, not wait_for: Python 3.11's can lose a cancel (stopping.ended)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await self.inbox._subscribed.wait()

    async def stop(self) -> None:
        """Stop: the tables here stop and their connections (those relayed by other
        instances too) are told to reconnect, the leases are given back (the other instances
        take the tables over at their next scan, not after ``lease_ttl``), and the
        connections this instance relays are closed with :data:`RECONNECT`."""
        self._closed.set()
        held = list(self.lobby.tables)
        await self.lobby.shutdown()
        await self.inbox.flush()
        if not await ended(*self._tasks, seconds=STEP_LIMIT):
            log.warning("the inbox, outbox and lease tasks had not ended %.0f s after "
                        "their cancel: going on", STEP_LIMIT)
        for relay in list(self.relays.relays.values()):
            relay.conn.close(RECONNECT)
        for table_id in held:
            await self.leases.let_go(table_id)
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(instance_key(self.id))
        await self.inbox.close()
        await self.redis.aclose()

    async def ready(self) -> bool:
        """Whether Redis answers and the inbox is subscribed."""
        try:
            await self.redis.ping()
        except (RedisError, OSError):
            return False
        return bool(self.inbox.epoch)

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
        if self.inbox.epoch:
            await r.set(instance_key(self.id), self.inbox.epoch, px=self.ttl_ms)
        held = list(self.lobby.tables)
        if held:
            await self.leases.renew(held)
            await self.lobby_list.refresh()
        await self.presence.refresh()
        await self.relays.drop_stale_remotes()
        await self.relays.check()
        await self.leases.scan()

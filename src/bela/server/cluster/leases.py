"""The leases of a cluster's tables (``bela:lease:<table>``): an instance runs the tables
it holds the lease of, renews them, takes over the tables nobody runs, and lets its go
(see :mod:`bela.server.cluster`)."""

from __future__ import annotations

import contextlib
import math
import random
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from ..lobby import ACTIVE
from ..logs import TableLog
from ..model import Table
from .common import LISTED, RELEASE, RENEW, Part, instance_key, lease_key, log, summary_key

if TYPE_CHECKING:
    from . import Cluster


class Leases(Part):
    """This instance's leases: taken, renewed and let go; the hooks of the lobby that let a
    table go (``dropped``, ``conflict``: a write fenced off by another process)."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._missing: set[str] = set()  # active tables found without a lease at the last scan
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)

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
            await self.let_go(table_id)
            return None
        TableLog(log, table_id).info("table %s taken over (%s, event %d)", table_id,
                                     table.status, table.seq)
        self.cluster.lobby_list.publish(table)
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

    async def let_go(self, table_id: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self._release(keys=[lease_key(table_id)], args=[self.id])
            await self.redis.delete(summary_key(table_id))
            await self.redis.zrem(LISTED, table_id)

    def dropped(self, table: Table) -> None:
        """The lobby forgot a finished or closed table: its lease and listing go."""
        self._job(self.let_go(table.id))

    def conflict(self, table: Table) -> None:
        """Another process wrote to a table this one ran: let it go (its lease too); the
        instance that holds the lease, or the next scan, runs it from the database."""
        async def let_go() -> None:
            await self.lobby.evict(table.id)
            await self.let_go(table.id)

        self._job(let_go())

    async def renew(self, held: list[str]) -> None:
        """Renew the leases of the tables ``held`` here; those another instance took are
        let go."""
        kept = await self._renew(keys=[lease_key(t) for t in held],
                                 args=[self.id, self.ttl_ms])
        for table_id, ok in zip(held, kept):
            if not ok:
                self.metrics.errors.labels(kind="lease_lost").inc()
                TableLog(log, table_id).warning("table %s: another instance runs it now",
                                                table_id)
                await self.lobby.evict(table_id)

    async def scan(self) -> None:
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

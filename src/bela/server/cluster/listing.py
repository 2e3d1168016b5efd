"""The lobby list of a cluster in Redis: each listed table's summary
(``bela:summary:<table>``, refreshed with the leases, gone when its instance dies) in a
sorted set by creation time (see :mod:`bela.server.cluster`)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from ..hub import dumps
from ..lobby import ACTIVE
from ..model import Table
from .common import LISTED, RENEW_SUMMARIES, Part, summary_key

if TYPE_CHECKING:
    from . import Cluster


class LobbyList(Part):
    """The summaries of the tables listed here, in the site's lobby list; the whole list."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._renew = self.redis.register_script(RENEW_SUMMARIES)
        # each table's summary as the last refresh left it (None: taken off the list)
        self._written: dict[str, str | None] = {}

    def _listed(self, table: Table) -> bool:
        return table.status in ACTIVE and not table.private

    def _summary(self, table: Table) -> str | None:
        return dumps(self.lobby.summary(table)) if self._listed(table) else None

    def _summary_into(self, pipe: Any, table: Table, text: str | None) -> None:
        if text is not None:
            pipe.set(summary_key(table.id), text, px=self.ttl_ms)
            pipe.zadd(LISTED, {table.id: table.created_at})
        else:
            pipe.delete(summary_key(table.id))
            pipe.zrem(LISTED, table.id)

    def publish(self, table: Table) -> None:
        async def publish() -> None:
            with contextlib.suppress(RedisError, OSError):
                async with self.redis.pipeline(transaction=False) as pipe:
                    self._summary_into(pipe, table, self._summary(table))
                    await pipe.execute()

        self._job(publish())

    def changed(self, table: Table) -> None:
        self.publish(table)

    async def refresh(self) -> None:
        """With the leases' renewal: the summaries of the tables here that changed since
        the last refresh written again (their live fields), the others' lives renewed in
        one call, and those Redis no longer had (it restarted) written again.  Writing
        every summary at every tick was 3 % of an instance's event loop at 600 tables
        over three instances (docs/CAPACITY.md)."""
        last, now = self._written, {}
        same: list[Table] = []
        async with self.redis.pipeline(transaction=False) as pipe:
            for table in list(self.lobby.tables.values()):
                now[table.id] = text = self._summary(table)
                if table.id in last and last[table.id] == text:
                    if text is not None:
                        same.append(table)
                else:
                    self._summary_into(pipe, table, text)
            if len(pipe):
                await pipe.execute()
        self._written = now  # what the lobby no longer holds is forgotten
        if not same:
            return
        kept = await self._renew(keys=[summary_key(t.id) for t in same], args=[self.ttl_ms])
        gone = [t for t, there in zip(same, kept) if not there]
        if gone:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table in gone:
                    self._summary_into(pipe, table, now[table.id])
                await pipe.execute()

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

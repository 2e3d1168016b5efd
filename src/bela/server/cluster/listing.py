"""The lobby list of a cluster in Redis: each listed table's summary
(``bela:summary:<table>``, refreshed with the leases, gone when its instance dies) in a
sorted set by creation time (see :mod:`bela.server.cluster`)."""

from __future__ import annotations

import contextlib
from typing import Any

from redis.exceptions import RedisError

from ..hub import dumps
from ..lobby import ACTIVE
from ..model import Table
from .common import LISTED, Part, summary_key


class LobbyList(Part):
    """The summaries of the tables listed here, in the site's lobby list; the whole list."""

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

    def publish(self, table: Table) -> None:
        async def publish() -> None:
            with contextlib.suppress(RedisError, OSError):
                async with self.redis.pipeline(transaction=False) as pipe:
                    self._summary_into(pipe, table)
                    await pipe.execute()

        self._job(publish())

    def changed(self, table: Table) -> None:
        self.publish(table)

    async def refresh(self) -> None:
        """The summaries of every table here written again (with the leases' renewal)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for table in list(self.lobby.tables.values()):
                self._summary_into(pipe, table)
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

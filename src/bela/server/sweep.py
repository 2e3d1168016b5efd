"""The sweep: the idle open tables and the unwatched all-bot tables are closed."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from .model import Table, TableStatus

if TYPE_CHECKING:
    from .lobby import Lobby

log = logging.getLogger("bela.server")


class Sweeper:
    """Close the ``lobby``'s open tables nobody sat at or left for ``open_table_ttl`` and
    its running all-bot tables nobody watched for ``unwatched_bot_table_ttl``."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def _stale(self, table: Table, now: float) -> bool:
        """Whether the sweep closes ``table`` at ``now``: open and idle, or running with bots
        only and nobody watching."""
        if table.status == TableStatus.OPEN:
            return now - table.active_at >= self.lobby.config.open_table_ttl
        return (table.status == TableStatus.RUNNING and all(s.is_bot for s in table.seats)
                and all(c.closed for c in self.lobby.hub.conns(table))
                and now - table.watched_at >= self.lobby.config.unwatched_bot_table_ttl)

    async def sweep(self, now: float | None = None) -> list[str]:
        """Close the idle open tables and the unwatched all-bot tables (at ``now``, default
        the current ``time.time()``): the ids of the tables closed."""
        at = time.time() if now is None else now
        closed = []
        for table in [t for t in self.lobby.tables.values() if self._stale(t, at)]:
            try:
                await self.lobby.close_table(table)
            except Exception:  # the database refused: the next sweep tries again
                log.exception("table %s could not be closed", table.id)
                continue
            closed.append(table.id)
        if closed:
            log.info("closed %d idle tables", len(closed))
        return closed

    async def run(self) -> None:
        """Sweep every ``sweep_every`` seconds (the server's lifetime)."""
        while True:
            await asyncio.sleep(self.lobby.config.sweep_every)
            await self.sweep()

"""The lobby list: the public open and running tables, newest first, a page at a time."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from .model import ServerConfig, Table, TableStatus

ACTIVE = (TableStatus.OPEN, TableStatus.RUNNING)
MAX_PAGES = 64  # cached pages of the lobby list between two rebuilds


class Listing:
    """The lobby list of the ``tables`` of one process (the lobby's own dict, in creation
    order), each as its ``summary``; cached until :meth:`stale` or ``listing_ttl``."""

    def __init__(self, tables: dict[str, Table], summary: Callable[[Table], dict[str, Any]],
                 config: ServerConfig) -> None:
        self.tables = tables
        self.summary = summary
        self.config = config
        self._listed: list[Table] | None = None  # the lobby list, newest first (None: stale)
        self._listed_at = 0.0  # time.monotonic() of its last rebuild
        self._pages: dict[tuple[int, int], bytes] = {}  # (offset, limit) -> its JSON
        self.builds = 0  # rebuilds of the lobby list so far

    def stale(self) -> None:
        """The lobby changed the list: rebuilt at the next poll."""
        self._listed = None

    def page(self, offset: int, limit: int) -> tuple[bytes, int]:
        """A page of the lobby list as JSON (the summaries of the open and running tables
        that are not private, newest first) and the length of the whole list.

        The list is rebuilt when the lobby changed it or after ``listing_ttl`` seconds (the
        running tables' moves and spectators); a page is serialized once per rebuild, so a
        poll that finds nothing new costs a lookup."""
        now = time.monotonic()
        if self._listed is None or now - self._listed_at >= self.config.listing_ttl:
            self._listed = [t for t in reversed(self.tables.values())  # in creation order
                            if t.status in ACTIVE and not t.private]
            self._listed_at = now
            self._pages.clear()
            self.builds += 1
        page = self._pages.get((offset, limit))
        if page is None:
            if len(self._pages) >= MAX_PAGES:
                self._pages.clear()
            page = json.dumps([self.summary(t) for t in self._listed[offset:offset + limit]],
                              separators=(",", ":"), ensure_ascii=False).encode()
            self._pages[(offset, limit)] = page
        return page, len(self._listed)

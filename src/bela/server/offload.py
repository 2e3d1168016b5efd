"""Work the event loop must not do itself, in executors of its own.

The default executor (``asyncio.to_thread``) runs the short calls: a database read of a
row or two, Argon2 for logins, ``/readyz``'s ping.  The heavy requests (a pad listing, a
record, a history page) run in :class:`Offload`'s small bounded pool instead, so that a
client who keeps many of them in flight makes the others wait for his threads, not for the
logins' and the readiness probe's; past ``threads + waiting`` jobs in flight a heavy request
is refused (429 ``too_busy``).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .errors import TooMany
from .hub import dumps

T = TypeVar("T")

HEAVY_THREADS = 2  # threads of the heavy requests
HEAVY_WAITING = 32  # heavy requests that may wait for one beyond those running


class Offload:
    """A bounded pool for the heavy requests of one app (used from its event loop)."""

    def __init__(self, threads: int = HEAVY_THREADS, waiting: int = HEAVY_WAITING) -> None:
        self.threads = threads
        self.most = threads + waiting
        self.busy = 0  # jobs running or waiting
        self._executor: ThreadPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool; raises :class:`TooMany` ``too_busy`` when it is
        full."""
        if self.busy >= self.most:
            raise TooMany("too_busy", "the server is busy with other large requests: try "
                          "again in a moment", retry_after=1)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="bela-heavy")
        self.busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, functools.partial(fn, *args))
        finally:
            self.busy -= 1

    def close(self) -> None:
        """Stop the threads (jobs waiting are dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def json_bytes(content: Any) -> bytes:
    """``content`` as FastAPI's JSON answer writes it (built off the loop: a record of a
    long match takes a while)."""
    return dumps(content).encode("utf-8")

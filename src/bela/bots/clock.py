"""A decision's deadline: the moment a search bot must have answered by (the live server's).

The server gives a strong bot one answer time per kind of decision, so that how long it
thought never shows (docs/SECURITY.md, Timing).  It makes the decision inside
:func:`deadline`, and the search bots (``pimc``, the learned bot's endgame search, bela3's
discard simulation, ``ismcts``) ask :func:`stop` before each sampled deal: once the next
one would end past the deadline they decide with the deals they have.  Outside a
:func:`deadline` (the arena, the terminal, tests) nothing changes: the searches keep their
sample and node caps, and their play depends only on the seed and the view.

The deadline is a :func:`time.monotonic` value, one clock for every process of the machine
(Linux's ``CLOCK_MONOTONIC``, macOS's and Windows' counters are system-wide), so the server
sets it and its bot worker processes read it.  It is the calling thread's own: bots
deciding in other threads at the same time have their own or none.

>>> with deadline(time.monotonic() - 1):
...     stop(done=1, least=1, each=0.0), stop(done=0, least=1, each=0.0)
(True, False)
>>> stop(done=1, least=1, each=0.0)  # no deadline: never
False
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Decide by the :func:`time.monotonic` moment ``at`` (None: no deadline) within the
    block, in this thread."""
    outer = getattr(_local, "at", None)
    _local.at = at
    try:
        yield
    finally:
        _local.at = outer


def current() -> float | None:
    """This thread's deadline, if any."""
    at: float | None = getattr(_local, "at", None)
    return at


def stop(done: int, least: int, each: float) -> bool:
    """Should a search that has ``done`` samples stop before the next, which takes about
    ``each`` seconds (the longest so far)?  Only under a :func:`deadline`, only once it has
    the ``least`` it needs to decide, and only when the next would end past the deadline."""
    at = current()
    return at is not None and done >= least and time.monotonic() + each > at

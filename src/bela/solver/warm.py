"""Getting the solver's compiled kernels ready before the first search (the cold start).

The first search after an install compiles the kernels with Numba (several seconds, more on
a slow machine; once: the machine code is then cached on disk, in the ``__pycache__`` next
to :mod:`bela.solver.kernels` or in ``NUMBA_CACHE_DIR``), and the first search of every
later process loads them from that cache (well under a second).  :func:`warm_up` does
either ahead of time, e.g. in a background thread while a program starts, and
:func:`kernels_cached` says cheaply which of the two it will be, so that a program can say
"preparing the solver (first time only)" while it waits (skipped as a doctest: the first
time, this compiles for many seconds; tests/solver/test_threads.py runs it):

>>> from bela.solver import is_warm, kernels_cached, warm_up
>>> if not kernels_cached():  # doctest: +SKIP
...     print("preparing the solver (first time only)")
>>> seconds = warm_up()  # doctest: +SKIP
>>> is_warm()  # doctest: +SKIP
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from . import kernels as K
from .dd import Position, Solver

__all__ = ["is_warm", "kernels_cached", "warm_up"]

_LOCK = threading.Lock()


def is_warm() -> bool:
    """Are the kernels ready in this process (compiled or loaded from the cache), so that a
    search starts at once?  (Always true without Numba.)"""
    run: Any = K.run  # a Numba dispatcher
    return not K.HAVE_NUMBA or bool(run.overloads)


def _tiny() -> tuple[Solver, Position]:
    """A small solver and a small bela4 position (two cards a hand, seat 3 led one)."""
    hands = [(1 << 0) | (1 << 9), (1 << 1) | (1 << 17), (1 << 2) | (1 << 25), 1 << 10]
    return Solver(tt_bits=4), Position.make(hands, 0, "bela4", leader=3, trick=[24],
                                             taken=(50, 60))


def _entry_signature() -> tuple[object, ...]:
    """Numba's argument types of the one kernel the solver calls (:func:`kernels.run`)."""
    import numba

    typeof: Any = numba.typeof
    solver, pos = _tiny()
    R, _, args = solver._load(pos)
    values = (K.OP_SOLVE, solver.S, R, solver.TT, solver.MV, solver.SC, solver.N, *args, 0,
              solver.method, solver.out)
    return tuple(typeof(v) for v in values)


def kernels_cached() -> bool:
    """Will :func:`warm_up` (or the first search) be quick?  True when the kernels are
    ready in this process or compiled in Numba's on-disk cache for this version of the
    sources; False when they will be compiled (the first time after an install or an
    upgrade).  Reads the cache's index only: no compiling, no loading (a few tens of
    milliseconds)."""
    if is_warm():
        return True
    try:
        dispatcher: Any = K.run
        cache = dispatcher._cache
        key = cache._index_key(_entry_signature(), dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # pragma: no cover - Numba internals changed: assume the worst
        return False


def warm_up(progress: Callable[[str], None] | None = None) -> float:
    """Compile (the first time after an install) or load (from Numba's cache) every kernel
    the solver and the ``pimc`` bot use, by solving a tiny position; returns the seconds it
    took (about 0 when they are ready already).

    ``progress``, when given and there is work to do, is called with a line saying what
    happens before it starts ("compiling ..." or "loading ...") and with "solver ready"
    when done.  Safe to call from any thread and more than once (one thread does the work,
    the others wait for it); searches in other threads meanwhile simply wait for the
    kernels.  Typical use, while a program starts::

        threading.Thread(target=warm_up, daemon=True).start()
    """
    start = time.perf_counter()
    if is_warm():
        return time.perf_counter() - start
    with _LOCK:
        if not is_warm():
            if progress is not None:
                progress("loading the solver" if kernels_cached() else
                         "compiling the solver (first time only, this can take a minute)")
            solver, pos = _tiny()
            solver.solve(pos, line=True)
            solver.value(pos)
            if progress is not None:
                progress("solver ready")
    return time.perf_counter() - start

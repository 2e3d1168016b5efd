"""The solver in threads (a server thinks for several bots at once): each thread has its own
solver, answers do not depend on what other threads solve at the same time, and the kernels
can be compiled or loaded ahead of time from a background thread (bela.solver.warm)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import pytest
from dd_reference import VARIANTS, random_round

from bela.solver import (
    Position,
    Solver,
    default_solver,
    is_warm,
    kernels_cached,
    solve,
    value,
    warm_up,
)
from bela.solver.bench import random_bela4_position

pytest.importorskip("numba")

THREADS = 8


def positions() -> list[Position]:
    """About 120 small positions (3-4 cards a hand) of every variant, some mid-trick."""
    rng = random.Random(8)
    out = [random_bela4_position(rng, rng.choice([3, 4])) for _ in range(60)]
    for variant in VARIANTS:
        out += [Position.from_round(random_round(variant, rng, rng.choice([3, 4])))
                for _ in range(15)]
    return out


def answers(pos: Position) -> tuple[dict[object, int], int]:
    """What the module's functions (the calling thread's default solver) answer."""
    return solve(pos, line=False).values, value(pos)


def in_threads(work: Callable[[int], object], timeout: float = 60.0) -> list[object]:
    """``work(i)`` in each of THREADS threads started together; their results, or the first
    exception raised.  A thread still running after ``timeout`` seconds fails the test (a
    search on a state another thread overwrote need not end)."""
    start = threading.Barrier(THREADS)
    results: list[object] = [None] * THREADS
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(THREADS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]
    return results


def test_threads_solving_at_once_get_the_single_threaded_answers() -> None:
    """8 threads each solve the same ~120 positions three times (in their own orders) with
    the module's functions, as bots thinking in a server's worker threads do: every answer
    equals the one solved alone (with one solver shared by all threads, a few in a few
    hundred were wrong)."""
    todo = positions()
    expected = [answers(pos) for pos in todo]

    def work(i: int) -> list[int]:
        order = list(range(len(todo))) * 3
        random.Random(i).shuffle(order)
        return [k for k in order if answers(todo[k]) != expected[k]]

    wrong = in_threads(work)
    assert wrong == [[]] * THREADS


def test_each_thread_has_its_own_default_solver() -> None:
    here = default_solver()
    assert default_solver() is here
    theirs = in_threads(lambda i: default_solver())  # kept alive: ids are not reused
    assert len({id(s) for s in theirs} | {id(here)}) == THREADS + 1


def test_one_solver_shared_by_threads_still_answers_right() -> None:
    """A Solver's queries run one at a time, so even one shared by threads is right."""
    todo = positions()[::4]
    shared = Solver()
    expected = [Solver().solve(pos).values for pos in todo]
    wrong = in_threads(lambda i: [k for k, pos in enumerate(todo)
                                  if shared.solve(pos).values != expected[k]])
    assert wrong == [[]] * THREADS


def test_warm_up_from_several_threads() -> None:
    """warm_up is safe from any thread, more than once; afterwards the kernels are ready
    and known to be in the cache, and warm_up returns at once."""
    seconds = in_threads(lambda i: warm_up())
    assert all(isinstance(s, float) and s >= 0 for s in seconds)
    assert is_warm() and kernels_cached()
    said: list[str] = []
    assert warm_up(said.append) < 0.5
    assert said == []  # nothing to do, nothing said


def test_warm_module_doctests() -> None:
    import doctest

    from bela.solver import warm

    assert doctest.testmod(warm).failed == 0


def test_a_new_process_finds_the_kernels_in_the_cache() -> None:
    """After warm_up the compiled kernels are in Numba's disk cache: a new process is not
    warm yet but knows warm_up will only load them."""
    import subprocess
    import sys

    warm_up()
    code = "from bela.solver import is_warm, kernels_cached; print(is_warm(), kernels_cached())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["False", "True"]


def test_search_is_compiled_once() -> None:
    """One compiled version of the search and of its driver (cold start: no second version
    specialised on a literal argument, see bela.solver.kernels.run)."""
    from bela.solver import kernels as K

    warm_up()
    for kernel in (K.search, K.run):
        index = kernel._cache._cache_file._load_index()  # what the disk cache holds
        assert len(index) <= 1 and len(kernel.signatures) <= 1

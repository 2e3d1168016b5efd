"""The server's bots in worker processes: a strong bot thinking never slows other tables.

A table's bot decides on an immutable snapshot of its seat's view (:mod:`bela.server.actor`).
The cheap bots (:data:`CHEAP`: ``random``, ``heuristic``; microseconds a move) decide in a
thread of the server process, as before.  Every other bot (``pimc``, ``ismcts``, a learned
bot...) decides in a :class:`BotPool`: ``bot_workers`` worker processes (``spawn``: fresh
interpreters, never a fork of the server's threads) whose search and sampling hold no lock
the server's event loop needs (a thread of the server shares its GIL with the event loop:
the strong bots' Python parts, the deal sampler and the bookkeeping, would hold up every
other table).

A decision is :func:`think`: the bot is made from its spec and the decision's seed, as in a
thread (:func:`bela.server.model.bot_seed`: play is the same however the bots run, and after
a restart), and :func:`bela.bots.driver.decide` keeps its rule: a bot that raises or chooses
an illegal action is replaced for that move by the seeded heuristic bot, and the decision
carries the failure back to the table's actor (the bot's own exception when it pickles as it
is, else a :class:`BotFailure` with its kind and message; either with the worker's
traceback as a note).  A worker that dies (killed, out of memory) breaks the pool: the
decisions under way fall back in the same way (their failure: the
:class:`~concurrent.futures.process.BrokenProcessPool`), and the pool is replaced at once.

The decisions wait in the pool's fair queue, at most one per live table (a table thinks
about one move at a time), so the queue needs no bound: a job goes to a worker only when
one is free, and the waiting jobs' keys (a table's creator's address: the table bots'
``_fair_key``) take turns (:meth:`BotPool._pump`), so one address's many tables take one
turn together and cannot push another's job behind all of theirs.  A decision carries its
deadline (:mod:`bela.bots.clock`): its search stops in time, a job whose table moved on
while it waited is never run, and one that runs on ends by its deadline, so a worker is
soon free again.  :attr:`BotPool.pending` (the ``bela_bot_jobs`` gauge) says how many wait
or run.  Each worker loads the bots'
modules and the solver's compiled kernels once, when it starts (:func:`init`);
``bela serve`` starts them all with the app (:meth:`BotPool.warm`), so the first strong
move does not wait for them.

>>> BotPool(0).pooled("pimc"), BotPool(2).pooled("pimc:samples=8"), BotPool(2).pooled("random")
(False, True, False)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..bots import BOTS, clock, make_bot, parse_spec
from ..bots.base import Bot
from ..bots.driver import Decision, decide
from ..engine.actions import Action
from ..engine.views import SeatView

log = logging.getLogger("bela.server")

CHEAP = frozenset({"random", "heuristic"})  # bots that decide in a thread of the server
# how much lower a worker process's CPU priority is than the server's (``nice``): where
# the cores are short, the event loop that serves every table runs first and a worker's
# search (which stops at its deadline with what it has) gets what is left
WORKER_NICENESS = 5


def default_workers() -> int:
    """The bot workers of a server by default: one fewer than its CPUs (the event loop keeps
    one), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


class BotFailure(Exception):
    """A bot's failure in a worker process whose exception does not pickle as it is: its
    ``kind`` (the exception's class name) and ``message``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.kind, self.message), self.__dict__


# -- the worker ------------------------------------------------------------------------------
def init(extra: Mapping[str, Callable[..., Bot]] | None = None) -> None:
    """The initializer of a worker process: Ctrl-C left to the server (which stops the pool),
    the worker's end with the server's (a server killed with SIGKILL leaves no worker
    behind), ``extra`` bots registered by name (see :class:`BotPool`), every bot's module
    imported and the solver's kernels loaded (compiled, the first time after an install)."""
    end_with_server()
    if extra:
        BOTS.update(extra)
    for name in list(BOTS):
        try:
            make_bot(name, seed=0)  # imports its module (and what it loads once) now
        except Exception:  # noqa: S112 - a bot this server cannot run is never asked for
            continue
    try:
        from ..solver.warm import warm_up
    except ImportError:  # no numpy: no search bot either
        return
    warm_up()


def end_with_server() -> None:
    """In a worker process (bot or analysis): Ctrl-C left to the server, which stops its
    pools, the process's end with the server's, even a server killed with SIGKILL, and
    its CPU priority :data:`WORKER_NICENESS` below the server's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # no nice on this system: the same priority
        os.nice(WORKER_NICENESS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), name="parent watch",
                         daemon=True).start()


def _end_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the server process is gone
    os._exit(0)


def ready() -> float:
    """A job that only waits for its worker to be warm: the seconds it still needed (0 once
    :func:`init` loaded the solver)."""
    try:
        from ..solver.warm import warm_up
    except ImportError:
        return 0.0
    return warm_up()


def portable(failure: BaseException) -> BaseException:
    """A bot's failure as it can travel back to the server: the exception itself when it
    pickles and comes back the same (type and message), else a :class:`BotFailure`; with
    the worker's traceback as a note (the server logs it)."""
    trace = "".join(traceback.format_exception(failure)).rstrip()
    note = f"in bot worker process {os.getpid()}:\n{trace}"
    try:
        failure.add_note(note)
        copy = pickle.loads(pickle.dumps(failure))
        if type(copy) is type(failure) and str(copy) == str(failure):
            return failure
    except Exception:  # noqa: S110 - it does not travel: described instead
        pass
    out = BotFailure(type(failure).__name__, str(failure))
    out.add_note(note)
    return out


def think(spec: str, seed: int, view: SeatView, revokes: bool = True,
          deadline: float | None = None) -> Decision:
    """A bot's decision, in a worker: :func:`~bela.bots.driver.decide` with the bot
    ``spec`` made with ``seed`` (the fallback seeded with it too; a deliberate revoke
    only where ``revokes``), its search ended by ``deadline`` (a :func:`time.monotonic`
    moment, :mod:`bela.bots.clock`; None: its caps alone), its failure made
    :func:`portable`."""
    with clock.deadline(deadline):
        decision = decide(lambda v: make_bot(spec, seed=seed).act(v), view, seed, revokes)
    if decision.failure is None:
        return decision
    return Decision(decision.action, portable(decision.failure))


def _raiser(failure: BaseException) -> Callable[[SeatView], Action]:
    def choose(view: SeatView) -> Action:
        raise failure

    return choose


def _in_thread(spec: str, seed: int, view: SeatView, revokes: bool,
               deadline: float | None) -> Decision:
    """A bot's decision in a thread of the server, its search ended by ``deadline``."""
    with clock.deadline(deadline):
        return decide(lambda v: make_bot(spec, seed=seed).act(v), view, seed, revokes)


def strong(spec: str) -> bool:
    """Is the bot ``spec`` a strong one (any but :data:`CHEAP`): one that may think long,
    and so answers at the table's answer times (:func:`bela.server.actor.answer_time`)?"""
    return parse_spec(spec)[0] not in CHEAP


# -- the pool --------------------------------------------------------------------------------
@dataclass(eq=False)
class _Job:
    """A decision waiting in the pool's fair queue or running in a worker; ``result``: its
    decision (or the pool's failure), on the event loop."""

    spec: str
    seed: int
    view: SeatView
    revokes: bool
    deadline: float | None
    key: str
    result: asyncio.Future[Decision]
    executor: ProcessPoolExecutor | None = None  # the pool it was given to


def workers_of(executor: ProcessPoolExecutor | None) -> list[multiprocessing.process.BaseProcess]:
    """A pool's worker processes (none before its first job)."""
    procs: dict[int, Any] = getattr(executor, "_processes", None) or {}
    return list(procs.values())


def stop_workers(executor: ProcessPoolExecutor, grace: float | None = None) -> None:
    """Shut a pool down: the jobs still queued are cancelled, those under way get ``grace``
    seconds to end (None: as long as they take), then the processes that have not exited
    are terminated, so that a stopping server exits in a bounded time
    (``--shutdown-timeout``; nobody waits for those answers any more, and the workers
    write nothing)."""
    if grace is None:
        executor.shutdown(wait=True, cancel_futures=True)
        return
    processes = workers_of(executor)  # before the shutdown, which forgets them
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
    late = [p for p in processes if p.is_alive()]
    for p in late:
        p.terminate()
    for p in late:
        p.join(2.0)
        if p.is_alive():
            p.kill()
            p.join(2.0)
    if late:
        log.warning("%d worker process(es) had not exited %.1f s after the stop: "
                    "terminated", len(late), grace)


class BotPool:
    """The bot workers of a server: ``workers`` processes decide at once for the tables'
    strong bots (``0``: none, every bot decides in a thread, as the cheap ones do);
    ``bots``: more bots by name, registered in every worker as in the server's
    :data:`~bela.bots.BOTS` (module-level classes or functions: they are pickled by name).
    The processes start with the first decision, or all at once with :meth:`warm`."""

    def __init__(self, workers: int, *, bots: Mapping[str, Callable[..., Bot]] | None = None
                 ) -> None:
        self.workers = max(0, workers)
        self.bots = dict(bots or {})
        self._executor: ProcessPoolExecutor | None = None
        self._stopped = False
        # the fair queue: each key's jobs waiting, in the order they came, and the keys
        # with jobs waiting in their turn's order; a job goes to a worker only when one is
        # free, so none waits in the executor's own queue
        self._waiting: dict[str, deque[_Job]] = {}
        self._turns: deque[str] = deque()
        self._running = 0  # jobs given to the workers and not done
        self.restarts = 0  # pools replaced after a worker died
        self.errors = 0  # decisions the pool failed otherwise (logged once, then debug)
        self.warmed_in: float | None = None  # seconds the last warm-up took, once done

    @property
    def pending(self) -> int:
        """Decisions waiting for a worker or running in one."""
        return self._running + sum(not job.result.done() for jobs in self._waiting.values()
                                   for job in jobs)

    def pooled(self, spec: str) -> bool:
        """Does the bot ``spec`` decide in a worker process (else in a thread)?"""
        return self.workers > 0 and parse_spec(spec)[0] not in CHEAP

    def pids(self) -> list[int]:
        """The worker processes running now (tests, diagnostics)."""
        return [p.pid for p in workers_of(self._executor) if p.pid is not None and p.is_alive()]

    def start(self) -> None:
        """Make the pool (its processes start with the first decisions, or :meth:`warm`)."""
        if self.workers and self._executor is None:
            self._stopped = False
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=init, initargs=(self.bots,))

    async def warm(self) -> float | None:
        """Start every worker and let it load the bots and the solver, so that the first
        strong bot's move does not wait for them: the seconds it took (``None``: no pool,
        or it failed, which is logged)."""
        if not self.workers:
            return None
        self.start()
        executor = self._executor
        assert executor is not None
        started = time.monotonic()
        try:
            # one job a worker: each new job starts a process while none is idle
            await asyncio.gather(*(asyncio.wrap_future(executor.submit(ready))
                                   for _ in range(self.workers)))
        except Exception:
            log.warning("the bot workers could not be warmed up", exc_info=True)
            return None
        self.warmed_in = time.monotonic() - started
        log.info("%d bot workers ready in %.1f s", self.workers, self.warmed_in)
        return self.warmed_in

    async def stop(self, grace: float | None = None) -> None:
        """Cancel the waiting decisions, give the running ones ``grace`` seconds to end
        (None: as long as they take) and the processes exit (:func:`stop_workers`);
        decisions asked for after this are made in threads."""
        self._stopped = True
        for jobs in self._waiting.values():  # never given to a worker: they fall back
            for job in jobs:
                job.result.cancel()
        self._waiting.clear()
        self._turns.clear()
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(stop_workers, executor, grace)

    async def decide(self, spec: str, seed: int, view: SeatView, revokes: bool = True, *,
                     deadline: float | None = None, key: str = "") -> Decision:
        """The decision of the bot ``spec`` with ``seed`` on ``view``, its search ended by
        ``deadline`` (a :func:`time.monotonic` moment, :mod:`bela.bots.clock`; None: its
        caps alone): in a worker when it is :meth:`pooled` (and the pool runs), in turn
        with the other ``key``\\ s (:meth:`_pump`), else in a thread.  Never raises for the
        bot or the pool: a failure is the decision's (the seeded heuristic moved)."""
        if not self.pooled(spec) or self._stopped:
            return await asyncio.to_thread(_in_thread, spec, seed, view, revokes, deadline)
        self.start()
        job = _Job(spec, seed, view, revokes, deadline, key,
                   asyncio.get_running_loop().create_future())
        if key not in self._waiting:
            self._waiting[key] = deque()
            self._turns.append(key)
        self._waiting[key].append(job)
        self._pump()
        try:
            return await asyncio.shield(job.result)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or task.cancelling():  # the table moved on: nothing to decide
                job.result.cancel()  # still waiting: never given to a worker
                raise
            # the job itself was cancelled (the pool stopped under it): fall back
            failure: BaseException = BrokenProcessPool("the bot pool stopped")
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory...)
            if job.executor is not None:
                self._replace(job.executor)
            failure = exc
        except Exception as exc:  # the view or the answer did not travel, the pool stopped
            self.errors += 1
            (log.error if self.errors == 1 else log.debug)(
                "a bot decision failed in the bot workers (%d so far): %s: %s", self.errors,
                type(exc).__name__, exc)
            failure = exc
        return await asyncio.to_thread(decide, _raiser(failure), view, seed)

    def _pump(self) -> None:
        """Give jobs to the free workers, the keys in turn (round robin): the first job of
        the key whose turn it is, and that key goes to the end of the turns if it has
        more.  So a key with many jobs waiting (one address's tables) takes one turn, and a
        new key's job waits for at most one job of each other key."""
        while self._running < self.workers and self._turns and not self._stopped:
            key = self._turns.popleft()
            jobs = self._waiting[key]
            job = jobs.popleft()
            if jobs:
                self._turns.append(key)
            else:
                del self._waiting[key]
            if job.result.done():  # its table moved on while it waited
                continue
            self.start()
            job.executor = self._executor
            try:
                running = asyncio.wrap_future(self._submit(job))
            except Exception as exc:  # the pool is broken or shut down
                job.result.set_exception(exc)
                continue
            self._running += 1
            running.add_done_callback(functools.partial(self._done, job))

    def _submit(self, job: _Job) -> Future[Decision]:
        """Run ``job`` in a worker (tests: a stand-in)."""
        assert job.executor is not None
        return job.executor.submit(think, job.spec, job.seed, job.view, job.revokes,
                                   job.deadline)

    def _done(self, job: _Job, running: asyncio.Future[Decision]) -> None:
        self._running -= 1
        if not job.result.done():
            if running.cancelled():
                job.result.cancel()
            elif (failure := running.exception()) is not None:
                job.result.set_exception(failure)
            else:
                job.result.set_result(running.result())
        self._pump()

    def _replace(self, executor: ProcessPoolExecutor) -> None:
        """A new pool in place of ``executor``, broken (once, whoever sees it first)."""
        if self._executor is not executor:
            return
        log.error("a bot worker process died; the bot pool is replaced (the moves it was "
                  "deciding are made by the fallback)")
        self.restarts += 1
        # its jobs are all failed by its own thread (cancelling them here could race it)
        executor.shutdown(wait=False)
        self._executor = None
        if not self._stopped:
            self.start()

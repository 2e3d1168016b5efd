"""The tables' log writes, off the event loop and group-committed.

A table's actor hands its next event (an action, a deal) to :meth:`LogWriter.write` and
waits for it; one writer thread takes every event waiting, of every table, and appends them
in one transaction (:meth:`bela.storage.repos.tables.Tables.append`), each fenced on its
table's stored event count.  A ``write`` returns only once its event is committed, so the
promise of the actor stays: an action is stored before any seat sees its result.  An event
the fence refused raises :class:`~bela.storage.LogConflict` (the others of its transaction
are written); a transaction the database failed raises its error in every ``write`` of it
(nothing of them is written).

While one transaction commits, the next events gather: under load each commit carries many
tables' events, and with a single table it is one event a transaction, as before.  Once a
transaction carried :data:`GATHER_FROM` events or more (many tables are playing), the next
one waits until :data:`GATHER` seconds after that one began, gathering what comes meanwhile:
at 1,500 actions a second that is some fifteen events a commit instead of two: the writer's
CPU per action more than halved, and the event loop woken and kept from the
interpreter less often, for at most those few milliseconds more before a state goes out
(docs/CAPACITY.md).  A quiet server (or a single table) commits each event at once.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from dataclasses import dataclass

from ..storage import LogConflict
from ..storage.repos.tables import LogEntry, Tables
from .metrics import Metrics

log = logging.getLogger("bela.server")

MAX_BATCH = 500  # events in one transaction, at most
GATHER = 0.010  # seconds from one transaction's start to the next's, under load
GATHER_FROM = 4  # events of a transaction from which the next one waits to gather
STOP_WAIT = 10.0  # seconds close() waits for the events already handed over


@dataclass(frozen=True)
class _Pending:
    entry: LogEntry
    what: str  # the metrics' label: "action", "deal"
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]


def _settle(results: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """On the waiters' loop: each future done, with its error if any (a waiter that was
    cancelled meanwhile is skipped)."""
    for done, failure in results:
        if done.done():
            continue
        if failure is None:
            done.set_result(None)
        else:
            done.set_exception(failure)


class LogWriter:
    """Appends the events of many tables' logs from one thread, those waiting together in
    one transaction; each write timed in ``metrics`` (``store_write``, what: the time of
    its transaction)."""

    def __init__(self, tables: Tables, metrics: Metrics, max_batch: int = MAX_BATCH,
                 gather: float = GATHER, gather_from: int = GATHER_FROM) -> None:
        self._tables = tables
        self._metrics = metrics
        self._max_batch = max_batch
        self._gather = gather
        self._gather_from = gather_from
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    async def write(self, entry: LogEntry, what: str) -> None:
        """Append ``entry`` to its table's log; returns once it is committed.  Raises
        :class:`LogConflict` when the log is not at ``entry.seq - 1`` or the database's
        error when its transaction failed (nothing of ``entry`` written either way)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._start()
        self._queue.put(_Pending(entry, what, loop, done))
        await done

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the log writer is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="bela-log-writer")
                self._thread.start()

    def close(self) -> None:
        """Write what was handed over, then stop the thread (server shutdown)."""
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join(STOP_WAIT)

    def _run(self) -> None:
        stopping = False
        began, size = 0.0, 0  # the last transaction's start and its number of events
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            if size >= self._gather_from:  # under load: gather until the window is over
                wait = began + self._gather - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            began, size = time.perf_counter(), len(batch)
            self._commit(batch)

    def _commit(self, batch: list[_Pending]) -> None:
        start = time.perf_counter()
        failure: BaseException | None = None
        written: list[bool] = []
        try:
            written = self._tables.append([p.entry for p in batch])
        except Exception as exc:  # every write of the transaction hears of it
            failure = exc
        took = time.perf_counter() - start
        self._metrics.store_batch.observe(len(batch))
        by_loop: dict[asyncio.AbstractEventLoop,
                      list[tuple[asyncio.Future[None], BaseException | None]]] = {}
        for i, p in enumerate(batch):
            self._metrics.store_write.labels(what=p.what).observe(took)
            outcome = failure
            if failure is None and not written[i]:
                e = p.entry
                outcome = LogConflict(f"table {e.table_id}: event {e.seq} was already "
                                      "written, or the one before it is missing")
            by_loop.setdefault(p.loop, []).append((p.done, outcome))
        for loop, results in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, results)
            except RuntimeError:  # that loop is closed: nobody waits any more
                log.debug("a log write finished after its event loop closed")

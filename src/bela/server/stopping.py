"""A stopping server's steps, each bounded: one that overruns is left behind (cancelled, its
cause written to stderr: where each task waits and every thread's stack) and the stop goes
on, so that the tables' leases are given back, the workers ended and the database closed
even when one step hangs."""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import sys
from collections.abc import Awaitable
from typing import Any, TextIO

log = logging.getLogger("bela.server")

STEP_LIMIT = 2.0  # seconds a short step of the stop may take (cancelling tasks, quick play)
TERMINATION = 4.5  # seconds past their grace that worker processes take to be ended
RECANCEL = 0.1  # seconds between two cancels of a task that goes on (see ended)


async def within(step: Awaitable[Any], seconds: float, what: str) -> bool:
    """Run ``step`` for at most ``seconds``: whether it ended in time.  A step that fails is
    logged; one that overruns is cancelled (not waited for) and logged with the stacks
    that show where it hangs (tests/server/test_server_stopping.py)."""
    task = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()  # left behind: whatever it raises while it unwinds is retrieved here
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        log.error("the stop's step %s had not ended after %.1f s: going on without it "
                  "(where its tasks wait and every thread's stack follow on stderr)",
                  what, seconds)
        try:
            write_stacks(sys.stderr)
        except Exception:  # a stderr without a file (or a broken pipe) stops no stop
            log.exception("the stacks could not be written")
        return False
    failure = None if task.cancelled() else task.exception()
    if failure is not None:
        log.error("the stop's step %s failed", what, exc_info=failure)
    return True


async def ended(*tasks: asyncio.Task[Any] | None, seconds: float | None = None) -> bool:
    """Cancel ``tasks`` (``None``: none; the task calling: not itself) and wait until they
    have ended, for at most ``seconds`` (``None``: as long as they take): whether they all
    ended.  A task still running is cancelled again every :data:`RECANCEL` seconds, since
    a cancel can be lost: Python 3.11's ``asyncio.wait_for`` returns its awaitable's result
    instead of raising when the cancel lands just as that awaitable finishes (fixed in
    3.12), and redis-py waits for each command's write that way when it has a socket
    timeout, so a task looping over Redis calls goes on as if never cancelled.  A task's
    failure is its own (logged where it ran), not the stop's."""
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    running = {task for task in tasks if task is not None and task is not me}
    deadline = None if seconds is None else loop.time() + seconds
    while True:
        for task in [t for t in running if t.done()]:
            running.discard(task)
            if not task.cancelled():  # retrieved: no "exception was never retrieved"
                task.exception()
        if not running:
            return True
        wait = RECANCEL if deadline is None else min(RECANCEL, deadline - loop.time())
        if wait <= 0:
            return False
        for task in running:
            task.cancel()
        await asyncio.wait(running, timeout=wait)


def write_stacks(file: TextIO) -> None:
    """Where each task of the running event loop waits, then every thread's stack."""
    write_task_stacks(file)
    faulthandler.dump_traceback(file=file, all_threads=True)
    file.flush()


def write_task_stacks(file: TextIO) -> None:
    """Write where each task of the running event loop waits: its chain of awaits, from
    the task's coroutine through the coroutines, generators and async generators it awaits
    (a lifespan's ``async with`` too) to the future at the end (``Task.print_stack`` shows
    the outermost frame only)."""
    import gc

    links = (("cr_frame", "cr_await"), ("gi_frame", "gi_yieldfrom"), ("ag_frame", "ag_await"))
    for task in sorted(asyncio.all_tasks(), key=lambda t: t.get_name()):
        print(f"Task {task.get_name()!r}:", file=file)
        awaited: Any = task.get_coro()
        for _ in range(200):  # an await chain is never that long: no endless walk
            link = next((ln for ln in links if hasattr(awaited, ln[0])), None)
            if link is None:  # an awaitable wrapper (a future's iterator, anext()...)
                inner = [r for r in gc.get_referents(awaited) if isinstance(r, asyncio.Future)
                         or any(hasattr(r, frame) for frame, _ in links)]
                if not inner:
                    break
                awaited = inner[0]
                if isinstance(awaited, asyncio.Future):
                    print(f"  waits on {awaited!r}", file=file)
                    break
                continue
            frame = getattr(awaited, link[0])
            if frame is None:  # running, or done
                break
            print(f'  File "{frame.f_code.co_filename}", line {frame.f_lineno}, in '
                  f"{frame.f_code.co_name}", file=file)
            awaited = getattr(awaited, link[1])
    file.flush()

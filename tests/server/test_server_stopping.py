"""A stopping server's steps are bounded: one that hangs is left behind with the stacks that
show where, and the stop goes on (the tables, the workers, the database)."""

from __future__ import annotations

import asyncio
import logging
import random
import shutil
import time
from pathlib import Path

import pytest
from server_helpers import redis_server

from bela.server.stopping import STEP_LIMIT, ended, within


async def _hangs_here() -> None:
    await asyncio.Event().wait()


async def _hung_step() -> None:
    await _hangs_here()


def test_a_step_that_hangs_is_left_behind_with_where_it_waits(
        capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> tuple[bool, float, asyncio.Task[None]]:
        task = asyncio.ensure_future(_hung_step())
        started = time.monotonic()
        in_time = await within(task, 0.2, "a test step")
        took = time.monotonic() - started
        await asyncio.sleep(0)  # the cancel lands
        return in_time, took, task

    with caplog.at_level(logging.ERROR, logger="bela.server"):
        in_time, took, task = asyncio.run(main())
    assert not in_time and 0.2 <= took < 2 and task.cancelled()
    assert "the stop's step a test step had not ended after 0.2 s" in caplog.text
    err = capfd.readouterr().err
    assert "in _hung_step" in err and "in _hangs_here" in err  # its chain of awaits
    assert "thread 0x" in err.lower()  # and every thread's stack


def test_a_step_that_fails_is_logged_and_the_stop_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    async def fails() -> None:
        raise RuntimeError("broken pool")

    with caplog.at_level(logging.ERROR, logger="bela.server"):
        assert asyncio.run(within(fails(), 1.0, "a failing step"))
    assert "the stop's step a failing step failed" in caplog.text
    assert "broken pool" in caplog.text


def test_ended_cancels_and_waits_at_most_its_time() -> None:
    released = asyncio.Event()

    async def stubborn() -> None:  # swallows its cancels until it is released
        while not released.is_set():
            try:
                await released.wait()
            except asyncio.CancelledError:
                continue

    async def main() -> tuple[bool, bool, float]:
        quiet = asyncio.ensure_future(_hangs_here())
        finished = asyncio.ensure_future(asyncio.sleep(0))
        await asyncio.sleep(0.01)
        all_ended = await ended(quiet, finished, None, seconds=1.0)
        late = asyncio.ensure_future(stubborn())
        await asyncio.sleep(0)
        started = time.monotonic()
        late_ended = await ended(late, seconds=0.2)
        took = time.monotonic() - started
        assert not late.done()
        released.set()
        await late
        return all_ended, late_ended, took

    all_ended, late_ended, took = asyncio.run(main())
    assert all_ended and not late_ended and 0.2 <= took < 2


def test_the_apps_stop_goes_on_past_a_hung_step(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """Quick play's stop hangs: after :data:`STEP_LIMIT` the tables still stop, the bot
    workers end and the database closes."""
    from fastapi.testclient import TestClient

    from bela.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'bela.db'}", bot_workers=0, analysis_workers=1,
                     shutdown_timeout=1.0)
    tables_stopped: list[bool] = []
    with caplog.at_level(logging.INFO, logger="bela.server"), TestClient(app):
        app.state.quick.stop = _hung_step
        shutdown = app.state.lobby.shutdown

        async def lobby_shutdown() -> None:
            await shutdown()
            tables_stopped.append(True)

        app.state.lobby.shutdown = lobby_shutdown
        started = time.monotonic()
    took = time.monotonic() - started
    assert STEP_LIMIT <= took < STEP_LIMIT + 5
    assert "the stop's step quick play had not ended" in caplog.text
    assert tables_stopped == [True] and app.state.bots._stopped and app.state.db._stop.is_set()


def test_a_task_that_loses_its_first_cancel_is_ended() -> None:
    async def loses_one() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:  # as Python 3.11's wait_for when its awaitable is done
            pass
        await asyncio.Event().wait()

    async def main() -> bool:
        task = asyncio.ensure_future(loses_one())
        await asyncio.sleep(0)
        return await ended(task, seconds=2.0)

    assert asyncio.run(main())


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_quick_play_over_redis_stops_although_its_calls_lose_cancels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Quick play's loop over the site's Redis (the cluster's client, with its socket
    timeout) is stopped again and again while it reads the queues without pause: each
    stop ends at once, although a cancel landing as a command's write finishes is lost
    (Python 3.11's wait_for inside redis-py); before, one such stop waited forever."""
    from types import SimpleNamespace

    from bela.server import quickplay
    from bela.server.cluster import connect

    monkeypatch.setattr(quickplay, "TICK", 0.0)  # nothing but Redis calls: the race each time

    async def main(url: str) -> list[float]:
        redis = connect(url)
        router = SimpleNamespace(cluster=SimpleNamespace(redis=redis, id="a"))
        quick = quickplay.QuickPlay(router, None)
        took = []
        try:
            for _ in range(150):
                await quick.start()
                await asyncio.sleep(random.uniform(0.0, 0.01))
                started = time.monotonic()
                stop = asyncio.ensure_future(quick.stop())
                done, _ = await asyncio.wait({stop}, timeout=5.0)
                assert done, "quick play's stop waited on a loop that lost its cancel"
                took.append(time.monotonic() - started)
        finally:
            await redis.aclose()
        return took

    with redis_server(tmp_path) as (url, _proc):
        took = asyncio.run(main(url))
    assert max(took) < 1.0


def test_ended_skips_the_calling_task_and_counts_tasks_already_ended() -> None:
    async def main() -> tuple[bool, bool, bool]:
        me = asyncio.current_task()
        done = asyncio.ensure_future(asyncio.sleep(0))
        await done
        return (await ended(me), await ended(done, seconds=0.0),
                me is not None and not me.cancelling())

    assert asyncio.run(main()) == (True, True, True)


def test_a_stderr_without_a_file_does_not_stop_the_stop(
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """Under ``capsys`` stderr has no file descriptor for the threads' stacks: the step is
    still left behind and the stop goes on."""
    async def main() -> tuple[bool, asyncio.Task[None]]:
        task = asyncio.ensure_future(_hung_step())
        in_time = await within(task, 0.1, "a test step")
        await asyncio.sleep(0)
        return in_time, task

    with caplog.at_level(logging.ERROR, logger="bela.server"):
        in_time, task = asyncio.run(main())
    assert not in_time and task.cancelled()
    assert "the stacks could not be written" in caplog.text


def test_quick_play_that_loses_every_cancel_stops_at_its_next_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run of quick play has its own stop flag: a round that swallows the cancel ends
    the loop all the same, and a new start runs one loop, not the old one too."""
    from types import SimpleNamespace

    from bela.server import quickplay

    monkeypatch.setattr(quickplay, "TICK", 0.0)
    rounds: list[int] = []

    async def main() -> list[bool]:
        quick = quickplay.QuickPlay(SimpleNamespace(cluster=None), None)
        run = [0]

        async def tick(now: float | None = None) -> None:  # loses every cancel
            rounds.append(run[0])
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass

        quick.tick = tick  # type: ignore[method-assign]
        ended_in_time = []
        for run[0] in (1, 2):
            await quick.start()
            task = quick._task
            await asyncio.sleep(0.05)
            ended_in_time.append(await within(quick.stop(), 1.0, "quick play"))
            assert task is not None and task.done()
        return ended_in_time

    assert asyncio.run(main()) == [True, True]
    assert rounds == sorted(rounds) and set(rounds) == {1, 2}  # run 1's loop ended first

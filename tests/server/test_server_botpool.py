"""The tables' strong bots think in worker processes (bela.server.botpool): they play as in
threads, a failing bot falls back and is reported, a killed worker is replaced and the table
goes on, and the views they get pickle."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import pickle
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")  # the pimc bot

from concurrent.futures.process import BrokenProcessPool  # noqa: E402

from server_helpers import guest, server  # noqa: E402

from bela.bots import BOTS, make_bot  # noqa: E402
from bela.bots.driver import Decision  # noqa: E402
from bela.bots.pimc import PimcBot  # noqa: E402
from bela.engine import Match  # noqa: E402
from bela.engine.errors import IllegalAction  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.server import actor  # noqa: E402
from bela.server.botpool import (  # noqa: E402
    WORKER_NICENESS,
    BotFailure,
    BotPool,
    default_workers,
    portable,
    workers_of,
)
from failing_bots import Bluffer, BrokenInPlay  # noqa: E402

# the test bots, registered by name in the workers (and, per test, in this process: the
# lobby takes only bots it knows); a pimc bot with tiny settings keeps a round quick
EXTRA = {"quick": functools.partial(PimcBot, samples=2, bid_samples=2),
         "broken": BrokenInPlay, "bluffer": Bluffer}


@pytest.fixture(scope="module")
def pool() -> Iterator[BotPool]:
    """One worker for the whole module: a spawned worker imports numba and loads the
    solver's kernels once (seconds)."""
    p = BotPool(1, bots=EXTRA)
    assert asyncio.run(p.warm()) is not None
    yield p
    asyncio.run(p.stop())


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, factory in EXTRA.items():
        monkeypatch.setitem(BOTS, name, factory)


def _play(client: Any, bot: str, seed: int = 5,
          at: tuple[int, Callable[[], None]] | None = None) -> dict[str, Any]:
    """A bela4 table of four ``bot`` bots, target 1 (one round), played to its end: its
    summary; ``at``: (``seq``, ``fn``): ``fn()`` once the table reached event ``seq``."""
    _, h = guest(client, "Ana")
    r = client.post("/api/tables", json={"variant": "bela4", "bot": bot, "seat": None,
                                         "seed": seed, "options": {"target": 1}}, headers=h)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # keeps it in memory
        assert ws.receive_json()["type"] == "welcome"
        assert client.post(f"/api/tables/{tid}/start", headers=h).status_code == 200
        deadline = time.monotonic() + 30
        while True:
            t: dict[str, Any] = client.get(f"/api/tables/{tid}").json()
            if t["status"] == "finished":
                return t
            if at is not None and t["seq"] >= at[0]:
                at[1]()
                at = None
            assert time.monotonic() < deadline, f"the table is stuck at event {t['seq']}"
            time.sleep(0.02)


def _actions(client: Any, tid: str) -> list[list[str]]:
    record = client.get(f"/api/tables/{tid}/record").json()
    return [r["actions"] for r in record["rounds"]]


def test_views_and_decisions_pickle() -> None:
    """Every view of a round of every variant comes back from a pickle equal (a strong bot's
    view travels to its worker as it is), and so does a decision with its failure."""
    for variant in ("bela4", "bela3", "bela2", "belot2"):
        m = Match(variant, seed=7)
        m.deal()
        rng = random.Random(1)
        assert m.round is not None
        while not m.round.is_over:
            for seat in range(m.variant.seats):
                view = seat_view(m, seat)
                assert pickle.loads(pickle.dumps(view)) == view
            view = seat_view(m, m.round.turn)
            m.apply(view.legal[rng.randrange(len(view.legal))])
    decision = Decision(view.legal[0], portable(IllegalAction("no", legal=["pass"])))
    back = pickle.loads(pickle.dumps(decision))
    assert back.action == decision.action and str(back.failure) == str(decision.failure)


def test_failures_travel() -> None:
    """A failure that pickles stays itself; one that does not becomes a BotFailure with its
    kind and message; either carries the worker's traceback as a note."""
    try:
        raise IllegalAction("the bot chose 'claim 0'", legal=["pass"])
    except IllegalAction as exc:
        same = portable(exc)
    assert type(same) is IllegalAction and "in bot worker process" in same.__notes__[0]
    assert str(pickle.loads(pickle.dumps(same))) == str(same)

    class Odd(Exception):  # a local class: it does not pickle
        pass

    try:
        raise Odd("out of its depth")
    except Odd as exc:
        out = portable(exc)
    assert isinstance(out, BotFailure) and (out.kind, out.message) == ("Odd", "out of its depth")
    back = pickle.loads(pickle.dumps(out))
    assert str(back) == "Odd: out of its depth" and "Odd: out of its depth" in back.__notes__[0]


def test_the_app_default_and_the_tests_default(tmp_path: Path) -> None:
    """An app's bots think in default_workers() processes (started with the first strong
    move); the server tests' apps think in threads unless given a pool."""
    from bela.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'a.db'}")
    assert app.state.bots.workers == default_workers() >= 1 and app.state.bots.pids() == []
    with server(tmp_path) as client:
        assert client.app.state.bots.workers == 0  # type: ignore[attr-defined]


def test_a_pimc_table_plays_through_the_pool_as_in_threads(
        tmp_path: Path, pool: BotPool, registered: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same table played by pimc bots in threads and in the pool: the same moves (a
    decision's seed is the same wherever it is made), no fallback, the pool's worker did
    the work (the server's own make_bot raises meanwhile)."""
    with server(tmp_path, f"sqlite:///{tmp_path / 'threads.db'}") as client:
        t = _play(client, "quick")
        assert t["status"] == "finished" and not t["bot_fallback"]
        in_threads = _actions(client, t["id"])
    workers = pool.pids()

    def refuse(spec: str, seed: int | None = None) -> Any:
        raise AssertionError("this bot thinks in the pool, not in a thread")

    monkeypatch.setattr(actor, "make_bot", refuse)
    with server(tmp_path, f"sqlite:///{tmp_path / 'pool.db'}", bot_pool=pool) as client:
        t = _play(client, "quick")
        assert t["status"] == "finished" and not t["bot_fallback"]
        assert _actions(client, t["id"]) == in_threads
        metrics = client.get("/metrics").text
        assert "bela_bot_jobs 0.0" in metrics
    assert pool.pids() == workers and pool.restarts == 0  # still the warm worker
    assert in_threads[0] and len(in_threads[0]) > 32


def test_workers_run_below_the_servers_priority(pool: BotPool) -> None:
    """A worker's search yields the cores to the server's event loop (botpool's
    WORKER_NICENESS): its niceness is the server's plus that much (capped at 19)."""
    (pid,) = pool.pids()
    with open(f"/proc/{pid}/stat") as f:  # field 19: the nice value
        worker = int(f.read().rsplit(")", 1)[1].split()[16])
    assert worker == min(19, os.nice(0) + WORKER_NICENESS)


def test_a_failing_bot_in_a_worker_falls_back_and_is_reported(
        tmp_path: Path, pool: BotPool, registered: None,
        caplog: pytest.LogCaptureFixture) -> None:
    """A bot raising in its worker: the seeded heuristic moves for it, the failure comes
    back to the table (bot_fallback, logged once with the worker's traceback); an illegal
    choice comes back as the IllegalAction it is."""
    caplog.set_level(logging.DEBUG, logger="bela.server")
    with server(tmp_path, bot_pool=pool) as client:
        t = _play(client, "broken")
        assert t["status"] == "finished" and t["bot_fallback"] is True
    failed = [r for r in caplog.records if r.name == "bela.server"
              and r.levelno >= logging.WARNING and "failed" in r.getMessage()]
    assert len(failed) == 1, [r.getMessage() for r in failed]
    assert "out of its depth" in failed[0].getMessage()
    assert "in bot worker process" in caplog.text and "failing_bots.py" in caplog.text

    m = Match("bela4", seed=1)
    m.deal()
    assert m.round is not None
    view = seat_view(m, m.round.turn)
    decision = asyncio.run(pool.decide("bluffer", 9, view))
    assert isinstance(decision.failure, IllegalAction) and decision.action in view.legal
    assert decision.action == make_bot("heuristic", seed=9).act(view)  # the seeded fallback


def test_a_killed_worker_is_replaced_and_the_table_goes_on(
        tmp_path: Path, pool: BotPool, registered: None,
        caplog: pytest.LogCaptureFixture) -> None:
    """The worker is killed while a pimc table plays: the move under way (or the next) is
    made by the fallback and reported, the pool is replaced, the table finishes."""
    restarts, (old,) = pool.restarts, pool.pids()

    def kill() -> None:
        deadline = time.monotonic() + 5
        while not pool.pending and time.monotonic() < deadline:  # best: while it thinks
            time.sleep(0.001)
        os.kill(old, signal.SIGKILL)

    with server(tmp_path, bot_pool=pool) as client:
        t = _play(client, "quick", at=(2, kill))  # dealt, bidding
        assert t["status"] == "finished" and t["bot_fallback"] is True
    assert pool.restarts == restarts + 1
    assert "a bot worker process died" in caplog.text and "BrokenProcessPool" in caplog.text
    assert pool.pids() and old not in pool.pids()  # the new worker took over


# -- a killed server ---------------------------------------------------------------------------
SERVER_WITH_POOL = """
import os, sys, time
from bela.server.analysis import Pool
from bela.server.botpool import BotPool
pool = BotPool(1) if sys.argv[1] == "bots" else Pool(1, 0)
pool.start()
print(pool._executor.submit(os.getpid).result(), flush=True)
time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """Has the process ended (gone, or a zombie its new parent has not reaped yet)?"""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


@pytest.mark.parametrize("pool", ["bots", "analysis"])
def test_a_server_killed_with_sigkill_leaves_no_worker_behind(pool: str) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", SERVER_WITH_POOL, pool],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        worker = int(proc.stdout.readline())
        assert worker != proc.pid and not _gone(worker)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 30
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(worker)


# -- a stopping server -----------------------------------------------------------------------
def _busy_pool(kind: str) -> Any:
    """A started pool of one worker (bots or analysis), that worker's pid."""
    from bela.server.analysis import Pool

    p = BotPool(1) if kind == "bots" else Pool(1, 0)
    p.start()
    assert p._executor is not None
    return p, p._executor.submit(os.getpid).result(timeout=60)


def _under_way(job: Any) -> None:
    deadline = time.monotonic() + 10
    while not job.running():
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.parametrize("kind", ["bots", "analysis"])
def test_a_stopping_pool_ends_a_long_job_after_its_grace(kind: str) -> None:
    """A job still running when the pool stops gets the grace, then its worker is
    terminated: the stop ends in about the grace, not the job's time (--shutdown-timeout)."""
    p, worker = _busy_pool(kind)
    job = p._executor.submit(time.sleep, 60)
    _under_way(job)
    started = time.monotonic()
    asyncio.run(p.stop(0.5))
    assert time.monotonic() - started < 10
    assert _gone(worker)
    with pytest.raises(BrokenProcessPool):  # the pool broke under it
        job.result(timeout=5)


@pytest.mark.parametrize("kind", ["bots", "analysis"])
def test_a_stopping_pool_lets_a_short_job_end(kind: str) -> None:
    """A job under way that ends within the grace gives its answer."""
    p, worker = _busy_pool(kind)
    job = p._executor.submit(time.sleep, 0.5)
    _under_way(job)  # (a job still waiting is cancelled)
    started = time.monotonic()
    asyncio.run(p.stop(30))
    assert time.monotonic() - started < 10  # the job's time, not the grace
    assert job.result(timeout=1) is None
    assert _gone(worker)


def test_a_stopping_server_ends_its_workers_jobs_after_its_timeout(tmp_path: Path) -> None:
    """The app's shutdown gives the bot and analysis workers' running jobs what is left of
    ``shutdown_timeout``, then ends them: it does not wait for a job of a minute."""
    from fastapi.testclient import TestClient

    from bela.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'bela.db'}", bot_workers=1, analysis_workers=1,
                     shutdown_timeout=0.5)
    with TestClient(app):
        pools = [app.state.lobby.bots, app.state.analysis.pool]
        for p in pools:
            p.start()
        jobs = [p._executor.submit(time.sleep, 60) for p in pools]
        for job in jobs:
            _under_way(job)
        processes = [w for p in pools for w in workers_of(p._executor)]
        started = time.monotonic()
    assert time.monotonic() - started < 10
    for job in jobs:
        with pytest.raises(BrokenProcessPool):
            job.result(timeout=5)
    assert len(processes) == 2 and not any(w.is_alive() for w in processes)

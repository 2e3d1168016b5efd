"""Browser tests of the web UI: a real ``bela serve`` and Debian's Chromium via pytest-playwright.

The browser is the system's Chromium (``apt-get install chromium``; never ``playwright
install``); the tests are skipped with a reason where it or Playwright is missing.
``BELA_CHROMIUM`` points to another Chromium binary.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("BELA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]
ARTIFACTS = Path(__file__).parent / "artifacts"
ACCESS_REFUSED = re.compile(r'" [45]\d\d\s*$')  # an access log line of a refused request
SERVER_LOG_TAIL = 120  # lines of a test server's output shown under a failing test
_server_logs: dict[str, list[str]] = {}  # a test server's address -> the lines it printed


def _need_browser() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("Playwright is not installed (pip install -e '.[dev]')")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; "
                    "BELA_CHROMIUM=path for another one)")


@pytest.fixture(scope="session")
def browser_type_launch_args(pytestconfig: Any) -> dict[str, Any]:
    """pytest-playwright's launch arguments: the system Chromium, no downloaded browser."""
    _need_browser()
    return {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _wait_ready(url: str, proc: subprocess.Popen[str], timeout: float = 30) -> None:
    """The address is printed before uvicorn listens: wait until it answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/api/variants", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"bela serve at {url} does not answer")
        time.sleep(0.1)


def serve_bela(tmp: Path, db: str | None = None,
               extra: tuple[str, ...] = ()) -> Iterator[str]:
    """A ``bela serve`` on a free loopback port with a temporary SQLite database in ``tmp``
    (or the database ``db``; ``extra``: more options, such as an instance's ``--redis``)
    and fast bots (strong ones answer at 0.1 s, not at the product's 1 s a card), without
    the per-address limits (every page of every test comes from 127.0.0.1: a module's
    pages polling four times a second would pass the product's 20 requests a second, which
    are a real address's): its address while the generator runs, stopped after."""
    pytest.importorskip("fastapi")
    _need_browser()
    env = {**os.environ, "BELA_DATA_DIR": str(tmp), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bela.server", "--host", "127.0.0.1", "--port", "0",
         "--db", db or f"sqlite:///{tmp / 'web.db'}", "--bot-delay", "0.05", "--round-pause", "0.6",
         "--grace", "300", "--rated-min-target", "1", "--board-opponents", "1",
         "--strong-bot-tables", "0", "--bot-answer", "bid=0.1,exchange=0.1,discard=0.1,card=0.1",
         "--no-rate-limits", "--log-level", "info", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()  # its first lines, until it names its address
    printed: list[str] = []  # all it prints but the requests, for a failing test's report
    started = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "uvicorn.access" not in line or ACCESS_REFUSED.search(line):
                printed.append(line)  # not the requests answered: the tests know them
            if not started.is_set():
                lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    url = None
    seen = []
    try:
        while url is None:
            try:
                line = lines.get(timeout=30)
            except queue.Empty:
                break
            seen.append(line)
            if "http://" in line:
                url = line.split("http://", 1)[1].split()[0].rstrip("/")
        if url is None:
            pytest.fail("bela serve did not start:\n" + "".join(seen))
        started.set()
        _wait_ready(f"http://{url}", proc)
        _server_logs[f"http://{url}"] = printed
        yield f"http://{url}"
    finally:
        _server_logs.pop(f"http://{url}", None)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]
                              ) -> Iterator[None]:
    """A failing browser test shows the end of its test server's log (the server runs in
    a process of its own, so its tracebacks and warnings are not captured otherwise)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed:
        return
    args = getattr(item, "funcargs", {})
    for url in dict.fromkeys(str(args.get(name, "")) for name in ("own_bela_url", "bela_url")):
        printed = _server_logs.get(url)
        if printed:
            report.sections.append((f"the server at {url} (its log's last {SERVER_LOG_TAIL} "
                                    "lines)", "".join(printed[-SERVER_LOG_TAIL:])))


@pytest.fixture(scope="session")
def bela_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server most browser tests share (one per session)."""
    yield from serve_bela(tmp_path_factory.mktemp("bela-web"))


@pytest.fixture(scope="module")
def own_bela_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of the module's own: its analysis workers and bots busy with nothing the
    earlier tests left running (their bot tables, their reviews)."""
    yield from serve_bela(tmp_path_factory.mktemp("bela-web-own"))

"""Browser tests of the web UI: a real ``bela serve`` and Debian's Chromium via pytest-playwright.

The browser is the system's Chromium (``apt-get install chromium``; never ``playwright
install``); the tests are skipped with a reason where it or Playwright is missing.
``BELA_CHROMIUM`` points to another Chromium binary.
"""

from __future__ import annotations

import os
import queue
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


def serve_bela(tmp: Path) -> Iterator[str]:
    """A ``bela serve`` on a free loopback port with a temporary SQLite database in ``tmp``
    and fast bots: its address while the generator runs, stopped after."""
    pytest.importorskip("fastapi")
    _need_browser()
    env = {**os.environ, "BELA_DATA_DIR": str(tmp), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bela.server", "--host", "127.0.0.1", "--port", "0",
         "--db", f"sqlite:///{tmp / 'web.db'}", "--bot-delay", "0.05", "--round-pause", "0.6",
         "--grace", "300", "--rated-min-target", "1", "--board-opponents", "1",
         "--strong-bot-tables", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
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
        _wait_ready(f"http://{url}", proc)
        yield f"http://{url}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def bela_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server most browser tests share (one per session)."""
    yield from serve_bela(tmp_path_factory.mktemp("bela-web"))


@pytest.fixture(scope="module")
def own_bela_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of the module's own: its analysis workers and bots busy with nothing the
    earlier tests left running (their bot tables, their reviews)."""
    yield from serve_bela(tmp_path_factory.mktemp("bela-web-own"))

"""The load script (small): bots behind real WebSockets, latency, errors, memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

import load  # noqa: E402  # tools/load.py (pytest puts tools/ on the path)

TOOL = Path(__file__).parents[2] / "tools" / "load.py"


def test_load_script_plays_tables_without_errors() -> None:
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--tables", "4", "--duration", "3",
         "--think", "0.03",  # at least 15 ms a move: under the server's 50 messages a second
         "--variant", "bela2", "--bot", "heuristic", "--json"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["tables"] == 4 and report["connections"] == 8
    assert report["errors"] == 0 and report["actions"] > 20
    assert report["latency_ms"]["samples"] > 20 and report["latency_ms"]["p99"] > 0
    assert report["memory_per_table_kb"] is not None


def test_load_with_the_servers_strong_bots() -> None:
    """``--table-bot pimc``: one load client a table, the server's pimc bots in the other
    seats, thinking in its bot worker (``--bot-workers 1``, passed on to the server).  The
    client thinks at least 25 ms a move: the server's bot answers single-card tricks at once,
    and a faster client would pass the server's 50 messages a second (an error)."""
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--tables", "2", "--duration", "8",
         "--think", "0.05", "--variant", "bela2", "--table-bot", "pimc", "--bot-workers", "1",
         "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["tables"] == 2 and report["connections"] == 2  # one seat a table
    # (the first strong move waits for the worker to load the solver, on a busy machine
    # seconds)
    assert report["errors"] == 0 and report["latency_ms"]["samples"] > 0
    bots = report["server_bots"]
    assert bots["bot"] == "pimc" and bots["seats_per_table"] == 1 and bots["bot_workers"] == 1
    assert bots["moves_per_s"] > 0 and bots["think_ms_mean"] > 0


def _twice_one_server(tmp_path: Path, *args: str) -> dict[str, Any]:
    """The load script's report, run with ``args`` against one server given twice as
    ``--url`` (two instances of a site, as the script sees them)."""
    server, url = load.start_server(str(tmp_path))
    try:
        proc = subprocess.run(
            [sys.executable, str(TOOL), "--url", url, "--url", url, *args,
             "--duration", "3", "--variant", "bela2", "--json"],
            capture_output=True, text=True, timeout=180)
    finally:
        load.stop_servers([server])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def test_load_spreads_over_several_urls(tmp_path: Path) -> None:
    """Two ``--url``s (here one server twice): tables round-robin, each table's seats through
    both URLs; the report has one entry per URL."""
    report = _twice_one_server(tmp_path, "--tables", "3", "--think", "0.01")
    assert report["tables"] == 3 and report["connections"] == 6
    assert report["errors"] == 0 and report["latency_ms"]["samples"] > 10
    assert [(i["tables"], i["connections"]) for i in report["instances"]] == [(2, 3), (1, 3)]
    assert report["memory_per_table_kb"] is None  # a server it did not start


def test_load_in_several_processes(tmp_path: Path) -> None:
    """``--clients 2``: table k is set up and played by load process k mod 2, the servers
    measured once from when both are ready until both have ended; the report adds up both
    processes' tables, sockets and latencies."""
    report = _twice_one_server(tmp_path, "--clients", "2", "--tables", "5", "--think", "0.02")
    assert report["load_processes"] == 2
    assert report["tables"] == 5 and report["connections"] == 10
    # tables round-robin over the URLs across both processes: 0, 2, 4 and 1, 3
    assert [(i["tables"], i["connections"]) for i in report["instances"]] == [(3, 5), (2, 5)]
    assert report["errors"] == 0 and report["latency_ms"]["samples"] > 20
    assert report["client_cpu_pct"] > 0 and report["duration_s"] >= 3
    box = report["box_cpu_pct"]  # the whole box during play: the load itself at least
    assert box["cores"] == os.cpu_count() and box["busy"] >= report["client_cpu_pct"] / 2
    assert box["postgres"] >= 0 and box["redis"] >= 0


def test_a_failing_load_process_is_reported() -> None:
    """A load process that fails says so in the measuring one, which stops the others
    rather than waiting for them."""
    import asyncio
    import multiprocessing
    import random

    waiting = {"urls": ["http://127.0.0.1:9"], "indexes": [0], "variant": "bela2",
               "think": 0.0, "duration": 1.0, "bot": "random", "target": None,
               "rng": random.Random(1), "table_bot": None, "humans": 1}  # ready, then waits
    watch = load.ServerWatch(None, [], [], None)
    with pytest.raises(RuntimeError, match=r"load process 2 of 2 failed: TypeError"):
        asyncio.run(load._processes(multiprocessing.get_context("spawn"), 2,
                                    [waiting, {"no such option": 1}], watch))


def test_default_load_processes() -> None:
    """One load process per 400 tables (its loop serving 1,600 sockets stalls for tens of
    milliseconds, which would count as the servers' latency)."""
    assert [load.default_clients(n) for n in (1, 400, 401, 800, 2000)] == [1, 1, 2, 2, 5]
    for argv in (["--tables", "4", "--clients", "0"], ["--tables", "4", "--clients", "5"],
                 ["--tables", "0"]):
        with pytest.raises(SystemExit) as exc:
            load.main(argv)
        assert exc.value.code == 2


def test_seat_url_and_cluster_options() -> None:
    urls = ["a", "b"]
    assert {load.seat_url(urls, k, 0) for k in range(4)} == {"a", "b"}
    assert all(load.seat_url(urls, k, 0) != load.seat_url(urls, k, 1) for k in range(4))
    for argv in (["--cluster", "2"], ["--cluster", "2", "--db", "sqlite://", "--redis", "r"],
                 ["--cluster", "2", "--db", "postgresql://x", "--url", "http://127.0.0.1:1"],
                 ["--db", "postgresql://x"],
                 ["--url", "http://127.0.0.1:1", "--bot-workers", "1"],
                 ["--table-bot", "pimc", "--humans", "0"]):
        with pytest.raises(SystemExit) as exc:
            load.main(argv)
        assert exc.value.code == 2


def test_load_refuses_other_hosts() -> None:
    load.check_loopback("http://127.0.0.1:8000")
    load.check_loopback("http://localhost:1")
    with pytest.raises(SystemExit):
        load.check_loopback("http://example.com:8000")


def test_the_load_servers_run_without_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers the load tool starts run with ``--no-rate-limits`` (``bela serve``'s
    hidden option): hundreds of guests from one address."""
    argv: list[str] = []

    class Made(Exception):
        pass

    def popen(args: list[str], **_kw: Any) -> Any:
        argv.extend(args)
        raise Made

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(Made):
        load.start_server("/nowhere")
    assert argv[1:3] == ["-m", "bela.server"] and "--no-rate-limits" in argv


def test_serve_command_options() -> None:
    import typer
    from typer.testing import CliRunner

    from bela.server.run import serve

    app = typer.Typer()
    app.command("serve")(serve)
    app.command("other")(lambda: None)
    out = CliRunner().invoke(app, ["serve", "--help"], terminal_width=200)
    assert out.exit_code == 0
    for option in ("--host", "--port", "--db", "--grace", "--bot-delay", "--round-pause",
                   "--bot-workers"):
        assert option in out.output


def test_the_load_scripts_doctests() -> None:
    import doctest

    result = doctest.testmod(load)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("variant", sorted(load.VARIANTS))
def test_a_glance_reads_what_parsing_reads(variant: str) -> None:
    """The load seats skip parsing a state in which they have nothing to do: the glance
    must give that message's ``seq`` exactly when the parsed message is such a state, and
    nothing for every other message, on the server's own texts (each seat's, a
    spectator's, running and finished)."""
    import random

    import orjson

    from bela.engine import Match
    from bela.server.hub import Hub
    from bela.server.model import Table, TableStatus

    rng = random.Random(7)
    hub = Hub()
    glanced = finished = 0
    for k in range(3):
        match = Match(variant, seed=k)
        rnd = match.deal()
        table = Table(f"t{k}", variant, {}, k, "random", TableStatus.RUNNING, None, [],
                      match=match)
        seats: list[int | None] = [*range(match.variant.seats), None]
        while rnd.phase.name != "DONE":
            events = match.apply(rng.choice(rnd.legal_actions()))
            table.seq += 1
            for status in (TableStatus.RUNNING, TableStatus.FINISHED):
                table.status = status
                for text in hub.state_texts(table, seats, events).values():
                    msg = orjson.loads(text)
                    idle = msg["status"] == "running" and not msg["view"]["legal"]
                    assert load.glance(text) == (msg["seq"] if idle else None), text
                    glanced += idle
                    finished += msg["status"] == "finished"
            table.status = TableStatus.RUNNING
    assert glanced > 100 and finished > 100  # the fast path is taken, and both statuses


def test_the_load_script_warms_the_kernels_before_the_servers(tmp_path: Path) -> None:
    """On a cold Numba cache the servers' workers would compile the solver's kernels during
    play: the script compiles them once first (here into an empty cache of its own)."""
    pytest.importorskip("numba")
    code = ("import load\n"
            "from bela.solver import kernels_cached\n"
            "before = kernels_cached()\n"
            "load.warm_kernels()\n"
            "print(before, kernels_cached())\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=TOOL.parent,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]
    assert "compiling the solver's kernels once" in proc.stderr

"""Load test: N concurrent tables whose players are bots behind real WebSocket connections.

``python -m bela.server.load --tables 200`` starts a server on 127.0.0.1 (a subprocess with a
temporary SQLite database) or uses ``--url`` (loopback addresses only), creates the tables
through the REST API, connects one WebSocket per seat, and lets each seat act with a bot on
the views it receives (random by default, ``--bot heuristic``), after a think time.  It
reports the latency from an action to every seat's update (p50/p99: the time from sending
an action until the resulting state has reached all seats of the table), the errors, the
actions per second and the server's memory per table (growth of its RSS / tables).

Bounded in time: play stops after ``--duration`` seconds (or when every match is over).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..bots import make_bot
from ..engine.variants import VARIANTS, get_variant
from .protocol import view_from_json


@dataclass
class TableRun:
    tid: str
    n: int
    sent: dict[int, float] = field(default_factory=dict)  # seq of the result -> send time
    arrived: dict[int, list[float]] = field(default_factory=dict)
    done: bool = False


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # action -> every seat updated
    seat_latencies: list[float] = field(default_factory=list)  # action -> one seat updated
    actions: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    finished: int = 0

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)


def _percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc), 0 where unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def check_loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"the load test runs on loopback only, not on {host!r}")


def start_server(db_dir: str) -> tuple[subprocess.Popen[str], str]:
    """A server subprocess on 127.0.0.1 with a fresh database and no rate limits (the load
    comes from one address); its process and URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "BELA_DATA_DIR": db_dir}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bela.server", "--host", "127.0.0.1", "--port", str(port),
         "--db", f"sqlite:///{db_dir}/load.db", "--bot-delay", "0", "--round-pause", "0",
         "--grace", "3600", "--no-rate-limits"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        raise SystemExit(f"the server did not start: {line!r}")
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
    return proc, f"http://127.0.0.1:{port}"


async def _wait_up(http: Any, url: str) -> None:
    for _ in range(300):
        try:
            if (await http.get(f"{url}/api/variants")).status_code == 200:
                return
        except Exception:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("the server does not answer")


async def _setup_table(http: Any, url: str, variant: str, target: int | None,
                       index: int) -> tuple[str, list[str]]:
    n = get_variant(variant).seats
    tokens = []
    for i in range(n):
        r = await http.post(f"{url}/api/guests", json={"name": f"load{index}-{i}"})
        r.raise_for_status()
        tokens.append(r.json()["token"])
    body: dict[str, Any] = {"variant": variant, "bot": "random"}
    if target:
        body["options"] = {"target": target}
    r = await http.post(f"{url}/api/tables", json=body,
                        headers={"Authorization": f"Bearer {tokens[0]}"})
    r.raise_for_status()
    tid = r.json()["id"]
    for i in range(1, n):
        r = await http.post(f"{url}/api/tables/{tid}/sit", json={"seat": i},
                            headers={"Authorization": f"Bearer {tokens[i]}"})
        r.raise_for_status()
    return tid, tokens


async def _seat(ws: Any, run: TableRun, seat: int, stats: Stats, bot_name: str,
                think: float, rng: random.Random, stop_at: float) -> None:
    bot = make_bot(bot_name, seed=rng.randrange(1 << 30)) if bot_name != "random" else None
    pending: asyncio.Task[None] | None = None

    async def act(seq: int, view: dict[str, Any]) -> None:
        if think > 0:
            await asyncio.sleep(think * (0.5 + rng.random()))
        if time.monotonic() >= stop_at or run.done:
            return
        try:
            if bot is not None:
                token = bot.act(view_from_json(view)).token()
            else:
                legal = view["legal"]
                token = legal[rng.randrange(len(legal))]
            run.sent[seq + 1] = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action": token, "seq": seq}))
            stats.actions += 1
        except Exception as exc:
            if time.monotonic() < stop_at and not run.done:
                stats.error(f"table {run.tid} seat {seat}: {type(exc).__name__}: {exc}")

    try:
        async for text in ws:
            now = time.perf_counter()
            msg = json.loads(text)
            kind = msg.get("type")
            if kind == "error":
                stats.error(f"table {run.tid} seat {seat}: {msg}")
                continue
            if kind != "state":
                continue
            seq = msg["seq"]
            if seq in run.sent:
                stats.seat_latencies.append(now - run.sent[seq])
                arr = run.arrived.setdefault(seq, [])
                arr.append(now)
                if len(arr) == run.n:
                    stats.latencies.append(max(arr) - run.sent.pop(seq))
                    del run.arrived[seq]
            if msg["status"] == "finished":
                if not run.done:
                    run.done = True
                    stats.finished += 1
                return
            if msg["view"]["legal"] and time.monotonic() < stop_at:
                pending = asyncio.create_task(act(seq, msg["view"]))
            if time.monotonic() >= stop_at:
                return
        if time.monotonic() < stop_at and not run.done:
            stats.error(f"table {run.tid} seat {seat}: the server closed the connection")
    except Exception as exc:  # a dropped connection is an error unless play has stopped
        if time.monotonic() < stop_at and not run.done:
            stats.error(f"table {run.tid} seat {seat}: {type(exc).__name__}: {exc}")
    finally:
        if pending is not None and not pending.done():
            pending.cancel()


async def run_load(url: str, tables: int, variant: str, think: float, duration: float,
                   bot: str, target: int | None, server_pid: int | None,
                   seed: int = 1) -> dict[str, Any]:
    import httpx

    try:
        from websockets.asyncio.client import connect
    except ImportError:  # websockets < 14
        # the legacy client: its own type on websockets 12-13 (unused on 14+)
        from websockets import connect  # type: ignore[no-redef,attr-defined,unused-ignore]

    check_loopback(url)
    stats = Stats()
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        await _wait_up(http, url)
        rss0 = rss_bytes(server_pid) if server_pid else 0
        sem = asyncio.Semaphore(16)

        async def one(i: int) -> tuple[str, list[str]]:
            async with sem:
                return await _setup_table(http, url, variant, target, i)

        t_setup = time.perf_counter()
        made = await asyncio.gather(*(one(i) for i in range(tables)), return_exceptions=True)
        setups = [m for m in made if not isinstance(m, BaseException)]
        for m in made:
            if isinstance(m, BaseException):
                stats.error(f"setup: {type(m).__name__}: {m}")
        ws_url = url.replace("http://", "ws://", 1)
        sockets: list[tuple[TableRun, int, Any]] = []
        for tid, tokens in setups:
            run = TableRun(tid, len(tokens))
            for seat, tok in enumerate(tokens):
                try:
                    ws = await connect(f"{ws_url}/ws/tables/{tid}?token={tok}",
                                       max_size=2 ** 20, open_timeout=30, ping_interval=None)
                except Exception as exc:
                    stats.error(f"connect: {type(exc).__name__}: {exc}")
                    continue
                sockets.append((run, seat, ws))
        setup_s = time.perf_counter() - t_setup
        gc.collect()
        gc.freeze()  # the clients' own long-lived objects: keep GC pauses out of the numbers
        stop_at = time.monotonic() + duration
        tasks = [asyncio.create_task(_seat(ws, run, seat, stats, bot, think,
                                           random.Random(rng.random()), stop_at))
                 for run, seat, ws in sockets]
        for tid, tokens in setups:
            r = await http.post(f"{url}/api/tables/{tid}/start",
                                headers={"Authorization": f"Bearer {tokens[0]}"})
            if r.status_code != 200:
                stats.error(f"start: {r.text}")
        lags: list[float] = []

        async def watch_loop() -> None:  # the load generator's own stalls, for honesty
            while True:
                t = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.append(time.perf_counter() - t - 0.01)

        watcher = asyncio.create_task(watch_loop())
        t0 = time.perf_counter()
        cpu0 = cpu_seconds(server_pid) if server_pid else 0.0
        own0 = cpu_seconds(os.getpid())
        rss_peak = 0
        while time.monotonic() < stop_at and not all(t.done() for t in tasks):
            await asyncio.sleep(0.5)
            if server_pid:
                rss_peak = max(rss_peak, rss_bytes(server_pid))
        elapsed = time.perf_counter() - t0
        cpu = (cpu_seconds(server_pid) - cpu0) if server_pid else 0.0
        own = cpu_seconds(os.getpid()) - own0
        watcher.cancel()
        for _run, _seat_no, ws in sockets:
            await ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)
    per_table = (rss_peak - rss0) / max(1, len(setups)) if server_pid else None
    return {
        "tables": len(setups), "connections": len(sockets), "variant": variant, "bot": bot,
        "think_s": think, "duration_s": round(elapsed, 1), "setup_s": round(setup_s, 1),
        "actions": stats.actions, "actions_per_s": round(stats.actions / elapsed, 1),
        "latency_ms": {"p50": round(_percentile(stats.latencies, 50) * 1000, 2),
                       "p99": round(_percentile(stats.latencies, 99) * 1000, 2),
                       "max": round(max(stats.latencies, default=float("nan")) * 1000, 2),
                       "samples": len(stats.latencies)},
        "seat_latency_ms": {"p50": round(_percentile(stats.seat_latencies, 50) * 1000, 2),
                            "p99": round(_percentile(stats.seat_latencies, 99) * 1000, 2)},
        "client_loop_lag_ms": {"p99": round(_percentile(lags, 99) * 1000, 2),
                               "max": round(max(lags, default=0.0) * 1000, 2)},
        "errors": stats.errors, "error_samples": stats.error_samples,
        "matches_finished": stats.finished,
        "server_rss_mb": round(rss_peak / 2 ** 20, 1) if server_pid else None,
        "memory_per_table_kb": round(per_table / 1024, 1) if per_table is not None else None,
        "server_cpu_pct": round(100 * cpu / elapsed, 1) if server_pid else None,
        "client_cpu_pct": round(100 * own / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bela.server.load", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--url", default=None, help="a running server (loopback only); default: "
                   "start one with a temporary database")
    p.add_argument("--variant", default="bela4", choices=list(VARIANTS))
    p.add_argument("--think", type=float, default=0.5,
                   help="mean seconds a seat thinks before acting (uniform 0.5x-1.5x)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    p.add_argument("--bot", default="random", choices=["random", "heuristic"])
    p.add_argument("--target", type=int, default=None, help="match target (default: the "
                   "variant's)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = p.parse_args(argv)
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    proc = None
    tmp = None
    url = args.url
    pid = None
    if url is None:
        tmp = tempfile.TemporaryDirectory(prefix="bela-load-")
        proc, url = start_server(tmp.name)
        pid = proc.pid
    try:
        report = asyncio.run(run_load(url, args.tables, args.variant, args.think,
                                      args.duration, args.bot, args.target, pid, args.seed))
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(report))
    else:
        lat = report["latency_ms"]
        print(f"{report['tables']} tables ({report['connections']} WebSockets, {args.variant}, "
              f"think {args.think}s), {report['duration_s']}s: {report['actions']} actions "
              f"({report['actions_per_s']}/s)")
        print(f"latency action -> every seat: p50 {lat['p50']} ms, p99 {lat['p99']} ms, "
              f"max {lat['max']} ms ({lat['samples']} actions)")
        print(f"errors: {report['errors']}  finished matches: {report['matches_finished']}  "
              f"(load generator's loop lag: p99 {report['client_loop_lag_ms']['p99']} ms, "
              f"max {report['client_loop_lag_ms']['max']} ms)")
        if report["memory_per_table_kb"] is not None:
            print(f"server: RSS {report['server_rss_mb']} MB, "
                  f"{report['memory_per_table_kb']} KB per table, "
                  f"CPU {report['server_cpu_pct']}% (load clients: "
                  f"{report['client_cpu_pct']}%)")
        for e in report["error_samples"]:
            print("  error:", e)
    return 0 if report["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: a 128-pair Swiss in ``bela4``: the time from the director's ``start`` to
every table of round 1 made and started (64 tables), and the pairing alone.

``python tools/tournament_bench.py`` runs the server in-process (FastAPI's test client, a
temporary SQLite database; ``--url postgresql+psycopg://...`` for another database),
makes 256 guests, enters them as 128 pairs, and times ``POST /api/tournaments/{id}/start``
(whose answer comes once round 1 is paired and its tables made, docs/TOURNAMENTS.md),
then checks that the round's 64 games are ``playing`` at 64 tables.  Also times the pure
core's pairing of those entries (:func:`bela.tournament.plan_round`).  Reports the
figures with the machine's CPU count and load average as JSON.  A report, not a test: the
machine's load moves the figures.

``--under-load``: the issue's second figure, a full round of 64 bot tables on one process
under the load script (``tools/load.py``).  One ``bela serve`` (a subprocess, temporary
SQLite) first carries the load script's ``--tables`` alone for ``--duration`` seconds (its
p99 then is the figure to stay under); then 128 bot pairs start round 1 of Swiss
tournaments on it (four of 32: a tournament takes 32 bot entries) and the load script runs
again until the round has finished (every one of its 64 tables played its match to
``--round-target``): both runs' latency, the round's time, and the server's CPU and its
bot workers' (the levels' bots decide in the server's bot worker processes, as
``bela serve`` runs them by default; ``--bot-workers 0`` puts them in the server's threads).

A tool of the repository, not part of the package: run it from a clone where bela is
installed with the ``server`` extra (``pip install -e '.[server]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from bela.server.app import create_app
from bela.server.tournaments.director import MAX_BOT_ENTRIES
from bela.tournament import Entry, Format, Settings, plan_round


def _ok(r: Any) -> Any:
    if r.status_code != 200:
        raise SystemExit(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text}")
    return r.json()


def bench(url: str, pairs: int, rounds: int) -> dict[str, Any]:
    app = create_app(url, allow_seed=True, max_rate=1_000_000, bot_workers=0,
                     rate_guests="100000/minute",
                     grace=3600.0)  # nobody sits: no seat's bot plays during the timing
    with TestClient(app, client=("127.0.0.1", 50000)) as c:
        director = _ok(c.post("/api/guests", json={"name": "Sudac"}))
        h = {"Authorization": f"Bearer {director['token']}"}
        t = _ok(c.post("/api/tournaments", json={
            "name": "Bench", "variant": "bela4", "format": "swiss", "rounds": rounds,
            "options": {"target": 1001}, "rated": False, "seed": 1}, headers=h))
        players = [_ok(c.post("/api/guests", json={"name": f"Igrač {i}"}))["player_id"]
                   for i in range(2 * pairs)]
        for i in range(pairs):
            _ok(c.post(f"/api/tournaments/{t['id']}/entries",
                       json={"players": players[2 * i:2 * i + 2]}, headers=h))
        began = time.perf_counter()
        obj = _ok(c.post(f"/api/tournaments/{t['id']}/start", headers=h))
        start_s = time.perf_counter() - began
        games = obj["rounds"][0]["games"]
        playing = sum(1 for g in games if g["status"] == "playing" and g["table"])
        made = sum(1 for g in games if g["table"] and _ok(c.get(
            f"/api/tables/{g['table']}"))["status"] == "running")
        _ok(c.post(f"/api/tournaments/{t['id']}/end", headers=h))
    settings = Settings("bela4", Format.SWISS, rounds=rounds, seed=1)
    entries = [Entry(i + 1, 1000.0 + (i * 37) % 400) for i in range(pairs)]
    began = time.perf_counter()
    plan_round(settings, entries, [])
    pair_s = time.perf_counter() - began
    return {"pairs": pairs, "tables": len(games), "playing": playing, "running": made,
            "start_to_tables_made_s": round(start_s, 3),
            "per_table_ms": round(1000 * start_s / max(1, len(games)), 2),
            "core_pairing_s": round(pair_s, 4)}


def _http(base: str, method: str, path: str, body: Any = None, token: str | None = None
          ) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def _bot_rounds(base: str, pairs: int, target: int, level: str) -> list[str]:
    """Swiss tournaments of ``pairs`` bot entries (``level``) in all, to ``target``, started:
    their ids.  A tournament takes at most 32 bot entries (``MAX_BOT_ENTRIES``) and a
    director three at once, so each 32 have a tournament and a director of their own."""
    ids = []
    for first in range(0, pairs, MAX_BOT_ENTRIES):
        token = _http(base, "POST", "/api/guests", {"name": f"Sudac {first}"})["token"]
        tid = _http(base, "POST", "/api/tournaments", {
            "name": f"Bench {first}", "variant": "bela4", "format": "swiss", "rounds": 1,
            "options": {"target": target}, "rated": False}, token)["id"]
        for _ in range(min(MAX_BOT_ENTRIES, pairs - first)):
            _http(base, "POST", f"/api/tournaments/{tid}/entries", {"bot": level}, token)
        _http(base, "POST", f"/api/tournaments/{tid}/start", token=token)
        ids.append(tid)
    return ids


async def _load_during_round(load: Any, url: str, pid: int, args: argparse.Namespace
                             ) -> dict[str, Any]:
    """The load script's run while the bot round plays on the server at ``url``: it runs
    until the round is over (every table finished; at most ``--round-limit`` s)."""
    began = time.perf_counter()
    ids = await asyncio.to_thread(_bot_rounds, url, args.pairs, args.round_target,
                                  args.bot_level)
    started = time.perf_counter() - began

    async def round_over() -> float:
        while time.perf_counter() - began < args.round_limit:
            tours = [await asyncio.to_thread(_http, url, "GET", f"/api/tournaments/{t}")
                     for t in ids]
            if all(t["rounds"] and t["rounds"][0]["finished_at"] for t in tours):
                return time.perf_counter() - began
            await asyncio.sleep(1.0)
        return float("nan")

    watch = asyncio.ensure_future(round_over())
    report: dict[str, Any] = await load.run_load(
        url, args.tables, "bela4", args.think, args.round_limit, "random", None, pid,
        stop=watch)
    return {"round_s": round(await watch, 1), "round_start_s": round(started, 2),
            "round_tables": args.pairs // 2, "tournaments": len(ids),
            "load": _figures(report)}


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    keys = ("tables", "duration_s", "actions", "actions_per_s", "errors", "server_cpu_pct",
            "workers_cpu_pct")
    return {"latency_ms": report["latency_ms"], **{k: report[k] for k in keys},
            "error_samples": report["error_samples"][:5]}


def under_load(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parent))
    import load  # tools/load.py, the load script

    with tempfile.TemporaryDirectory(prefix="bela-tbench-") as tmp:
        workers = [] if args.bot_workers is None else ["--bot-workers", str(args.bot_workers)]
        proc, url = load.start_server(tmp, ["--no-rate-limits", *workers,
                                            "--bot-delay", str(args.bot_delay)])
        try:
            alone = asyncio.run(load.run_load(url, args.tables, "bela4", args.think,
                                              args.duration, "random", None, proc.pid))
            during = asyncio.run(_load_during_round(load, url, proc.pid, args))
        finally:
            load.stop_servers([proc])
    return {"load_alone": _figures(alone), **during, "bot_delay": args.bot_delay,
            "bot_workers": args.bot_workers,
            "round_target": args.round_target, "bot_level": args.bot_level}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--url", default=None, help="the database (default: a temporary SQLite)")
    ap.add_argument("--under-load", action="store_true",
                    help="a round of bot tables under the load script (see above)")
    ap.add_argument("--tables", type=int, default=200, help="--under-load: the load "
                    "script's tables")
    ap.add_argument("--duration", type=float, default=40.0, help="--under-load: seconds "
                    "of the load script alone")
    ap.add_argument("--think", type=float, default=0.5, help="--under-load: the load "
                    "script's think time")
    ap.add_argument("--round-target", type=int, default=501, help="--under-load: the "
                    "round's matches are played to this")
    ap.add_argument("--round-limit", type=float, default=600.0, help="--under-load: at "
                    "most this many seconds for the round")
    ap.add_argument("--bot-level", default="beginner", help="--under-load: the bot entries' "
                    "level")
    ap.add_argument("--bot-delay", type=float, default=0.6, help="--under-load: the "
                    "server's --bot-delay (its default: 0.6)")
    ap.add_argument("--bot-workers", type=int, default=None, help="--under-load: the "
                    "server's --bot-workers (default: the server's own default, one fewer "
                    "than the CPUs; 0: the bots decide in the server's threads)")
    args = ap.parse_args()
    load_before = os.getloadavg()
    if args.under_load:
        report = under_load(args)
        report |= {"cpus": os.cpu_count(), "load_before": [round(x, 2) for x in load_before],
                   "load_after": [round(x, 2) for x in os.getloadavg()]}
        print(json.dumps(report, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{Path(tmp) / 'bela.db'}"
        report = bench(url, args.pairs, args.rounds)
    report |= {"database": url.split(":", 1)[0], "cpus": os.cpu_count(),
               "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

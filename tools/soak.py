"""Soak run: one server for half an hour, bot tables coming and going; memory and file
descriptors over time (issue 42, docs/CAPACITY.md).

``python tools/soak.py`` starts ``bela serve`` on 127.0.0.1 (a subprocess with a temporary
SQLite database, as ``tools/load.py`` starts it) and keeps ``--tables`` bela4 tables in play
for ``--duration`` seconds.  The four seats of each table are random bots behind real
WebSockets (``tools/load.py``'s seats) that think ``--think`` seconds a move (a human's
pace by default), playing short matches (``--target``), so tables end every minute or two:
when a table's match is over its sockets close and a new table is created, joined and
started at once in its place.

Every ``--every`` seconds it samples the server: its resident memory (RSS), its open file
descriptors (``/proc/PID/fd``), its threads, its CPU since the last sample; and the play:
tables live, created and finished, actions and errors so far.  A progress line a sample goes
to stderr; the report (settings, samples, summary) to ``--json FILE`` or stdout.

The summary compares the first ``--window`` seconds after a warm-up of ``--warmup`` seconds
with the last ``--window`` seconds of the run, gives the least-squares slope of the RSS
after the warm-up (MB per 10 minutes), and calls the run flat when the last window's mean
RSS is within ``--rss-tolerance`` of the first window's and the last window's most file
descriptors are at most ``--fd-margin`` over the first window's most.

``PYTHONPATH=src python tools/soak.py --duration 1800 --json soak.json``

A tool of the repository, not part of the package: run it from a clone where bela is
installed with the ``server`` extra (``pip install -e '.[server]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import load  # noqa: E402  (tools/load.py, the load script: server, tables, seats)

VARIANT = "bela4"
MATCH_LIMIT_S = 900.0  # a table still playing after this long is counted as stuck, replaced


# -- the summary (pure functions of the samples) ---------------------------------------------

def slope_per_10min(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``(seconds, value)`` points, in value per 10 minutes;
    ``None`` for fewer than two distinct times.

    >>> slope_per_10min([(0, 100.0), (300, 101.0), (600, 102.0)])
    2.0
    >>> slope_per_10min([(5, 1.0)]) is None
    True
    """
    n = len(points)
    if n < 2:
        return None
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return None
    cov = sum((t - mt) * (y - my) for t, y in points)
    return round(cov / var * 600, 6)


def spread(values: Sequence[float]) -> dict[str, float] | None:
    """Mean, least and most of ``values`` (``None`` when empty).

    >>> spread([3, 1, 2])
    {'mean': 2.0, 'min': 1, 'max': 3}
    """
    if not values:
        return None
    return {"mean": round(sum(values) / len(values), 3), "min": min(values),
            "max": max(values)}


def windows(samples: Sequence[dict[str, Any]], warmup: float,
            window: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The samples of the first window (``warmup <= t < warmup + window``) and of the last
    (``t >= t_end - window``, ``t_end`` the last sample's time, and ``t >= warmup``).

    >>> s = [{"t": t} for t in range(0, 101, 10)]
    >>> [[x["t"] for x in w] for w in windows(s, 20, 30)]
    [[20, 30, 40], [70, 80, 90, 100]]
    """
    if not samples:
        return [], []
    end = samples[-1]["t"]
    first = [s for s in samples if warmup <= s["t"] < warmup + window]
    last = [s for s in samples if s["t"] >= max(warmup, end - window)]
    return first, last


def is_flat(rss_first: float, rss_last: float, fds_first: int, fds_last: int,
            rss_tolerance: float, fd_margin: int) -> bool:
    """The criterion: the last window's mean RSS within ``rss_tolerance`` (a fraction) of the
    first window's, and the last window's most file descriptors at most ``fd_margin`` over
    the first window's most.

    >>> is_flat(100.0, 109.0, 40, 56, 0.10, 16)
    True
    >>> is_flat(100.0, 111.0, 40, 40, 0.10, 16), is_flat(100.0, 100.0, 40, 57, 0.10, 16)
    (False, False)
    """
    return abs(rss_last - rss_first) <= rss_tolerance * rss_first and \
        fds_last <= fds_first + fd_margin


def summarize(samples: Sequence[dict[str, Any]], warmup: float, window: float,
              rss_tolerance: float, fd_margin: int) -> dict[str, Any]:
    """The summary of a run's samples (each with ``t`` seconds, ``rss_mb`` and ``fds``):
    the first and last windows' RSS and file descriptors, the RSS slope after the warm-up
    and ``flat`` (``None`` when a window has no sample)."""
    first, last = windows(samples, warmup, window)
    rss_first = spread([s["rss_mb"] for s in first])
    rss_last = spread([s["rss_mb"] for s in last])
    fds_first = spread([s["fds"] for s in first])
    fds_last = spread([s["fds"] for s in last])
    after = [(s["t"], s["rss_mb"]) for s in samples if s["t"] >= warmup]
    flat = None
    if rss_first and rss_last and fds_first and fds_last:
        flat = is_flat(rss_first["mean"], rss_last["mean"], int(fds_first["max"]),
                       int(fds_last["max"]), rss_tolerance, fd_margin)
    return {
        "warmup_s": warmup, "window_s": window,
        "first_window": [first[0]["t"], first[-1]["t"]] if first else None,
        "last_window": [last[0]["t"], last[-1]["t"]] if last else None,
        "rss_mb_first": rss_first, "rss_mb_last": rss_last,
        "fds_first": fds_first, "fds_last": fds_last,
        "rss_slope_mb_per_10min": slope_per_10min(after),
        "criterion": f"flat: the last window's mean RSS within {rss_tolerance:.0%} of the "
                     f"first window's (after a {warmup:g} s warm-up), and the last window's "
                     f"most file descriptors at most {fd_margin} over the first window's most",
        "flat": flat,
    }


# -- the run ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    tables: int
    duration: float
    think: float
    target: int
    every: float
    warmup: float
    window: float
    rss_tolerance: float
    fd_margin: int
    seed: int


@dataclass
class Play:
    """What the tables have done so far (the seats' figures are in ``stats``)."""

    stats: load.Stats = field(default_factory=load.Stats)
    created: int = 0
    live: int = 0
    stuck: int = 0
    seats: set[load.Seat] = field(default_factory=set)


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def threads(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


async def _table(http: Any, url: str, s: Settings, play: Play,
                 window: load.Window, rng: random.Random) -> None:
    """One table of the run, then the next in its place, until play stops."""
    while not window.over():
        index = play.created
        play.created += 1
        try:
            tid, tokens = await load._setup_table(http, url, VARIANT, s.target, index)
        except Exception as exc:
            play.stats.error(f"setup: {type(exc).__name__}: {exc}")
            await asyncio.sleep(1.0)
            continue
        run = load.TableRun(tid, len(tokens))
        ws_url = url.replace("http://", "ws://", 1)
        seats: list[load.Seat] = []
        try:
            for seat, tok in enumerate(tokens):
                player = load.Seat(run, seat, play.stats, "random", s.think,
                                   random.Random(rng.random()), window)
                await player.open(f"{ws_url}/ws/tables/{tid}?token={tok}")
                seats.append(player)
                play.seats.add(player)
            r = await http.post(f"{url}/api/tables/{tid}/start",
                                headers={"Authorization": f"Bearer {tokens[0]}"})
            if r.status_code != 200:
                play.stats.error(f"start: {r.text}")
            play.live += 1
            try:
                _, waiting = await asyncio.wait([p.ended for p in seats],
                                                timeout=MATCH_LIMIT_S)
                if waiting and not window.over():
                    play.stuck += 1
                    play.stats.error(f"table {tid}: match not over after {MATCH_LIMIT_S:g} s")
            finally:
                play.live -= 1
        except Exception as exc:
            if not window.over():
                play.stats.error(f"table {tid}: {type(exc).__name__}: {exc}")
        finally:
            for player in seats:
                play.seats.discard(player)
                await player.close()


def _sample(pid: int, t0: float, last: dict[str, float], play: Play) -> dict[str, Any]:
    now = time.monotonic()
    cpu, own = load.cpu_seconds(pid), load.cpu_seconds(os.getpid())
    wall = max(1e-9, now - last["wall"])
    sample = {
        "t": round(now - t0, 1), "rss_mb": round(load.rss_bytes(pid) / 2 ** 20, 2),
        "fds": open_fds(pid), "threads": threads(pid), "tables_live": play.live,
        "tables_created": play.created, "tables_finished": play.stats.finished,
        "actions": play.stats.actions, "errors": play.stats.errors,
        "cpu_pct": round(100 * (cpu - last["cpu"]) / wall, 1),
        "client_cpu_pct": round(100 * (own - last["own"]) / wall, 1),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }
    last.update(wall=now, cpu=cpu, own=own)
    return sample


def _progress(s: dict[str, Any]) -> str:
    return (f"[{s['t']:7.1f}s] RSS {s['rss_mb']:.1f} MB  fds {s['fds']}  threads "
            f"{s['threads']}  tables live {s['tables_live']} made {s['tables_created']} "
            f"over {s['tables_finished']}  actions {s['actions']}  errors {s['errors']}  "
            f"CPU {s['cpu_pct']}%  load {s['load_avg_1min']}")


async def soak(url: str, pid: int, s: Settings) -> dict[str, Any]:
    """Run the soak on the server at ``url`` (process ``pid``); the report."""
    import httpx

    load.check_loopback(url)
    play = Play()
    rng = random.Random(s.seed)
    window = load.Window()
    samples: list[dict[str, Any]] = []
    # idle connections closed before the server's keep-alive does (as load.py)
    limits = httpx.Limits(max_connections=32, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        await load._wait_up(http, url)
        t0 = time.monotonic()
        window.at = t0 + s.duration
        last = {"wall": t0, "cpu": load.cpu_seconds(pid), "own": load.cpu_seconds(os.getpid())}
        samples.append(_sample(pid, t0, last, play))
        tables = [asyncio.create_task(_table(http, url, s, play, window,
                                             random.Random(rng.random())))
                  for _ in range(s.tables)]
        while not window.over():
            await asyncio.sleep(min(s.every, max(0.0, window.at - time.monotonic())))
            samples.append(_sample(pid, t0, last, play))
            print(_progress(samples[-1]), file=sys.stderr, flush=True)
        for player in list(play.seats):  # the tables wait on their seats: end them
            await player.close()
        await asyncio.gather(*tables, return_exceptions=True)
    stats = play.stats
    return {
        "settings": {"tables": s.tables, "variant": VARIANT, "bot": "random",
                     "think_s": s.think, "target": s.target, "duration_s": s.duration,
                     "every_s": s.every, "seed": s.seed, "server": "bela serve, SQLite "
                     "(temporary), --bot-workers 0, tools/load.py's settings",
                     "match_limit_s": MATCH_LIMIT_S},
        "samples": samples,
        "summary": {**summarize(samples, s.warmup, s.window, s.rss_tolerance, s.fd_margin),
                    "tables_created": play.created, "tables_finished": stats.finished,
                    "tables_stuck": play.stuck, "actions": stats.actions,
                    "errors": stats.errors, "error_samples": stats.error_samples,
                    "latency_ms": {
                        "p50": round(load._percentile(stats.latencies, 50) * 1000, 2),
                        "p99": round(load._percentile(stats.latencies, 99) * 1000, 2)}},
    }


def _positive(kind: type[float] | type[int]) -> Any:
    """An argparse type: a positive number of ``kind``."""
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value
    return parse


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python tools/soak.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=_positive(int), default=100,
                   help="tables kept in play at once (default 100)")
    p.add_argument("--duration", type=_positive(float), default=1800.0,
                   help="seconds of play (default 1800)")
    p.add_argument("--think", type=float, default=2.0,
                   help="mean seconds a seat thinks before acting, uniform 0.5x-1.5x "
                   "(default 2.0, a human's pace)")
    p.add_argument("--target", type=_positive(int), default=101,
                   help="the matches' target: short matches, so tables come and go "
                   "(default 101)")
    p.add_argument("--every", type=_positive(float), default=15.0,
                   help="seconds between samples (default 15)")
    p.add_argument("--warmup", type=float, default=120.0,
                   help="seconds left out of the summary's first window and slope "
                   "(default 120)")
    p.add_argument("--window", type=_positive(float), default=300.0,
                   help="seconds of the first and last windows compared (default 300)")
    p.add_argument("--rss-tolerance", type=_positive(float), default=0.10,
                   help="flat: the last window's mean RSS within this fraction of the "
                   "first's (default 0.10)")
    p.add_argument("--fd-margin", type=int, default=16,
                   help="flat: the last window's most file descriptors at most this many "
                   "over the first's (default 16)")
    p.add_argument("--seed", type=int, default=1, help="the bots' random seed (default 1)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="write the report there (default: print it on stdout)")
    args = p.parse_args(argv)
    if args.think < 0:
        p.error("--think cannot be negative")
    if args.warmup < 0:
        p.error("--warmup cannot be negative")
    if args.fd_margin < 0:
        p.error("--fd-margin cannot be negative")
    if args.warmup + 2 * args.window > args.duration:
        p.error(f"--duration {args.duration:g} is too short for a warm-up of "
                f"{args.warmup:g} s and two windows of {args.window:g} s")
    if args.every > args.window:
        p.error("--every must be at most --window: each window needs a sample")
    if args.json is not None and not Path(args.json).parent.is_dir():
        p.error(f"--json: no folder {str(Path(args.json).parent)!r}")
    settings = Settings(args.tables, args.duration, args.think, args.target, args.every,
                        args.warmup, args.window, args.rss_tolerance, args.fd_margin,
                        args.seed)
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    procs: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory(prefix="bela-soak-") as tmp:
        try:
            proc, url = load.start_server(tmp, ["--bot-workers", "0"])
            procs.append(proc)
            report = asyncio.run(soak(url, proc.pid, settings))
        finally:
            load.stop_servers(procs)
    text = json.dumps(report, indent=1)
    if args.json is None:
        print(text)
    else:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    summary = report["summary"]
    print(f"soak: {summary['tables_created']} tables made, {summary['tables_finished']} "
          f"over, {summary['actions']} actions, {summary['errors']} errors; RSS "
          f"{summary['rss_mb_first']} -> {summary['rss_mb_last']} MB, slope "
          f"{summary['rss_slope_mb_per_10min']} MB/10 min; fds {summary['fds_first']} -> "
          f"{summary['fds_last']}; flat: {summary['flat']}", file=sys.stderr)
    return 0 if summary["errors"] == 0 and summary["flat"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

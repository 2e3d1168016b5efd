"""Benchmark: the CPU of one state's messages, the server's largest cost per action.

Every action a table takes sends each seat (and the spectators) its state message
(:meth:`bela.server.hub.Hub.state_texts`: the views once per state, then one JSON text per
seat).  This plays ``--deals`` random rounds of each variant and, at every state of them,
times ``state_texts`` for all the seats and a spectator with each JSON encoder:
``orjson`` (what the server ships, :func:`bela.server.hub.dumps`), the standard library's
``json`` (what it used before) and ``msgspec`` (when installed); and the views alone
(:func:`bela.engine.views.seat_views`).  Reports the mean microseconds per state (each
state timed ``--repeat`` times, the best kept) and the mean size of a seat's message, as
JSON, with the machine's CPU count and load average: a report, not a test (the machine's
load moves the figures; compare the encoders within one run).

``python tools/state_bench.py --json benchmarks/capacity/2026-12-07-state.json``

A tool of the repository, not part of the package: run it from a clone where bela is
installed with the ``server`` extra (``pip install -e '.[server]'``).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import random
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

from bela.engine import Match
from bela.engine.variants import VARIANTS
from bela.engine.views import seat_views
from bela.server import hub
from bela.server.model import Table, TableStatus


def encoders() -> dict[str, Callable[[Any], str]]:
    """The JSON encoders to compare, by name: each writes a message's compact text."""
    compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    out: dict[str, Callable[[Any], str]] = {
        "orjson": hub.dumps,  # what the server ships: orjson, its slower options only if needed
        "json": compact.encode}
    try:  # optional: not a dependency of bela (found by name: no stubs needed)
        msgspec = importlib.import_module("msgspec")
    except ImportError:
        return out
    encoder = msgspec.json.Encoder()
    out["msgspec"] = lambda msg: encoder.encode(msg).decode()
    return out


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best of ``repeat`` timings of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_variant(variant: str, deals: int, repeat: int, seed: int) -> dict[str, Any]:
    """The mean cost of a state's messages over every state of ``deals`` random rounds."""
    rng = random.Random(seed)
    h = hub.Hub()
    codecs = encoders()
    shipped = hub.dumps
    totals = dict.fromkeys(["views", *codecs], 0.0)
    sizes = 0
    count = 0
    for k in range(deals):
        m = Match(variant, seed=seed + k)
        rnd = m.deal()
        table = Table(f"bench-{k}", variant, {}, seed + k, "random", TableStatus.RUNNING,
                      None, [], match=m)
        seats: list[int | None] = [*range(m.variant.seats), None]
        while rnd.phase.name != "DONE":
            events = m.apply(rng.choice(rnd.legal_actions()))
            table.seq += 1
            totals["views"] += best(functools.partial(seat_views, m, seats), repeat)
            texts = functools.partial(h.state_texts, table, seats, events)
            for name, codec in codecs.items():
                hub.dumps = codec  # type: ignore[assignment]  # what state_texts calls
                try:
                    totals[name] += best(texts, repeat)
                finally:
                    hub.dumps = shipped
            sizes += sum(len(t.encode()) for t in texts().values())
            count += 1
    return {"states": count, "seats": m.variant.seats,
            "mean_bytes_a_message": round(sizes / count / len(seats)),
            "us_a_state": {k: round(1e6 * v / count, 1) for k, v in totals.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20, help="random rounds a variant")
    ap.add_argument("--repeat", type=int, default=5, help="timings of each state (the best "
                    "is kept)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", action="append", choices=sorted(VARIANTS),
                    help="a variant (several times; default: all)")
    ap.add_argument("--json", metavar="FILE", help="write the report here (default: stdout)")
    ap.add_argument("--label", default="", help="what code this measured (kept in the "
                    "report, shown in docs/CAPACITY.md)")
    args = ap.parse_args(argv)
    if args.deals < 1 or args.repeat < 1:
        ap.error("--deals and --repeat are at least 1")
    load_before = os.getloadavg()
    report: dict[str, Any] = {
        "variants": {v: bench_variant(v, args.deals, args.repeat, args.seed)
                     for v in (args.variant or sorted(VARIANTS))},
        "label": args.label, "deals": args.deals, "repeat": args.repeat, "seed": args.seed,
        "command": "python tools/state_bench.py " + shlex.join(argv if argv is not None
                                                               else sys.argv[1:]),
        "cpus": os.cpu_count(), "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "python": sys.version.split()[0]}
    text = json.dumps(report, indent=2)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

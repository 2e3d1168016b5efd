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

A tool of the repository, not part of the package: run it from a clone where bela is
installed with the ``server`` extra (``pip install -e '.[server]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from bela.server.app import create_app
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--url", default=None, help="the database (default: a temporary SQLite)")
    args = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{Path(tmp) / 'bela.db'}"
        report = bench(url, args.pairs, args.rounds)
    report |= {"database": url.split(":", 1)[0], "cpus": os.cpu_count(),
               "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""A tournament's server killed with SIGKILL in the middle of a round: started again, it
goes on from the database and ends with the very results and standings of an undisturbed
run of the same seed, and nothing was paired or made twice (one stored plan a round, one
table a game)."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from server_helpers import until  # noqa: E402

SEED = 77
SETTINGS = {"name": "Noćni turnir", "variant": "bela4", "format": "swiss", "rounds": 2,
            "options": {"target": 501}, "seed": SEED}
LEVELS = ("club", "beginner", "club", "beginner")


# A server process with the test settings `bela serve` has no flags for: the strong bots
# (the levels) move when decided, not at answer times, so that a run's moves never depend on
# how long a bot thought (each is its seeded decision).
SERVE = """
import sys, uvicorn
from bela.server.app import create_app
app = create_app(sys.argv[1], bot_delay=0, round_pause=0, allow_seed=True, bot_workers=0,
                 bot_answer_bid=0, bot_answer_exchange=0, bot_answer_discard=0,
                 bot_answer_card=0)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


class Server:
    """A server in a process of its own on the database ``db``."""

    def __init__(self, db: Path, tmp: Path) -> None:
        env = {**os.environ, "BELA_DATA_DIR": str(tmp)}
        self.base = f"127.0.0.1:{free_port()}"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, f"sqlite:///{db}", self.base.split(":")[1]],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for f in (self.proc.stdout, self.proc.stderr):  # keep the pipes drained
            threading.Thread(target=lambda f=f: f.read(), daemon=True).start()
        until(lambda: self._up(), "the server to come up", 30)

    def _up(self) -> bool:
        assert self.proc.poll() is None, "the server process ended"
        try:
            return httpx.get(f"http://{self.base}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.request(method, f"http://{self.base}{path}", headers=headers, timeout=10,
                          **kw)
        assert r.status_code == 200, r.text
        return r.json()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)




def begin(srv: Server) -> str:
    """The tournament of four bot pairs, started: its id."""
    token = srv.api("POST", "/api/guests", json={"name": "Direktor"})["token"]
    tid: str = srv.api("POST", "/api/tournaments", token, json=SETTINGS)["id"]
    for level in LEVELS:
        srv.api("POST", f"/api/tournaments/{tid}/entries", token, json={"bot": level})
    srv.api("POST", f"/api/tournaments/{tid}/start", token)
    return tid


def outcome(srv: Server, tid: str) -> tuple[list[Any], list[Any]]:
    """The finished tournament's games (entries, scores, winner) and standings."""
    obj = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
        srv.api("GET", f"/api/tournaments/{tid}")), "the tournament to finish")
    games = [(r["round"], g["table_no"], g["entries"], g["result"]["scores"],
              g["result"]["winner"]) for r in obj["rounds"] for g in r["games"]]
    return games, obj["standings"]


def test_killed_in_a_round_ends_as_an_undisturbed_run(tmp_path: Path) -> None:
    quiet = Server(tmp_path / "quiet.db", tmp_path)
    try:
        expected = outcome(quiet, begin(quiet))
    finally:
        quiet.stop()

    db = tmp_path / "killed.db"
    srv = Server(db, tmp_path)
    try:
        tid = begin(srv)
        tables = [g["table"] for g in srv.api("GET", f"/api/tournaments/{tid}")["rounds"][0]
                  ["games"]]
        # in the middle of round 1: its tables have dealt and played some cards
        until(lambda: all(srv.api("GET", f"/api/tables/{t}")["seq"] > 10 for t in tables),
              "round 1 to be under way")
        srv.kill()
        with sqlite3.connect(db) as conn:  # killed in the middle of round 1
            playing = conn.execute("SELECT count(*) FROM tournament_games WHERE round = 1 "
                                   "AND status = 'playing'").fetchone()[0]
        assert playing > 0
    finally:
        srv.stop()
    srv = Server(db, tmp_path)
    try:
        assert outcome(srv, tid) == expected
    finally:
        srv.stop()
    # nothing paired twice, no table made twice
    with sqlite3.connect(db) as conn:
        rounds = conn.execute("SELECT round FROM tournament_rounds ORDER BY round").fetchall()
        games = conn.execute("SELECT table_id FROM tournament_games").fetchall()
        made = conn.execute("SELECT count(*) FROM tables").fetchone()[0]
    assert rounds == [(1,), (2,)]
    assert len(games) == 4 and len({g[0] for g in games}) == 4 and made == 4

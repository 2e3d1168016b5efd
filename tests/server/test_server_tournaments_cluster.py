"""A tournament on two server instances (one PostgreSQL, one Redis): the instance that
steps it (it holds the tournament's lease) is killed with SIGKILL in the middle of a round;
the other takes the tournament and the tables over, and the tournament ends as an
undisturbed run of the same seed ends, nothing paired or made twice.

Needs ``redis-server`` and BELA_TEST_POSTGRES_URL (``.ci/run`` provides both)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

URL = os.environ.get("BELA_TEST_POSTGRES_URL")
REDIS = shutil.which("redis-server")
pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(not URL or not URL.startswith("postgresql"),
                       reason="BELA_TEST_POSTGRES_URL (PostgreSQL) is not set"),
    pytest.mark.skipif(REDIS is None, reason="redis-server is not installed"),
]
httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from server_helpers import until  # noqa: E402

SEED = 78
LEASE_TTL = 1.5  # seconds: a killed instance's tables and tournaments move after this
SETTINGS = {"name": "Klupski turnir", "variant": "bela4", "format": "swiss", "rounds": 2,
            "options": {"target": 501}, "seed": SEED}
LEVELS = ("club", "beginner", "club", "beginner")

# an instance whose strong bots move when decided (no answer times: `bela serve` has no
# flag for that), so that a run's moves never depend on how long a bot thought
SERVE = """
import sys, uvicorn
from bela.server.app import create_app
db, redis, name, port, ttl = sys.argv[1:6]
app = create_app(db, redis_url=redis, instance=name, lease_ttl=float(ttl), bot_delay=0,
                 round_pause=0, allow_seed=True, bot_workers=0, bot_answer_bid=0,
                 bot_answer_exchange=0, bot_answer_discard=0, bot_answer_card=0)
uvicorn.run(app, host="127.0.0.1", port=int(port), log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port




class Instance:
    def __init__(self, name: str, redis_url: str, folder: Path, script: str = SERVE) -> None:
        assert URL is not None
        self.url = f"http://127.0.0.1:{free_port()}"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, URL, redis_url, name, self.url.rsplit(":", 1)[1],
             str(LEASE_TTL)],
            stdout=subprocess.DEVNULL, stderr=(folder / f"{name}.log").open("w"),
            env={**os.environ, "BELA_DATA_DIR": str(folder)})
        until(self._ready, f"{name} to be ready", 60)

    def _ready(self) -> bool:
        assert self.proc.poll() is None, "the instance ended"
        try:
            return httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.request(method, f"{self.url}{path}", headers=headers, timeout=10, **kw)
        assert r.status_code == 200, r.text
        return r.json()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def empty_database() -> None:
    from sqlalchemy import create_engine, text

    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    assert REDIS is not None
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        until(lambda: _pong(port), "redis-server to start", 10)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait()


def _pong(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def run(instances: list[Instance], kill: bool) -> tuple[list[Any], list[Any], str]:
    """The tournament started at the first instance (which steps it), that instance killed
    in the middle of round 1 when ``kill``: its games and standings, read at the last."""
    first, last = instances[0], instances[-1]
    token = first.api("POST", "/api/guests", json={"name": "Direktor"})["token"]
    tid: str = first.api("POST", "/api/tournaments", token, json=SETTINGS)["id"]
    for level in LEVELS:
        first.api("POST", f"/api/tournaments/{tid}/entries", token, json={"bot": level})
    first.api("POST", f"/api/tournaments/{tid}/start", token)
    if kill:
        tables = [g["table"] for g in last.api("GET", f"/api/tournaments/{tid}")["rounds"][0]
                  ["games"]]
        until(lambda: all(last.api("GET", f"/api/tables/{t}")["seq"] > 10 for t in tables),
              "round 1 to be under way")
        first.kill()
        now = last.api("GET", f"/api/tournaments/{tid}")  # killed in the middle of round 1
        assert now["round"] == 1 and any(g["status"] == "playing"
                                         for g in now["rounds"][0]["games"])
    obj = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
        last.api("GET", f"/api/tournaments/{tid}")), "the tournament to finish")
    base = min(e["id"] for e in obj["entries"])  # entry ids as places: runs compare
    games = [(r["round"], g["table_no"], [e - base for e in g["entries"]],
              g["result"]["scores"], g["result"]["winner"] - base)
             for r in obj["rounds"] for g in r["games"]]
    table = [{**s, "entry": s["entry"] - base} for s in obj["standings"]]
    return games, table, tid


def test_a_killed_instance_hands_its_tournament_over(tmp_path: Path, redis_url: str) -> None:
    empty_database()
    site = [Instance(f"bela{i}", redis_url, tmp_path) for i in (1, 2)]
    try:
        expected = run(site, kill=False)[:2]
        games, table, tid = run(site, kill=True)
    finally:
        for inst in site:
            inst.kill()
    assert (games, table) == expected
    from sqlalchemy import create_engine, text

    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        rounds = conn.execute(text("SELECT round FROM tournament_rounds WHERE "
                                   "tournament_id = :t ORDER BY round"), {"t": tid}).all()
        ids = conn.execute(text("SELECT table_id FROM tournament_games WHERE "
                                "tournament_id = :t"), {"t": tid}).scalars().all()
        made = conn.execute(text("SELECT count(*) FROM tables")).scalar_one()
    engine.dispose()
    assert [r[0] for r in rounds] == [1, 2]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert made == 8  # four tables a run, none made twice


# an absent player's seat is played by the table's bot after 5 seconds
SERVE_GRACE = SERVE.replace("bot_delay=0,", "bot_delay=0, grace=5.0,")


def _present(tid: str) -> dict[str, Any]:
    from sqlalchemy import create_engine, text

    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        found = conn.execute(text("SELECT present FROM tournament_games WHERE "
                                  "tournament_id = :t"), {"t": tid}).scalar_one()
    engine.dispose()
    return dict(found or {})


def test_the_instance_that_runs_a_table_notes_who_came(tmp_path: Path, redis_url: str
                                                       ) -> None:
    """The table of a game runs at one instance, its tournament is stepped by the other
    (as after a failover that moved one and not the other): the player who sat at the
    table and left is noted by the table's instance, so the result is not marked
    ``bot_played`` for him (it was, when only the tournament's instance noted players)."""
    import redis
    from websockets.sync.client import connect

    from bela.server.tournaments.scheduler import lease_name

    empty_database()
    first, second = (Instance(f"bela{i}", redis_url, tmp_path, SERVE_GRACE) for i in (1, 2))
    try:
        ana = first.api("POST", "/api/guests", json={"name": "Ana"})
        token = first.api("POST", "/api/guests", json={"name": "Direktor"})["token"]
        tid = first.api("POST", "/api/tournaments", token, json={
            "name": "Selidba", "variant": "bela2", "format": "swiss", "rounds": 1,
            "options": {"target": 1}, "rated": False, "no_show": 600})["id"]
        first.api("POST", f"/api/tournaments/{tid}/entries", token,
                  json={"players": [ana["player_id"]]})
        first.api("POST", f"/api/tournaments/{tid}/entries", token, json={"bot": "club"})
        obj = first.api("POST", f"/api/tournaments/{tid}/start", token)  # made at the first
        [game] = obj["rounds"][0]["games"]
        mine = next(e["id"] for e in obj["entries"] if e["players"])
        # the tournament's lease to the second instance: it steps the tournament from now
        leases = redis.Redis.from_url(redis_url)
        leases.set(lease_name(tid), "bela2", px=int(LEASE_TTL * 1000))
        time.sleep(1.0)  # the first instance's next ticks find it held by the second
        assert leases.get(lease_name(tid)) == b"bela2"
        ws_url = first.url.replace("http://", "ws://")
        with connect(f"{ws_url}/ws/tables/{game['table']}?token={ana['token']}",
                     open_timeout=5) as ws:
            assert ws.recv(timeout=5)
            until(lambda: _present(tid).get("seen"), "the player's seat noted", 20)
        leases.close()
        done = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
            second.api("GET", f"/api/tournaments/{tid}")), "the tournament to finish", 120)
    finally:
        for inst in (first, second):
            inst.kill()
    result = done["rounds"][0]["games"][0]["result"]
    assert result["forfeit"] == [] and mine not in result["bot_played"], result
    assert _present(tid)["seen"] == [game["entries"].index(mine)]

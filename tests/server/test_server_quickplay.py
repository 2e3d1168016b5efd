"""Quick play: the matcher's choices (pure), the queue over HTTP, and the queue shared by two
instances through Redis."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server

from bela.server.metrics import Metrics
from bela.server.quickplay import (
    STALE,
    Entry,
    MemoryQueue,
    QuickPlay,
    match,
    nearest_bot,
    window,
)

REDIS = shutil.which("redis-server")
NOW = 1_000_000.0


def entry(pid: str, rating: int, waited: float = 0.0, wait: int = 60,
          variant: str = "bela2") -> Entry:
    return Entry(pid, pid.title(), variant, rating, wait, NOW - waited)


def ids(tables: list[list[Entry]]) -> list[list[str]]:
    return [[e.player_id for e in t] for t in tables]


# -- the matcher -----------------------------------------------------------------------------
def test_a_full_table_of_close_ratings_is_matched_at_once() -> None:
    queue = [entry("ana", 1040), entry("bruno", 1000), entry("cvijeta", 1120),
             entry("davor", 1090)]
    tables = match(queue, 4, NOW)
    assert len(tables) == 1 and sorted(ids(tables)[0]) == ["ana", "bruno", "cvijeta", "davor"]
    # partners: the lowest and the highest rated against the two in the middle
    assert ids(tables) == [["bruno", "ana", "cvijeta", "davor"]]
    assert ids(match(queue[:3], 4, NOW)) == []  # three wait for a fourth


def test_far_ratings_wait_until_the_window_widens() -> None:
    assert window(0) == 150 and window(25) == 400
    far = [entry("ana", 1000, waited=10), entry("bruno", 1400, waited=3)]
    assert match(far, 2, NOW) == []
    # the longest waiting player's wait widens the window: 150 + 10 * 25 = 400
    later = [entry("ana", 1000, waited=25), entry("bruno", 1400, waited=3)]
    assert ids(match(later, 2, NOW)) == [["ana", "bruno"]]


def test_the_closest_players_are_seated_together() -> None:
    queue = [entry("ana", 1000), entry("bruno", 1300), entry("cvijeta", 1320),
             entry("davor", 1020)]
    assert sorted(map(sorted, ids(match(queue, 2, NOW)))) == [["ana", "davor"],
                                                              ["bruno", "cvijeta"]]


def test_a_player_whose_wait_ran_out_gets_bots() -> None:
    queue = [entry("ana", 1000, waited=31, wait=30), entry("bruno", 1900, waited=5)]
    assert ids(match(queue, 2, NOW)) == [["ana"]]  # Bruno is far outside Ana's window
    assert ids(match(queue[:1], 2, NOW)) == [["ana"]]
    assert match([entry("ana", 1000, waited=29, wait=30)], 2, NOW) == []


def test_bela4_with_two_humans_gets_two_bots() -> None:
    queue = [entry("ana", 1000, waited=40, wait=30, variant="bela4"),
             entry("bruno", 1100, waited=2, variant="bela4"),
             entry("cvijeta", 2500, waited=2, variant="bela4")]
    # Ana's window (150 + 400) takes Bruno, not Cvijeta; the other two seats get bots
    assert ids(match(queue, 4, NOW)) == [["ana", "bruno"]]


def test_the_bot_nearest_the_humans_rating_is_chosen() -> None:
    bots = ["random", "heuristic", "pimc", "ismcts"]
    rated = {"random": 640, "pimc": 1320, "ismcts": 1480}  # heuristic: new, 1000
    assert nearest_bot(bots, rated, (1250 + 1450) / 2) == "pimc"
    assert nearest_bot(bots, rated, 1450) == "ismcts"
    assert nearest_bot(bots, rated, 700) == "random"
    assert nearest_bot(bots, rated, 1050) == "heuristic"
    assert nearest_bot(["random", "heuristic"], {}, 1300) == "heuristic"  # a tie


class _FakeDb:
    def ratings(self, entries: list[str], variant: str) -> dict[str, dict[str, Any]]:
        return {}


class _FakeLobby:
    def __init__(self) -> None:
        self.metrics = Metrics()
        self.store = type("FakeStore", (), {"db": _FakeDb()})()

    def available_bots(self) -> list[str]:
        return ["random", "heuristic"]


class _FlakyRouter:
    """Makes tables after refusing the first ``failures``."""

    def __init__(self, failures: int) -> None:
        self.cluster = None
        self.lobby = _FakeLobby()
        self.failures = failures
        self.made: list[tuple[str, list[str], str]] = []

    async def create_match(self, variant: str, players: list[dict[str, Any]], bot: str) -> str:
        if self.failures:
            self.failures -= 1
            raise OSError("the database is gone")
        self.made.append((variant, [p["id"] for p in players], bot))
        return f"t{len(self.made)}"


def test_players_stay_queued_when_their_table_cannot_be_made() -> None:
    async def run() -> None:
        router = _FlakyRouter(failures=1)
        quick = QuickPlay(router, None)
        assert isinstance(quick.store, MemoryQueue)
        for pid in ("ana", "bruno"):
            await quick.store.join(entry(pid, 1000, waited=1))
        await quick.tick(NOW)
        assert router.made == []
        assert (await quick.status("ana"))["status"] == "waiting"
        await quick.tick(NOW)
        assert router.made == [("bela2", ["ana", "bruno"], "heuristic")]
        for pid in ("ana", "bruno"):
            assert await quick.status(pid) == {"status": "matched", "table": "t1",
                                               "variant": "bela2"}
        await quick.tick(NOW + 100)  # nobody is left to match
        assert len(router.made) == 1

    asyncio.run(run())


def test_a_player_who_stops_asking_leaves_the_queue() -> None:
    """A closed page stops polling GET /api/quick: its player is dropped after STALE
    seconds rather than seated at a table he would not play (and lose)."""
    async def run() -> None:
        router = _FlakyRouter(failures=0)
        quick = QuickPlay(router, None)
        await quick.store.join(entry("ana", 1000, waited=STALE + 1, wait=300))
        await quick.store.join(entry("bruno", 2000, waited=STALE + 1, wait=300))
        await quick.store.touch(entry("bruno", 2000, waited=STALE + 1, wait=300), NOW - 1)
        await quick.tick(NOW)
        assert (await quick.status("ana")) == {"status": "idle"}
        assert (await quick.status("bruno"))["status"] == "waiting"
        assert router.made == []

    asyncio.run(run())


# -- over HTTP -------------------------------------------------------------------------------
def wait_for(client: Any, headers: dict[str, str], status: str,
             timeout: float = 20.0) -> dict[str, Any]:
    """The player's quick-play status once it is ``status`` (polled, at most ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get("/api/quick", headers=headers).json()
        if body["status"] == status:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


QUICK: dict[str, Any] = {"min_quick_wait": 1, "quick_wait": 1}


def test_two_players_are_matched_into_one_rated_table(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        r = client.post("/api/quick", json={"variant": "bela2", "wait": 60}, headers=ana)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["waited"] <= 1
        assert body == {"status": "waiting", "variant": "bela2", "wait": 60,
                        "waited": body["waited"], "waiting": 1, "rating": 1000}
        assert client.post("/api/quick", json={"variant": "bela2", "wait": 60},
                           headers=bruno).status_code == 200
        first = wait_for(client, ana, "matched")
        assert first["variant"] == "bela2"
        assert wait_for(client, bruno, "matched") == first
        summary = client.get(f"/api/tables/{first['table']}").json()
        assert summary["rated"] is True and summary["status"] == "running"
        assert summary["private"] is False and summary["owner"] is None
        assert sorted(s["name"] for s in summary["seats"]) == ["Ana", "Bruno"]
        assert all(s["kind"] == "human" for s in summary["seats"])


def test_a_player_alone_gets_a_bot_table_after_his_wait(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK) as client:
        _, ana = guest(client, "Ana")
        r = client.post("/api/quick", json={"variant": "bela2"}, headers=ana)  # wait: 1
        assert r.status_code == 200 and r.json()["wait"] == 1
        body = wait_for(client, ana, "matched")
        summary = client.get(f"/api/tables/{body['table']}").json()
        assert [s["kind"] for s in summary["seats"]] == ["human", "bot"]
        assert summary["seats"][0]["name"] == "Ana" and summary["bot"] == "heuristic"
        assert summary["rated"] is True and summary["status"] == "running"


def test_leaving_and_joining_again(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        assert client.get("/api/quick", headers=ana).json() == {"status": "idle"}
        client.post("/api/quick", json={"variant": "bela2", "wait": 60}, headers=ana)
        r = client.post("/api/quick", json={"variant": "bela3", "wait": 90}, headers=ana)
        body = r.json()
        assert (body["variant"], body["wait"], body["waiting"]) == ("bela3", 90, 1)
        r = client.delete("/api/quick", headers=ana)
        assert r.status_code == 200 and r.json() == {"status": "idle"}
        assert client.get("/api/quick", headers=ana).json() == {"status": "idle"}
        # Ana is in no queue: Bruno waits alone
        r = client.post("/api/quick", json={"variant": "bela2", "wait": 60}, headers=bruno)
        assert r.json()["waiting"] == 1


def test_bad_requests_are_refused(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK, max_quick_wait=120) as client:
        _, ana = guest(client, "Ana")
        r = client.post("/api/quick", json={"variant": "poker"}, headers=ana)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_variant"
        for wait in (0, 121):
            r = client.post("/api/quick", json={"variant": "bela4", "wait": wait}, headers=ana)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_wait"
        r = client.post("/api/quick", json={"variant": "bela4", "wait": "soon"}, headers=ana)
        assert r.status_code == 422
        assert client.get("/api/quick", headers=ana).json() == {"status": "idle"}
        for method in ("get", "post", "delete"):
            r = client.request(method, "/api/quick", json={"variant": "bela4"})
            assert r.status_code == 401 and r.json()["error"]["code"] == "no_token"
        r = client.get("/api/quick", headers={"Authorization": "Bearer nope"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"


# -- two instances, one Redis ----------------------------------------------------------------
@contextmanager
def redis_server(folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A throwaway redis-server on a free port: its URL and its process."""
    assert REDIS is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")
def test_players_at_two_instances_meet_through_redis(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'bela.db'}"
    with redis_server(tmp_path) as (url, redis), ExitStack() as stack:
        a = stack.enter_context(server(tmp_path, db, redis_url=url, instance="a", **QUICK))
        b = stack.enter_context(server(tmp_path, db, redis_url=url, instance="b", **QUICK))
        _, ana = guest(a, "Ana")
        _, bruno = guest(b, "Bruno")
        r = a.post("/api/quick", json={"variant": "bela2", "wait": 60}, headers=ana)
        assert r.json()["status"] == "waiting"
        assert b.get("/api/quick", headers=ana).json()["status"] == "waiting"  # shared
        assert b.post("/api/quick", json={"variant": "bela2", "wait": 60},
                      headers=bruno).status_code == 200
        first = wait_for(a, ana, "matched")
        assert wait_for(b, bruno, "matched") == first
        assert a.get("/api/quick", headers=bruno).json() == first
        # one table, made by one of the instances and seen from both
        for client in (a, b):
            summary = client.get(f"/api/tables/{first['table']}").json()
            assert sorted(s["name"] for s in summary["seats"]) == ["Ana", "Bruno"]
            assert summary["rated"] is True and summary["status"] == "running"
        assert b.delete("/api/quick", headers=ana).json() == {"status": "idle"}
        assert a.get("/api/quick", headers=ana).json() == {"status": "idle"}
        redis.kill()
        redis.wait()
        r = a.post("/api/quick", json={"variant": "bela2"}, headers=ana)
        assert r.status_code == 503 and r.json()["error"]["code"] == "cluster"

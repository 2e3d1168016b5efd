"""Quick play: the matcher's choices (pure), seating against players who leave, join again or
sit elsewhere meanwhile, the queue over HTTP, and the queue shared by two instances through
Redis."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from redis.asyncio import Redis
from server_helpers import from_address, guest, redis_server, server, start, table_with

from bela.server.metrics import Metrics
from bela.server.model import TableStatus
from bela.server.quickplay import (
    STALE,
    TAKEN_TTL,
    Answer,
    Entry,
    MemoryQueue,
    QuickPlay,
    RedisQueue,
    match,
    nearest_bot,
    taken_key,
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


def test_one_address_is_never_seated_twice_at_a_table() -> None:
    """Rating farming: two accounts of one address are never seated together, neither in
    a full table nor with bots after a wait; a third player is taken instead."""
    home = [replace(entry("ana", 1000), address="10.0.0.1"),
            replace(entry("bruno", 1010), address="10.0.0.1")]
    assert match(home, 2, NOW) == []
    waited = [replace(e, since=NOW - 61) for e in home]
    assert sorted(ids(match(waited, 2, NOW))) == [["ana"], ["bruno"]]  # each with bots
    third = [*home, replace(entry("cvijeta", 1100), address="10.0.0.3")]
    tables = match(third, 2, NOW)
    assert len(tables) == 1 and {"cvijeta"} < set(ids(tables)[0])
    four = [replace(entry(n, 1000 + i), address=f"10.0.0.{i % 3}", variant="bela4")
            for i, n in enumerate(["ana", "bruno", "cvijeta", "davor"])]
    assert match(four, 4, NOW) == []  # ana and davor share an address
    assert ids(match([replace(e, since=NOW - 61) for e in four], 4, NOW))[0] == [
        "ana", "bruno", "cvijeta"]  # the longest waiting (ana) is seated, davor not with her


def test_quick_play_over_http_never_pairs_one_address(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        for h in (ana, bruno):
            assert client.post("/api/quick", json={"variant": "bela2", "wait": 2},
                               headers=h).status_code == 200
        first, second = wait_for(client, ana, "matched"), wait_for(client, bruno, "matched")
        assert first["table"] != second["table"]  # each was seated with a bot
        for body in (first, second):
            seats = client.get(f"/api/tables/{body['table']}").json()["seats"]
            assert [s["kind"] for s in seats] == ["human", "bot"]


def test_the_bot_nearest_the_humans_rating_is_chosen() -> None:
    bots = ["random", "heuristic", "pimc", "ismcts"]
    rated = {"random": 640, "pimc": 1320, "ismcts": 1480}  # heuristic: new, 1000
    assert nearest_bot(bots, rated, (1250 + 1450) / 2) == "pimc"
    assert nearest_bot(bots, rated, 1450) == "ismcts"
    assert nearest_bot(bots, rated, 700) == "random"
    assert nearest_bot(bots, rated, 1050) == "heuristic"
    assert nearest_bot(["beginner", "club"], {}, 1300) == "club"  # a tie


def test_quick_play_seats_the_level_nearest_the_players_rating() -> None:
    """The bots of quick play are the levels for people (beginner, club, expert, master):
    a level not rated yet counts as new (1000) plus its measured Elo over the beginner; a
    stored rating counts as it is.  A server without levels picks among its bots."""
    async def run() -> None:
        router = _FlakyRouter(failures=0)
        router.lobby.bots = ["random", "heuristic", "beginner", "club", "expert", "master"]
        quick = QuickPlay(router, None)
        for pid, rating in (("ana", 1000), ("bruno", 1090), ("cvijeta", 1400)):
            await quick.store.join(replace(entry(pid, rating, waited=61, variant="bela4"),
                                           seen=NOW))
            await quick.tick(NOW)
            await quick.leave(pid)
        # bela4: beginner 1000, club 1083, expert 1288, master 1298
        assert [(p, bot) for _, (p,), bot in router.made] == [
            ("ana", "beginner"), ("bruno", "club"), ("cvijeta", "master")]
        router.lobby.store.db.ratings.stored = {"bot-master": {"mu": 50.0, "sigma": 5.0}}  # 2400
        await quick.store.join(replace(entry("davor", 1400, waited=61, variant="bela4"),
                                       seen=NOW))
        await quick.tick(NOW)
        assert router.made[-1] == ("bela4", ["davor"], "expert")
        assert "heuristic" not in {bot for _, _, bot in router.made}

    asyncio.run(run())


class _FakeRatings:
    def __init__(self) -> None:
        self.stored: dict[str, dict[str, Any]] = {}  # entry -> {mu, sigma}

    def ratings(self, entries: list[str], variant: str) -> dict[str, dict[str, Any]]:
        return {e: self.stored[e] for e in entries if e in self.stored}


class _FakeStore:
    """The tables' store: ``playing`` sit at a running table."""

    def __init__(self) -> None:
        self.playing: set[str] = set()
        self.db = SimpleNamespace(ratings=_FakeRatings(), tables=SimpleNamespace(
            running_seats=lambda player_id: int(player_id in self.playing)))


class _FakeLobby:
    def __init__(self) -> None:
        self.metrics = Metrics()
        self.store = _FakeStore()
        self.bots = ["random", "heuristic"]
        self.tables: dict[str, Any] = {}  # id -> a table (its status)
        self.catalog = self  # the bot catalog: available_bots below

    def available_bots(self) -> list[str]:
        return list(self.bots)

    def get(self, table_id: str) -> Any:
        return self.tables.get(table_id)


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


class _GatedRouter(_FlakyRouter):
    """A :class:`_FlakyRouter` that makes each table only once ``go`` is set (``entered``
    is set when it begins one): the players act while their table is being made."""

    def __init__(self, failures: int = 0) -> None:
        super().__init__(failures)
        self.entered = asyncio.Event()
        self.go = asyncio.Event()

    async def create_match(self, variant: str, players: list[dict[str, Any]], bot: str) -> str:
        self.entered.set()
        await self.go.wait()
        return await super().create_match(variant, players, bot)


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
        # a finished table is no longer offered to go back to
        router.lobby.tables["t1"] = SimpleNamespace(status=TableStatus.RUNNING)
        assert (await quick.status("ana"))["status"] == "matched"
        router.lobby.tables["t1"] = SimpleNamespace(status=TableStatus.FINISHED)
        assert await quick.status("ana") == {"status": "idle"}

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


def test_a_player_who_sits_at_a_running_table_meanwhile_leaves_the_queue() -> None:
    async def run() -> None:
        router = _FlakyRouter(failures=0)
        quick = QuickPlay(router, None)
        for pid in ("ana", "bruno"):
            await quick.store.join(entry(pid, 1000, waited=1))
        router.lobby.store.playing.add("ana")
        await quick.tick(NOW)
        assert router.made == []
        assert await quick.status("ana") == {"status": "idle"}
        assert (await quick.status("bruno"))["status"] == "waiting"
        await quick.tick(NOW)  # Bruno waits for another player
        assert router.made == []

    asyncio.run(run())


def test_who_leaves_or_joins_again_while_a_table_is_made_is_not_seated() -> None:
    """The matcher reads the queue, then makes its tables one by one: a player of a later
    table who leaves or joins again meanwhile is not seated from what was read."""
    async def run() -> None:
        router = _GatedRouter()
        quick = QuickPlay(router, None)
        for pid, rating in (("ana", 1000), ("bruno", 1000), ("cvijeta", 2000),
                            ("davor", 2000)):
            await quick.store.join(entry(pid, rating, waited=1))
        ticking = asyncio.create_task(quick.tick(NOW))
        await router.entered.wait()  # Ana's and Bruno's table is being made
        assert (await quick.status("ana"))["status"] == "waiting"  # not idle meanwhile
        await quick.leave("davor")
        await quick.store.join(entry("cvijeta", 2000, wait=90))
        router.go.set()
        await ticking
        assert router.made == [("bela2", ["ana", "bruno"], "heuristic")]
        assert (await quick.status("ana"))["status"] == "matched"
        assert await quick.status("davor") == {"status": "idle"}
        again = await quick.status("cvijeta")
        assert (again["status"], again["wait"]) == ("waiting", 90)

    asyncio.run(run())


def test_a_table_that_fails_puts_back_only_who_did_not_leave_or_join_again() -> None:
    async def run() -> None:
        router = _GatedRouter(failures=1)
        quick = QuickPlay(router, None)
        for pid in ("ana", "bruno", "cvijeta"):
            await quick.store.join(entry(pid, 1000, waited=1, variant="bela3"))
        ticking = asyncio.create_task(quick.tick(NOW))
        await router.entered.wait()
        await quick.leave("bruno")
        await quick.store.join(entry("ana", 1000, wait=90, variant="bela2"))
        router.go.set()
        await ticking
        assert router.made == [] and router.failures == 0
        assert await quick.store.queue("bela3") == [entry("cvijeta", 1000, waited=1,
                                                          variant="bela3")]
        assert await quick.status("bruno") == {"status": "idle"}  # not back in the queue
        ana = await quick.status("ana")
        assert (ana["variant"], ana["wait"], ana["waiting"]) == ("bela2", 90, 1)
        cvijeta = await quick.status("cvijeta")
        assert (cvijeta["status"], cvijeta["variant"], cvijeta["waiting"]) == (
            "waiting", "bela3", 1)

    asyncio.run(run())


class _ForgetfulQueue(MemoryQueue):
    """Fails to store the first ``failures`` answers (Redis gone after the table was made)."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def matched(self, players: Sequence[Entry], answer: Answer) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError("redis is gone")
        await super().matched(players, answer)


def test_players_whose_answer_was_lost_get_no_second_table() -> None:
    async def run() -> None:
        router = _FlakyRouter(failures=0)
        quick = QuickPlay(router, None)
        quick.store = _ForgetfulQueue(failures=1)
        for pid in ("ana", "bruno"):
            await quick.store.join(entry(pid, 1000, waited=1))
        with pytest.raises(OSError):
            await quick.tick(NOW)
        await quick.tick(NOW)
        await quick.tick(NOW + 100)
        assert router.made == [("bela2", ["ana", "bruno"], "heuristic")]
        assert await quick.store.queue("bela2") == []

    asyncio.run(run())


def test_touch_and_drop_spare_an_entry_joined_again() -> None:
    async def run() -> None:
        store = MemoryQueue()
        old = entry("ana", 1000, waited=20)
        await store.join(old)
        await store.join(entry("ana", 1000, wait=90))
        await store.touch(old, NOW)
        await store.drop([old])
        assert await store.queue("bela2") == [entry("ana", 1000, wait=90)]  # seen: 0
        await store.touch(entry("ana", 1000, wait=90), NOW)
        assert (await store.queue("bela2"))[0].seen == NOW
        await store.drop([entry("ana", 1000, wait=90)])
        assert await store.queue("bela2") == []

    asyncio.run(run())


def test_a_group_is_taken_only_as_it_was_read() -> None:
    async def run() -> None:
        store = MemoryQueue()
        ana, bruno = entry("ana", 1000, waited=5), entry("bruno", 1000, waited=5)
        for e in (ana, bruno):
            await store.join(e)
        await store.touch(ana, NOW)  # asking rewrites `seen` only: still as read
        await store.join(entry("bruno", 1000, waited=5, wait=90))
        assert not await store.take([ana, bruno])  # Bruno joined again: none is taken
        assert len(await store.queue("bela2")) == 2
        bruno = entry("bruno", 1000, waited=5, wait=90)
        assert await store.take([ana, bruno])
        assert not await store.take([ana, bruno])  # taken once only
        assert await store.queue("bela2") == []
        assert (await store.find("bruno"))[0] == bruno  # still waiting
        await store.put_back([ana, bruno])
        assert sorted(e.player_id for e in await store.queue("bela2")) == ["ana", "bruno"]

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
                        "waited": body["waited"], "waiting": 1, "others": 0, "rating": 1000}
        with from_address(client, "10.0.0.2"):  # one address is never seated twice
            assert client.post("/api/quick", json={"variant": "bela2", "wait": 60},
                               headers=bruno).status_code == 200
        first = wait_for(client, ana, "matched")
        assert first["variant"] == "bela2"
        assert wait_for(client, bruno, "matched") == first
        summary = client.get(f"/api/tables/{first['table']}").json()
        assert summary["rated"] is True and summary["status"] == "running"
        assert summary["private"] is False and summary["owner"] is None
        assert summary["turn_clock"] == 60  # quick_turn_clock: nobody holds a table up
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
        # a new player (1000) gets the level nearest: the beginner
        assert summary["seats"][0]["name"] == "Ana" and summary["bot"] == "beginner"
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
        assert (r.json()["waiting"], r.json()["others"]) == (1, 0)
        # with Ana in Bruno's queue each counts the other (not himself)
        client.post("/api/quick", json={"variant": "bela3", "wait": 60}, headers=bruno)
        _, cvijeta = guest(client, "Cvijeta")
        client.post("/api/quick", json={"variant": "bela3", "wait": 60}, headers=cvijeta)
        body = client.get("/api/quick", headers=bruno).json()
        assert (body["status"], body["waiting"], body["others"]) == ("waiting", 2, 1)


def test_a_player_at_a_running_table_may_not_join(tmp_path: Path) -> None:
    with server(tmp_path, **QUICK) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = table_with(client, "bela2", [ana], bots=True)
        # an open table does not count: Ana joins, then her table starts
        r = client.post("/api/quick", json={"variant": "bela2", "wait": 60}, headers=ana)
        assert r.status_code == 200 and r.json()["status"] == "waiting"
        start(client, tid, ana)
        assert client.get(f"/api/tables/{tid}").json()["status"] == "running"
        r = client.post("/api/quick", json={"variant": "bela4", "wait": 60}, headers=ana)
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_playing"
        # Bruno would make a table with Ana: she leaves the queue instead, he waits on
        with from_address(client, "10.0.0.2"):
            r = client.post("/api/quick", json={"variant": "bela2", "wait": 60},
                            headers=bruno)
        assert r.status_code == 200
        assert wait_for(client, ana, "idle") == {"status": "idle"}
        body = client.get("/api/quick", headers=bruno).json()
        assert (body["status"], body["waiting"]) == ("waiting", 1)
        listed = client.get("/api/tables").json()
        assert [t["id"] for t in listed] == [tid]  # no quick-play table


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
        with from_address(b, "10.0.0.2"):
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
        r = b.post("/api/quick", json={"variant": "bela2"}, headers=ana)  # she plays
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_playing"
        _, cvijeta = guest(a, "Cvijeta")
        redis.kill()
        redis.wait()
        r = a.post("/api/quick", json={"variant": "bela2"}, headers=cvijeta)
        assert r.status_code == 503 and r.json()["error"]["code"] == "cluster"


@pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")
def test_redis_takes_a_group_only_as_it_was_read(tmp_path: Path) -> None:
    """Two instances read the same queue: one takes the group, the other does not; an entry
    joined again is neither taken, touched nor dropped from what was read before."""
    since = 1_712_345_678.123_456_7  # all the digits of a time.time() (cjson keeps 14)

    def at(pid: str, wait: int = 60, variant: str = "bela2", later: float = 0.0) -> Entry:
        return Entry(pid, pid.title(), variant, 1000, wait, since + later)

    async def run(url: str) -> None:
        redis = Redis.from_url(url, decode_responses=True)
        a, b = RedisQueue(redis, "a"), RedisQueue(redis, "b")
        try:
            for e in (at("ana"), at("bruno")):
                await a.join(e)
            read = await b.queue("bela2")
            await a.touch(at("ana"), since + 3)  # only `seen` changes: still as read
            assert await a.take(read)
            assert not await b.take(read)  # the other instance seats nobody twice
            assert await b.queue("bela2") == []
            assert 0 < await redis.pttl(taken_key("ana")) <= TAKEN_TTL * 1000
            ana, count, _ = await b.find("ana")  # still waiting, as he was
            assert ana == replace(at("ana"), seen=since + 3) and count == 1
            await b.leave("bruno")
            await b.put_back(read)  # Bruno left: only Ana is queued again
            assert await a.queue("bela2") == [replace(at("ana"), seen=since + 3)]
            assert await redis.exists(taken_key("ana"), taken_key("bruno")) == 0

            await a.join(at("bruno"))
            read = await a.queue("bela2")
            await b.join(at("bruno", wait=90, later=2))  # again, between reading and taking
            assert not await a.take(read)
            assert sorted(e.wait for e in await a.queue("bela2")) == [60, 90]  # untouched
            old = next(e for e in read if e.player_id == "bruno")
            await a.touch(old, since + 5)
            await a.drop([old])
            assert (await a.find("bruno"))[0] == at("bruno", wait=90, later=2)  # seen: 0
            assert not await a.take([at("ana"), at("bruno", later=2)])  # another wait
            await a.join(at("bruno", variant="bela3", later=4))
            await a.put_back([at("bruno", variant="bela3", later=4)])  # never taken
            assert [e.player_id for e in await a.queue("bela3")] == ["bruno"]
            await a.drop([at("ana"), at("bruno", variant="bela3", later=4)])
            assert await a.queue("bela2") == [] and await a.queue("bela3") == []
        finally:
            await redis.aclose()

    with redis_server(tmp_path) as (url, _):
        asyncio.run(run(url))

"""The analysis board's endpoints (bela.server.analysis): positions, reviews, bidding,
play-on tables and hints, against the CLI's solver and reviewer.

One app for the whole module: its analysis worker process loads the solver once."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Reader, choose, guest, server, start, table_with
from typer.testing import CliRunner

from bela.analysis.review import review_match
from bela.cli.main import app as cli
from bela.engine.record import read_record

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    return data


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with server(tmp_path_factory.mktemp("analysis"), analysis_workers=1) as c:
        r = c.post("/api/analysis/position",  # the worker starts and loads the solver
                   json={"record": example("bela4-pass-with-bela"), "round": 0, "step": 9})
        assert r.status_code == 200, r.text
        yield c


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A short bela4 match of heuristic bots (several rounds)."""
    path = tmp_path_factory.mktemp("rec") / "match.json"
    result = runner.invoke(cli, ["play", "--all-bots", "--seed", "11", "--bot", "heuristic",
                                 "--target", "300", "--record", str(path)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(path.read_text())
    assert len(data["rounds"]) >= 2
    return data


def position(client: Any, record: dict[str, Any], rnd: int, step: int,
             seat: int | None = None) -> Any:
    return client.post("/api/analysis/position",
                       json={"record": record, "round": rnd, "step": step, "seat": seat})


def bela_solve(record: dict[str, Any], rnd: int, step: int, tmp_path: Path) -> dict[str, Any]:
    """``bela solve --json`` of the record cut at the position."""
    cut = json.loads(json.dumps(record))
    cut["rounds"] = cut["rounds"][:rnd + 1]
    cut["rounds"][rnd]["actions"] = cut["rounds"][rnd]["actions"][:step]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(cut))
    result = runner.invoke(cli, ["solve", str(path), "--json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


# -- positions -------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "rnd", "step"), [("bela4-pass-with-bela", 0, 9),
                                                   ("bela4-pass-with-bela", 0, 18),
                                                   ("belot2-raspas", 0, 7)])
def test_position_dd_values_are_those_of_bela_solve(client: Any, tmp_path: Path, name: str,
                                                    rnd: int, step: int) -> None:
    record = example(name)
    r = position(client, record, rnd, step)
    assert r.status_code == 200, r.text
    out = r.json()
    solved = bela_solve(record, rnd, step, tmp_path)
    assert out["phase"] == "play" and out["turn"] == solved["seat"]
    assert out["dd"] == solved["values"]
    pick = min if out["minimize"] else max
    assert out["dd"][out["dd_best"]] == pick(out["dd"].values())
    assert out["minimize"] == (name == "belot2-raspas")
    assert out["next"] == record["rounds"][rnd]["actions"][step]
    assert set(out["dd"]) <= set(out["legal"])
    seats = len(record["rounds"][rnd]["hands"])
    assert len(out["hands"]) == seats and all(out["hands"])
    assert out["view"]["seat"] is None and out["view"]["hand"] == []  # the public view
    assert out["sampled"] is None  # no seat given


def test_sampled_values_only_for_the_seat_to_play_and_its_legal_cards(client: Any) -> None:
    record = example("bela4-pass-with-bela")
    turn = position(client, record, 0, 9).json()["turn"]
    mine = position(client, record, 0, 9, seat=turn).json()
    assert mine["sampled"] is not None
    assert set(mine["sampled"]) == set(mine["dd"]) == set(mine["legal"])
    assert mine["view"]["seat"] == turn
    assert sorted(mine["view"]["hand"]) == sorted(mine["hands"][turn])
    other = position(client, record, 0, 9, seat=(turn + 1) % 4).json()
    assert other["sampled"] is None and other["dd"] == mine["dd"]
    assert other["view"]["legal"] == []
    bidding = position(client, record, 0, 0, seat=0).json()
    assert bidding["phase"] == "bidding" and bidding["dd"] is None
    assert bidding["sampled"] is None and "pass" in bidding["legal"]


def test_bad_records_and_positions_are_refused(client: Any) -> None:
    r = position(client, example("bela4-illegal-iber"), 0, 2)
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_record"
    assert "round 0, action 4" in r.json()["error"]["message"]
    r = position(client, {"variant": "bela9", "rounds": []}, 0, 0)
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_record"
    record = example("bela4-pass-with-bela")
    steps = len(record["rounds"][0]["actions"])
    for rnd, step in ((1, 0), (-1, 0), (0, steps + 1), (0, -1)):
        r = position(client, record, rnd, step)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_position", (rnd, step)
    r = position(client, record, 0, 9, seat=4)
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_seat"
    r = client.post("/api/analysis/position", json={"record": record, "round": "0", "step": 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request"
    assert position(client, record, 0, steps).json()["over"] is True


# -- reviews ---------------------------------------------------------------------------------
def test_a_review_gives_the_plays_of_bela_review_with_progress(client: Any,
                                                                match: dict[str, Any]) -> None:
    r = client.post("/api/analysis/reviews", json={"record": match})
    assert r.status_code == 200, r.text
    job = r.json()
    assert job["total"] == len(match["rounds"]) and job["status"] in ("queued", "running")
    seen = []
    deadline = time.monotonic() + 60
    while job["status"] not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.02)
        job = client.get(f"/api/analysis/reviews/{job['id']}").json()
        seen.append(job["done"])
    assert job["status"] == "done", job
    assert job["done"] == job["total"] and seen == sorted(seen)
    expected = review_match(read_record(match))
    assert [(p["round"], p["index"], p["seat"], p["played"], p["best"], p["loss"])
            for p in job["plays"]] == [(p.round, p.action, p.seat, p.played, p.best, p.loss)
                                       for p in expected]
    assert job["loss_by_seat"] == [sum(p.loss for p in expected if p.seat == s)
                                   for s in range(4)]
    assert [p["loss"] for p in job["biggest"]] == sorted((p.loss for p in expected),
                                                         reverse=True)[:5]


def test_review_refusals(client: Any) -> None:
    r = client.post("/api/analysis/reviews", json={"record": example("bela4-illegal-iber")})
    assert r.status_code == 422 and "round 0, action 4" in r.json()["error"]["message"]
    r = client.get("/api/analysis/reviews/nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_review"


def test_bidding_gives_each_bid_its_contract_values(client: Any) -> None:
    record = example("belot2-all-trumps")
    r = client.post("/api/analysis/bidding", json={"record": record, "round": 0})
    assert r.status_code == 200, r.text
    bids = r.json()["bids"]
    assert [(b["seat"], b["action"]) for b in bids] == [(0, "pass"), (1, "pass"), (0, "VC")]
    assert set(bids[2]["values"]) == {"D", "S", "C", "VC", "BC", "pass"}
    assert bids[2]["values"]["pass"] == 0 and bids[2]["samples"] > 0
    r = client.post("/api/analysis/bidding", json={"record": record, "round": 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_position"


def test_reviews_leave_a_worker_to_positions() -> None:
    """With two workers or more a review never takes the last one: a position asked for
    during a review is answered at once (a single worker takes turns between rounds)."""
    from bela.server.analysis import Analysis
    from bela.server.model import ServerConfig

    assert [Analysis(ServerConfig(analysis_workers=n)).review_slots for n in (1, 2, 3)] == [
        1, 1, 2]
    assert ServerConfig().analysis_workers == 2


def test_too_busy_when_the_queue_is_full(client: Any) -> None:
    record = example("bela4-pass-with-bela")
    record["rounds"][0]["actions"] = ["pass", "pass", "pass"]  # three simulated bids
    pool = client.app.state.analysis.pool
    queue, pool.queue = pool.queue, 0  # one job at a time, none waiting
    try:
        with ThreadPoolExecutor(1) as threads:
            slow = threads.submit(client.post, "/api/analysis/bidding",
                                  json={"record": record, "round": 0})
            deadline = time.monotonic() + 10
            while pool.pending == 0 and time.monotonic() < deadline:
                time.sleep(0.002)
            r = position(client, record, 0, 1)
            assert r.status_code == 429 and r.json()["error"]["code"] == "too_busy"
            assert r.headers["Retry-After"]
            r = client.post("/api/analysis/reviews", json={"record": record})
            assert r.status_code == 429
            assert slow.result().status_code == 200
            assert len(slow.result().json()["bids"]) == 3
    finally:
        pool.queue = queue
    assert position(client, record, 0, 1).status_code == 200


# -- fair shares (docs/SECURITY.md, "Fair shares and ratings") ------------------------------
class Gate:
    """Jobs for a pool of threads that end when the test lets them, noting their order."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.order: list[str] = []

    def job(self, name: str) -> dict[str, Any]:
        self.open.wait(10)
        self.order.append(name)
        return {"name": name}


def threads_pool(workers: int, queue: int, share: int, hints: int = 1) -> Any:
    from bela.server.analysis import Pool
    pool = Pool(workers, queue, share, hints)
    pool._executor = ThreadPoolExecutor(workers)  # type: ignore[assignment]
    return pool


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0.01)


def test_one_address_gets_its_share_and_another_is_served() -> None:
    """The review's case: one address keeps jobs in flight; beyond its share it is refused
    before the queue, so another address's job is admitted and answered."""
    from bela.server.errors import TooMany
    gate = Gate()
    pool = threads_pool(1, 8, 2)

    async def main() -> None:
        flood = []
        refused = 0
        for i in range(10):
            try:
                pool._admit(["address:1.2.3.4"], False)
            except TooMany as exc:
                refused += 1
                assert exc.code == "too_busy" and "share" in exc.message
                continue
            flood.append(asyncio.ensure_future(pool.run(gate.job, f"flood{i}",
                                                        clients=["address:1.2.3.4"])))
            await settle()
        assert (len(flood), refused) == (2, 8)
        victim = asyncio.ensure_future(pool.run(gate.job, "victim",
                                                clients=["address:5.6.7.8"]))
        await settle()
        assert pool.pending == 3
        gate.open.set()
        assert (await victim) == {"name": "victim"}
        await asyncio.gather(*flood)
        # a player's share counts across addresses
        gate.open.clear()
        first = asyncio.ensure_future(pool.run(gate.job, "a", clients=["address:x",
                                                                      "player:ana"]))
        second = asyncio.ensure_future(pool.run(gate.job, "b", clients=["address:y",
                                                                       "player:ana"]))
        await settle()
        with pytest.raises(TooMany):
            await pool.run(gate.job, "c", clients=["address:z", "player:ana"])
        gate.open.set()
        await asyncio.gather(first, second)
        assert pool.pending == 0 and not pool._clients

    asyncio.run(main())
    pool._executor.shutdown()


def test_a_hint_is_served_while_the_queue_is_full() -> None:
    from bela.server.errors import TooMany
    gate = Gate()
    pool = threads_pool(1, 2, 0, hints=1)

    async def main() -> None:
        jobs = []
        for i in range(3):  # one running, two waiting: the queue is full
            jobs.append(asyncio.ensure_future(pool.run(gate.job, f"job{i}")))
            await settle()
        with pytest.raises(TooMany):
            await pool.run(gate.job, "one too many")
        hint = asyncio.ensure_future(pool.run(gate.job, "hint", hint=True))
        await settle()
        with pytest.raises(TooMany):  # the hints' own place is taken
            await pool.run(gate.job, "hint2", hint=True)
        gate.open.set()
        assert (await hint) == {"name": "hint"}
        await asyncio.gather(*jobs)
        # the hint had the next free worker, before the jobs that waited
        assert gate.order == ["job0", "hint", "job1", "job2"]

    asyncio.run(main())
    pool._executor.shutdown()


def test_the_analysis_endpoints_count_each_address_and_player(client: Any) -> None:
    """The requests name their clients: a position's job counts against its address,
    and against its player when the request has a token."""
    from bela.server.analysis import clients_of

    class Fake:
        def __init__(self, host: str, token: str | None) -> None:
            self.client = type("C", (), {"host": host})()
            self.headers = {"authorization": f"Bearer {token}"} if token else {}
            self.app = client.app

    token, _ = guest(client, "Fair")
    me = client.get("/api/players/me", headers={"Authorization": f"Bearer {token}"}).json()

    async def main() -> None:
        assert await clients_of(Fake("1.2.3.4", None)) == ["address:1.2.3.4"]  # type: ignore[arg-type]
        assert await clients_of(Fake("1.2.3.4", token)) == [  # type: ignore[arg-type]
            "address:1.2.3.4", f"player:{me['player_id']}"]
        assert await clients_of(Fake("1.2.3.4", "nope")) == ["address:1.2.3.4"]  # type: ignore[arg-type]

    asyncio.run(main())


# -- play on ---------------------------------------------------------------------------------
def test_play_on_runs_a_private_unrated_table_from_the_position(client: Any) -> None:
    record = example("bela4-pass-with-bela")
    token, h = guest(client, "ana")
    me = client.get("/api/players/me", headers=h).json()["player_id"]
    body = {"record": record, "round": 0, "step": 9, "seat": 1}
    assert client.post("/api/analysis/play-on", json=body).status_code == 401
    r = client.post("/api/analysis/play-on", json=body, headers=h)
    assert r.status_code == 200, r.text
    table = r.json()
    assert table["status"] == "running" and table["private"] and not table["rated"]
    assert table["turn_clock"] is None and table["owner"] == me and table["bot"] == "heuristic"
    assert table["seq"] == 10  # the deal and nine actions
    assert [s["kind"] for s in table["seats"]] == ["bot", "human", "bot", "bot"]
    assert table["seats"][1]["player_id"] == me and table["invite_code"]
    listed = client.get("/api/tables").json()
    assert table["id"] not in {t["id"] for t in listed}
    expected = position(client, record, 0, 9, seat=1).json()
    assert expected["turn"] == 1  # the player's turn: the table waits for him
    with client.websocket_connect(f"/ws/tables/{table['id']}?token={token}") as ws:
        assert ws.receive_json()["type"] == "welcome"
        state = ws.receive_json()
        assert state["type"] == "state" and state["seq"] == 10
        assert state["view"] == expected["view"]
        assert state["view"]["trick"] == expected["trick"]

        hint = client.get(f"/api/tables/{table['id']}/hint", headers=h)
        assert hint.status_code == 200, hint.text
        out = hint.json()
        assert out["seat"] == 1 and out["seq"] == 10
        assert set(out["values"]) == set(expected["legal"]) and out["best"] in out["values"]


def test_play_on_refuses_a_position_after_the_end_of_its_round(client: Any) -> None:
    record = example("bela4-pass-with-bela")
    _, h = guest(client, "bob")
    steps = len(record["rounds"][0]["actions"])
    r = client.post("/api/analysis/play-on", headers=h,
                    json={"record": record, "round": 0, "step": steps, "seat": 0})
    assert r.status_code == 409 and r.json()["error"]["code"] == "position_over"
    r = client.post("/api/analysis/play-on", headers=h,
                    json={"record": example("bela4-illegal-iber"), "round": 0, "step": 1,
                          "seat": 0})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_record"


# -- hints -----------------------------------------------------------------------------------
def test_hints_are_refused_at_rated_tables_and_against_people(client: Any) -> None:
    _, h = guest(client, "cid")
    _, h2 = guest(client, "dee")
    r = client.post("/api/tables", json={"variant": "bela2", "seat": 0}, headers=h)
    assert r.status_code == 200 and r.json()["rated"]
    rated = r.json()["id"]
    assert client.post(f"/api/tables/{rated}/bots", headers=h).status_code == 200
    start(client, rated, h)
    two = table_with(client, "bela2", [h, h2])  # unrated (a seed), another player
    start(client, two, h)
    for tid, headers in ((rated, h), (two, h), (two, h2)):
        r = client.get(f"/api/tables/{tid}/hint", headers=headers)
        assert r.status_code == 403 and r.json()["error"]["code"] == "hint_not_allowed"
    _, outsider = guest(client, "eve")
    r = client.get(f"/api/tables/{rated}/hint", headers=outsider)
    assert r.status_code == 403
    assert client.get("/api/tables/nope/hint", headers=h).status_code == 404


def test_hints_wait_for_the_players_turn_at_a_running_table(tmp_path: Path) -> None:
    """409 ``not_running`` before the match starts, ``not_your_turn`` while a bot is to
    act (its move held back by ``bot_delay``), and the hint once the turn is the player's."""
    record = example("bela4-pass-with-bela")
    with server(tmp_path, analysis_workers=1, bot_delay=60) as c:
        _, h = guest(c, "fay")
        waiting = table_with(c, "bela2", [h], bots=True)
        r = c.get(f"/api/tables/{waiting}/hint", headers=h)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_running"
        assert position(c, record, 0, 9).json()["turn"] == 1
        r = c.post("/api/analysis/play-on", headers=h,
                   json={"record": record, "round": 0, "step": 9, "seat": 0})
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        r = c.get(f"/api/tables/{tid}/hint", headers=h)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
        r = c.post("/api/analysis/play-on", headers=h,
                   json={"record": record, "round": 0, "step": 9, "seat": 1})
        r = c.get(f"/api/tables/{r.json()['id']}/hint", headers=h)
        assert r.status_code == 200 and r.json()["seat"] == 1, r.text


def test_a_finished_play_on_counts_in_no_ones_stats(client: Any) -> None:
    """A play-on's log starts with rounds played elsewhere: when it ends, no line is
    written for its players (its wins and points were not all won there)."""
    record = example("bela4-pass-with-bela")
    record["options"] = {"target": 1}  # the match ends with this round
    token, h = guest(client, "fay")
    me = client.get("/api/players/me", headers=h).json()["player_id"]
    r = client.post("/api/analysis/play-on", headers=h,
                    json={"record": record, "round": 0, "step": 9, "seat": 1})
    assert r.status_code == 200, r.text
    rng = random.Random(3)
    with client.websocket_connect(f"/ws/tables/{r.json()['id']}?token={token}") as ws:
        reader = Reader(ws)
        while True:
            st = reader.until(lambda m: m["type"] == "state")
            if st["status"] == "finished":
                break
            if st["view"]["legal"]:
                reader.send({"type": "act", "action": choose(st, rng), "seq": st["seq"]})
    mine = client.get(f"/api/players/{me}").json()
    assert mine["matches"] == [] and mine["variants"] == []
    history = client.get("/api/players/me/history", headers=h).json()
    assert [g["table"] for g in history] == [r.json()["id"]]  # its record stays his


def test_bela_serve_warms_the_workers_at_its_start(tmp_path: Path) -> None:
    """With ``analysis_warm`` (what ``bela serve`` sets) every worker starts with the app
    and loads the solver, so the first analysis asked for does not wait for it."""
    with server(tmp_path, analysis_workers=1, analysis_warm=True) as c:
        warming = c.app.state.analysis._warming
        deadline = time.monotonic() + 120
        while not warming.done() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert warming.done() and c.app.state.analysis.warmed_in is not None
        assert c.app.state.analysis.pool.pending == 0


def test_reviews_are_bounded_per_owner_and_in_memory() -> None:
    """One player (or address) has at most REVIEWS_EACH unfinished reviews (429
    too_many_reviews), others are not held back by his; finished reviews are forgotten
    review_ttl after they ended, and beyond MAX_REVIEWS the oldest finished go first."""
    from bela.server import analysis as an
    from bela.server.errors import TooMany
    from bela.server.model import ServerConfig

    assert (an.REVIEWS_EACH, an.MAX_REVIEWS, ServerConfig().review_ttl) == (2, 1000, 3600.0)
    service = an.Analysis(ServerConfig(analysis_workers=2))
    for i in range(an.REVIEWS_EACH):
        service.reviews[f"a{i}"] = an.Review(f"a{i}", "ana", {}, 4, 1, status="running")

    async def start(owner: str) -> str:
        try:
            await service.review({"bad": "record"}, owner)
        except TooMany as exc:
            return exc.code
        except Exception as exc:  # past the limits: the record itself is refused
            return type(exc).__name__
        return "started"

    assert asyncio.run(start("ana")) == "too_many_reviews"
    assert asyncio.run(start("bo")) != "too_many_reviews"
    now = time.monotonic()
    service.reviews.clear()
    service.reviews["old"] = an.Review("old", "x", {}, 4, 1, status="done",
                                       ended_at=now - 3601)
    for i in range(an.MAX_REVIEWS + 5):
        service.reviews[f"d{i}"] = an.Review(f"d{i}", "x", {}, 4, 1, status="done",
                                             ended_at=now - 100 + i * 0.01)
    service._purge()
    assert "old" not in service.reviews and len(service.reviews) == an.MAX_REVIEWS - 1
    assert "d0" not in service.reviews and f"d{an.MAX_REVIEWS + 4}" in service.reviews

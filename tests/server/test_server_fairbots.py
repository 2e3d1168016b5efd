"""The bot pool is shared fairly (docs/SECURITY.md, "Fair shares and ratings"): a strong
bot's move is sent at its answer time for the decision's kind, whatever its cards and however
loaded the pool; the pool's queue serves one address's tables as one turn; a player or an
address runs a bounded number of tables with strong bots."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from server_helpers import from_address, guest, server

from bela.bots import make_bot
from bela.bots.driver import Decision, decide
from bela.engine import Match
from bela.engine.views import SeatView, seat_view
from bela.server import actor
from bela.server.botpool import BotPool


class SlowPool(BotPool):
    """A bot pool whose strong bots (``pimc``) take ``think(view)`` seconds a decision (a
    search whose time depends on the cards, or a wait behind other tables' jobs), then move
    as the heuristic bot would; it ignores the deadline it is given (the worst case: the job
    did not start in time) and keeps how many seconds each left it."""

    def __init__(self, think: Callable[[SeatView], float]) -> None:
        super().__init__(0)
        self.think = think
        self.asked = 0
        self.left: list[float] = []  # seconds from each job's start to its deadline

    def pooled(self, spec: str) -> bool:
        return spec.startswith("pimc")

    async def decide(self, spec: str, seed: int, view: SeatView, revokes: bool = True, *,
                     deadline: float | None = None, key: str = "") -> Decision:
        self.asked += 1
        if deadline is not None:
            self.left.append(deadline - time.monotonic())
        await asyncio.sleep(self.think(view))
        return decide(lambda v: make_bot("heuristic", seed=seed).act(v), view, seed, revokes)


def by_cards(view: SeatView) -> float:
    """A think time the hidden cards decide: 0 to 2.9 s by the seat's hand."""
    return sum(int(c) for c in view.hand) % 30 / 10


FLOOR = 0.3
ANSWER = {"bidding": 0.6, "exchange": 0.45, "play": 0.9}  # bela2 has no discard
TIMING: dict[str, Any] = {"bot_delay": FLOOR, "bot_answer_bid": ANSWER["bidding"],
                          "bot_answer_exchange": ANSWER["exchange"],
                          "bot_answer_discard": 2.0, "bot_answer_card": ANSWER["play"]}
TOLERANCE = 0.2  # seconds a shared, loaded test machine may add to a move's time


def answer_times(client: Any, moves: int, seed: int = 3) -> list[tuple[str, float]]:
    """The first ``moves`` bot moves of an all-pimc bela2 table, watched from a WebSocket:
    each move's phase (the decision's kind) and the seconds from the state it answered to
    the next."""
    _, h = guest(client, "Ana")
    r = client.post("/api/tables", json={"variant": "bela2", "bot": "pimc", "seat": None,
                                         "seed": seed, "options": {"target": 1}}, headers=h)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
    stamps: list[tuple[str, float]] = []
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        assert ws.receive_json()["type"] == "welcome"
        assert client.post(f"/api/tables/{tid}/start", headers=h).status_code == 200
        seq = -1
        while len(stamps) <= moves:
            msg = ws.receive_json()
            if msg["type"] == "state" and msg["seq"] != seq and msg["view"]["turn"] is not None:
                seq = msg["seq"]
                stamps.append((msg["view"]["phase"], time.monotonic()))
    return [(phase, b - a) for (phase, a), (_, b) in zip(stamps, stamps[1:], strict=False)]


def test_a_strong_bot_answers_at_its_kinds_answer_time(tmp_path: Path) -> None:
    """Three pools: one whose bot decides at once, one whose bot would take 20 s (the
    review's loaded pool: 10.9 s), one whose time the hidden cards decide (0 to 2.9 s);
    two deals each.  Every move (bids, the exchange, lone keeps, cards) comes at the answer
    time of its kind, so what the bot held never shows in when it moved (before: between
    the floor, 0.3 s, and the kind's ceiling).  Each job got the time to the move's moment,
    less the margin kept for the way back, as its deadline."""
    for name, think in (("now", lambda v: 0.0), ("slow", lambda v: 20.0),
                        ("cards", by_cards)):
        for seed in (3, 4):
            pool = SlowPool(think)
            (tmp_path / f"{name}{seed}").mkdir()
            with server(tmp_path / f"{name}{seed}", bot_pool=pool, **TIMING) as client:
                times = answer_times(client, 5, seed)
            assert pool.asked >= 2  # a lone keep in the exchange asks no bot
            assert {phase for phase, _ in times} >= {"bidding", "play"}
            off = [(phase, round(t, 2)) for phase, t in times
                   if abs(t - ANSWER[phase]) > TOLERANCE]
            assert not off, (name, seed, times)
            assert all(0 < left <= ANSWER["play"] - min(actor.MARGIN, FLOOR / 3) + 0.05
                       for left in pool.left), pool.left


class Recording(BotPool):
    """A pool of ``workers`` whose jobs run until the test ends them: the key of each job
    given to a worker, in order."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.started: list[str] = []
        self.running: list[Future[Decision]] = []

    def _submit(self, job: Any) -> Future[Decision]:
        self.started.append(job.key)
        future: Future[Decision] = Future()
        future.set_running_or_notify_cancel()
        self.running.append(future)
        return future


def test_the_pools_queue_serves_addresses_in_turn() -> None:
    """One worker, busy; address X's three tables queue a job each, then address Y's one
    table.  Y's job runs second to X's first, before X's second and third (before: after
    all three, in the order they came); a job whose table moved on while it waited never
    runs."""
    m = Match("bela4", seed=1)
    m.deal()
    assert m.round is not None
    view = seat_view(m, m.round.turn)
    move = Decision(view.legal[0])

    async def run() -> Recording:
        pool = Recording(1)

        def ask(key: str) -> asyncio.Task[Decision]:
            return asyncio.create_task(pool.decide("pimc", 1, view, key=key))

        def finish(i: int) -> None:
            pool.running[i].set_result(move)

        busy = ask("Z")
        await asyncio.sleep(0)
        xs = [ask("X") for _ in range(3)]
        ys = [ask("Y"), ask("W")]
        await asyncio.sleep(0)
        ys[1].cancel()  # W's table moved on: its job is dropped unseen
        await asyncio.sleep(0)
        assert pool.started == ["Z"] and pool.pending == 5
        finish(0)
        assert await busy == move
        finish(1)
        assert await xs[0] == move
        assert pool.started == ["Z", "X", "Y"]
        for i, task in zip(range(2, 5), (ys[0], xs[1], xs[2]), strict=True):
            finish(i)
            assert await task == move
        assert pool.started == ["Z", "X", "Y", "X", "X"] and pool.pending == 0
        await pool.stop()
        return pool

    asyncio.run(run())


def test_strong_bot_tables_are_limited_per_player_and_address(tmp_path: Path) -> None:
    """``strong_bot_tables`` running tables with pooled bots per player and per address;
    the heuristic bot and other addresses are not held back."""
    with server(tmp_path, bot_pool=SlowPool(lambda v: 0.0), strong_bot_tables=2) as client:

        def table(h: dict[str, str], bot: str = "pimc") -> str:
            r = client.post("/api/tables", json={"variant": "bela2", "bot": bot, "seat": None},
                            headers=h)
            assert r.status_code == 200, r.text
            tid: str = r.json()["id"]
            assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
            return tid

        def start(h: dict[str, str], tid: str) -> Any:
            return client.post(f"/api/tables/{tid}/start", headers=h)

        _, ana = guest(client, "Ana")
        first, second, third = table(ana), table(ana), table(ana)
        assert start(ana, first).status_code == 200
        assert start(ana, second).status_code == 200
        r = start(ana, third)
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_bot_tables"
        _, ben = guest(client, "Ben")  # a new guest of the same address
        r = start(ben, table(ben))
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_bot_tables"
        assert start(ben, table(ben, "heuristic")).status_code == 200
        with from_address(client, "10.0.0.9"):
            _, cid = guest(client, "Cid")
            assert start(cid, table(cid)).status_code == 200
        # the first ends (closed, or its all-bot match already over on a fast machine)
        closed = client.post(f"/api/tables/{first}/close", headers=ana)
        if closed.status_code != 200:
            assert client.get(f"/api/tables/{first}").json()["status"] == "finished", closed.text
        assert start(ana, third).status_code == 200  # one ended: room again


class BrokenPool(SlowPool):
    """A pool whose every job fails (a worker's bug): the table must not stall."""

    async def decide(self, spec: str, seed: int, view: SeatView, revokes: bool = True, *,
                     deadline: float | None = None, key: str = "") -> Decision:
        self.asked += 1
        raise RuntimeError("the worker broke")


def test_a_failing_pool_does_not_stall_the_table(tmp_path: Path) -> None:
    """Before: the bot's task died with the pool's error and the table waited for ever.
    The fallback's moves come at the answer times too."""
    pool = BrokenPool(lambda v: 0.0)
    with server(tmp_path, bot_pool=pool, **TIMING) as client:
        times = answer_times(client, 4)
    assert pool.asked >= 2
    assert all(abs(t - ANSWER[phase]) <= TOLERANCE for phase, t in times), times

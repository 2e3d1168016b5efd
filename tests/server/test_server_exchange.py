"""The exchange at a table of people (R32, R35; browser review N5, dead clicks).

A person whose only choice in the exchange is to keep his cards is not asked to click: the
server answers ``keep`` for him ``bot_delay`` after his turn began, exactly like a bot's
move, so that what the other seat and a spectator receive (messages, order, sizes and
times) is the same whatever he holds.  A person with a right is asked as before.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from bela.engine import Card  # noqa: E402
from bela.engine.variants.base import Deal  # noqa: E402
from bela.server import actor as actor_module  # noqa: E402
from bela.server.hub import Conn, Hub  # noqa: E402
from bela.server.lobby import Lobby  # noqa: E402
from bela.server.model import ServerConfig, Table  # noqa: E402
from bela.server.store import Store  # noqa: E402
from bela.storage import Database  # noqa: E402

DELAY = 0.3  # bot_delay of these tables
SLACK = 0.15  # scheduling tolerance of a timed message

# belot2, opened AH, bottom QD.  The dealer holds the 7S, or the JD where the 7S is out of
# play: after "pass pass S" (spades ordered by the non-dealer) nobody has a right.
ND_HAND = "JH 9H KS QS 8D 9D TS AS 7C"
D_SEVEN = "QH KH AD TD 7S 8S 8H 9C TC"
D_NO_SEVEN = "QH KH AD TD JD 8S 8H 9C TC"
# the dealer holds the 7H: after "H" he may swap it for the AH
D_SEVEN_OF_HEARTS = "QH KH AD TD 7S 8S 7H 9C TC"
EXTRA = {"turned": "AH", "bottom": "QD"}


class Recording(Conn):
    """A connection that keeps every message with the loop time it was sent at."""

    def __init__(self, player_id: str, seat: int | None) -> None:
        async def no_send(_text: str) -> None:
            """Read from ``got``, never sent."""

        super().__init__(no_send, player_id, seat)
        self.got: list[tuple[float, str]] = []

    def send(self, msg: dict[str, Any] | str) -> None:
        super().send(msg)
        self.got.append((asyncio.get_running_loop().time(),
                         msg if isinstance(msg, str) else json.dumps(msg)))

    def states(self) -> list[tuple[float, dict[str, Any]]]:
        return [(t, m) for t, m in ((t, json.loads(x)) for t, x in self.got)
                if m["type"] == "state"]


def _patch_deal(monkeypatch: pytest.MonkeyPatch, nd: str, d: str) -> None:
    """Every round deals ``nd`` to the non-dealer, ``d`` to the dealer."""
    def round_deal(variant: str, seed: int, idx: int, dealer: int) -> Deal:
        hands = [Card.parse(nd), Card.parse(nd)]
        hands[dealer] = Card.parse(d)
        return Deal(tuple(tuple(h) for h in hands),
                    {k: tuple(Card.parse(v)) for k, v in EXTRA.items()})

    monkeypatch.setattr(actor_module, "round_deal", round_deal)


Scenario = Callable[[Lobby, Table, dict[int | None, Recording]], Awaitable[None]]


def _run(tmp_path: Path, scenario: Scenario) -> dict[int | None, Recording]:
    """A belot2 table of two people (and a spectator connection), started; the scenario
    acts; the connections with what they received."""
    conns: dict[int | None, Recording] = {}

    async def main() -> None:
        db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
        lobby = Lobby(Store(db), Hub(), ServerConfig(bot_delay=DELAY, round_pause=0,
                                                     allow_seed=True))
        players = [{"id": db.players.create_player(name)[0], "name": name}
                   for name in ("Ana", "Bo")]
        try:
            table = lobby.factory.create(players[0], "belot2", {}, "heuristic", 0, seed=5)
            lobby.seating.sit(table, players[1], 1)
            await lobby.start(table, players[0])
            for seat in (0, 1, None):
                conns[seat] = Recording(players[0 if seat is None else seat]["id"], seat)
                await lobby.connect(table, conns[seat])
            await scenario(lobby, table, conns)
        finally:
            await lobby.shutdown()
            db.close()

    asyncio.run(main())
    return conns


async def _until(table: Table, phase: str, turn: int | None = None,
                 timeout: float = 5.0) -> None:
    """Wait (at most ``timeout`` s) until the round is in ``phase`` with ``turn`` to act."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        rnd = table.match.round if table.match is not None else None
        if rnd is not None and rnd.phase == phase and (turn is None or rnd.turn == turn):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the round never reached {phase} (turn {turn})")


async def _act(lobby: Lobby, table: Table, conns: dict[int | None, Recording],
               seat: int, token: str) -> None:
    assert await lobby.act(table, conns[seat], token, table.seq) is None


def _dealer(table: Table) -> int:
    assert table.match is not None and table.match.round is not None
    return table.match.round.dealer


def _stream(conn: Recording) -> list[tuple[float, int, str]]:
    """The messages from the exchange on: times from its first state, sizes, texts."""
    got = conn.got
    start = next(i for i, (_t, x) in enumerate(got) if '"phase": "exchange"' in x
                 or '"phase":"exchange"' in x)
    t0 = got[start][0]
    return [(t - t0, len(x), x) for t, x in got[start:]]


def _ordered_spades(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    dealer_hand: str) -> tuple[dict[int | None, Recording], int]:
    _patch_deal(monkeypatch, ND_HAND, dealer_hand)
    seats: list[int] = []

    async def scenario(lobby: Lobby, table: Table, conns: dict[int | None, Recording]) -> None:
        d = _dealer(table)
        nd = 1 - d
        seats.append(d)
        for seat, token in ((nd, "pass"), (d, "pass"), (nd, "S")):
            await _act(lobby, table, conns, seat, token)
        await _until(table, "play")  # both keeps answered by the server: nobody clicked
        await asyncio.sleep(DELAY)  # nothing more comes

    return _run(tmp_path, scenario), seats[0]


def test_a_lone_keep_is_answered_after_bot_delay_whatever_he_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """belot2, spades ordered: the dealer holds the 7 of trump (no right: trump is not the
    opened suit) or the 7 is out of play.  Each seat, asked in turn, is answered ``keep`` by
    the server ``bot_delay`` after its turn began; what the non-dealer and a spectator
    receive is the same for both deals, message by message, size and time."""
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
    seven, d = _ordered_spades(tmp_path / "a", monkeypatch, D_SEVEN)
    other, d2 = _ordered_spades(tmp_path / "b", monkeypatch, D_NO_SEVEN)
    assert d == d2
    nd = 1 - d
    for seat in (nd, None):
        a, b = _stream(seven[seat]), _stream(other[seat])
        assert [(n, x) for _t, n, x in a] == [(n, x) for _t, n, x in b], seat
        for (ta, _n, _x), (tb, _m, _y) in zip(a, b):
            assert abs(ta - tb) < SLACK, (seat, ta, tb)
    # the dealer's own messages: he was offered only "keep", and it came after the delay
    states = seven[d].states()
    asked = [(t, m) for t, m in states if m["view"]["phase"] == "exchange"]
    assert [m["view"]["turn"] for _t, m in asked] == [nd, d]
    assert asked[1][1]["view"]["legal"] == ["keep"]
    times = [t for t, _m in asked] + [next(t for t, m in states
                                           if m["view"]["phase"] == "play")]
    for before, after in zip(times, times[1:]):
        assert DELAY - 0.02 <= after - before < DELAY + SLACK, times


def test_a_person_with_a_right_is_asked_and_a_swapper_not_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """belot2, hearts taken: the non-dealer (no right) is answered ``keep``; the dealer,
    holding the 7 of trump, is asked and nobody answers for him; after his swap he has no
    right left and is answered ``keep`` (not asked twice), then the non-dealer, asked
    again (R35), too; play starts."""
    _patch_deal(monkeypatch, ND_HAND, D_SEVEN_OF_HEARTS)

    async def scenario(lobby: Lobby, table: Table, conns: dict[int | None, Recording]) -> None:
        d = _dealer(table)
        await _act(lobby, table, conns, 1 - d, "H")
        await _until(table, "exchange", d)
        await asyncio.sleep(3 * DELAY)  # a right: the server does not answer for him
        rnd = table.match.round if table.match is not None else None
        assert rnd is not None and rnd.phase == "exchange" and rnd.turn == d
        await _act(lobby, table, conns, d, "swap")
        await _until(table, "play")

    conns = _run(tmp_path, scenario)
    d = conns[None].states()[0][1]["view"]["dealer"]
    states = conns[d].states()
    asked = [(t, m["view"]["turn"], m["view"]["legal"]) for t, m in states
             if m["view"]["phase"] == "exchange"]
    assert [(turn, legal) for _t, turn, legal in asked] == [
        (1 - d, []), (d, ["swap", "keep"]), (d, ["keep"]), (1 - d, [])]
    play = next(t for t, m in states if m["view"]["phase"] == "play")
    gaps = [asked[1][0] - asked[0][0], asked[3][0] - asked[2][0], play - asked[3][0]]
    for gap in gaps:
        assert DELAY - 0.02 <= gap < DELAY + SLACK, gaps
    assert asked[2][0] - asked[1][0] >= 3 * DELAY  # he chose, when he liked


def test_a_stored_log_of_the_earlier_asking_order_still_loads(tmp_path: Path) -> None:
    """Logs written before every seat was asked again after a swap (R35): the dealer's
    swap and keep were followed by the first card.  Loading such a log, the non-dealer's
    new ask keeps, and the table resumes in the play."""
    from datetime import UTC, datetime

    seats = [{"player_id": f"p{i}", "name": n, "is_bot": False} for i, n in enumerate("AB")]
    hands = [ND_HAND, D_SEVEN_OF_HEARTS]  # seat 1 deals
    tokens = [(0, "H"), (0, "keep"), (1, "swap"), (1, "keep"), (0, "AS")]
    row = {"id": "t1", "variant": "belot2", "options": {}, "seed": 5, "bot": "heuristic",
           "status": "running", "owner_id": "p0", "seats": seats,
           "created_at": datetime.now(UTC),
           "rounds": [{"seq": 1, "dealer": 1,
                       "deal": {"hands": hands, "extra": EXTRA}}],
           "actions": [{"seq": i, "seat": s, "token": t}
                       for i, (s, t) in enumerate(tokens, start=2)]}
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        table = Store(db).rebuild(row)
    finally:
        db.close()
    assert table.match is not None and table.match.round is not None
    rnd = table.match.round
    assert [(s, a.token()) for s, a in rnd.exchanges] == [
        (0, "keep"), (1, "swap"), (1, "keep"), (0, "keep")]
    assert rnd.phase == "play" and rnd.turn == 1 and len(rnd.trick) == 1
    assert table.seq == 6 and table.last == (0, "AS")

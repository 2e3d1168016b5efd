"""The game driver and its one bot-failure policy."""

from __future__ import annotations

import pytest

from bela.bots import HeuristicBot, RandomBot
from bela.bots.driver import Driver, decide
from bela.engine import IllegalAction, Match, parse_action
from bela.engine.actions import Action
from bela.engine.events import CardPlayed
from bela.engine.views import SeatView, seat_view

VARIANTS = ("bela4", "bela3", "bela2", "belot2")


class Broken:
    """A bot that raises in the play phase and chooses an illegal bid in the bidding."""

    name = "broken"

    def act(self, view: SeatView) -> Action:
        if view.phase == "bidding":
            return parse_action("claim 0")  # never legal in the bidding
        raise RuntimeError("out of its depth")


def test_decide_keeps_a_legal_choice() -> None:
    m = Match("bela4", seed=4)
    m.deal()
    view = seat_view(m, 0)
    d = decide(lambda v: v.legal[-1], view, seed=1)
    assert d.action == view.legal[-1] and d.failure is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_failing_bot_is_replaced_by_the_seeded_heuristic_bot(variant: str) -> None:
    """Raising or choosing an illegal action: the heuristic bot, seeded, moves instead."""
    m = Match(variant, seed=2)
    m.deal()
    seat = m.rounds[0].turn
    view = seat_view(m, seat)
    d = decide(Broken().act, view, seed=9)
    assert isinstance(d.failure, IllegalAction)
    assert d.action == HeuristicBot(9).act(view)


@pytest.mark.parametrize("variant", VARIANTS)
def test_bots_play_a_whole_match_and_failures_are_counted(variant: str) -> None:
    heard: list[tuple[int, str]] = []
    bots = {s: RandomBot(s) for s in range(Match(variant).variant.seats)}
    bots[1] = Broken()  # type: ignore[assignment]
    d = Driver(Match(variant, seed=3, options={"target": 200}), bots,
               on_failure=lambda seat, exc: heard.append((seat, type(exc).__name__)))
    m = d.play_match()
    assert m.is_over and m.winner is not None
    assert d.failures[1] == len(heard) > 0 and {s for s, _ in heard} == {1}
    assert {name for _, name in heard} <= {"IllegalAction", "RuntimeError"}
    assert all(d.failures[s] == 0 for s in bots if s != 1)


def test_fallbacks_replay_the_same_way() -> None:
    def run() -> list[str]:
        bots = {0: Broken(), 1: RandomBot(1)}
        d = Driver(Match("belot2", seed=8, options={"target": 300}), bots)  # type: ignore[dict-item]
        return [a.token() for r in d.play_match().rounds for a in r.log]

    assert run() == run()


def test_run_bots_stops_at_a_person_and_apply_checks_the_seat() -> None:
    m = Match("bela4", seed=5)
    d = Driver(m, {1: RandomBot(1), 2: RandomBot(2), 3: RandomBot(3)})
    d.deal()
    assert d.run_bots() == 0 and d.bot_to_act() is None
    with pytest.raises(IllegalAction, match="seat 0's"):
        d.apply(2, seat_view(m, 0).legal[0])
    with pytest.raises(ValueError, match="no bot"):
        d.play_match()
    moves: list[int] = []
    d.apply(0, parse_action("S"))
    while (seat := d.run_bots(lambda s, _e: moves.append(s))) is not None:
        events = d.apply(seat, seat_view(m, seat).legal[0])
        assert any(isinstance(e, CardPlayed) for e in events) or m.rounds[0].phase == "play"
    assert m.rounds[0].is_over and set(moves) == {1, 2, 3}
    with pytest.raises(IllegalAction, match="no bot is to act"):
        d.step()
    with pytest.raises(IllegalAction, match="deal first"):
        d.apply(0, parse_action("S"))


def test_a_driver_refuses_a_bot_at_a_seat_the_variant_lacks() -> None:
    with pytest.raises(ValueError, match="no seat 3"):
        Driver(Match("bela3"), {3: RandomBot(0)})

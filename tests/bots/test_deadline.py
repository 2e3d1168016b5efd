"""A search under the server's deadline (bela.bots.clock) answers within it with a legal
move, decided on the deals it had; without one it keeps its caps and its reproducibility."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("numpy")  # the solver

from test_pimc_discard import discard_view  # noqa: E402

from bela.bots import clock, make_bot  # noqa: E402
from bela.bots.heuristic import HeuristicBot  # noqa: E402
from bela.bots.pimc import PimcBot  # noqa: E402
from bela.engine import Match  # noqa: E402
from bela.engine.views import SeatView, seat_view  # noqa: E402

SLACK = 0.25  # seconds past the deadline a loaded machine may add (one deal, the return)


def first_lead(variant: str, seed: int) -> SeatView:
    """The view of the seat that leads the first trick (the slowest searches: full hands)."""
    m = Match(variant, seed=seed, options={"target": 5001})
    rnd = m.deal()
    while rnd.phase != "play":
        m.apply(HeuristicBot(0).act(seat_view(m, rnd.turn)))
    return seat_view(m, rnd.turn)


def timed(bot_act: object, view: SeatView, seconds: float) -> tuple[object, float]:
    """The bot's action under a deadline ``seconds`` from now, and the seconds it took."""
    assert callable(bot_act)
    start = time.monotonic()
    with clock.deadline(start + seconds):
        action = bot_act(view)
    return action, time.monotonic() - start


def test_pimc_answers_by_its_deadline_with_a_legal_card() -> None:
    """400 sampled full deals take seconds; under a 0.3 s deadline the card comes in time."""
    view = first_lead("bela4", 2)
    PimcBot(1, samples=2).act(view)  # the solver's kernels loaded
    for seed in range(2):
        action, took = timed(PimcBot(seed, samples=400).act, view, 0.3)
        assert action in view.legal and took < 0.3 + SLACK, took


def test_masters_discard_and_the_learned_endgame_answer_by_the_deadline() -> None:
    """bela3's discard simulation (master's) and the learned bot's endgame search stop
    drawing deals at the deadline too (the endgame's search is made inside the bot)."""
    view = discard_view(1)
    bot = PimcBot(1, discard="search", bid_samples=400)
    action, took = timed(bot.act, view, 0.4)
    assert action in view.legal and took < 0.4 + SLACK, took
    end = first_lead("bela4", 3)
    learned = make_bot("learned:endgame=8,nodes=0", 1)  # search from the first trick
    learned.act(end)
    action, took = timed(learned.act, end, 0.2)
    assert action in end.legal and took < 0.2 + SLACK, took


def test_without_a_deadline_the_search_is_reproducible() -> None:
    """The arena and the terminal set no deadline: the same seed plays the same card."""
    view = first_lead("bela4", 4)
    assert clock.current() is None
    assert PimcBot(7, samples=8).act(view) == PimcBot(7, samples=8).act(view)
    with clock.deadline(time.monotonic() + 3600):  # a far deadline changes nothing either
        assert PimcBot(7, samples=8).act(view) == PimcBot(7, samples=8).act(view)

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


def first_lead(variant: str, seed: int) -> SeatView:
    """The view of the seat that leads the first trick (the slowest searches: full hands)."""
    m = Match(variant, seed=seed, options={"target": 5001})
    rnd = m.deal()
    while rnd.phase != "play":
        m.apply(HeuristicBot(0).act(seat_view(m, rnd.turn)))
    return seat_view(m, rnd.turn)


def timed(bot_act: object, view: SeatView, seconds: float,
          monkeypatch: pytest.MonkeyPatch) -> tuple[object, float]:
    """The bot's action under a deadline ``seconds`` from now, checked against the clock's
    answers: the search stopped because the deadline was near (its last question to
    :func:`clock.stop` was answered yes), and it overran the deadline by at most about one
    sampled deal (the ``each`` it gave, which a loaded machine lengthens with the rest)."""
    assert callable(bot_act)
    asked: list[tuple[bool, float]] = []
    real = clock.stop

    def spy(done: int, least: int, each: float) -> bool:
        answer = real(done, least, each)
        asked.append((answer, each))
        return answer

    monkeypatch.setattr(clock, "stop", spy)
    start = time.monotonic()
    with clock.deadline(start + seconds):
        action = bot_act(view)
    took = time.monotonic() - start
    monkeypatch.setattr(clock, "stop", real)
    assert asked and asked[-1][0], "the search did not stop at the deadline"
    longest = max(each for _, each in asked)
    assert took < seconds + 2 * longest + 0.1, (took, longest)
    return action, took


def test_pimc_answers_by_its_deadline_with_a_legal_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """400 sampled full deals take seconds; under a 0.3 s deadline the card comes in time."""
    view = first_lead("bela4", 2)
    PimcBot(1, samples=2).act(view)  # the solver's kernels loaded
    for seed in range(2):
        action, _ = timed(PimcBot(seed, samples=400).act, view, 0.3, monkeypatch)
        assert action in view.legal


def test_masters_discard_and_the_learned_endgame_answer_by_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """bela3's discard simulation (master's) and the learned bot's endgame search stop
    drawing deals at the deadline too (the endgame's search is made inside the bot)."""
    view = discard_view(1)
    bot = PimcBot(1, discard="search", bid_samples=400)
    action, _ = timed(bot.act, view, 0.4, monkeypatch)
    assert action in view.legal
    end = first_lead("bela4", 3)
    learned = make_bot("learned:endgame=8,nodes=0", 1)  # search from the first trick
    learned.act(end)
    action, _ = timed(learned.act, end, 0.2, monkeypatch)
    assert action in end.legal


def test_without_a_deadline_the_search_is_reproducible() -> None:
    """The arena and the terminal set no deadline: the same seed plays the same card."""
    view = first_lead("bela4", 4)
    assert clock.current() is None
    assert PimcBot(7, samples=8).act(view) == PimcBot(7, samples=8).act(view)
    with clock.deadline(time.monotonic() + 3600):  # a far deadline changes nothing either
        assert PimcBot(7, samples=8).act(view) == PimcBot(7, samples=8).act(view)

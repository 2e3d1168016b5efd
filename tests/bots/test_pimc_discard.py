"""``pimc:discard=search``: the bela3 caller's discards (R27) chosen by simulation."""

from __future__ import annotations

import random
import statistics

import pytest
from test_search_bots import play_out

from bela.bots import make_bot
from bela.bots.contracts import ranked_discards
from bela.bots.heuristic import HeuristicBot
from bela.bots.pimc import DISCARD_CANDIDATES, TIE_BREAK, PimcBot, seat_scorer
from bela.bots.profiles import profile
from bela.engine import Match
from bela.engine.actions import Discard
from bela.engine.views import SeatView, seat_view
from bela.solver.dd import Position, default_solver
from bela.solver.sampler import DealSampler


def discard_view(seed: int) -> SeatView:
    """The caller's view at his discards, the call made by the heuristic."""
    m = Match("bela3", seed=seed, options={"target": 5001})
    rnd = m.deal()
    while rnd.phase != "discard":
        m.apply(HeuristicBot(0).act(seat_view(m, rnd.turn)))
    return seat_view(m, rnd.turn)


def test_a_candidate_replaces_the_heuristics_discard_only_when_clearly_better() -> None:
    """Each of the heuristic's first candidates is valued on the bot's sampled deals,
    solved from the caller's first lead, by the round's score of that line (R27, R28: the
    discards' points, the kept declarations, pass or fall), whatever the objective.  The
    heuristic's first stays unless another's mean gain over it, less one standard error,
    is above 0; then the largest such gain wins."""
    changed = 0
    for seed in range(4):
        view = discard_view(seed)
        assert view.seat is not None and view.contract is not None
        choice = PimcBot(seed, discard="search", bid_samples=4).act(view)
        candidates = ranked_discards(view, profile("bela3").heuristic)[:DISCARD_CANDIDATES]
        assert choice in candidates and choice in view.legal
        again = random.Random(seed)  # the bot's own draws, repeated
        sampler = DealSampler(view)
        deals = [sampler.draw(again) for _ in range(4)]
        scorer = seat_scorer(view)
        rows = []
        for candidate in candidates:
            row = []
            for deal in deals:
                hands = list(deal.hands)
                hands[view.seat] &= ~sum(1 << c for c in candidate.cards)
                taken = default_solver().value(Position.make(
                    hands, view.contract, "bela3", view.seat, (), None, view.seat))
                row.append(scorer(tuple(hands), tuple(hands))(taken) + TIE_BREAK * taken)
            rows.append(row)
        gains = [0.0] + [
            statistics.fmean(g) - statistics.stdev(g) / 2
            for g in ([a - b for a, b in zip(row, rows[0])] for row in rows[1:])]
        best = max(range(len(gains)), key=lambda i: (gains[i], -i))
        assert choice == candidates[best]
        changed += best != 0
    assert changed >= 1  # the simulation does not merely repeat the heuristic


def test_kept_declarations_count_with_the_score() -> None:
    """Four jacks (200, R8), split by the heuristic's discards, are kept by the search."""
    view = discard_view(11)
    jacks = [c for c in view.hand if str(c).startswith("J")]
    assert len(jacks) == 4
    heuristic = HeuristicBot(11).act(view)
    assert isinstance(heuristic, Discard) and set(heuristic.cards) & set(jacks)
    by_score = PimcBot(11, discard="search").act(view)
    assert isinstance(by_score, Discard) and not set(by_score.cards) & set(jacks)


def test_the_default_discard_is_the_heuristics() -> None:
    view = discard_view(1)
    assert PimcBot(1).act(view) == HeuristicBot(1).act(view)
    assert isinstance(PimcBot(1).act(view), Discard)


def test_search_discards_play_legal_rounds() -> None:
    assert play_out("bela3", ["pimc:samples=4,bid_samples=2,discard=search", "heuristic"],
                    2).round.is_over


def test_the_discard_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="discard must be"):
        PimcBot(0, discard="random")
    assert isinstance(make_bot("pimc:discard=search", 0), PimcBot)


@pytest.mark.parametrize("caps", [{"nodes": 1}, {"budget": 0.0}])
def test_a_capped_discard_search_still_draws_two_deals(caps: dict[str, float],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A work or time budget stops the drawing after ``min_samples`` deals, never before
    two: one deal has no standard error for the rule to weigh."""
    drawn = []
    draw = DealSampler.draw
    monkeypatch.setattr(DealSampler, "draw",
                        lambda self, rng: drawn.append(1) or draw(self, rng))
    view = discard_view(1)
    choice = PimcBot(0, discard="search", bid_samples=10, min_samples=1, **caps).act(view)
    assert choice in view.legal and isinstance(choice, Discard)
    assert len(drawn) == 2

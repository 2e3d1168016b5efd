"""``pimc:objective=score``: a card is worth the round's score margin its solved line gives."""

from __future__ import annotations

import random

import pytest

from bela.bots.pimc import TIE_BREAK, PimcBot
from bela.engine.views import seat_view
from bela.solver.dd import solve
from bela.solver.sampler import DealSampler, to_round
from positions import choices_after_the_first_trick, played_to, solved_margin


@pytest.mark.parametrize("variant", ["bela4", "bela2", "belot2"])
def test_score_values_are_the_engines_scores_of_the_solved_lines(variant: str) -> None:
    """After the first trick (every declaration announced) a card's value is the mean over
    the sampled deals of the score margin the engine writes at the end of the solver's
    line from that card (falls, declarations, bela, štiglja), plus the tie-break's share
    of its points; in raspas the values stay points."""
    checked = 0
    for seed, _rnd, view in choices_after_the_first_trick(variant, 60, random.Random(7), 5):
        assert view.seat is not None
        bot = PimcBot(seed, samples=3, min_samples=3, objective="score")
        values = bot.card_values(view)
        again = random.Random(seed)  # the bot's own draws, repeated
        sampler = DealSampler(view)
        deals = [sampler.draw(again) for _ in range(3)]
        points = [solve(to_round(view, d), line=False).values for d in deals]
        for card, value in values.items():
            mean_points = sum(p[card] for p in points) / 3
            if view.raspas:
                assert value == pytest.approx(mean_points)
                continue
            margins = [solved_margin(to_round(view, d), card, view.seat) for d in deals]
            assert value == pytest.approx(sum(margins) / 3 + TIE_BREAK * mean_points)
        checked += not view.raspas
    assert checked >= 10


@pytest.mark.parametrize("variant", ["bela4", "bela2", "belot2"])
def test_more_points_never_score_less(variant: str) -> None:
    """The solver's line maximises points, so it maximises the score only if the score
    margin never falls as the side's points rise: checked for every split of the points
    where both sides take a trick (without one, R15 drops that side's declarations, which
    in a fall can be worth more than its first points), and it jumps where the caller
    passes; beyond what can still be taken it stays flat."""
    rng = random.Random(3)
    jumps = 0
    for seed in range(30):
        m = played_to(variant, seed, rng.randrange(2, 12), rng)
        rnd = m.round
        assert rnd is not None
        if rnd.is_over or rnd.raspas:
            continue
        view = seat_view(m, rnd.turn)
        scorer = PimcBot(seed, objective="score")._scorer(view)
        assert scorer is not None
        deal = DealSampler(view).draw(random.Random(seed))
        worth = scorer(deal)
        total = sum(view.card_points) + sum(
            rnd.table.points[c] for h in deal.hands for c in range(32) if h >> c & 1) + sum(
            rnd.table.points[c] for _, c in view.trick) + rnd.variant.last_trick_bonus
        low = view.card_points[view.side_of(view.seat)]
        scores = [worth(v) for v in range(low + 1, total)]
        assert scores == sorted(scores)
        # a prior's guess beyond what the sides can still take counts as the nearest split
        high = total - view.card_points[1 - view.side_of(view.seat)]
        assert worth(high + 40.5) == worth(high)
        assert worth(low - 40.5) == worth(low)
        jumps += any(b - a > 50 for a, b in zip(scores, scores[1:]))
    assert jumps >= 5


def test_the_objective_is_checked() -> None:
    with pytest.raises(ValueError, match="objective"):
        PimcBot(0, objective="tricks")
    assert PimcBot(0).objective == "points"

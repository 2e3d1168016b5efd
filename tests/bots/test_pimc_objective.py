"""``pimc:objective=score``: a card is worth the round's score margin its solved line gives."""

from __future__ import annotations

import copy
import random

import pytest

from bela.bots.pimc import TIE_BREAK, PimcBot, round_scorer, seat_scorer
from bela.engine import Play
from bela.engine.cards import iter_cards
from bela.engine.state import Round
from bela.engine.views import seat_view
from bela.solver.dd import solve
from bela.solver.sampler import DealSampler, to_round
from bela.training.data import _start_of_play
from positions import choices_after_the_first_trick, play_card, played_to, solved_margin


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


def test_bela3_card_play_keeps_the_points() -> None:
    """In bela3 ``objective=score`` values the cards by points (README: valued by the
    round's score the searches played no better); only the discards weigh the score."""
    rng = random.Random(2)
    m = played_to("bela3", 1, 6, rng)
    assert m.round is not None and not m.round.is_over
    view = seat_view(m, m.round.turn)
    assert round_scorer(view) is None and PimcBot(0, objective="score")._scorer(view) is None


def test_the_objective_is_checked() -> None:
    with pytest.raises(ValueError, match="objective"):
        PimcBot(0, objective="tricks")
    assert PimcBot(0).objective == "points"


def _line_result(rnd: Round, card: object) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Play ``card`` and the solver's line on a copy of ``rnd``: the caller's card points
    from the tricks, each seat's score and each seat's tricks."""
    rnd = copy.deepcopy(rnd)
    play_card(rnd, card)
    if not rnd.is_over:
        for c in solve(rnd, line=True).line:
            play_card(rnd, c)
    assert rnd.result is not None and rnd.caller is not None
    return rnd.card_points[rnd.caller], rnd.result.scores, tuple(rnd.tricks_won)


def test_bela3_scores_are_the_seats_score_less_the_others_mean() -> None:
    """bela3 (R28, :func:`seat_scorer`, what ``discard=search`` values): the solver plays
    the caller against the two others, so a value is the points of the seat's team.  For
    the caller it is his score less the mean of the two others' scores, as the engine
    writes them at the end of the solver's line (when both others took a trick: R15 drops
    the declarations of one without, which the team's points cannot tell); for the two
    others, who split what they take evenly, their two values add up to the mean of their
    scores less the caller's, whatever the split.  After the first trick, as every
    declaration is announced by then."""
    rng = random.Random(11)
    checked = falls = 0
    for seed in range(60):
        m = played_to("bela3", seed, rng.randrange(3, 25), rng)
        rnd = m.round
        assert rnd is not None and rnd.caller is not None
        if rnd.is_over:
            continue
        caller = rnd.caller
        others = [s for s in range(3) if s != caller]
        scorers = {s: seat_scorer(seat_view(m, s, rnd)) for s in range(3)}
        start = _start_of_play(seat_view(m, caller, rnd), list(rnd.hands))
        worth = {s: scorer(tuple(rnd.hands), start) for s, scorer in scorers.items()}
        total = sum(rnd.table.points) + rnd.variant.last_trick_bonus
        for card in sorted({a.card for a in rnd.legal_actions() if isinstance(a, Play)}):
            own, scores, tricks = _line_result(rnd, card)
            if not all(tricks[s] for s in others):
                continue
            mean_others = (scores[others[0]] + scores[others[1]]) / 2
            assert worth[caller](own) == pytest.approx(scores[caller] - mean_others)
            team = total - own - sum(rnd.table.points[c] for c in iter_cards(rnd.discards))
            assert worth[others[0]](team) + worth[others[1]](team) == pytest.approx(
                mean_others - scores[caller])
            checked += 1
            falls += scores[caller] == 0
    assert checked >= 30 and falls >= 3


def test_bela3_more_points_never_score_less() -> None:
    """bela3: for every seat the value never falls as its team's points rise (short of the
    points of a štiglja, R23, which also drops the declarations of the seats without a
    trick), and the caller's pass is a jump."""
    rng = random.Random(5)
    jumps = 0
    for seed in range(20):
        m = played_to("bela3", seed, rng.randrange(0, 25), rng)
        rnd = m.round
        assert rnd is not None
        if rnd.is_over:
            continue
        for seat in range(3):
            view = seat_view(m, seat, rnd)
            deal = DealSampler(view).draw(random.Random(seed))
            worth = seat_scorer(view)(deal.hands, deal.start)
            in_play = sum(view.card_points) + sum(
                rnd.table.points[c] for h in deal.hands for c in iter_cards(h)) + sum(
                rnd.table.points[c] for _, c in view.trick) + rnd.variant.last_trick_bonus
            team = [s for s in range(3) if (s == rnd.caller) == (seat == rnd.caller)]
            low = sum(view.card_points[s] for s in team)
            high = in_play - sum(view.card_points) + low
            scores = [worth(v) for v in range(low + 1, high)]
            assert scores == sorted(scores)
            assert worth(high + 40.5) == worth(high) and worth(low - 40.5) == worth(low)
            jumps += any(b - a > 30 for a, b in zip(scores, scores[1:]))
    assert jumps >= 20

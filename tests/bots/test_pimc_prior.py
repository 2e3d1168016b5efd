"""``pimc:prior=learned``: the learned network as the search's prior and opponent model."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_learned import tiny_model
from test_search_bots import card_decisions, play_out

from bela.bots import make_bot, profiles, search
from bela.bots.evaluators import UNIFORM
from bela.bots.learned import LearnedBot, Network
from bela.bots.learned.bot import OPPONENT_TEMPERATURE
from bela.bots.pimc import TIE_BREAK, WEIGH, PimcBot
from bela.bots.profiles import profile
from bela.bots.search import PRIOR_WEIGHT
from bela.engine import Match, Play
from bela.engine.actions import Call
from bela.engine.variants import VARIANTS
from bela.engine.views import SeatView, seat_view
from bela.solver.dd import solve
from bela.solver.sampler import DealSampler, SampledDeal, to_round


@pytest.mark.parametrize("variant", VARIANTS)
def test_prior_search_plays_legal_rounds(tmp_path: Path, variant: str) -> None:
    path = tiny_model(tmp_path, variant)
    spec = f"pimc:samples=4,bid_samples=2,prior=learned,model={path}"
    assert play_out(variant, [spec, "heuristic"], 1).round.is_over


def opponent_probability(view_then: object, card: int, bot: Network, t: float) -> float:
    values = bot.card_values(view_then)  # type: ignore[arg-type]
    if len(values) < 2:
        return 1.0
    sign = -1.0 if view_then.raspas else 1.0  # type: ignore[attr-defined]
    top = max(sign * v for v in values.values())
    z = {c: math.exp((sign * v - top) / t) for c, v in values.items()}
    return 0.9 * z[card] / sum(z.values()) + 0.1 / len(values)


def expected_weights(view: SeatView, deals: list[SampledDeal], plays: list[tuple[int, int]],
                     bot: Network, t: float) -> np.ndarray:
    """Each deal's probability of ``plays`` (the other seats' plays weighed, oldest first),
    every seat's view rebuilt at the moment it played; scaled so the likeliest weighs 1."""
    raw = []
    for deal in deals:
        rnd = to_round(view, deal)
        m = Match(rnd.variant, {k: v for k, v in view.options.items()
                                if k in rnd.variant.options})
        m.rounds.append(rnd)
        w = 1.0
        for seat, card in reversed(plays):
            while True:  # back to the moment that seat played
                last = rnd.log[-1]
                rnd.undo()
                if isinstance(last, Play) and last.card == card:
                    break
            w *= opponent_probability(seat_view(m, seat, rnd), card, bot, t)
        raw.append(w)
    return np.array(raw) / max(raw)


@pytest.mark.parametrize("variant", ["bela4", "bela2"])
def test_deals_are_weighted_by_the_other_seats_plays(tmp_path: Path, variant: str) -> None:
    """A deal's weight is the network's probability of each other seat's last plays in
    the hands that deal gives it, that seat's view rebuilt when it played (then scaled so
    the likeliest deal weighs 1); the values are the weighted means, with the network's
    values (moved to the same mean level) counted as PRIOR_WEIGHT more deals.  The weights
    take one pass of the network a row, the prior the learned bot's mean over the namings
    of the side suits."""
    path = tiny_model(tmp_path, variant, seed=5)
    net_bot = LearnedBot(0, model=str(path))
    one_pass = Network(str(path), symmetric=False)
    checked = 0
    for view in card_decisions(variant, 12):
        if not view.trick:
            continue
        bot = PimcBot(3, samples=5, min_samples=5, budget=10, prior="learned",
                      model=str(path))
        values = bot.card_values(view)
        rng = random.Random(3)
        sampler = DealSampler(view)
        deals = [sampler.draw(rng) for _ in range(5)]
        others = [p for p in view.trick if p[0] != view.seat]
        weights = expected_weights(view, deals, others[-WEIGH:], one_pass,
                                   OPPONENT_TEMPERATURE)
        assert bot._weights(view, deals) == pytest.approx(list(weights), rel=1e-4)
        exact = [solve(to_round(view, d), line=False).values for d in deals]
        prior = net_bot.card_values(view)
        n_eff = weights.sum() ** 2 / (weights ** 2).sum()
        mean = {c: sum(w * e[c] for w, e in zip(weights, exact, strict=True)) / weights.sum()
                for c in values}
        shift = np.mean(list(mean.values())) - np.mean([prior[c] for c in values])
        for card, v in values.items():
            assert min(e[card] for e in exact) - 1e-6 <= mean[card] <= max(
                e[card] for e in exact) + 1e-6
            k = PRIOR_WEIGHT
            expected = (n_eff * mean[card] + k * (prior[card] + shift)) / (n_eff + k)
            assert v == pytest.approx(expected, rel=1e-4)
        checked += 1
    assert checked >= 3


def test_prior_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="prior"):
        make_bot("pimc:prior=oracle")
    # the experiments' switches are gone (docs/experiments/2026-12.md: where they replay)
    for removed in ("temperature=5", "reach=round", "weigh=8", "prior_weight=12",
                    "bidding=sim", "threshold=3"):
        with pytest.raises(ValueError, match=removed.partition("=")[0]):
            make_bot(f"pimc:prior=learned,{removed}")
    # the documented switch: a spec's ``off`` is the prior off, for pimc and for master
    assert make_bot("pimc:prior=off").prior is UNIFORM  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="give prior=learned"):
        make_bot("master:prior=off")


@pytest.mark.parametrize("variant", ["bela2", "belot2"])
def test_a_score_model_is_a_prior_around_each_deals_mean_score(
        tmp_path: Path, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model trained on the score (``bela train --target score``) gives score margins: as
    the prior they keep their differences and sit at each deal's mean score over the legal
    cards (raspas: points, as a points model).  Without the opponent model and a prior
    weighing a million deals the values are the prior's, moved to that level (and the
    tie-break's share of the points)."""
    path = tiny_model(tmp_path, variant, seed=2, target="score")
    net_bot = LearnedBot(0, model=str(path))
    assert net_bot.target(variant) == "score"
    monkeypatch.setattr(search, "PRIOR_WEIGHT", 1e6)
    checked = 0
    for view in card_decisions(variant, 8):
        bot = PimcBot(4, samples=3, min_samples=3, prior="learned", model=str(path),
                      objective="score")
        monkeypatch.setattr(bot, "_weights", lambda view, deals: [1.0] * len(deals))
        values = bot.card_values(view)
        rng = random.Random(4)
        sampler = bot._sampler(view)  # belot2: the bids read as estimates (learned_bids)
        deals = [sampler.draw(rng) for _ in range(3)]
        exact = [solve(to_round(view, d), line=False).values for d in deals]
        worth = bot._scorer(view)
        scales = [worth(d) if worth else float for d in deals]
        level = np.mean([np.mean([s(e[c]) for c in values]) for s, e in
                         zip(scales, exact, strict=True)])
        prior = net_bot.card_values(view)
        centre = np.mean(list(prior.values()))
        for card, v in values.items():
            tie = TIE_BREAK * np.mean([e[card] for e in exact]) if worth else 0.0
            assert v == pytest.approx(prior[card] - centre + level + tie, abs=0.01)
        checked += not view.raspas
    assert checked >= 3


def test_a_score_model_needs_the_score_objective(tmp_path: Path) -> None:
    path = tiny_model(tmp_path, "bela2", target="score")
    view = next(v for v in card_decisions("bela2", 3))
    bot = PimcBot(0, samples=2, min_samples=2, prior="learned", model=str(path))
    with pytest.raises(ValueError, match="objective=score"):
        bot.card_values(view)


@pytest.mark.parametrize("variant", ["bela4", "bela2"])
def test_the_opening_tricks_are_the_networks(tmp_path: Path, variant: str) -> None:
    """``opening=2``: in the first two tricks the card is the network's best and the
    values shown with it are the network's; from the third trick on, the search's (a twin
    bot asked the same questions gets them); with ``bidding=learned`` every bid is the
    learned bot's."""
    from bela.bots.driver import Driver
    from bela.bots.heuristic import HeuristicBot

    path = str(tiny_model(tmp_path, variant, seed=2))
    spec = dict(samples=3, min_samples=3, bid_samples=2, prior="learned", model=path)
    bot = PimcBot(4, opening=2, bidding="learned", **spec)  # type: ignore[arg-type]
    twin = PimcBot(4, **spec)  # type: ignore[arg-type]
    bidder = LearnedBot(4, model=path)
    m = Match(variant, seed=3)
    driver = Driver(m, {s: bot if s == 0 else HeuristicBot(s) for s in range(m.variant.seats)})
    opened = searched = bids = 0
    while (opened < 4 or searched < 4 or bids < 1) and not m.is_over:
        rnd = driver.deal()
        while not rnd.is_over:
            view = seat_view(m, rnd.turn)
            cards = {a.card for a in view.legal if isinstance(a, Play)}
            if rnd.turn == 0 and view.phase == "bidding":
                action, shown = bot.advise(view)
                assert (action, shown) == (bidder.act(view), {})
                bids += isinstance(action, Call)  # the bid network's contract
            elif (rnd.turn == 0 and len(cards) > 1
                  and all(isinstance(a, Play) for a in view.legal)):  # a bela card too
                early = len(view.tricks) < 2
                values = bidder.card_values(view) if early else twin.card_values(view)
                action, shown = bot.advise(view)
                assert shown == values
                assert isinstance(action, Play)
                assert action.card == PimcBot.best_card(values, view.raspas)
                opened += early
                searched += not early
            else:
                driver.step()
                continue
            driver.apply(0, action)  # as advised (asking again would draw other deals)
    assert opened >= 4 and searched >= 4 and bids >= 1
    assert driver.failures == {s: 0 for s in driver.bots}


def test_the_opening_default_is_the_variants() -> None:
    prior = PimcBot(1, prior="learned")
    assert {v: prior.opening_tricks(v) for v in VARIANTS} == {v: profile(v).opening
                                                               for v in VARIANTS}
    assert prior.opening_tricks("bela3") == 0 < prior.opening_tricks("bela4")  # bela3: search
    assert PimcBot(1).opening_tricks("bela4") == 0  # no network, no opening
    assert PimcBot(1, prior="learned", opening=0).opening_tricks("bela4") == 0
    assert make_bot("pimc:prior=learned,opening=3", 1).opening_tricks("bela3") == 3  # type: ignore[attr-defined]
    assert make_bot("master", 1).opening_tricks("bela2") == profile("bela2").opening  # type: ignore[attr-defined]


def test_the_search_default_is_the_variants(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With the network and no ``samples``, each variant searches as its profile's
    ``learned_search`` says (belot2 twice as far); given settings win; a decision draws that
    many deals."""
    from bela.bots import pimc

    prior = PimcBot(1, prior="learned")
    assert {v: prior.search(v) for v in VARIANTS} == {v: profile(v).learned_search
                                                       for v in VARIANTS}
    assert prior.search("belot2") == (128, 8_000_000)
    assert make_bot("master", 1).search("bela4") == (64, 4_000_000)  # type: ignore[attr-defined]
    assert PimcBot(1).search("belot2") == (pimc.SAMPLES, None)  # no network: plain pimc
    assert PimcBot(1, prior="learned", samples=8).search("belot2") == (8, None)
    assert PimcBot(1, prior="learned", nodes=5).search("belot2") == (128, 5)
    with pytest.raises(ValueError, match="samples"):
        PimcBot(1, samples=0)
    path = str(tiny_model(tmp_path, "belot2", seed=2))
    monkeypatch.setitem(profiles.PROFILES, "belot2",
                        replace(profile("belot2"), learned_search=(7, 10**12)))
    drawn: list[int] = []
    draw = DealSampler.draw
    monkeypatch.setattr(DealSampler, "draw",
                        lambda self, rng: drawn.append(1) or draw(self, rng))
    bot = PimcBot(4, prior="learned", model=path, min_samples=1)
    bot.card_values(card_decisions("belot2", 1)[0])
    assert len(drawn) == 7


def test_the_opening_and_learned_bidding_need_the_network() -> None:
    for bad in ("opening=2", "bidding=learned"):
        with pytest.raises(ValueError, match="prior=learned"):
            make_bot(f"pimc:{bad}", 1)
    for bad in ("-1", "on", "1.5"):
        with pytest.raises(ValueError, match="opening"):
            make_bot(f"pimc:prior=learned,opening={bad}", 1)


def _second_round_first_bids(variant: str, low: float, high: float) -> list[SeatView]:
    """Views of the first bidder of the second round (both passed the turned suit), from
    seeded deals, where the heuristic's estimate of the best contract is in [low, high)."""
    from bela.bots.contracts import estimate
    from bela.engine.actions import PASS

    found = []
    for seed in range(400):
        m = Match(variant, seed=seed)
        m.deal()
        rnd = m.round
        assert rnd is not None
        m.apply(PASS)
        m.apply(PASS)  # R34 / R31 round 1: both pass the turned suit
        view = seat_view(m, rnd.turn)
        calls = [a for a in view.legal if isinstance(a, Call)]
        turned = int(view.public["turned"])
        best = max(estimate(variant, c.contract, view.hand.mask, view.seat == view.first,
                            turned) for c in calls)
        if low <= best < high:
            found.append(view)
    return found


def test_master_orders_from_the_variants_learned_threshold() -> None:
    """R34 round 2: master (``prior=learned``) orders as the non-dealer from the estimated
    margin its profile's ``learned_order`` gives (belot2 -10), where the heuristic's own is 0 (pimc
    passes); ``order`` moves it for any variant's first bidder of round 2 (bela2 R31)."""
    assert {v: profile(v).learned_order for v in VARIANTS} == {
        "bela4": None, "bela3": None, "bela2": None, "belot2": -10.0}
    views = _second_round_first_bids("belot2", -10.0, 0.0)
    assert len(views) >= 3
    for view in views[:3]:
        assert isinstance(make_bot("master", 1).act(view), Call)
        assert not isinstance(make_bot("pimc", 1).act(view), Call)
        assert not isinstance(make_bot("master:order=0", 1).act(view), Call)
    for view in _second_round_first_bids("belot2", -40.0, -10.0)[:3]:
        assert not isinstance(make_bot("master", 1).act(view), Call)
        assert isinstance(make_bot("master:order=-40", 1).act(view), Call)
    bela2 = _second_round_first_bids("bela2", -10.0, 0.0)[:2]
    assert bela2
    for view in bela2:  # no learned threshold in bela2: the heuristic's, unless given
        assert not isinstance(make_bot("master", 1).act(view), Call)
        assert isinstance(make_bot("master:order=-10", 1).act(view), Call)


def test_the_order_threshold_is_a_number() -> None:
    for bad in ("x", "on", "nan", "inf"):
        with pytest.raises(ValueError, match="order must be a number"):
            make_bot(f"pimc:order={bad}", 1)

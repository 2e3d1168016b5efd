"""The heuristic's contract estimates and its reading of the bids (bela3, bela2, belot2:
R26, R31, R34)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bela.bots.contracts import (
    EstimateBids,
    _hand_declarations,
    bid,
    bid_contracts,
    estimate,
    estimates,
    features,
)
from bela.bots.pimc import PimcBot
from bela.bots.profiles import profile
from bela.engine import CardSet, Match, parse_action
from bela.engine.declarations import declaration_value, find_declarations
from bela.engine.rules import ALL_TRUMPS, NO_TRUMPS
from bela.engine.variants import get_variant
from bela.engine.views import seat_view
from bela.solver.sampler import DealSampler, replay_view, view_differences

CONTRACTS = {"bela3": range(4), "bela2": range(4), "belot2": range(6)}


def mask(text: str) -> int:
    return CardSet.parse(text).mask


def belot2_after(*bids: str, seed: int = 3) -> Match:
    """A belot2 deal (seat 0 bids first, R34) after ``bids``."""
    m = Match("belot2", seed=seed, first_dealer=1)
    m.deal()
    for token in bids:
        m.apply(parse_action(token))
    return m


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(CONTRACTS)), st.sets(st.integers(0, 31), min_size=6, max_size=6),
       st.booleans(), st.integers(-1, 31))
def test_table_estimates_are_the_fitted_weights_times_the_features(
        variant: str, cards: set[int], lead: bool, turned: int) -> None:
    hand = sum(1 << c for c in cards)
    turned = -1 if variant == "bela3" or turned in cards else turned
    got = estimates(variant, list(CONTRACTS[variant]), hand, lead, turned)
    for contract, value in zip(CONTRACTS[variant], got, strict=True):
        kind, f = features(variant, contract, hand, lead, turned)
        assert value == sum(w * x for w, x in zip(profile(variant).weights[kind], f, strict=True))
        assert estimate(variant, contract, hand, lead, turned) == value


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["bela4", "bela3", "bela2", "belot2"]),
       st.sets(st.integers(0, 31), min_size=6, max_size=32))
def test_declaration_tables_count_what_the_engine_finds(variant: str, cards: set[int]) -> None:
    hand = sum(1 << c for c in cards)
    v = get_variant(variant)
    assert _hand_declarations(hand, variant) == sum(
        declaration_value(d, v.declaration_values) for d in find_declarations(hand, v.belot_wins))


def test_bid_contracts_follow_the_rounds_of_bidding() -> None:
    assert bid_contracts("belot2", 0, 2) == ([2], False)  # R34 round 1: the opened suit
    assert bid_contracts("belot2", 2, 2) == ([0, 1, 3, ALL_TRUMPS, NO_TRUMPS], False)
    assert bid_contracts("bela2", 3, 2) == ([0, 1, 3], True)  # R31: the dealer must name
    assert bid_contracts("bela3", 0, None) == ([0, 1, 2, 3], True)  # R26


def test_an_order_is_likelier_from_a_strong_hand_and_a_pass_from_a_weak_one() -> None:
    bids = EstimateBids(profile("belot2").heuristic)
    strong, weak = mask("JH JS JC 9H 9S 8C"), mask("7H 8H 8D 8S 7C 8C")  # no diamond
    assert estimate("belot2", ALL_TRUMPS, strong, True) > 20 > -20 > estimate(
        "belot2", ALL_TRUMPS, weak, True)
    ordered = seat_view(belot2_after("pass", "pass", "VC"), 1)
    assert bids(ordered, [strong, None]) > 0.5 > 0.1 > bids(ordered, [weak, None])
    passed = seat_view(belot2_after("pass", "pass", "pass"), 1)
    assert bids(passed, [weak, None]) > 0.5 > 0.1 > bids(passed, [strong, None])
    # the viewer's own bids say nothing, and no bid is ever ruled out (a floor per bid)
    assert bids(ordered, [None, None]) == 1.0
    assert bids(ordered, [weak, None]) >= bids.floor ** 2


def test_a_worse_contract_than_the_best_is_less_likely_ordered() -> None:
    bids = EstimateBids(profile("belot2").heuristic)
    m = belot2_after("pass", "pass")
    turned = int(seat_view(m, 1).public["turned"]) >> 3
    hand = mask("JH JS JC 9H 9S 8C")  # no diamond (the opened suit): VC is its best
    contracts = bid_contracts("belot2", 2, turned)[0]
    ranked = sorted(contracts, key=lambda c: estimate("belot2", c, hand, True))
    assert turned == 1 and ranked[-1] == ALL_TRUMPS
    other = ranked[0]
    assert estimate("belot2", other, hand, True) < estimate("belot2", ALL_TRUMPS, hand, True) - 30
    m.apply(parse_action("VC"))
    best = bids(seat_view(m, 1), [hand, None])
    m = belot2_after("pass", "pass")
    m.apply(parse_action(("H", "D", "S", "C", "VC", "BC")[other]))
    assert bids(seat_view(m, 1), [hand, None]) < best / 2


def test_a_forced_call_says_only_which_contract() -> None:
    """R31: the bela2 dealer must name a suit in the second round; naming its best adds
    nothing to the likelihood of its bids, naming another lowers it."""
    bids = EstimateBids(profile("bela2").heuristic)
    m = Match("bela2", seed=4, first_dealer=1)
    m.deal()
    for token in ("pass", "pass", "pass"):
        m.apply(parse_action(token))
    before = seat_view(m, 0)
    seen = seat_view(m, 1)  # the dealer, as it bids
    assert bid_contracts("bela2", 3, int(seen.public["turned"]) >> 3)[1]
    hands = [None, seen.hand.mask]
    best = bid(seen, profile("bela2").heuristic)
    worst = min((a for a in seen.legal if a != best), key=lambda a: estimate(
        "bela2", a.contract, seen.hand.mask, False, int(seen.public["turned"])))
    for action, same in ((best, True), (worst, False)):
        named = Match("bela2", seed=4, first_dealer=1)
        named.deal()
        for token in ("pass", "pass", "pass"):
            named.apply(parse_action(token))
        named.apply(action)
        after = bids(seat_view(named, 0), hands)
        assert (after == pytest.approx(bids(before, hands))) is same


def test_the_sampler_reads_the_bids_as_estimates() -> None:
    """A seat that passed the opened suit and then ordered VC (R34) holds, in the sampled
    deals, a hand whose best second-round estimate reaches the threshold and a stronger VC
    hand, far more often than the hand-made bid model has it."""
    bids = EstimateBids(profile("belot2").heuristic)
    for seed in range(3):
        view = seat_view(belot2_after("pass", "pass", "VC", seed=seed), 1)
        turned = int(view.public["turned"])
        contracts = bid_contracts("belot2", 2, turned >> 3)[0]
        rng = random.Random(seed)
        fits, vc = {}, {}
        for name, reading in (("model", None), ("estimate", bids)):
            sampler = DealSampler(view, bids=reading)
            draws = [sampler.draw(rng) for _ in range(300)]
            for d in draws[:20]:
                assert view_differences(view, replay_view(view, d)) == []
            fits[name] = sum(max(estimates("belot2", contracts, d.seen[0], True, turned)) >= 0
                             for d in draws) / len(draws)
            vc[name] = sum(estimate("belot2", ALL_TRUMPS, d.seen[0], True)
                           for d in draws) / len(draws)
        assert fits["estimate"] > fits["model"] + 0.2
        assert vc["estimate"] > vc["model"] + 15


def test_pimc_reads_the_bids_as_asked() -> None:
    view = seat_view(belot2_after("pass", "pass", "VC"), 1)
    assert isinstance(PimcBot(bids="estimate")._sampler(view).bids, EstimateBids)
    assert PimcBot()._sampler(view).bids is None
    assert isinstance(PimcBot(prior="learned")._sampler(view).bids, EstimateBids)  # master
    assert PimcBot(prior="learned", bids="model")._sampler(view).bids is None
    bela4 = Match("bela4", seed=1)
    bela4.deal()
    assert PimcBot(bids="estimate")._sampler(seat_view(bela4, 0)).bids is None
    with pytest.raises(ValueError, match="bids must be"):
        PimcBot(bids="rules")

"""The search bots (pimc, ismcts): legal in every variant, seeded, and sensible."""

from __future__ import annotations

import random

import pytest

from bela.bots import make_bot, parse_spec
from bela.bots.pimc import PimcBot
from bela.engine import Match, Play
from bela.engine.views import seat_view

VARIANTS = ("bela4", "bela3", "bela2", "belot2")


def play_out(variant: str, specs: list[str], seed: int) -> Match:
    m = Match(variant, seed=seed, options={"target": 10**9})
    bots = [make_bot(specs[s % len(specs)], seed * 10 + s) for s in range(m.variant.seats)]
    rnd = m.deal()
    while not rnd.is_over:
        view = seat_view(m, rnd.turn)
        action = bots[rnd.turn].act(view)
        assert action in view.legal
        m.apply(action)
    return m


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("spec", ["pimc:samples=4,bid_samples=2,budget=0.02",
                                  "ismcts:iterations=60,budget=0.02"])
def test_search_bots_play_legal_rounds(variant: str, spec: str) -> None:
    for seed in range(2):
        assert play_out(variant, [spec, "heuristic"], seed).round.is_over


def test_pimc_is_reproducible_with_a_seed() -> None:
    spec = "pimc:samples=4,bid_samples=2,budget=10"
    a = play_out("bela4", [spec, "random"], 3).rounds[0].log
    b = play_out("bela4", [spec, "random"], 3).rounds[0].log
    assert a == b


def test_bot_specs_parse_settings() -> None:
    assert parse_spec("pimc:samples=8,inference=off,budget=0.5") == (
        "pimc", {"samples": 8, "inference": False, "budget": 0.5})
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("nobot")
    with pytest.raises(ValueError, match="bad settings"):
        make_bot("pimc:wings=2")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        make_bot("pimc:samples")


@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_values_are_mean_double_dummy_values_of_the_sampled_deals(variant: str) -> None:
    """PIMC's value of a card is the mean over its sampled deals of the solver's value in
    the engine round rebuilt from each deal (mid-trick and with points already taken)."""
    from bela.solver.dd import solve
    from bela.solver.sampler import DealSampler, to_round

    rng = random.Random(4)
    checked = 0
    for seed in range(40):
        m = Match(variant, seed=seed, options={"target": 10**9})
        rnd = m.deal()
        stop = rng.randrange(4, 16)
        while not rnd.is_over and (rnd.phase != "play" or len(rnd.log) - len(rnd.bids) < stop):
            acts = rnd.legal_actions()
            m.apply(acts[rng.randrange(len(acts))])
        if rnd.is_over or len({a.card for a in rnd.legal_actions() if isinstance(a, Play)}) < 2:
            continue
        view = seat_view(m, rnd.turn)
        bot = PimcBot(seed, samples=4, min_samples=4, budget=10)
        values = bot.card_values(view)
        again = random.Random(seed)  # the bot's own draws, repeated
        sampler = DealSampler(view)
        expected: dict[object, float] = {}
        for _ in range(4):
            exact = solve(to_round(view, sampler.draw(again)), line=False).values
            for card in values:
                expected[card] = expected.get(card, 0.0) + exact[card] / 4
        assert values == pytest.approx(expected)
        checked += 1
    assert checked >= 10


def test_pimc_orders_a_cold_trump_suit() -> None:
    """Bidding by simulation: a hand with J 9 A 10 K of hearts calls hearts."""
    from bela.engine.cards import Card

    hands = [Card.parse("JH 9H AH TH KH AS 7D 8C"), Card.parse("7H 8H QH 7S 8S 9S TS JS"),
             Card.parse("QS KS 9D TD JD QD KD AD"), Card.parse("7C 9C TC JC QC KC AC 8D")]
    m = Match("bela4", options={"target": 10**9}, first_dealer=3)
    m.deal(hands)
    action = PimcBot(1, bid_samples=4).act(seat_view(m, 0))
    assert action.token() == "H"

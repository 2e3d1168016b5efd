"""The search bots (pimc, ismcts): legal in every variant, seeded, and sensible."""

from __future__ import annotations

import random

import pytest

from bela.bots import make_bot, parse_spec
from bela.bots.pimc import PimcBot
from bela.engine import Match, Play
from bela.engine.views import SeatView, seat_view
from positions import played_to

VARIANTS = ("bela4", "bela3", "bela2", "belot2")


def play_out(variant: str, specs: list[str], seed: int) -> Match:
    m = Match(variant, seed=seed, options={"target": 5001})
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
        m = played_to(variant, seed, rng.randrange(4, 16), rng)
        rnd = m.round
        assert rnd is not None
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
    m = Match("bela4", options={"target": 5001}, first_dealer=3)
    m.deal(hands)
    action = PimcBot(1, bid_samples=4).act(seat_view(m, 0))
    assert action.token() == "H"


def test_a_time_budget_caps_the_bidding_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``budget`` the bid's simulation stops after ``min_samples`` deals, as the card
    play does."""
    from bela.solver.sampler import DealSampler

    drawn = []
    draw = DealSampler.draw
    monkeypatch.setattr(DealSampler, "draw", lambda self, rng: drawn.append(1) or draw(self, rng))
    m = Match("bela4", seed=3, options={"target": 5001})
    m.deal()
    view = seat_view(m, m.round.turn)
    action = PimcBot(1, bid_samples=10, min_samples=3, budget=0.0)._bid(view)
    assert action in view.legal and len(drawn) == 3


def card_decisions(variant: str, count: int) -> list[SeatView]:
    """Views of seats choosing a card among two or more (nothing else), after random
    play."""
    rng = random.Random(11 + VARIANTS.index(variant))
    views = []
    seed = 0
    while len(views) < count:
        seed += 1
        m = played_to(variant, seed, rng.randrange(0, 14), rng)
        rnd = m.round
        assert rnd is not None
        acts = [] if rnd.is_over else rnd.legal_actions()
        if all(isinstance(a, Play) for a in acts) and len({a.card for a in acts}) >= 2:
            views.append(seat_view(m, rnd.turn))
    return views


@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_advice_plays_the_best_of_its_values(variant: str) -> None:
    """advise() gives the pick and the values from the same deals: the pick is the card
    with the best value (lowest in raspas), ties to the first card, and is what act() plays
    with the same seed."""
    for i, view in enumerate(card_decisions(variant, 4)):
        action, values = PimcBot(i, samples=6).advise(view)
        assert isinstance(action, Play) and action in view.legal
        assert set(values) == {a.card for a in view.legal if isinstance(a, Play)}
        best = (min if view.raspas else max)(values.values())
        assert values[action.card] == best
        assert action.card == min(c for c, v in values.items() if v == best)
        assert PimcBot(i, samples=6).act(view) == action
        assert PimcBot.best_card(values, view.raspas) == action.card


def test_pimc_advice_on_other_decisions_has_no_values() -> None:
    m = Match("bela4", seed=5, options={"target": 5001})
    rnd = m.deal()
    view = seat_view(m, rnd.turn)  # bidding
    action, values = PimcBot(5, bid_samples=2).advise(view)
    assert action in view.legal and values == {}


def test_pimc_bots_in_threads_use_their_threads_solvers() -> None:
    """Bots thinking at the same time in different threads never share a solver."""
    import threading

    bot = PimcBot(1)
    seen: list[object] = []  # the solvers themselves: kept alive, no id is reused
    threads = [threading.Thread(target=lambda: seen.append(bot.solver)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bot.solver is bot.solver and len({id(s) for s in [*seen, bot.solver]}) == 4


def test_pimc_budget_stops_the_solving(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time budget bounds the deals drawn and solved: with a budget of 0 only the
    ``min_samples`` deals are solved, whatever ``samples`` says."""
    from bela.solver.dd import Solver

    calls = []
    real = Solver.solve

    def counted(self: Solver, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Solver, "solve", counted)
    view = card_decisions("bela4", 1)[0]
    PimcBot(0, samples=50, budget=0.0, min_samples=3).card_values(view)
    assert len(calls) == 3
    calls.clear()
    PimcBot(0, samples=5).card_values(view)
    assert len(calls) == 5


def test_pimc_node_budget_stops_the_solving(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work budget: it stops drawing once the solves so far visited ``nodes`` search
    nodes (after ``min_samples`` deals), and, unlike the time budget, plays the same
    whatever the machine's speed."""
    from bela.solver.dd import Solver

    visited: list[int] = []
    real = Solver.solve

    def counted(self: Solver, *args: object, **kwargs: object) -> object:
        solution = real(self, *args, **kwargs)  # type: ignore[arg-type]
        visited.append(solution.nodes)
        return solution

    monkeypatch.setattr(Solver, "solve", counted)
    view = card_decisions("bela4", 1)[0]
    free = PimcBot(0, samples=12).card_values(view)
    per_deal = list(visited)
    assert len(per_deal) == 12 and min(per_deal) > 0
    budget = sum(per_deal[:5]) - 1  # reached by the fifth deal's solve
    for min_samples, solves in ((2, 5), (7, 7)):
        visited.clear()
        values = PimcBot(0, samples=12, nodes=budget, min_samples=min_samples).card_values(view)
        assert visited == per_deal[:solves]
        assert values == PimcBot(0, samples=solves).card_values(view)
    visited.clear()
    assert PimcBot(0, samples=12, nodes=10**12).card_values(view) == free


@pytest.mark.parametrize("settings", [{"samples": 0}, {"min_samples": 0}, {"nodes": 0}])
def test_pimc_refuses_budgets_below_one(settings: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=">= 1"):
        PimcBot(0, **settings)  # type: ignore[arg-type]

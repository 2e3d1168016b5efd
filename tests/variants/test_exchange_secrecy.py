"""The exchange (R32, R35) tells nobody who holds the 7 of trump or four 7s / 8s.

docs/RULES.md (readings, the exchange): what a seat or a spectator receives (phase, turn,
legal actions, exchanges, events, their order) does not depend on cards it may not see.  Two
deals that differ only in cards hidden from seat S (the 7 of trump or an 8 moved between the
opponent's hand and the cards out of play) are played with the same public actions; S's views
and the spectator's, and the events as they see them (``seen_by``), are equal step by step.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from variant_helpers import ALL_CODES, FIRST_DEALER, code, deal, new_match

from bela.engine import Card, Match, Play, Round, parse_action
from bela.engine.actions import DECLINE, Action
from bela.engine.enums import Phase
from bela.engine.events import Event, seen_by
from bela.engine.views import SeatView, seat_view

Deal = tuple[list[str], dict[str, str]]


def _common_action(a: Round, b: Round) -> Action | None:
    """An action legal in both rounds: the exchange's keep, else the lowest common card
    (no declarations, no bela), else None (the deals' difference would show)."""
    if a.phase == Phase.EXCHANGE:
        return DECLINE
    if a.phase != Phase.PLAY:
        return None
    both = ({x for x in a.legal_actions() if isinstance(x, Play) and not x.bela}
            & {x for x in b.legal_actions() if isinstance(x, Play) and not x.bela})
    return min(both, key=lambda x: x.card) if both else None


def _views(m: Match, seat: int | None) -> SeatView:
    return seat_view(m, seat)


def trace(deals: Sequence[Deal], bids: Sequence[str], observer: int,
          variant: str, max_steps: int = 14) -> list[list[object]]:
    """Play the same public actions on each deal; per deal, what the observer and a
    spectator receive at every step: the views, then the events of each action as seen."""
    matches = [new_match(variant) for _ in deals]
    rounds = [deal(m, hands, **extra) for m, (hands, extra) in zip(matches, deals)]
    out: list[list[object]] = [[] for _ in deals]

    def look(events: Sequence[tuple[Event, ...]] | None) -> None:
        for i, m in enumerate(matches):
            out[i].append(_views(m, observer))
            out[i].append(_views(m, None))
            if events is not None:
                out[i].append(seen_by(events[i], observer))
                out[i].append(seen_by(events[i], None))

    look(None)
    for token in bids:
        look([m.apply(parse_action(token)) for m in matches])
    for _ in range(max_steps):
        if any(r.is_over for r in rounds):
            break
        action = _common_action(rounds[0], rounds[1])
        if action is None:
            break
        look([m.apply(action) for m in matches])
    return out


def assert_same_for(deals: Sequence[Deal], bids: Sequence[str], observer: int,
                    variant: str) -> list[object]:
    a, b = trace(deals, bids, observer, variant)
    assert len(a) == len(b)
    for step, (x, y) in enumerate(zip(a, b)):
        assert x == y, f"step {step}: the observer's information differs"
    return a


def other_rights(deals: Sequence[Deal], bids: Sequence[str], variant: str,
                 seat: int) -> list[set[str]]:
    """Per deal, the exchange choices ``seat`` is offered (keeping in the exchange)."""
    out = []
    for hands, extra in deals:
        m = new_match(variant)
        rnd = deal(m, hands, **extra)
        for token in bids:
            m.apply(parse_action(token))
        offered: set[str] = set()
        while rnd.phase == Phase.EXCHANGE:
            if rnd.turn == seat:
                offered |= {x.token() for x in rnd.legal_actions()}
            m.apply(DECLINE)
        out.append(offered)
    return out


# -- the deals ----------------------------------------------------------------------------------

# bela2, turned AH: the 7H with seat 1 (in its talon), or out of play (seat 1 has the 8H).
BELA2_SEVEN_AT_1: Deal = (["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S 7H 9C TC AC"],
                          {"turned": "AH"})
BELA2_SEVEN_OUT: Deal = (["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S 8H 9C TC AC"],
                         {"turned": "AH"})
# the same seen from seat 1: the 7H with seat 0 (for its 7C) or out of play
BELA2_SEVEN_AT_0: Deal = (["JH 9H KS QS 8D 9D TS AS 7H 8C", "QH KH AD TD 7S 8S 8H 9C TC AC"],
                          {"turned": "AH"})
BELA2_SEVEN_OUT_0: Deal = (["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S 8H 9C TC AC"],
                           {"turned": "AH"})

# belot2, opened AH: seat 1 holds four 8s (the 8H comes with its last 3 cards), or the 8H is
# out of play (seat 1 has the AC instead).
BELOT2_FOUR_8S: Deal = (["7H 7S AS KS QS 9D JC 9H TH", "JH 9S TS KH QH 8S 8D 8C 8H"],
                        {"turned": "AH", "bottom": "AD"})
BELOT2_NO_8S: Deal = (["7H 7S AS KS QS 9D JC 9H TH", "JH 9S TS KH QH 8S 8D 8C AC"],
                      {"turned": "AH", "bottom": "AD"})
# belot2, opened AH: the 7H with seat 1, or out of play (seat 1 has the 8H)
BELOT2_SEVEN_AT_1: Deal = (["JH 9H KS QS 8D 9D TS AS 7C", "QH KH AD TD 7S 8S 7H 9C TC"],
                           {"turned": "AH", "bottom": "QD"})
BELOT2_SEVEN_OUT: Deal = (["JH 9H KS QS 8D 9D TS AS 7C", "QH KH AD TD 7S 8S 8H 9C TC"],
                          {"turned": "AH", "bottom": "QD"})


# -- targeted cases -----------------------------------------------------------------------------

@pytest.mark.parametrize("bids", [["H"], ["pass", "H"]])
def test_bela2_the_opponent_holds_the_seven_or_nobody_does(bids: list[str]) -> None:
    """R32: seat 0 cannot tell whether seat 1 holds the 7 of trump or it is out of play."""
    deals = [BELA2_SEVEN_AT_1, BELA2_SEVEN_OUT]
    assert other_rights(deals, bids, "bela2", 1) == [{"swap", "keep"}, {"keep"}]
    seen = assert_same_for(deals, bids, 0, "bela2")
    phases = [v.phase for v in seen if isinstance(v, SeatView) and v.seat == 0]
    assert Phase.EXCHANGE in phases and phases[-1] == Phase.PLAY  # played into the tricks


@pytest.mark.parametrize("bids", [["H"], ["pass", "H"]])
def test_bela2_seen_from_the_dealer(bids: list[str]) -> None:
    """R32: the dealer (seat 1) cannot tell whether seat 0, asked first, holds the 7."""
    deals = [BELA2_SEVEN_AT_0, BELA2_SEVEN_OUT_0]
    assert other_rights(deals, bids, "bela2", 0) == [{"swap", "keep"}, {"keep"}]
    assert_same_for(deals, bids, 1, "bela2")


@pytest.mark.parametrize("bids", [["H"], ["pass", "pass", "VC"], ["pass", "pass", "BC"],
                                  ["pass", "pass", "S"], ["pass", "pass", "pass", "pass"]])
def test_belot2_four_eights_or_none(bids: list[str]) -> None:
    """R35: in any contract, raspas included, seat 0 cannot tell whether seat 1 holds four
    8s: the exchange takes place either way, both seats asked in turn."""
    deals = [BELOT2_FOUR_8S, BELOT2_NO_8S]
    assert other_rights(deals, bids, "belot2", 1) == [{"redeal", "keep"}, {"keep"}]
    seen = assert_same_for(deals, bids, 0, "belot2")
    turns = [v.turn for v in seen if isinstance(v, SeatView) and v.seat == 0
             and v.phase == Phase.EXCHANGE]
    assert turns == [0, 1]  # public: the first seat, then the dealer


def test_belot2_the_opponent_holds_the_seven_or_nobody_does() -> None:
    """R35: in a suit contract in the opened suit, the 7 of trump with seat 1 or out of
    play: the same for seat 0 and for a spectator."""
    deals = [BELOT2_SEVEN_AT_1, BELOT2_SEVEN_OUT]
    assert other_rights(deals, ["H"], "belot2", 1) == [{"swap", "keep"}, {"keep"}]
    assert_same_for(deals, ["H"], 0, "belot2")


def test_the_asked_seat_is_public_and_its_choices_private() -> None:
    """Every seat is asked in turn: everyone sees whose turn it is, only that seat its
    choices, and a keep only by the keeper."""
    m = new_match("belot2")
    deal(m, BELOT2_FOUR_8S[0], **BELOT2_FOUR_8S[1])
    m.apply(parse_action("pass"))
    m.apply(parse_action("pass"))
    m.apply(parse_action("VC"))
    for asked in (0, 1):
        views = {s: seat_view(m, s) for s in (0, 1, None)}
        assert {v.turn for v in views.values()} == {asked}
        assert all(v.phase == Phase.EXCHANGE for v in views.values())
        assert views[1 - asked].legal == () and views[None].legal == ()
        assert DECLINE in views[asked].legal
        events = m.apply(DECLINE)
        assert seen_by(events, 1 - asked) == () and seen_by(events, None) == ()
    assert seat_view(m, 0).exchanges == ((0, "keep"),)
    assert seat_view(m, 1).exchanges == ((1, "keep"),)
    assert seat_view(m, None).exchanges == ()


# belot2, opened AH, the dealer (seat 1) holds the 7H: seat 0 gets four 8s with its last
# cards, or the 8H is out of play (seat 0 has the AC instead).
BELOT2_SWAP_FOUR_8S: Deal = (["8H 8S 8D KS QS 9D 8C TH JS", "JH 9H 7H KH QH AS TS AD TD"],
                             {"turned": "AH", "bottom": "7C"})
BELOT2_SWAP_NO_8S: Deal = (["AC 8S 8D KS QS 9D 8C TH JS", "JH 9H 7H KH QH AS TS AD TD"],
                           {"turned": "AH", "bottom": "7C"})


def test_belot2_after_a_swap_the_asks_are_the_same_whoever_may_redeal() -> None:
    """R35: after the dealer's swap both seats are asked again, from the swapper, whether
    or not the non-dealer holds four 8s: the dealer and a spectator see the same turns,
    views and events for both deals."""
    deals = [BELOT2_SWAP_FOUR_8S, BELOT2_SWAP_NO_8S]
    seen = assert_same_for(deals, ["H", "keep", "swap"], 1, "belot2")
    turns = [v.turn for v in seen if isinstance(v, SeatView) and v.seat is None
             and v.phase == Phase.EXCHANGE]
    assert turns == [0, 1, 1, 0]  # the first seat, the dealer; after his swap: him, seat 0
    assert other_rights(deals, ["H"], "belot2", 0) == [{"redeal", "keep"}, {"keep"}]


# -- random deals --------------------------------------------------------------------------------

def _hidden_variant(variant: str, seed: int, observer: int) -> tuple[Deal, Deal, list[str]]:
    """A seeded deal and a copy in which one card of the opponent's changes place with a
    card out of play: the 7 of the turned suit when either holds it, else a 7 or an 8 of the
    opponent's when it has one; and bids that make the turned suit trump, or another
    contract (the bids are public: the same tokens on both deals)."""
    rng = random.Random(seed)
    d = Match(variant, seed=seed, first_dealer=FIRST_DEALER[variant]).deal().deal
    hands = [[str(c) for c in h] for h in d.hands]
    extra = {k: " ".join(str(c) for c in v) for k, v in d.extra.items()}
    turned = extra["turned"]
    opp = hands[1 - observer]
    stock = [c for c in ALL_CODES
             if c not in extra.values() and not any(c in h for h in hands)]
    seven = "7" + turned[1]
    if seven in opp:
        give, take = seven, rng.choice(stock)  # the 7 goes out of play
    elif seven in stock:
        give, take = rng.choice(opp), seven  # the opponent gets the 7
    else:
        give, take = rng.choice([c for c in opp if c[0] in "78"] or opp), rng.choice(stock)
    other = [take if c == give else c for c in opp]
    swapped = [other if s == 1 - observer else hands[s] for s in range(2)]
    accept = turned[1]
    if variant == "bela2":
        bids = rng.choice([[accept], ["pass", accept],
                           ["pass", "pass", "pass", next(s for s in "HDSC" if s != accept)]])
    else:
        bids = rng.choice([[accept], ["pass", accept], ["pass", "pass", "VC"],
                           ["pass"] * 4, ["pass", "pass", "pass", "BC"]])
    return (([" ".join(h) for h in hands], extra), ([" ".join(h) for h in swapped], extra),
            bids)


@pytest.mark.parametrize("variant", ["bela2", "belot2"])
@pytest.mark.parametrize("observer", [0, 1])
def test_random_deals_differing_in_hidden_cards_look_the_same(variant: str,
                                                              observer: int) -> None:
    """Random deals and a copy with one card of the opponent's swapped for one out of play
    (a 7 or an 8 where it can): the same information for the observer and the spectator,
    through the bidding, the exchange and the first tricks."""
    exchanges = 0
    for seed in range(40):
        a, b, bids = _hidden_variant(variant, seed, observer)
        seen = assert_same_for([a, b], bids, observer, variant)
        exchanges += any(isinstance(v, SeatView) and v.phase == Phase.EXCHANGE for v in seen)
    assert exchanges >= 10  # the exchange was exercised


# -- when the exchange takes place ---------------------------------------------------------------

@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_the_exchange_takes_place_by_public_facts_only(variant: str) -> None:
    """belot2: every round; bela2: every round whose trump is the turned suit, unless the
    turned card is the 7 of trump; bela4, bela3: never.  When it does, each seat is asked
    once in turn from the first seat (all keeping here)."""
    happened = 0
    for seed in range(150):
        m = Match(variant, seed=seed)
        rnd = m.deal()
        rng = random.Random(seed)
        while rnd.phase in (Phase.BIDDING, Phase.DISCARD):  # bela3: the caller's discard
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
        turned = rnd.public.get("turned")
        if variant == "belot2":
            expected = True
        elif variant == "bela2":
            assert turned is not None and rnd.contract is not None
            expected = (rnd.contract == turned >> 3
                        and code(turned) != "7" + "HDSC"[rnd.contract])
        else:
            expected = False
        assert (rnd.phase == Phase.EXCHANGE) == expected, (seed, rnd.trump_name)
        turns = []
        while rnd.phase == Phase.EXCHANGE:
            turns.append(rnd.turn)
            m.apply(DECLINE)
        assert turns == ([rnd.first, 1 - rnd.first] if expected else [])
        assert rnd.phase == Phase.PLAY and rnd.turn == rnd.first
        happened += expected
        while not rnd.is_over:  # and never again in the play
            assert rnd.phase != Phase.EXCHANGE
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
    assert happened >= (150 if variant == "belot2" else 20 if variant == "bela2" else 0)


def test_a_swapper_is_asked_again_in_belot2_and_not_in_bela2() -> None:
    """belot2: a swapper is asked again at once (always: it tells nothing); bela2: after a
    swap the 7 of trump is face up, nobody can have a right, and play starts."""
    m = new_match("belot2")
    rnd = deal(m, BELOT2_SEVEN_AT_1[0], **BELOT2_SEVEN_AT_1[1])
    for token in ("H", "keep", "swap"):
        m.apply(parse_action(token))
    assert rnd.phase == Phase.EXCHANGE and rnd.turn == 1
    assert [a.token() for a in rnd.legal_actions()] == ["keep"]
    m.apply(DECLINE)  # then the other seat again: its redeal right stands (R35)
    assert rnd.phase == Phase.EXCHANGE and rnd.turn == 0
    m.apply(DECLINE)
    assert rnd.phase == Phase.PLAY and rnd.turn == 0
    m2 = new_match("bela2")
    rnd2 = deal(m2, BELA2_SEVEN_AT_0[0], **BELA2_SEVEN_AT_0[1])
    for token in ("H", "swap"):
        m2.apply(parse_action(token))
    assert rnd2.phase == Phase.PLAY and rnd2.turn == 0  # seat 1 is not asked
    assert str(Card.ALL[rnd2.public["turned"]]) == "7H"

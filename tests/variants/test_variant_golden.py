"""Golden counts (perft-like) for bela3, bela2 and belot2, and the engine's legal cards
against an independent brute force of the play duties.

The brute force below is written from the rule text only (R17-R20 for the bela variants,
R36 for belot2), on card codes, and shares no code with ``bela.engine.rules``.  For a fixed
deal and bidding it counts the distinct legal card sequences over the first trick (and the
first two tricks for the two-player variants); the engine's count (walking
``legal_actions``/``apply``/``undo``) and the hard-coded number must agree.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from variant_helpers import (
    PLAIN_ORDER,
    TRUMP_ORDER,
    act,
    code,
    deal,
    legal_cards,
    mask_codes,
    new_match,
    random_round,
)

from bela.engine import Play, Round

# -- the independent brute force ------------------------------------------------------------------


def strength(c: str, contract: str) -> int:
    """Rank within its suit (R2, R3, R36): trump order for a trump (every suit in VC)."""
    if contract == "VC" or c[1] == contract:
        return TRUMP_ORDER.index(c[0])
    return PLAIN_ORDER.index(c[0])


def is_trump(c: str, contract: str) -> bool:
    return contract not in ("VC", "BC") and c[1] == contract


def winner(trick: list[str], contract: str) -> int:
    """R20 / R36: the highest trump, else the highest card of the led suit."""
    best = 0
    for i, c in enumerate(trick[1:], 1):
        b = trick[best]
        if is_trump(c, contract) and not is_trump(b, contract):
            best = i
        elif c[1] == b[1] and strength(c, contract) > strength(b, contract):
            best = i
    return best


def bela_legal(hand: list[str], trick: list[str], trump: str) -> list[str]:
    """R17-R19 (bela4/bela3/bela2)."""
    if not trick:
        return list(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    trumps_in_trick = [c for c in trick if c[1] == trump]
    if follow:
        if led != trump and trumps_in_trick:
            return follow  # R17 exception: a trump is already on a non-trump lead
        top = max(strength(c, trump) for c in trick if c[1] == led)
        higher = [c for c in follow if strength(c, trump) > top]
        return higher or follow  # R17 iber, R19 within trump
    trumps = [c for c in hand if c[1] == trump]
    if trumps:
        if trumps_in_trick:  # R18: overtrump if possible
            top = max(strength(c, trump) for c in trumps_in_trick)
            higher = [c for c in trumps if strength(c, trump) > top]
            return higher or trumps
        return trumps
    return list(hand)


def belot2_legal(hand: list[str], trick: list[str], contract: str) -> list[str]:
    """R36: follow suit, else trump, else anything; beat a trump lead if possible; in VC beat
    the led suit's best card if possible; no other duty to beat."""
    if not trick:
        return list(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if contract == "VC" or led == contract:
            top = max(strength(c, contract) for c in trick if c[1] == led)
            higher = [c for c in follow if strength(c, contract) > top]
            return higher or follow
        return follow
    trumps = [c for c in hand if is_trump(c, contract)]
    return trumps or list(hand)


def brute_count(hands: list[list[str]], first: int, contract: str, tricks: int,
                duties: str) -> int:
    n = len(hands)
    legal = bela_legal if duties == "bela" else belot2_legal

    def rec(hands: list[list[str]], seat: int, trick: list[str], seats: list[int],
            left: int) -> int:
        if len(trick) == n:
            w = seats[winner(trick, contract)]
            return 1 if left == 1 else rec(hands, w, [], [], left - 1)
        total = 0
        for c in legal(hands[seat], trick, contract):
            nh = [list(h) for h in hands]
            nh[seat].remove(c)
            total += rec(nh, (seat + 1) % n, trick + [c], seats + [seat], left)
        return total

    return rec(hands, first, [], [], tricks)


def engine_count(rnd: Round, cards: int) -> int:
    if cards == 0:
        return 1
    total = 0
    for c in sorted({a.card for a in rnd.legal_actions() if isinstance(a, Play)}):
        rnd.apply(Play(c))
        total += engine_count(rnd, cards - 1)
        rnd.undo()
    return total


# -- fixed deals ------------------------------------------------------------------------------

BELA3 = dict(hands=["JS 7H 7C 9S JC AC KC QD QH 7D",
                    "8C 9C KS TH JH 9H TC 9D AS AD",
                    "8D AH TS KH 7S QS 8H KD TD 8S"], extra={"extra": "QC JD"})
BELA2 = dict(hands=["AC 7H JH QH 9S TD 9H QC TS 7D",
                    "AS 8D 8S AH TH 8C 9D 7S KS KC"], extra={"turned": "KD"})
BELOT2 = dict(hands=["7H QH TS JD AD TD TH QC JC",
                     "9H KC JH 8S 9D 9C AC KS JS"], extra={"turned": "8C", "bottom": "7D"})

GOLDEN = [
    # variant, deal, bidding, contract, tricks, count
    ("bela3", BELA3, ["C", "discard 7H 7D"], "C", 1, 127),
    ("bela3", BELA3, ["S", "discard QC JD"], "S", 1, 62),
    ("bela2", BELA2, ["pass", "pass", "H"], "H", 1, 18),
    ("bela2", BELA2, ["pass", "pass", "H"], "H", 2, 250),
    ("bela2", BELA2, ["pass", "pass", "pass", "S"], "S", 2, 328),
    ("belot2", BELOT2, ["pass", "pass", "H"], "H", 1, 18),
    ("belot2", BELOT2, ["pass", "pass", "H"], "H", 2, 270),
    ("belot2", BELOT2, ["pass", "pass", "VC"], "VC", 2, 205),
    ("belot2", BELOT2, ["pass", "pass", "BC"], "BC", 2, 306),
    ("belot2", BELOT2, ["C"], "C", 2, 270),
    ("belot2", BELOT2, ["pass", "pass", "pass", "pass"], "C", 2, 270),  # raspas: C trump
]


def golden_round(variant: str, d: dict[str, object], bidding: list[str]) -> Round:
    m = new_match(variant)
    rnd = deal(m, d["hands"], **d["extra"])  # type: ignore[arg-type]
    act(m, *bidding)
    while rnd.phase == "exchange":
        act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0
    return rnd


@pytest.mark.parametrize("variant, d, bidding, contract, tricks, count", GOLDEN)
def test_golden_first_tricks(variant: str, d: dict[str, object], bidding: list[str],
                             contract: str, tricks: int, count: int) -> None:
    """R16-R20 (bela3 R27, bela2 R33) and R36 (belot2): the number of distinct legal card
    sequences over the first trick(s) after a fixed bidding."""
    rnd = golden_round(variant, d, bidding)
    assert rnd.trump_name == contract
    hands = [sorted(mask_codes(h)) for h in rnd.hands]
    duties = "belot2" if variant == "belot2" else "bela"
    seats = rnd.variant.seats
    brute = brute_count(hands, rnd.first, contract, tricks, duties)
    engine = engine_count(rnd, tricks * seats)
    assert (engine, brute) == (count, count)
    assert len(rnd.log) == len(bidding)  # undo restored the position


# -- the engine's legal cards against the brute force, at random positions ---------------------


@pytest.mark.parametrize("variant", ["bela3", "bela2", "belot2"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), passes=st.integers(0, 4))
def test_legal_cards_match_brute_force(variant: str, seed: int, passes: int) -> None:
    """R17-R19 / R36: at every card of a random round the engine allows exactly the cards
    the rule text allows."""
    duties = "belot2" if variant == "belot2" else "bela"

    def check(m: object, rnd: Round) -> None:
        if rnd.phase != "play":
            return
        hand = sorted(mask_codes(rnd.hands[rnd.turn]))
        trick = [code(c) for c in rnd.trick]
        legal = bela_legal if duties == "bela" else belot2_legal
        assert legal_cards(rnd) == set(legal(hand, trick, rnd.trump_name or ""))

    random_round(variant, seed, passes, on_step=check)

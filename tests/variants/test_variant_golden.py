"""Golden counts (perft-like) for bela3, bela2 and belot2, and the engine's legal cards
against an independent brute force of the play duties.

The brute force below is written from the rule text only (R17-R20 for the bela variants,
R36 for belot2), on card codes, and shares no code with ``bela.engine.rules``.  For a fixed
deal and bidding it counts the distinct legal card sequences over the first trick (and the
first two tricks for the two-player variants); the engine's count (walking
``legal_actions``/``apply``/``undo``) and the hard-coded number must agree.  The counts start
at the first lead, after the exchange (R32, R35: belot2 always asks both seats, so its
positions are reached through two keeps), and so do not depend on it; the exchange itself
has its own golden sequences below, against a reference written from the rule text.
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


# R32, R35: the exchange steps before the first lead, every seat asked (both keep here):
# belot2 always; bela2 only when trump is the turned suit (never in these bela2 deals).
KEEPS = {"bela3": 0, "bela2": 0, "belot2": 2}


def golden_round(variant: str, d: dict[str, object], bidding: list[str]) -> Round:
    m = new_match(variant)
    rnd = deal(m, d["hands"], **d["extra"])  # type: ignore[arg-type]
    act(m, *bidding)
    while rnd.phase == "exchange":
        act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0
    assert [a.token() for a in rnd.log] == bidding + ["keep"] * KEEPS[variant]
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
    before = list(rnd.log)
    engine = engine_count(rnd, tricks * seats)
    assert (engine, brute) == (count, count)
    assert rnd.log == before  # undo restored the position


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


# -- the exchange (R32, R35): every sequence of swaps, redeals and keeps ------------------------
#
# Written from the rule text and the project's reading (docs/RULES.md): when a right is possible
# at all from public facts (bela2: trump is the turned suit and the turned card is not its 7;
# belot2: always), every seat is asked in turn from the first seat; a seat may swap holding the
# 7 of trump in a suit contract in the turned suit (not raspas), redeal (belot2) holding four 7s
# or four 8s, and always keep; after a swap, while a right is still possible, every seat is
# asked again in turn from the swapper (every right stands until the first lead, whoever used
# another first); a redeal ends the round.


def ref_exchanges(variant: str, hands: list[list[str]], turned: str, contract: str,
                  raspas: bool) -> set[str]:
    seven = "7" + contract

    def possible(face_up: str) -> bool:
        if variant == "belot2":
            return True
        return not raspas and face_up[1] == contract and face_up != seven

    def rights(hand: list[str]) -> list[str]:
        out = []
        if not raspas and contract == turned[1] and seven in hand:
            out.append("swap")
        if variant == "belot2" and any(sum(c[0] == r for c in hand) == 4 for r in "78"):
            out.append("redeal")
        return out + ["keep"]

    found: set[str] = set()

    def rec(queue: list[int], hands: list[list[str]], face_up: str, seq: list[str]) -> None:
        if not queue:
            found.add(" ".join(seq))
            return
        seat = queue[0]
        for choice in rights(hands[seat]):
            if choice == "keep":
                rec(queue[1:], hands, face_up, seq + [choice])
            elif choice == "redeal":
                found.add(" ".join(seq + [choice]))
            else:
                swapped = [list(h) for h in hands]
                swapped[seat] = [c for c in hands[seat] if c != seven] + [face_up]
                rest = [seat, 1 - seat] if possible(seven) else []
                rec(rest, swapped, seven, seq + [choice])

    rec([0, 1] if possible(turned) else [], hands, turned, [])
    return found


def engine_exchanges(rnd: Round) -> set[str]:
    if rnd.phase != "exchange":
        return {""}
    found: set[str] = set()
    for a in rnd.legal_actions():
        rnd.apply(a)
        for rest in engine_exchanges(rnd) if rnd.phase == "exchange" else {""}:
            found.add(" ".join(t for t in (a.token(), rest) if t))
        rnd.undo()
    return found


SWAP_EIGHTS = dict(hands=["7H 8S 8D KS QS 9D 8C TH JS", "JH 9H AH KH QH AS TS AD TD"],
                   extra={"turned": "8H", "bottom": "7C"})
FOURS = dict(hands=["7H 7S 7D KS QS 9D 7C 9H TH", "JH 9S TS KH QH 8S 8D 8C 8H"],
             extra={"turned": "AH", "bottom": "AD"})
EIGHTS_SEVEN = dict(hands=["8H 8S 8D KS QS 9D 8C TH JS", "JH 9H 7H KH QH AS TS AD TD"],
                    extra={"turned": "AH", "bottom": "7C"})
SEVEN_AT_1 = dict(hands=["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S 7H 9C TC AC"],
                  extra={"turned": "AH"})
SEVEN_AT_0 = dict(hands=["QH KH AD TD 7S 8S 7H 9C TC AC", "JH 9H KS QS 8D 9D TS AS 7C 8C"],
                  extra={"turned": "AH"})
SEVEN_TURNED = dict(hands=["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S AH 9C TC AC"],
                    extra={"turned": "7H"})

EXCHANGE_GOLDEN = [
    # variant, deal, bidding, every exchange sequence to the first lead or the redeal
    ("bela2", SEVEN_AT_1, ["H"], {"keep swap", "keep keep"}),
    ("bela2", SEVEN_AT_0, ["pass", "H"], {"swap", "keep keep"}),  # no one asked after a swap
    ("bela2", SEVEN_AT_1, ["pass", "pass", "S"], {""}),  # trump is not the turned suit
    ("bela2", SEVEN_TURNED, ["H"], {""}),  # the turned card is the 7 of trump
    ("bela2", BELA2, ["pass", "pass", "H"], {""}),
    ("belot2", SWAP_EIGHTS, ["H"], {"keep keep", "swap keep keep", "swap redeal"}),
    ("belot2", FOURS, ["H"], {"redeal", "keep redeal", "keep keep", "swap keep redeal",
                              "swap keep keep"}),
    ("belot2", FOURS, ["pass", "pass", "pass", "pass"], {"redeal", "keep redeal", "keep keep"}),
    # the dealer swaps, then the non-dealer (asked again) may redeal with its four 8s
    ("belot2", EIGHTS_SEVEN, ["H"], {"redeal", "keep keep", "keep swap keep keep",
                                     "keep swap keep redeal"}),
    ("belot2", BELOT2, ["pass", "pass", "VC"], {"keep keep"}),  # asked, though nobody may act
    ("belot2", BELOT2, ["C"], {"keep keep"}),
]


@pytest.mark.parametrize("variant, d, bidding, sequences", EXCHANGE_GOLDEN)
def test_golden_exchanges(variant: str, d: dict[str, object], bidding: list[str],
                          sequences: set[str]) -> None:
    """R32, R35 (docs/RULES.md readings): the engine's exchange sequences after a fixed
    bidding are those of the rule text, pinned."""
    m = new_match(variant)
    rnd = deal(m, d["hands"], **d["extra"])  # type: ignore[arg-type]
    act(m, *bidding)
    before = list(rnd.log)
    hands = [sorted(mask_codes(h)) for h in rnd.hands]
    turned = code(rnd.public["turned"])
    ref = ref_exchanges(variant, hands, turned, rnd.trump_name or "", rnd.raspas)
    assert (engine_exchanges(rnd), ref) == (sequences, sequences)
    assert rnd.log == before and rnd.phase == ("exchange" if sequences != {""} else "play")

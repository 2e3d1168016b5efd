"""Golden counts in the spirit of perft (RULES.md R16-R20).

For a few fixed deals, a fixed trump (called by seat 0, dealer 3, so seat 0 leads) and no
declarations, count the distinct sequences of cards that can be played over the first trick
and over the first two tricks.  Counted: distinct card sequences only; a card played with or
without announcing bela (``KH`` / ``KH*``) is one sequence, and declarations are never made.

The counts are computed twice, by the engine (``legal_actions``/``apply``/``undo``) and by the
small independent implementation of R17-R20 below (on card codes, sharing nothing with the
engine), and are also pinned as golden numbers so that a rules change cannot slip by.
"""

from __future__ import annotations

import pytest
from bela4_helpers import act, deal, new_match

from bela.engine import Play

# -- independent reference rules -------------------------------------------------------------
TRUMP_ORDER = "78QKTA9J"  # R2, weakest first
PLAIN_ORDER = "789JQKTA"  # R3, weakest first


def ref_rank(card: str, trump: str) -> int:
    return (TRUMP_ORDER if card[1] == trump else PLAIN_ORDER).index(card[0])


def ref_legal(hand: list[str], trick: list[str], trump: str) -> set[str]:
    """The cards a hand may play on a trick under R17-R19."""
    if not trick:
        return set(hand)
    led = trick[0][1]
    follow = [c for c in hand if c[1] == led]
    trick_trumps = [c for c in trick if c[1] == trump]
    if follow:
        if led != trump and trick_trumps:
            return set(follow)  # R17 exception: the trick was trumped
        best = max(ref_rank(c, trump) for c in trick if c[1] == led)
        higher = [c for c in follow if ref_rank(c, trump) > best]  # R17 / R19
        return set(higher or follow)
    trumps = [c for c in hand if c[1] == trump]
    if trumps:  # R18
        if trick_trumps:
            best = max(ref_rank(c, trump) for c in trick_trumps)
            higher = [c for c in trumps if ref_rank(c, trump) > best]
            return set(higher or trumps)
        return set(trumps)
    return set(hand)


def ref_winner(trick: list[str], trump: str) -> int:
    """Index of the winning card (R20)."""
    led = trick[0][1]

    def key(i: int) -> tuple[int, int]:
        c = trick[i]
        if c[1] == trump:
            return (2, ref_rank(c, trump))
        if c[1] == led:
            return (1, ref_rank(c, trump))
        return (0, 0)
    return max(range(len(trick)), key=key)


def ref_count(hands: list[list[str]], leader: int, trump: str, tricks: int) -> int:
    hands = [list(h) for h in hands]

    def rec(trick: list[str], seats: list[int], turn: int, left: int) -> int:
        if len(trick) == 4:
            if left == 1:
                return 1
            winner = seats[ref_winner(trick, trump)]
            return rec([], [], winner, left - 1)
        total = 0
        for c in sorted(ref_legal(hands[turn], trick, trump)):
            hands[turn].remove(c)
            total += rec(trick + [c], seats + [turn], (turn + 1) % 4, left)
            hands[turn].append(c)
        return total
    return rec([], [], leader, tricks)


# -- the engine's count -------------------------------------------------------------------------
def engine_count(rnd, cards_left: int) -> int:
    if cards_left == 0:
        return 1
    total = 0
    for a in rnd.legal_actions():
        if isinstance(a, Play) and not a.bela:
            rnd.apply(a)
            total += engine_count(rnd, cards_left - 1)
            rnd.undo()
    return total


DEALS = {
    "suits": ["7H 8H 9H TH 7D 8D 9D TD", "JH QH KH AH JD QD KD AD",
              "7S 8S 9S TS 7C 8C 9C TC", "JS QS KS AS JC QC KC AC"],
    "iber": ["JS 7D 8D 9D TD 7H 8C 9C", "QS AC TC KC QC JC 7C 8H",
             "7S 8S 9S TS JD QD KD AD", "KS AS 9H TH JH QH KH AH"],
    "example": ["JS 7D 8C QC 7H TS KS QH", "QS AC TC KC JD QD 9S AH",
                "AS 9C AD 8H TD KD 8S 9D", "7C 8D JH 9H JC TH 7S KH"],
    "mixed": ["AH KS 9D 7C JH TS QD 8C", "TH QS AD 9C 9H JS KD TC",
              "KH AS 7D JC 8H 9S 8D AC", "QH 8S TD KC 7H 7S JD QC"],
    "shuffled1": ["JH JD 7C 9H JC 9D 9S TC", "QS 8D TS 7D KH 8S QD AD",
                  "QC TH QH 8H AH KD 7H AC", "JS KC 9C KS 8C TD AS 7S"],
    "shuffled2": ["AH JS AS KD TD JD QD TS", "7S TH 7H KH QC 9S TC 8H",
                  "7C AD JC JH 9C QH 8C KC", "QS AC 9H 8S KS 7D 9D 8D"],
}

# (deal, trump) -> (sequences over the first trick, over the first two tricks or None)
GOLDEN = {
    ("suits", "H"): (1536, None),
    ("suits", "C"): (286, None),
    ("iber", "H"): (625, 125673),
    ("iber", "S"): (134, 5100),
    ("example", "D"): (33, 2003),
    ("example", "H"): (27, 1295),
    ("mixed", "H"): (44, 1388),
    ("mixed", "C"): (44, 1324),
    ("shuffled1", "H"): (142, 28580),
    ("shuffled1", "S"): (98, 12148),
    ("shuffled2", "H"): (88, 5182),
    ("shuffled2", "S"): (128, 7416),
}


@pytest.mark.parametrize("name,trump", list(GOLDEN))
def test_r17_r20_golden_counts(name: str, trump: str) -> None:
    """R17-R20: engine count == independent brute force == golden number, over one and two
    tricks."""
    hands = DEALS[name]
    m = new_match()
    rnd = deal(m, hands)
    act(m, trump)
    split = [h.split() for h in hands]
    got: list[int | None] = []
    for tricks in (1, 2):
        if tricks == 2 and GOLDEN[(name, trump)][1] is None:
            got.append(None)  # too many to enumerate quickly
            continue
        ref = ref_count(split, 0, trump, tricks)
        eng = engine_count(rnd, 4 * tricks)
        assert eng == ref, (name, trump, tricks)
        got.append(eng)
    assert rnd.log[-1].token() == trump  # the search left the round as it found it
    assert tuple(got) == GOLDEN[(name, trump)]


def test_reference_rules_agree_with_the_seed_examples() -> None:
    """The reference itself, on the seed texts' examples (R17-R20)."""
    assert ref_legal(["7S", "TS", "AD"], ["8S"], "H") == {"TS"}  # seed 000 iber
    assert ref_legal(["AS", "7S", "KD"], ["8S", "7H"], "H") == {"AS", "7S"}  # seed 000
    assert ref_legal(["7H", "QH", "QS"], ["AH"], "H") == {"7H", "QH"}  # seed 003
    assert ref_legal(["9H", "KH", "TH"], ["AH", "7H"], "H") == {"9H"}  # seed 003
    assert ref_legal(["7S", "8D"], ["AH", "7H", "9H"], "H") == {"7S", "8D"}  # seed 003
    assert ref_legal(["JH", "7H", "QD"], ["7S", "9H"], "H") == {"JH"}  # R18 overtrump
    assert ref_legal(["AH", "7H", "QD"], ["7S", "9H"], "H") == {"AH", "7H"}  # R18 undertrump
    assert ref_winner(["8S", "7H", "AS", "JD"], "H") == 1
    assert ref_winner(["7D", "TD", "AD", "AH"], "S") == 2

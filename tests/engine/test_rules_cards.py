"""bela4 cards, card order and points, seats (RULES.md R1-R5)."""

from __future__ import annotations

import itertools

import pytest
from bela4_helpers import (
    RANKS,
    SUITS,
    act,
    deal,
    legal_cards,
    new_match,
    random_finish,
    refused,
)

from bela.engine import Card, CardSet, InvalidDeal

# Independent tables (RULES.md), weakest first.
TRUMP_LOW_TO_HIGH = ["7", "8", "Q", "K", "T", "A", "9", "J"]  # R2
PLAIN_LOW_TO_HIGH = ["7", "8", "9", "J", "Q", "K", "T", "A"]  # R3
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}  # R2
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}  # R3


# -- R1 ---------------------------------------------------------------------------------------
def test_r1_pack_has_32_distinct_cards() -> None:
    """R1: 32 cards, four suits H D S C, ranks 7 8 9 10 J Q K A."""
    names = {str(c) for c in Card.ALL}
    assert len(Card.ALL) == 32 and len(names) == 32
    assert names == {r + s for r in RANKS for s in SUITS}


def test_r1_card_codes_parse() -> None:
    """R1 (RECORD.md card codes): 10 for T, suit symbols, any case."""
    assert Card.parse("10H th T♥ t♡") == (Card.from_code("TH"),) * 4
    assert [str(c) for c in Card.parse("J♦ q♠ a♣ 7h")] == ["JD", "QS", "AC", "7H"]
    assert len(CardSet.parse("7H 8H 9H TH JH QH KH AH")) == 8
    with pytest.raises(ValueError):
        Card.from_code("6H")
    with pytest.raises(ValueError):
        Card.from_code("JX")


def test_r1_a_deal_uses_the_32_cards_once() -> None:
    """R1, R6: a bela4 deal is 4 hands of 8 distinct cards of the pack."""
    m = new_match()
    good = ["7H 8H 9H TH JH QH KH AH", "7D 8D 9D TD JD QD KD AD",
            "7S 8S 9S TS JS QS KS AS", "7C 8C 9C TC JC QC KC AC"]
    with pytest.raises(InvalidDeal):
        deal(m, [good[0], good[0], good[2], good[3]])  # duplicate cards
    with pytest.raises(InvalidDeal):
        deal(m, [good[0][:-3], good[1], good[2], good[3]])  # 7 cards
    with pytest.raises(InvalidDeal):
        deal(m, good[:3])  # 3 hands
    assert m.rounds == []
    rnd = deal(m, good)
    assert sum(len(h) for h in rnd.deal.hands) == 32


# -- R2 / R3: order and points, checked on real tricks ----------------------------------------
def _pair_trick(trump: str, led: str, a: str, b: str) -> tuple[int, list[int]]:
    """Seat 0 leads ``a`` (suit ``led``), seat 1 plays ``b`` (its only card of that suit);
    seats 2 and 3 hold neither the led suit nor trump and discard 0-point cards.
    Return the trick winner and the card points after the trick."""
    others = [s for s in SUITS if s not in (trump, led)]
    led_cards = [r + led for r in RANKS]
    trump_cards = [r + trump for r in RANKS] if led != trump else []
    s0 = [a] + [c for c in led_cards if c not in (a, b)]
    s1 = [b]
    pool0 = [r + o for o in others for r in "789"]  # zero-point discards for seats 2, 3
    rest = [r + o for o in others for r in "TJQKA"]
    if led == trump:
        s0.append(rest.pop())
        s1 += rest[:7]
        rest = rest[7:]
    else:
        s0.append(trump_cards.pop())
        s1 += trump_cards
    s2 = pool0[:4] + rest[:4]
    s3 = pool0[4:] + rest[4:]
    assert sorted(s0 + s1 + s2 + s3) == sorted(r + s for r in RANKS for s in SUITS)
    m = new_match()
    rnd = deal(m, [" ".join(h) for h in (s0, s1, s2, s3)])
    act(m, trump, a, b)
    act(m, s2[0])
    act(m, s3[0])
    winner = rnd.tricks[0][2]
    assert rnd.turn == winner  # R16: the winner leads next
    return winner, list(rnd.card_points)


@pytest.mark.parametrize("trump", ["H", "C"])
def test_r2_trump_order_and_points(trump: str) -> None:
    """R2: trump order J 9 A 10 K Q 8 7 and points 20 14 11 10 4 3 0 0, on every pair."""
    for ra, rb in itertools.permutations(RANKS, 2):
        winner, pts = _pair_trick(trump, trump, ra + trump, rb + trump)
        expected = 0 if TRUMP_LOW_TO_HIGH.index(ra) > TRUMP_LOW_TO_HIGH.index(rb) else 1
        assert winner == expected, (ra, rb)
        value = TRUMP_POINTS[ra] + TRUMP_POINTS[rb]
        assert pts == ([value, 0] if expected == 0 else [0, value]), (ra, rb)


@pytest.mark.parametrize("trump,led", [("H", "S"), ("D", "C")])
def test_r3_plain_order_and_points(trump: str, led: str) -> None:
    """R3: non-trump order A 10 K Q J 9 8 7 and points 11 10 4 3 2 0 0 0, on every pair."""
    for ra, rb in itertools.permutations(RANKS, 2):
        winner, pts = _pair_trick(trump, led, ra + led, rb + led)
        expected = 0 if PLAIN_LOW_TO_HIGH.index(ra) > PLAIN_LOW_TO_HIGH.index(rb) else 1
        assert winner == expected, (ra, rb)
        value = PLAIN_POINTS[ra] + PLAIN_POINTS[rb]
        assert pts == ([value, 0] if expected == 0 else [0, value]), (ra, rb)


def test_r3_any_trump_beats_any_non_trump() -> None:
    """R3: the 7 of trump beats the ace of a non-trump suit."""
    m = new_match()
    rnd = deal(m, ["AS KS 7D 8D 9D 7C 8C 9C", "7H 8H 9H TH JH QH KH AH",
                   "7S 8S 9S TS JS QS AD TD", "KD QD JD AC TC KC QC JC"])
    act(m, "H", "AS")
    assert legal_cards(rnd) == {"7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"}  # R18
    act(m, "7H", "7S", "JD")
    assert rnd.tricks[0][2] == 1
    assert rnd.card_points == [0, 11 + 0 + 0 + 2]


@pytest.mark.parametrize("seed", range(4))
def test_r3_full_pack_is_152_plus_10(seed: int) -> None:
    """R3: the card points of a fully played round are 152 + 10 for the last trick = 162."""
    m = new_match()
    hands = ["7H 8H 9H TH JH QH KH AH", "7D 8D 9D TD JD QD KD AD",
             "7S 8S 9S TS JS QS KS AS", "7C 8C 9C TC JC QC KC AC"]
    hands = [" ".join(h.split()[i] for h in hands) + " " + " ".join(h.split()[i + 4] for h in hands)
             for i in range(4)]
    rnd = deal(m, hands)
    act(m, "HDSC"[seed])
    random_finish(m, seed)
    assert sum(rnd.card_points) == 162
    pts = 0
    trump = "HDSC"[seed]
    for _, cs, _ in rnd.tricks:
        for c in cs:
            code = str(c)
            pts += (TRUMP_POINTS if code[1] == trump else PLAIN_POINTS)[code[0]]
    assert pts == 152


# -- R4 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("run,ok", [
    ("7H 8H 9H", True), ("9H TH JH", True), ("TH JH QH", True), ("QH KH AH", True),
    ("JH QH KH AH", True), ("JH 9H AH", False), ("KH AH 7H", False), ("8H TH JH", False),
])
def test_r4_sequence_order(run: str, ok: bool) -> None:
    """R4: sequences follow A K Q J 10 9 8 7 (not the trump order, no wrap-around)."""
    held = set(run.split())
    filler = "7S 9S JS KS 7D 9D JD KD 7C 9C JC KC AS AD".split()
    s0 = sorted(held) + filler[: 8 - len(held)]
    rest = [r + s for s in SUITS for r in RANKS if r + s not in s0]
    hands = [" ".join(s0)] + [" ".join(rest[i * 8:(i + 1) * 8]) for i in range(3)]
    m = new_match()
    deal(m, hands)
    act(m, "S")
    if ok:
        act(m, "declare " + run)
        assert m.round.declared[0] is not None and len(m.round.declared[0]) == 1
    else:
        refused(m, "declare " + run, "R8")


# -- R5 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", range(4))
def test_r5_first_seat_is_dealer_plus_one_and_turns_go_up(dealer: int) -> None:
    """R5: seat dealer+1 bids first and leads; turns pass from seat i to seat i+1 (mod 4)."""
    m = new_match(first_dealer=dealer)
    rnd = deal(m, ["7H 8H 9H TH JH QH KH AH", "7D 8D 9D TD JD QD KD AD",
                   "7S 8S 9S TS JS QS KS AS", "7C 8C 9C TC JC QC KC AC"])
    first = (dealer + 1) % 4
    assert rnd.dealer == dealer and rnd.first == first and rnd.turn == first
    order = [rnd.turn]
    for _ in range(3):
        act(m, "pass")
        order.append(rnd.turn)
    assert order == [(first + i) % 4 for i in range(4)]
    assert order[-1] == dealer
    act(m, "D")
    assert rnd.turn == first  # R16: the first seat leads
    seen = []
    for _ in range(4):
        seen.append(rnd.turn)
        act(m, sorted(legal_cards(rnd))[0])
    assert seen == [(first + i) % 4 for i in range(4)]

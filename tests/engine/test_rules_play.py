"""bela4 play duties and trick winners (RULES.md R16-R20).

Unless said otherwise: dealer 3, seat 0 calls hearts (trump) and leads; seats 0+2 against 1+3.
"""

from __future__ import annotations

import pytest
from bela4_helpers import ANY_RULE, act, deal, legal_cards, new_match, random_finish, refused

HEARTS = {r + "H" for r in "789TJQKA"}


def start(hands: list[str], trump: str = "H", *plays: str):
    m = new_match()
    rnd = deal(m, hands)
    act(m, trump, *plays)
    return m, rnd


# Seat 1: 7S TS + no hearts; seat 2: JS QS KS AS; seat 3: all hearts.
IBER = ["8S 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
        "JS QS KS AS QD JD QC JC", "7H 8H 9H TH JH QH KH AH"]


# -- R16 ----------------------------------------------------------------------------------------
def test_r16_first_seat_leads_whoever_called() -> None:
    """R16: the first seat leads the first trick even when another seat called."""
    m = new_match()
    rnd = deal(m, IBER)
    act(m, "pass", "pass", "S")
    assert rnd.caller == 2 and rnd.turn == 0


def test_r16_winner_leads_next_trick() -> None:
    """R16/R20: the winner of each trick leads the next."""
    m, rnd = start(IBER, "H", "8S", "TS", "AS", "7H")
    assert rnd.tricks[0][2] == 3 and rnd.turn == 3
    m, rnd = start(IBER, "C", "8S", "TS", "AS")
    act(m, sorted(legal_cards(rnd))[0])
    assert rnd.tricks[0][2] == 2 and rnd.turn == 2
    random_finish(m, 1)
    for i in range(1, 8):
        assert rnd.tricks[i][0][0] == rnd.tricks[i - 1][2]


def test_r16_only_the_seat_to_play_plays() -> None:
    """R16: a card that is not in the hand of the seat to play is refused."""
    m, rnd = start(IBER)
    refused(m, "TS", ANY_RULE)  # seat 1's card while seat 0 is to lead
    assert rnd.turn == 0


# -- R17 ----------------------------------------------------------------------------------------
def test_r17_must_follow_suit() -> None:
    """R17: follow suit if you can."""
    m, rnd = start(IBER, "H", "8S")
    exc = refused(m, "AD", "R17")
    assert set(exc.legal) == {"TS"}


def test_r17_must_overtake_led_suit() -> None:
    """R17 (iber): following, beat the highest card of the led suit if you can."""
    m, rnd = start(IBER, "H", "8S")
    assert legal_cards(rnd) == {"TS"}
    refused(m, "7S", "R17")
    act(m, "TS")
    assert legal_cards(rnd) == {"AS"}  # only A beats 10 (R3)
    refused(m, "KS", "R17")


def test_r17_overtake_the_highest_card_not_the_lead() -> None:
    """R17: the card to beat is the highest of the led suit in the trick."""
    hands = ["8S 7D 8D 9D 7C 8C 9C AD", "KS 7S TD KD AC TC KC QD",
             "QS TS 9S JS JD QC JC AS", "7H 8H 9H TH JH QH KH AH"]
    m, rnd = start(hands, "H", "8S")
    assert legal_cards(rnd) == {"KS"}  # 7S does not beat 8S
    act(m, "KS")
    assert legal_cards(rnd) == {"TS", "AS"}  # must beat K, not just 8
    refused(m, "QS", "R17")
    refused(m, "9S", "R17")


def test_r17_cannot_overtake_any_card_of_suit() -> None:
    """R17: holding no card that beats the trick, any card of the led suit."""
    hands = ["AS 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
             "JS QS KS 8S QD JD QC JC", "7H 8H 9H TH JH QH KH AH"]
    m, rnd = start(hands, "H", "AS")
    assert legal_cards(rnd) == {"7S", "TS"}
    act(m, "7S")
    assert legal_cards(rnd) == {"JS", "QS", "KS", "8S"}


def test_r17_overtake_even_when_partner_wins() -> None:
    """R17: the duty to beat applies even when the partner holds the trick."""
    hands = ["TS 9S 7D 8D 9D 7C 8C 9C", "7S 8S AD TD KD AC TC KC",
             "AS QS KS JS QD JD QC JC", "7H 8H 9H TH JH QH KH AH"]
    m, rnd = start(hands, "H", "TS", "7S")
    assert legal_cards(rnd) == {"AS"}


def test_r17_no_overtake_after_trick_trumped() -> None:
    """R17 exception: non-trump led and already trumped: only follow suit."""
    hands = ["8S 9S 7D 8D 9D 7C 8C 9C", "7H 8H 9H TH AD TD KD AC",
             "AS 7S KS QS QD JD QC JC", "JS TS JH QH KH AH TC KC"]
    m, rnd = start(hands, "H", "8S", "7H")
    assert legal_cards(rnd) == {"AS", "7S", "KS", "QS"}
    act(m, "7S")
    assert legal_cards(rnd) == {"JS", "TS"}  # seat 3 follows suit; no trump, no duty to beat


def test_r17_trump_led_is_overtaken_within_trump() -> None:
    """R17/R19: when trump is led, follow with a higher trump if you can."""
    hands = ["9H 7D 8D 9D 7C 8C 9C AD", "JH 7H TD KD AC TC KC QD",
             "AH TH 8S 9S TS JS JD QC", "8H QH KH QS KS AS 7S JC"]
    m, rnd = start(hands, "H", "9H")
    assert legal_cards(rnd) == {"JH"}
    refused(m, "7H", "R19")
    refused(m, "TD", "R17")
    act(m, "JH")
    assert legal_cards(rnd) == {"AH", "TH"}  # nothing beats J: any trump
    refused(m, "8S", "R17")


# -- R18 ----------------------------------------------------------------------------------------
def test_r18_void_must_trump() -> None:
    """R18: with no card of the led suit, play a trump."""
    m, rnd = start(IBER, "H", "8S", "TS", "AS")
    assert legal_cards(rnd) == HEARTS


def test_r18_must_trump_even_if_partner_wins() -> None:
    """R18: the duty to trump holds even when the partner is winning the trick."""
    hands = ["AS 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
             "7H 8H 9H TH JD QD QC JC", "JH QH KH AH 8S JS QS KS"]
    m, rnd = start(hands, "H", "AS", "7S")
    assert legal_cards(rnd) == {"7H", "8H", "9H", "TH"}
    refused(m, "JD", "R18")


def test_r18_must_overtrump() -> None:
    """R18: when the trick already holds a trump, beat the highest trump if you can."""
    hands = ["7S 9S 7D 8D 9D 7C 8C 8S", "9H 8H AD TD KD AC TC KC",
             "JH 7H QD JD QC JC 9C TH", "AS KS QS JS TS AH KH QH"]
    m, rnd = start(hands, "H", "7S", "9H")
    assert legal_cards(rnd) == {"JH"}
    refused(m, "7H", "R18")
    refused(m, "TH", "R18")
    refused(m, "QD", "R18")


def test_r18_undertrump_when_cannot_overtrump() -> None:
    """R18: unable to beat the highest trump: any trump (still a trump)."""
    hands = ["7S 9S 7D 8D 9D 7C 8C 8S", "JH 8H AD TD KD AC TC KC",
             "AH 7H QD JD QC JC 9C TH", "AS KS QS JS TS 9H KH QH"]
    m, rnd = start(hands, "H", "7S", "JH")
    assert legal_cards(rnd) == {"AH", "7H", "TH"}
    refused(m, "QD", "R18")


def test_r18_single_low_trump_must_be_played() -> None:
    """R18: void in the led suit with one low trump: that trump, not a discard."""
    hands = ["7S 9S 7D 8D 9D 7C 8C 8S", "JH 8H AD TD KH AC 7H KC",
             "QD JD QC JC 9C TC KD AH", "AS KS QS JS TS 9H TH QH"]
    m, rnd = start(hands, "H", "7S", "JH")
    assert legal_cards(rnd) == {"AH"}
    refused(m, "QD", "R18")
    act(m, "AH")
    assert legal_cards(rnd) == {"AS", "KS", "QS", "JS", "TS"}  # seat 3 follows suit


def test_r18_void_without_trump_plays_anything() -> None:
    """R18: a seat void in the led suit and in trump may play any card."""
    hands = ["7S 9S 8S 7D 8D 9D TD JD", "QD KD AD 7C 8C 9C TC JC",
             "QC KC AC AS KS QS JS TS", "7H 8H 9H TH JH QH KH AH"]
    m, rnd = start(hands, "H", "7D")
    assert legal_cards(rnd) == {"QD", "KD", "AD"}
    act(m, "AD")
    assert legal_cards(rnd) == set(hands[2].split())  # no diamond, no heart


# -- R19 ----------------------------------------------------------------------------------------
def test_r19_trump_led_must_play_higher_trump() -> None:
    """R19: trump led: play a higher trump if you can (J beats 9)."""
    hands = ["9H 7D 8D 9D 7C 8C 9C AD", "JH 7H TD KD AC TC KC QD",
             "AH TH 8S 9S TS JS JD QC", "8H QH KH QS KS AS 7S JC"]
    m, rnd = start(hands, "H", "9H")
    assert legal_cards(rnd) == {"JH"}


def test_r19_trump_led_no_higher_any_trump() -> None:
    """R19: unable to beat the trump lead: any trump."""
    hands = ["JH 7D 8D 9D 7C 8C 9C AD", "9H 7H TD KD AC TC KC QD",
             "AH TH 8S 9S TS JS JD QC", "8H QH KH QS KS AS 7S JC"]
    m, rnd = start(hands, "H", "JH")
    assert legal_cards(rnd) == {"9H", "7H"}


def test_r19_trump_led_void_in_trump_plays_anything() -> None:
    """R19: trump led and no trump in hand: any card."""
    hands = ["JH 9H AH TH KH QH 8H 7H", "7D 8D 9D TD JD QD KD AD",
             "7S 8S 9S TS JS QS KS AS", "7C 8C 9C TC JC QC KC AC"]
    m, rnd = start(hands, "H", "7H")
    assert legal_cards(rnd) == set(hands[1].split())


def test_r19_must_beat_highest_trump_in_trick() -> None:
    """R19: the trump to beat is the highest so far, not the lead."""
    hands = ["7H 7D 8D 9D 7C 8C 9C AD", "AH 8H TD KD AC TC KC QD",
             "TH 9H 8S 9S TS JS JD QC", "JH QH KH QS KS AS 7S JC"]
    m, rnd = start(hands, "H", "7H", "AH")
    assert legal_cards(rnd) == {"9H"}  # TH beats 7H but not AH
    refused(m, "TH", "R19")


# -- R20 ----------------------------------------------------------------------------------------
def test_r20_highest_trump_wins() -> None:
    """R20: the highest trump wins the trick."""
    hands = ["7S 9S 7D 8D 9D 7C 8C 8S", "JH 8H AD TD KD AC TC KC",
             "AH 7H QD JD QC JC 9C TH", "AS KS QS JS TS 9H KH QH"]
    m, rnd = start(hands, "H", "7S", "JH", "7H", "AS")
    assert rnd.tricks[0][2] == 1
    assert rnd.card_points == [0, 0 + 20 + 0 + 11]


def test_r20_no_trump_highest_of_led_suit_wins() -> None:
    """R20: with no trump in the trick the highest card of the led suit wins; a higher
    card of another suit does not."""
    hands = ["7D 8D 9D JD QD KD 7C 8C", "TD AS KS QS JS TS 9S 8S",
             "AD 9C TC JC QC KC AC 7S", "7H 8H 9H TH JH QH KH AH"]
    m, rnd = start(hands, "S", "7D", "TD", "AD")
    act(m, "AH")  # seat 3: void in diamonds and in spades (trump): any card
    assert rnd.tricks[0][2] == 2
    assert rnd.card_points == [0 + 10 + 11 + 11, 0]


@pytest.mark.parametrize("seed", range(3))
def test_r20_trick_winner_matches_independent_rule(seed: int) -> None:
    """R20: on random rounds every trick goes to the highest trump, else the highest card
    of the led suit (independent order tables)."""
    trump_order = "78QKTA9J"
    plain_order = "789JQKTA"
    m = new_match()
    hands = ["7H 8H 9H TH 7D 8D 9D TD", "JH QH KH AH JD QD KD AD",
             "7S 8S 9S TS 7C 8C 9C TC", "JS QS KS AS JC QC KC AC"]
    rnd = deal(m, hands)
    trump = "HDSC"[seed]
    act(m, trump)
    random_finish(m, seed)
    for seats, cs, winner in rnd.tricks:
        codes = [str(c) for c in cs]
        led = codes[0][1]

        def key(code: str, led: str = led) -> tuple[int, int]:
            if code[1] == trump:
                return (2, trump_order.index(code[0]))
            if code[1] == led:
                return (1, plain_order.index(code[0]))
            return (0, 0)
        best = max(range(4), key=lambda i: key(codes[i]))
        assert seats[best] == winner

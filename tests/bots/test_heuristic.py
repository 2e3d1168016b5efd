"""The heuristic bot (bela4): always legal, announces, bids by strength, plays with sense."""

from __future__ import annotations

import random
import time

import pytest

from bela.bots import BOTS, make_bot
from bela.bots.heuristic import HeuristicBot
from bela.engine import Call, Card, Declare, Match, Pass, Play
from bela.engine.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from bela.engine.variants.bela4 import BELA4
from bela.engine.views import seat_view


def cards(text: str) -> list[int]:
    return [int(c) for c in Card.parse(text)]


def deal_with(first6: str, seat: int = 0) -> list[list[int]]:
    """A full bela4 deal where ``seat`` sees ``first6`` before bidding; the rest in order."""
    mine = cards(first6)
    rest = [c for c in range(32) if c not in mine]
    hands: list[list[int]] = []
    for s in range(4):
        if s == seat:
            hands.append(mine + rest[:2])
            rest = rest[2:]
        else:
            hands.append(rest[:8])
            rest = rest[8:]
    return hands


def table(hands: list[str]) -> Match:
    m = Match("bela4", options={"target": 5001}, first_dealer=3)
    m.deal(hands=[cards(h) for h in hands])
    return m


def bot_act(m: Match, seed: int = 0):  # type: ignore[no-untyped-def]
    view = seat_view(m, m.round.turn)  # type: ignore[union-attr]
    action = HeuristicBot(seed).act(view)
    assert action in view.legal
    return action


def bot_play(m: Match, seed: int = 0) -> Play:
    """The bot's card (its declarations, if it makes any first, are applied)."""
    action = bot_act(m, seed)
    if isinstance(action, Declare):
        m.apply(action)
        action = bot_act(m, seed)
    assert isinstance(action, Play)
    return action


def test_registered() -> None:
    assert "heuristic" in BOTS
    assert make_bot("heuristic", 3).name == "heuristic"


def _play_rounds(names: list[str], rounds: int, seed: int,
                 options: dict[str, object] | None = None) -> list[Match]:
    rng = random.Random(seed)
    matches = []
    for i in range(rounds):
        m = Match("bela4", options={"target": 5001, **(options or {})}, first_dealer=3)
        rnd = m.deal(hands=BELA4.shuffle(rng, 3).hands)
        bots = [make_bot(names[(s + i) % len(names)], seed * 1000 + i * 4 + s) for s in range(4)]
        while not rnd.is_over:
            seat = rnd.turn
            view = seat_view(m, seat)
            action = bots[seat].act(view)
            assert action in view.legal, (action, view.legal)
            if bots[seat].name == "heuristic":
                declares = [a for a in view.legal if isinstance(a, Declare)]
                if declares:  # R13: everything is announced
                    assert isinstance(action, Declare)
                    assert len(action.groups) == max(len(d.groups) for d in declares)
                if isinstance(action, Play) and Play(action.card, True) in view.legal:
                    assert action.bela  # R14: bela is always announced
            m.apply(action)
        matches.append(m)
    return matches


@pytest.mark.parametrize("names", [["heuristic"], ["heuristic", "random"],
                                   ["heuristic", "heuristic", "random", "random"]])
def test_only_legal_actions_in_full_rounds(names: list[str]) -> None:
    for m in _play_rounds(names, 120, seed=len(names)):
        rnd = m.round
        assert rnd is not None and rnd.is_over and rnd.result is not None


def test_follows_the_duties_with_enforce_off() -> None:
    """With enforce = off every card is legal; the bot still follows R17-R19."""
    for m in _play_rounds(["heuristic"], 40, seed=9, options={"enforce": "off"}):
        rnd = m.round
        assert rnd is not None and rnd.revoked == [None] * rnd.variant.seats


def test_fast() -> None:
    rng = random.Random(1)
    bots = [HeuristicBot(s) for s in range(4)]
    n = 0
    spent = 0.0
    for _ in range(30):
        m = Match("bela4", options={"target": 5001}, first_dealer=3)
        rnd = m.deal(hands=BELA4.shuffle(rng, 3).hands)
        while not rnd.is_over:
            view = seat_view(m, rnd.turn)
            start = time.perf_counter()
            action = bots[rnd.turn].act(view)
            spent += time.perf_counter() - start
            n += 1
            m.apply(action)
    assert spent / n < 0.002  # typically ~0.05 ms


def test_deterministic() -> None:
    a = _play_rounds(["heuristic"], 10, seed=4)
    b = _play_rounds(["heuristic"], 10, seed=4)
    assert [m.round.log for m in a] == [m.round.log for m in b]  # type: ignore[union-attr]


# -- bidding (R7) ----------------------------------------------------------------------------

@pytest.mark.parametrize("first6, suit", [
    ("JH 9H AH TH AS AD", HEARTS),
    ("JS 9S AS TS 7C 8D", SPADES),
    ("JC 9C AC TC KC QC", CLUBS),
    ("JD 9D TD 8D AH AS", DIAMONDS),
])
def test_calls_a_very_strong_suit(first6: str, suit: int) -> None:
    m = Match("bela4", options={"target": 5001}, first_dealer=3)
    m.deal(hands=deal_with(first6, 0))
    assert bot_act(m) == Call(suit)


@pytest.mark.parametrize("first6", ["7H 8D 7S 8C 9D 7C", "8H QD 7S 8S KC 7D"])
def test_passes_a_very_weak_hand(first6: str) -> None:
    m = Match("bela4", options={"target": 5001}, first_dealer=3)
    m.deal(hands=deal_with(first6, 0))
    assert bot_act(m) == Pass()


def test_dealer_must_call() -> None:
    m = Match("bela4", options={"target": 5001}, first_dealer=3)
    m.deal(hands=deal_with("7H 8D 7S QC KC 7C", 3))
    for _ in range(3):
        m.apply(Pass())
    action = bot_act(m)
    assert action == Call(CLUBS)  # R7 "mus": the best suit of a weak hand


# -- declarations and bela (R13, R14) --------------------------------------------------------

def test_announces_all_declarations() -> None:
    m = table(["9H TH JH AS AC AD AH 7C", "7H 8H QH KH 7S 8S 9S TS",
               "JS QS KS 7D 8D 9D TD JD", "QD KD 8C 9C TC JC QC KC"])
    m.apply(Call(SPADES))
    action = bot_act(m)
    assert isinstance(action, Declare) and len(action.groups) == 2
    m.apply(action)
    assert isinstance(bot_act(m), Play)


def test_announces_bela() -> None:
    # Seat 1 holds K and Q of trump and must beat the 7 of trump with one of them.
    m = table(["7H 8H 9S TS JS AC AD 7C", "KH QH 8S 7S 9D 8C 9C TC",
               "JH 9H AH TH QS KS AS TD", "JD QD KD 7D 8D JC QC KC"])
    m.apply(Call(HEARTS))
    m.apply(Play(Card.SEVEN_H))
    action = bot_play(m)
    assert action.card in (Card.KH, Card.QH) and action.bela


# -- card play -------------------------------------------------------------------------------

# Seat 0 calls hearts; seat 3 has neither spades nor hearts.
SCHMEAR_DEAL = ["7S JH 9H AH TH KH 7D 8D", "AS QS KS 8H 7H AD 9D JD",
                "8S 9S TS JS QH AC TC KC", "TD 7C 8C 9C KD QD JC QC"]


def test_gives_a_ten_to_the_partner_winning_on_the_last_seat() -> None:
    m = table(SCHMEAR_DEAL)
    m.apply(Call(HEARTS))
    for code in ("7S", "AS", "8S"):  # seat 1 (the bot's partner) wins with the ace
        m.apply(Play(Card.from_code(code)))
    assert bot_play(m) == Play(Card.TD)


def test_gives_points_to_a_partner_that_surely_wins_before_the_last_seat() -> None:
    m = table(["JH 9H 8H KH AH QH 7S 8S", "TH 7H AS QS AD 9D JD KS",
               "7D 8D 9S TS JS AC TC KC", "TD 7C 8C 9C KD QD JC QC"])
    m.apply(Call(HEARTS))
    m.apply(Play(Card.JH))  # nothing beats the jack of trump
    m.apply(Play(Card.SEVEN_H))
    assert bot_play(m).card in (Card.TS, Card.TC, Card.AC)


def test_ducks_to_an_unbeatable_trump() -> None:
    m = table(["JH 9H 8H KH 7D 8D 7S 8S", "TH 7H AS QS AD 9D JD KS",
               "AH QH 9S TS JS AC TC KC", "TD 7C 8C 9C KD QD JC QC"])
    m.apply(Call(HEARTS))
    m.apply(Play(Card.JH))  # nothing beats the jack of trump
    assert bot_play(m) == Play(Card.SEVEN_H)  # not the ten


def test_ducks_the_cheapest_card_to_an_opponent() -> None:
    # Seat 3 can neither follow nor trump; the opponents' ace of spades wins.
    m = table(["AS JH 9H AH TH KH 7D 8D", "7S QS KS 8H 7H AD 9D JD",
               "8S 9S TS JS QH AC TC KC", "TD 7C 8C 9C KD QD JC QC"])
    m.apply(Call(HEARTS))
    for code in ("AS", "7S", "8S"):
        m.apply(Play(Card.from_code(code)))
    assert bot_play(m) == Play(Card.SEVEN_C)


def test_wins_cheaply_without_wasting_the_jack() -> None:
    # Seat 3 has no spades and must trump: the 7 of trump wins as well as the jack.
    m = table(["7S 8H 9H AH TH KH 7D 8D", "AS QS KS QH 9D AD TD JD",
               "8S 9S TS JS 8C AC TC KC", "JH 7H 7C 9C KD QD JC QC"])
    m.apply(Call(HEARTS))
    for code in ("7S", "AS", "8S"):
        m.apply(Play(Card.from_code(code)))
    assert bot_play(m) == Play(Card.SEVEN_H)


def test_caller_draws_trumps_with_the_jack() -> None:
    m = table(["JH 7H 8H AS 7D 8D 9C 7C", "9H AH 8S 7S 9D TD 8C TC",
               "TH KH QH 9S TS AD JC QC", "JS QS KS JD QD KD AC KC"])
    m.apply(Call(HEARTS))
    assert bot_play(m) == Play(Card.JH)


def test_defender_leads_a_side_ace() -> None:
    m = table(["AS 7S 7D 8D 7C 8C 9C 8S", "JH 9H AH TH 9D TD TC JC",
               "KH QH 8H 9S TS JS AD QC", "7H JS QS KS JD QD KD AC"][:3]
              + ["7H QS KS JD QD KD AC KC"])
    m.apply(Pass())
    m.apply(Call(HEARTS))  # seat 1 calls; seat 0 (a defender) leads
    assert bot_play(m) == Play(Card.AS)

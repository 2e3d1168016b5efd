"""The heuristic bot in bela3, bela2 and belot2: always legal, and variant sense (R26-R37)."""

from __future__ import annotations

from collections import Counter

import pytest

from bela.bots import make_bot
from bela.bots.contracts import estimate
from bela.bots.heuristic import HeuristicBot, _Play
from bela.engine import Call, Card, CardSet, Declare, Match, Pass, Play, parse_action
from bela.engine.actions import DECLINE, REDEAL, SWAP, Discard
from bela.engine.rules import ALL_TRUMPS, NO_TRUMPS
from bela.engine.variants import VARIANTS
from bela.engine.views import seat_view

FIRST_DEALER = {"bela4": 3, "bela3": 2, "bela2": 1, "belot2": 1}  # seat 0 is first


def cards(text: str) -> list[int]:
    return [int(c) for c in Card.parse(text)]


def mask(text: str) -> int:
    return CardSet.parse(text).mask


def new_deal(variant: str, fixed: dict[int, str], **extra: str) -> Match:
    """A deal with the given seats' cards (in the order received) and face-up / extra cards;
    every other card in a fixed order."""
    v = VARIANTS[variant]
    used = {c for text in [*fixed.values(), *extra.values()] for c in cards(text)}
    rest = [c for c in range(32) if c not in used]
    hands = []
    for s in range(v.seats):
        if s in fixed:
            hands.append(cards(fixed[s]))
        else:
            hands.append(rest[:v.hand_cards])
            rest = rest[v.hand_cards:]
    ex = {k: cards(t) for k, t in extra.items()}
    for key in v.deal_keys:
        if key not in ex:
            n = 2 if key == "extra" else 1
            ex[key], rest = rest[:n], rest[n:]
    m = Match(variant, options={"target": 5001}, first_dealer=FIRST_DEALER[variant])
    m.deal(hands=hands, extra=ex)
    return m


def bot_act(m: Match):  # type: ignore[no-untyped-def]
    view = seat_view(m, m.round.turn)  # type: ignore[union-attr]
    action = HeuristicBot(0).act(view)
    assert action in view.legal, (action, view.legal)
    return action


def apply(m: Match, *tokens: str) -> None:
    for t in tokens:
        m.apply(parse_action(t))


# -- always legal ----------------------------------------------------------------------------

def play_rounds(variant: str, rounds: int, seed: int, passes: int = 0) -> Counter[str]:
    """Rounds with heuristic bots (and random ones in every other round); every action must be
    legal.  ``passes`` forces that many passes first (belot2: 4 gives raspas).  Returns the
    kinds of decisions the heuristic made."""
    seats = VARIANTS[variant].seats
    made: Counter[str] = Counter()
    for i in range(rounds):
        m = Match(variant, options={"target": 5001}, seed=seed * 1000 + i,
                  first_dealer=FIRST_DEALER[variant])
        rnd = m.deal()
        for _ in range(passes):
            m.apply(Pass())
        names = ["heuristic"] * seats if i % 2 else ["heuristic", *["random"] * (seats - 1)]
        bots = [make_bot(names[(s + i) % seats], i * 4 + s) for s in range(seats)]
        while not rnd.is_over:
            seat = rnd.turn
            view = seat_view(m, seat)
            action = bots[seat].act(view)
            assert action in view.legal, (variant, view.phase, action, view.legal)
            if bots[seat].name == "heuristic":
                made[f"{view.phase}:{type(action).__name__}{':raspas' * view.raspas}"] += 1
                declares = [a for a in view.legal if isinstance(a, Declare)]
                if declares:  # R13: everything is announced
                    assert isinstance(action, Declare)
                if isinstance(action, Play) and Play(action.card, True) in view.legal:
                    assert action.bela  # R14, R37: bela is always announced
            m.apply(action)
        made[f"outcome:{rnd.result.outcome}"] += 1  # type: ignore[union-attr]
    return made


@pytest.mark.parametrize("variant, needed", [
    ("bela3", {"bidding:Call", "discard:Discard", "play:Play", "play:Declare"}),
    ("bela2", {"bidding:Call", "bidding:Pass", "exchange:Swap", "play:Play", "play:Declare"}),
    ("belot2", {"bidding:Call", "bidding:Pass", "exchange:Swap", "play:Play", "play:Declare"}),
])
def test_legal_in_every_phase(variant: str, needed: set[str]) -> None:
    made = play_rounds(variant, 80, seed=1)
    assert needed <= set(made), made


def test_legal_in_raspas() -> None:
    made = play_rounds("belot2", 40, seed=2, passes=4)
    assert made["outcome:raspas"] + made["outcome:redeal"] == 40
    assert made["play:Play:raspas"] > 0
    assert not any(k.startswith("play:Declare") for k in made)  # R37: none in raspas


def test_bela4_still_legal() -> None:
    made = play_rounds("bela4", 20, seed=3)
    assert made["play:Play"] > 0


def test_deterministic() -> None:
    def logs(variant: str) -> list[list[str]]:
        out = []
        for i in range(6):
            m = Match(variant, options={"target": 5001}, seed=i)
            rnd = m.deal()
            bot = HeuristicBot(i)
            while not rnd.is_over:
                m.apply(bot.act(seat_view(m, rnd.turn)))
            out.append([a.token() for a in rnd.log])
        return out

    for variant in ("bela3", "bela2", "belot2"):
        assert logs(variant) == logs(variant)


# -- bela3: the call on 6 cards (R26) and the discards (R27) ---------------------------------

def test_bela3_first_seat_calls_its_best_suit() -> None:
    m = new_deal("bela3", {0: "7S 8D JC 9C AC TC AH KH QS 8S"})
    assert bot_act(m) == Call(3)  # clubs: J 9 A 10 among the first 6


def test_bela3_discards_keep_trumps_and_aces() -> None:
    m = new_deal("bela3", {0: "JH 9H AH TH AS TD 7C 8C QD KS"}, extra="7H 8S")
    apply(m, "H")
    action = bot_act(m)
    assert isinstance(action, Discard)
    thrown = {str(c) for c in action.cards}
    assert not thrown & {"JH", "9H", "AH", "TH", "7H", "AS"}
    assert "TD" in thrown  # a ten without its ace would likely be lost: banked instead


def test_bela3_discards_make_a_void_with_cheap_cards() -> None:
    m = new_deal("bela3", {0: "JS 9S AS TS KS QS AH TH 7C 8D"}, extra="KH 9D")
    apply(m, "S")
    action = bot_act(m)
    assert isinstance(action, Discard)
    assert {str(c) for c in action.cards} in ({"8D", "9D"}, {"7C", "8D"}, {"7C", "9D"})


def test_bela3_non_callers_know_two_cards_are_out() -> None:
    m = new_deal("bela3", {0: "JH 9H AH TH AS TD 7C 8C QD KS"}, extra="7H 8S")
    apply(m, "H", "discard 7C 8C", "JH")
    view = seat_view(m, 1)
    play = _Play(view, HeuristicBot().params)
    others = sum(play.prob[0][c] + play.prob[2][c] for c in range(32) if play.unseen >> c & 1)
    assert others == pytest.approx(9 + 10)  # 21 unseen cards: 9 + 10 in hands, 2 discarded
    caller = _Play(seat_view(m, 0), HeuristicBot().params)  # the caller knows his discards
    assert not caller.unseen & mask("7C 8C") and caller.unseen.bit_count() == 32 - 9 - 2 - 1


# -- bela2: the turned card (R31) and the swap (R32) -----------------------------------------

def test_bela2_accepts_the_turned_suit_when_strong() -> None:
    m = new_deal("bela2", {0: "JH 9H AS TS 8C KD 7S 7D 8D 9D"}, turned="AH")
    assert bot_act(m) == Call(0)


def test_bela2_counts_the_turned_card_it_can_swap() -> None:
    weak = "9H 7H AS 8S 8C KD 7S 7D 8D 9D"  # 9 and 7 of hearts: the 7 gets the turned J
    assert estimate("bela2", 0, mask(weak[:17]), True, int(Card.JH)) > \
        estimate("bela2", 0, mask(weak[:17].replace("7H", "QH")), True, int(Card.JH))


def test_bela2_passes_a_weak_hand_then_the_dealer_must_name() -> None:
    m = new_deal("bela2", {0: "7H 8S 7D QC 8C 9D TD JD KD AD",
                           1: "7S 9S 8D 7C 9C JS QH KH AC TC"}, turned="AH")
    assert bot_act(m) == Pass()
    apply(m, "pass")
    assert bot_act(m) == Pass()
    apply(m, "pass", "pass")
    action = bot_act(m)  # the dealer must name one of the other suits
    assert isinstance(action, Call) and action.contract in (1, 2, 3)


def test_bela2_swaps_the_seven_of_trump() -> None:
    m = new_deal("bela2", {0: "JH 9H AS TS 8C KD 7H 7D 8D 9D"}, turned="AH")
    apply(m, "H")
    assert m.round.phase == "exchange"  # type: ignore[union-attr]
    assert bot_act(m) == SWAP


def test_two_player_card_counting_leaves_room_for_the_stock() -> None:
    """bela2: 21 cards unseen by a seat; the opponent holds 10 of them, 11 are out (R30)."""
    m = new_deal("bela2", {0: "JH 9H AS TS 8C KD 7S 7D 8D 9D"}, turned="AH")
    apply(m, "H", "keep", "keep", "AS")  # both asked; seat 1 holds the 7 of hearts, keeps it
    play = _Play(seat_view(m, 1), HeuristicBot().params)
    assert play.unseen.bit_count() == 32 - 10 - 1 - 1
    assert sum(play.prob[0]) == pytest.approx(9)
    assert not play.unseen >> Card.AH & 1  # the turned card is out of play


# -- belot2: contracts (R34), swaps and redeals (R35), duties (R36), raspas (R37) ------------

def test_belot2_orders_vc_with_jacks_and_nines() -> None:
    m = new_deal("belot2", {0: "JH JS 9H 9D JD 9C 8H 8S QD"}, turned="7C", bottom="AS")
    assert bot_act(m) == Pass()  # not clubs
    apply(m, "pass", "pass")
    assert bot_act(m) == Call(ALL_TRUMPS)


def test_belot2_orders_bc_with_aces_and_tens() -> None:
    m = new_deal("belot2", {0: "AH TH AS TS AD KC 7C 8D 9S"}, turned="8C", bottom="JH")
    apply(m, "pass", "pass")
    assert bot_act(m) == Call(NO_TRUMPS)


def test_belot2_takes_a_strong_opened_suit() -> None:
    m = new_deal("belot2", {0: "JS 9S AS KD 7H 8C QD 9D TC"}, turned="TS", bottom="8H")
    assert bot_act(m) == Call(2)


def test_belot2_swaps_for_the_opened_card() -> None:
    m = new_deal("belot2", {0: "JS 9S AS KD 7H 8C 7S 9D TC"}, turned="TS", bottom="8H")
    apply(m, "S")
    assert bot_act(m) == SWAP


def test_belot2_redeals_a_weak_hand_with_four_sevens() -> None:
    m = new_deal("belot2", {0: "7H 7D 7S QC 8H 9D 7C KS 8D"}, turned="AH", bottom="JC")
    apply(m, "pass", "H")  # the dealer takes hearts; seat 0 holds four 7s and little else
    assert m.round.phase == "exchange"  # type: ignore[union-attr]
    assert bot_act(m) == REDEAL


def test_belot2_keeps_a_strong_hand_with_four_sevens() -> None:
    m = new_deal("belot2", {0: "JH 9H AH 7H 7D 7S TH 7C AS"}, turned="KH", bottom="8C")
    apply(m, "H")
    assert bot_act(m) == SWAP  # the caller keeps (and swaps the 7 of trump for the K)


def test_belot2_redeal_after_the_opponent_swapped() -> None:
    """Seat 0 takes spades and swaps its 7 for the opened ace; seat 1, with four 8s and
    nothing else, redeals (its simulations give seat 0 the ace, R35)."""
    m = new_deal("belot2", {0: "JS 9S 7S KD 7H TC QD 9D KC", 1: "8H 8D 8S 8C 7D QH 9C JD QC"},
                 turned="AS", bottom="TH")
    apply(m, "S", "swap")
    assert bot_act(m) == DECLINE  # seat 0 is asked again: keeping is all it can do
    apply(m, "keep")
    view = seat_view(m, 1)
    assert view.exchanges == ((0, "swap"),)
    play_view = _Play(view, HeuristicBot().params)
    assert play_view.prob[0][Card.AS] == 1.0  # known: the swapper took the opened card
    assert bot_act(m) == REDEAL


def test_belot2_weighs_both_decisions_with_the_seven_of_trump_and_four_eights() -> None:
    """The swap keeps four 8s, so the redeal stays open (R35): the simulations take the
    swap once, then replay it for the second decision (both used to raise)."""
    m = new_deal("belot2", {0: "7H 8H 8D 8S 8C 9S TD QC KC"}, turned="JH", bottom="AS")
    apply(m, "H")
    assert bot_act(m) in (SWAP, REDEAL)
    apply(m, "swap")
    assert set(seat_view(m, 0).legal) == {REDEAL, DECLINE}
    assert bot_act(m) in (REDEAL, DECLINE)


def test_belot2_keeps_four_sevens_in_raspas() -> None:
    m = new_deal("belot2", {0: "7H 7D 7S 8C 8H 9D 7C 8S 8D"}, turned="AH", bottom="JC")
    apply(m, "pass", "pass", "pass", "pass")
    assert m.round.raspas  # type: ignore[union-attr]
    assert bot_act(m) == DECLINE


def test_belot2_infers_nothing_from_a_cheap_follow() -> None:
    """R36: no duty to beat a non-trump lead, so a low follow says nothing about the higher
    cards (in bela it would: R17)."""
    m = new_deal("belot2", {0: "KS 9H AH KD 7H 8C QD 9D TC", 1: "7S AS TS JD 8H 9C QC JC 8D"},
                 turned="JH", bottom="7C")
    apply(m, "H", "keep", "keep", "KS", "7S")
    play = _Play(seat_view(m, 0), HeuristicBot().params)
    assert play.poss[1] >> Card.AS & 1 and play.poss[1] >> Card.TS & 1


def test_raspas_ducks_under_the_lead() -> None:
    m = new_deal("belot2", {0: "KS 7S JD 8H 9C QC JC 8D TS", 1: "AS 8S KD 7H 8C QD 9D TC AC"},
                 turned="JH", bottom="7C")
    apply(m, "pass", "pass", "pass", "pass", "keep", "keep", "KS")
    assert bot_act(m) == Play(Card.EIGHT_S)  # not the ace, which would take the king


def test_raspas_sheds_high_cards_when_void() -> None:
    # Seat 1 has no diamonds and no trump (hearts): it gives the opponent its ace.
    m = new_deal("belot2", {0: "KD 8S 9S 7H 8C QD 9D TC JS", 1: "AS 7S TS 9C QC JC AC KS QS"},
                 turned="JH", bottom="7C")
    apply(m, "pass", "pass", "pass", "pass", "keep", "keep", "KD")
    action = bot_act(m)
    assert action.card in (Card.AS, Card.AC)


def test_raspas_leads_low() -> None:
    m = new_deal("belot2", {0: "AS 7S KD QD 8C AC TC 9D 8D"}, turned="JH", bottom="7C")
    apply(m, "pass", "pass", "pass", "pass", "keep", "keep")
    action = bot_act(m)
    assert isinstance(action, Play) and action.card & 7 <= 1  # a 7 or an 8


def test_raspas_avoids_taking_points() -> None:
    """On the same raspas deals, the heuristic takes fewer points than a random player."""
    diff = 0
    for i in range(20):
        for h in (0, 1):
            m = Match("belot2", options={"target": 5001}, seed=500 + i, first_dealer=1)
            rnd = m.deal()
            apply(m, "pass", "pass", "pass", "pass")
            bots = {h: HeuristicBot(i), 1 - h: make_bot("random", i)}
            while not rnd.is_over:
                m.apply(bots[rnd.turn].act(seat_view(m, rnd.turn)))
            if rnd.result.outcome == "raspas":  # type: ignore[union-attr]
                diff += rnd.card_points[1 - h] - rnd.card_points[h]
    assert diff / 20 > 10


@pytest.mark.parametrize("spec", ["heuristic", "random", "pimc", "ismcts"])
@pytest.mark.parametrize("variant, bids", [("belot2", ["pass", "pass", "VC"]),
                                           ("belot2", ["pass"] * 4), ("bela2", ["H"])])
def test_a_lone_keep_is_chosen(spec: str, variant: str, bids: list[str]) -> None:
    """Every seat is asked in the exchange (R32, R35): a seat with no right has only `keep`,
    and every bot takes it (the search bots through the heuristic)."""
    ten = " KC" if variant == "bela2" else ""  # nobody holds the 7H or four 7s / 8s
    m = new_deal(variant, {0: "JS 9S AS KD QH 8C QD 9D TC" + ten,
                           1: "TS 7S 8S KS QS 7D 8D TD AD" + ten.replace("K", "J")},
                 turned="AH", **({"bottom": "7C"} if variant == "belot2" else {}))
    apply(m, *bids)
    for _ in range(2):
        view = seat_view(m, m.round.turn)  # type: ignore[union-attr]
        assert view.phase == "exchange" and view.legal == (DECLINE,)
        assert make_bot(spec, 1).act(view) == DECLINE
        m.apply(DECLINE)
    assert m.round.phase == "play"  # type: ignore[union-attr]

"""belot2 (two players, 1001, seed 004): RULES.md R34-R38.

Seat 0 is the non-dealer (``first_dealer=1``): it bids first (R34), leads (R35) and so
announces its declarations first (R37).
"""

from __future__ import annotations

import random

import pytest
from variant_helpers import (
    ALL_CODES,
    act,
    card_points,
    codes,
    deal,
    legal_cards,
    legal_tokens,
    new_match,
    play_out,
    refused,
    search_round,
)

from bela.engine import InvalidDeal, InvalidOptions, Match, Play
from bela.engine.record import read_record, replay, score, to_record
from bela.engine.views import seat_view

# Opened card AH; the dealer (seat 1) gets the 7H among his last 3 cards, and holds KH QH.
BASE = ["JH 9H KS QS 8D 9D TS AS 7C",
        "QH KH AD TD 7S 8S 7H 9C TC"]
BASE_X = {"turned": "AH", "bottom": "QD"}

# Seat 0 has four 7s once its last 3 cards come (7C), seat 1 four 8s (8D 8C 8H come last).
FOURS = ["7H 7S 7D KS QS 9D 7C 9H TH",
         "JH 9S TS KH QH 8S 8D 8C 8H"]
FOURS_X = {"turned": "AH", "bottom": "AD"}

# Duties (R36): seat 1 holds four spades (7S AS JS KS), three hearts (9H TH 7H), no club.
DUTY = ["8S JH 7C KD QC 9C 8H TC 7D",
        "7S AS 9H TH 8D AD JS KS 7H"]
DUTY_X = {"turned": "QS", "bottom": "AC"}

# Seat 0 takes every trick whatever is played; seat 1 holds the bela KH QH.
CAPOT = ["JH 9H AH TH AS TS AD TD AC",
         "KH QH 7S 8S 9S 7D 8D 9D 7C"]
CAPOT_X = {"turned": "8H", "bottom": "KS"}


def bids_for(contract: str, turned: str) -> list[str]:
    """R34: accept the opened suit in round 1, or order anything else in round 2."""
    return [contract] if contract == turned[1] else ["pass", "pass", contract]


def fill(fixed0: str, fixed1: str, seed: int = 0, avoid0: str = "",
         avoid1: str = "") -> tuple[list[str], dict[str, str]]:
    """A seeded belot2 deal: ``fixedN`` cards go to seat N, ``avoidN`` cards never do
    (cards next to a sequence, so that it is held at full length, R8)."""
    rng = random.Random(seed)
    taken = set((fixed0 + " " + fixed1).split())
    rest = [c for c in ALL_CODES if c not in taken]
    rng.shuffle(rest)
    hands = [fixed0.split(), fixed1.split()]
    avoid = [set(avoid0.split()), set(avoid1.split())]
    spare = []
    for c in rest:
        for s in (0, 1):
            if len(hands[s]) < 9 and c not in avoid[s]:
                hands[s].append(c)
                break
        else:
            spare.append(c)
    assert all(len(h) == 9 for h in hands)
    return [" ".join(h) for h in hands], {"turned": spare[0], "bottom": spare[-1]}


def plain_round(seed: int) -> tuple[Match, object]:
    m = Match("belot2", seed=seed, first_dealer=1)
    rnd = m.deal()
    play_out(m, seed, bela=False)
    return m, rnd


def duty_round(bids: list[str]) -> tuple[Match, object]:
    """The DUTY deal after ``bids`` and the exchange (R35: both are asked; both keep)."""
    m = new_match("belot2")
    rnd = deal(m, DUTY, **DUTY_X)
    act(m, *bids, "keep", "keep")
    return m, rnd


# -- R34: bidding ---------------------------------------------------------------------------------

def test_r34_round_one_take_opened_suit_or_pass() -> None:
    """R34 round 1: non-dealer first, each may take the opened suit or pass."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    assert rnd.turn == 0 and legal_tokens(rnd) == {"pass", "H"}
    for tok in ("S", "VC", "BC"):
        refused(m, tok, "R34")
    act(m, "pass")
    assert rnd.turn == 1 and legal_tokens(rnd) == {"pass", "H"}
    act(m, "H")
    assert rnd.caller == 1 and rnd.trump_name == "H" and not rnd.raspas


def test_r34_round_two_other_suit_vc_bc_or_pass() -> None:
    """R34 round 2: the non-dealer, then the dealer, may order another suit, VC, BC or pass;
    never the opened suit."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "pass", "pass")
    assert rnd.turn == 0 and legal_tokens(rnd) == {"pass", "D", "S", "C", "VC", "BC"}
    refused(m, "H", "R34")
    act(m, "pass")
    assert rnd.turn == 1 and legal_tokens(rnd) == {"pass", "D", "S", "C", "VC", "BC"}
    refused(m, "H", "R34")
    act(m, "VC")
    assert rnd.caller == 1 and rnd.trump_name == "VC"


@pytest.mark.parametrize("bids, caller, trump", [
    (["H"], 0, "H"), (["pass", "H"], 1, "H"), (["pass", "pass", "BC"], 0, "BC"),
    (["pass", "pass", "D"], 0, "D"), (["pass", "pass", "pass", "C"], 1, "C"),
])
def test_r34_first_order_ends_the_bidding(bids: list[str], caller: int, trump: str) -> None:
    """R34: the first order ends the bidding; the orderer is the bidder."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, *bids)
    assert rnd.phase != "bidding"
    assert rnd.caller == caller and rnd.trump_name == trump
    refused(m, "pass")


def test_r34_four_passes_raspas_with_opened_suit_trump() -> None:
    """R34: four passes give raspas, played with the opened suit as trump, no caller."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "pass", "pass", "pass", "pass")
    assert rnd.raspas and rnd.trump_name == "H" and rnd.caller is None
    assert seat_view(m, 0).caller is None and seat_view(m, 0).raspas
    assert rnd.phase == "exchange" and rnd.turn == 0  # R35: a redeal is possible in raspas
    act(m, "keep", "keep")
    assert rnd.phase == "play" and rnd.turn == 0


def _search(need: object, tries: int = 4000) -> tuple[Match, object]:
    return search_round(plain_round, need, tries)  # type: ignore[arg-type]


def test_r34_bidder_scores_more_each_scores_own() -> None:
    """R34: the bidder with more than the opponent: each scores his own points."""
    m, rnd = _search(lambda r: r.result.outcome == "pass" and r.trump_name in "HDSC"
                     and min(r.result.card_points) > 0)
    res = rnd.result
    c = rnd.caller
    assert res.card_points[c] > res.card_points[1 - c]
    assert res.scores == res.card_points


def test_r34_bidder_falls_opponent_scores_everything() -> None:
    """R34: otherwise the opponent scores everything and the bidder 0."""
    m, rnd = _search(lambda r: r.result.outcome == "fall" and r.result.card_points[r.caller])
    res = rnd.result
    c = rnd.caller
    assert res.card_points[c] < res.card_points[1 - c]
    assert res.scores[c] == 0 and res.scores[1 - c] == res.total == sum(res.card_points)


def test_r34_tie_bidder_falls() -> None:
    """R34: a tie is a fall too (belot2 has no hang)."""
    m, rnd = _search(lambda r: not r.raspas and r.result.card_points[0] == r.result.card_points[1])
    res = rnd.result
    c = rnd.caller
    assert res.outcome == "fall"
    assert res.scores[c] == 0 and res.scores[1 - c] == res.total


# -- R35: the 3 more cards, bottom card, swap and redeal ------------------------------------------

def test_r35_three_more_cards_after_bidding() -> None:
    """R35: 6 cards before the bidding, 9 after."""
    m = new_match("belot2")
    deal(m, BASE, **BASE_X)
    for seat in (0, 1):
        v = seat_view(m, seat)
        assert codes(v.hand) == set(BASE[seat].split()[:6]) and v.unseen == 3
    act(m, "pass", "pass", "S")
    for seat in (0, 1):
        v = seat_view(m, seat)
        assert codes(v.hand) == set(BASE[seat].split()) and v.unseen == 0


def test_r35_opened_and_bottom_cards_shown_after_bidding_and_out_of_play() -> None:
    """R34, R35: the opened card is face up; after the bidding the bottom card is shown to
    both; neither is played."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "pass", "pass", "S")
    for seat in (0, 1, None):
        pub = {k: str(v) for k, v in seat_view(m, seat).public.items()}
        assert pub == {"turned": "AH", "bottom": "QD"}
    play_out(m, 3)
    played = {str(c) for t in rnd.tricks for c in t[1]}
    assert len(played) == 18 and not {"AH", "QD"} & played


def test_r35_bottom_card_not_shown_before_the_bidding_ends() -> None:
    """R35: 'Then 3 more cards to each; the bottom card of the pack is shown to both' - the
    bottom card is turned after the bidding (seed 004), so bidders do not see it."""
    m = new_match("belot2")
    deal(m, BASE, **BASE_X)
    for seat in (0, 1, None):
        pub = {k: str(v) for k, v in seat_view(m, seat).public.items()}
        assert pub == {"turned": "AH"}


def test_r35_swap_seven_of_trump_in_opened_suit_contract() -> None:
    """R35: in a suit contract in the opened suit the holder of the 7 of trump may exchange
    it for the opened card before the first lead."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "H")
    assert rnd.phase == "exchange" and rnd.turn == 0  # every seat is asked, from the first
    assert legal_tokens(rnd) == {"keep"}
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    assert legal_tokens(rnd) == {"swap", "keep"}
    act(m, "swap")
    assert "AH" in codes(seat_view(m, 1).hand) and "7H" not in codes(seat_view(m, 1).hand)
    assert str(seat_view(m, 0).public["turned"]) == "7H"
    assert rnd.phase == "exchange" and rnd.turn == 1  # R35: a swapper is asked again
    assert legal_tokens(rnd) == {"keep"}
    refused(m, "swap")
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 0  # and so is the other seat, after him
    assert legal_tokens(rnd) == {"keep"}
    act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0  # R35: the non-dealer leads
    refused(m, "swap")


# Seat 0 holds the 7H and three 8s; swapping the 7H for the opened 8H brings its fourth 8.
SWAP_EIGHTS = ["7H 8S 8D KS QS 9D 8C TH JS",
               "JH 9H AH KH QH AS TS AD TD"]
SWAP_EIGHTS_X = {"turned": "8H", "bottom": "7C"}


def test_r35_a_swap_may_bring_the_fourth_eight_and_a_redeal() -> None:
    """R35: swap and redeal are both rights before the first lead, in any order: the seat
    that swapped is asked again and may demand a redeal with the four 8s the swap gave it."""
    m = new_match("belot2")
    rnd = deal(m, SWAP_EIGHTS, **SWAP_EIGHTS_X)
    act(m, "H")
    assert rnd.phase == "exchange" and rnd.turn == 0
    assert legal_tokens(rnd) == {"swap", "keep"}  # three 8s: no redeal yet
    act(m, "swap")
    assert rnd.phase == "exchange" and rnd.turn == 0
    assert legal_tokens(rnd) == {"redeal", "keep"}
    act(m, "redeal")
    assert rnd.is_over and rnd.result.outcome == "redeal"
    record = to_record(m)
    assert record["rounds"][0]["actions"] == ["H", "swap", "redeal"]
    assert replay(read_record(record)).rounds[0].result.outcome == "redeal"


def test_r35_after_a_swap_the_swapper_may_keep_and_play_starts() -> None:
    """R35: declining the redeal after a swap starts play; the non-dealer leads."""
    m = new_match("belot2")
    rnd = deal(m, SWAP_EIGHTS, **SWAP_EIGHTS_X)
    act(m, "H", "swap", "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1 and legal_tokens(rnd) == {"keep"}
    act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0
    assert "8H" in codes(seat_view(m, 0).hand)
    refused(m, "redeal")


def test_r35_after_one_seat_swaps_the_other_may_redeal() -> None:
    """R35: the other seat's redeal right stands after a swap."""
    m = new_match("belot2")
    rnd = deal(m, ["7H KS QS 9D 9C TH JS AS TD", "8H 8S 8D JH 9H KH QH AD 8C"],
               turned="AH", bottom="7C")
    act(m, "H")
    assert rnd.turn == 0 and legal_tokens(rnd) == {"swap", "keep"}
    act(m, "swap")
    assert rnd.phase == "exchange" and rnd.turn == 0  # asked again: nothing more to do
    assert legal_tokens(rnd) == {"keep"}
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    assert legal_tokens(rnd) == {"redeal", "keep"}
    act(m, "redeal")
    assert rnd.result.outcome == "redeal"


# The non-dealer (seat 0) gets four 8s with its last 3 cards; the dealer holds the 7H, the
# opened card is the AH.
EIGHTS_SEVEN = ["8H 8S 8D KS QS 9D 8C TH JS", "JH 9H 7H KH QH AS TS AD TD"]
EIGHTS_SEVEN_X = {"turned": "AH", "bottom": "7C"}


def test_r35_the_dealer_swaps_then_the_non_dealer_redeals() -> None:
    """R35: every right stands until the first lead, whoever used another first: the
    non-dealer keeps, the dealer swaps, is asked again, and then the non-dealer is asked
    again and demands its redeal (four 8s).  The round scores as a redeal, the swap in its
    detail, and the same dealer deals again (R37)."""
    m = new_match("belot2")
    rnd = deal(m, EIGHTS_SEVEN, **EIGHTS_SEVEN_X)
    act(m, "H")
    assert rnd.turn == 0 and legal_tokens(rnd) == {"redeal", "keep"}
    act(m, "keep")
    assert rnd.turn == 1 and legal_tokens(rnd) == {"swap", "keep"}
    act(m, "swap")
    assert rnd.phase == "exchange" and rnd.turn == 1 and legal_tokens(rnd) == {"keep"}
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 0
    assert legal_tokens(rnd) == {"redeal", "keep"}
    act(m, "redeal")
    assert rnd.is_over and rnd.result.outcome == "redeal"
    assert rnd.result.extra == {"seat": 0, "swapped": 1}
    assert m.sheet == [(0, 0)]
    assert m.deal().dealer == 1  # R37: the same dealer deals again


def test_r35_a_record_swap_then_redeal_of_the_other_seat_replays() -> None:
    """RECORD.md: the keeps leave no token; ``H swap redeal`` replays as the dealer's swap
    and the non-dealer's redeal, and ``bela score --json`` shows the redeal with the swap."""
    rec = {"variant": "belot2", "dealer": 1,
           "rounds": [{"dealer": 1, "hands": EIGHTS_SEVEN, **EIGHTS_SEVEN_X,
                       "actions": ["H", "swap", "redeal"]}]}
    m = replay(read_record(rec))
    rnd = m.rounds[0]
    assert [(s, a.token()) for s, a in rnd.exchanges] == [
        (0, "keep"), (1, "swap"), (1, "keep"), (0, "redeal")]
    assert to_record(m)["rounds"][0]["actions"] == ["H", "swap", "redeal"]
    entry = score(m)["rounds"][0]
    assert entry["outcome"] == "redeal" and entry["scores"] == [0, 0]
    assert entry["trump"] is None and entry["caller"] is None
    assert entry["exchanges"] == [{"seat": 1, "action": "swap"},
                                  {"seat": 0, "action": "redeal"}]
    # the other order: the non-dealer's redeal at once, before anyone swaps
    rec["rounds"][0]["actions"] = ["H", "redeal"]
    m = replay(read_record(rec))
    assert [(s, a.token()) for s, a in m.rounds[0].exchanges] == [(0, "redeal")]
    assert score(m)["rounds"][0]["exchanges"] == [{"seat": 0, "action": "redeal"}]


def test_r35_the_dealer_swaps_into_four_eights_and_redeals() -> None:
    """R35: a swapper who gets its fourth 8 with the opened card may redeal, as dealer too:
    ``8H swap redeal`` replays as the non-dealer's keep, the dealer's swap and redeal."""
    hands = ["JH 9H AH KH QH AS TS AD TD", "7H 8S 8D KS QS 9D 8C TH JS"]
    rec = {"variant": "belot2", "dealer": 1,
           "rounds": [{"dealer": 1, "hands": hands, "turned": "8H", "bottom": "7C",
                       "actions": ["H", "swap", "redeal"]}]}
    m = replay(read_record(rec))
    assert [(s, a.token()) for s, a in m.rounds[0].exchanges] == [
        (0, "keep"), (1, "swap"), (1, "redeal")]
    assert m.rounds[0].result.extra == {"seat": 1, "swapped": 1}


def test_r35_played_rounds_show_their_swap_in_the_score() -> None:
    """``bela score --json``: a played round with a swap names it; one without does not."""
    m = new_match("belot2")
    deal(m, BASE, **BASE_X)
    act(m, "H", "keep", "swap", "keep", "keep")
    play_out(m, 3)
    entry = score(m)["rounds"][0]
    assert entry["exchanges"] == [{"seat": 1, "action": "swap"}]
    m2 = new_match("belot2")
    deal(m2, BASE, **BASE_X)
    act(m2, "H", "keep", "keep")
    play_out(m2, 3)
    assert "exchanges" not in score(m2)["rounds"][0]


@pytest.mark.parametrize("bids", [["pass", "pass", "VC"], ["pass", "pass", "BC"],
                                  ["pass", "pass", "pass", "S"],
                                  ["pass", "pass", "pass", "pass"]])
def test_r35_no_swap_outside_opened_suit_contract(bids: list[str]) -> None:
    """R35: no swap in VC, BC, another suit, or raspas (R37), though seat 1 holds the 7H:
    both are asked (a redeal is possible in any contract), and both may only keep."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, *bids)
    for seat in (0, 1):
        assert rnd.phase == "exchange" and rnd.turn == seat
        assert legal_tokens(rnd) == {"keep"}
        refused(m, "swap")
        act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0
    refused(m, "swap")


@pytest.mark.parametrize("bids, options0", [
    (["H"], {"swap", "redeal", "keep"}),
    (["pass", "pass", "VC"], {"redeal", "keep"}),
    (["pass", "pass", "BC"], {"redeal", "keep"}),
    (["pass", "pass", "D"], {"redeal", "keep"}),
    (["pass", "pass", "pass", "pass"], {"redeal", "keep"}),
])
def test_r35_redeal_with_four_sevens_or_four_eights(bids: list[str],
                                                    options0: set[str]) -> None:
    """R35: four 7s or four 8s allow a redeal in any contract, raspas included; it is asked
    after the 3 more cards (seat 0's fourth 7 and seat 1's 8s come last)."""
    m = new_match("belot2")
    rnd = deal(m, FOURS, **FOURS_X)
    act(m, *bids)
    assert rnd.phase == "exchange" and rnd.turn == 0
    assert legal_tokens(rnd) == options0
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    assert legal_tokens(rnd) == {"redeal", "keep"}
    act(m, "redeal")
    assert rnd.is_over and rnd.result.outcome == "redeal"
    assert m.sheet == [(0, 0)] and m.totals == [0, 0]


def test_r35_r37_after_a_redeal_the_same_dealer_deals_again() -> None:
    """R37: after a redeal the same dealer deals again (not R39)."""
    m = new_match("belot2")
    deal(m, FOURS, **FOURS_X)
    act(m, "pass", "pass", "pass", "pass", "redeal")
    rnd = m.deal()
    assert rnd.dealer == 1 and rnd.first == 0
    play_out(m, 1)
    assert m.deal().dealer == 0  # a played round moves the deal on (R39)


def test_r35_no_redeal_without_four_sevens_or_eights() -> None:
    """R35: three 7s (or four 9s) give no redeal."""
    m = new_match("belot2")
    rnd = deal(m, ["7H 7S 7D 9H 9S 9D 9C KS QS", "JH 8S TS KH QH 8D 8C AD TD"],
               turned="AH", bottom="AC")
    act(m, "pass", "pass", "S")
    assert rnd.phase == "exchange" and legal_tokens(rnd) == {"keep"}
    refused(m, "redeal")
    act(m, "keep")
    assert rnd.phase == "exchange" and legal_tokens(rnd) == {"keep"}
    refused(m, "redeal")
    act(m, "keep")
    assert rnd.phase == "play"
    refused(m, "redeal")


# -- R36: card order and duties ------------------------------------------------------------------

def test_r36_no_overtake_duty_on_plain_lead() -> None:
    """R36: follow suit; there is no duty to beat a non-trump lead."""
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "8S")
    assert legal_cards(rnd) == {"7S", "AS", "JS", "KS"}
    act(m, "7S")  # the 7 under the 8 is allowed
    assert rnd.tricks[-1][2] == 0


def test_r36_void_must_trump_any_trump() -> None:
    """R36: void in the led suit, play a trump (any trump: no duty to beat)."""
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "7C")
    assert legal_cards(rnd) == {"9H", "TH", "7H"}
    refused(m, "AS")


def test_r36_trump_lead_must_be_beaten_if_possible() -> None:
    """R36: when trump is led, beat it with a higher trump if you can."""
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "8H")
    assert legal_cards(rnd) == {"9H", "TH"}
    refused(m, "7H")
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "JH")  # nothing beats the jack: any trump
    assert legal_cards(rnd) == {"9H", "TH", "7H"}


@pytest.mark.parametrize("bids, lead, bad", [
    (["pass", "pass", "H"], "7C", "AS"),  # void: must trump
    (["pass", "pass", "H"], "8H", "7H"),  # trump lead: must beat
    (["pass", "pass", "H"], "8S", "9H"),  # must follow suit
    (["pass", "pass", "VC"], "8S", "7S"),  # VC: must beat the led suit
])
def test_r36_duty_errors_cite_r36(bids: list[str], lead: str, bad: str) -> None:
    """R36 is belot2's play rule: a refused card should cite it."""
    m, rnd = duty_round(bids)
    act(m, lead)
    refused(m, bad, "R36")


@pytest.mark.parametrize("bids, token, rules", [
    (["pass", "pass", "VC"], "swap", {"R35"}),
    (["pass", "pass", "pass", "pass"], "swap", {"R35", "R37"}),
    (["pass", "pass", "S"], "redeal", {"R35"}),
    (["pass", "pass", "pass", "pass", "keep", "keep", "8D", "AD"], "KH*", {"R37"}),
])
def test_r35_r37_refusals_cite_belot2_rules(bids: list[str], token: str,
                                            rules: set[str]) -> None:
    """R35, R37: refused swaps, redeals and raspas belas cite belot2's own rules."""
    m = new_match("belot2")
    deal(m, BASE, **BASE_X)
    act(m, *bids)
    refused(m, token, rules)


def test_r36_trump_order_j_9_a_10_k_q_8_7() -> None:
    """R36: trump J 9 A 10 K Q 8 7; a trump beats a plain card."""
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "8H", "9H")
    assert rnd.tricks[-1][2] == 1  # 9H beats 8H
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "JH", "9H")
    assert rnd.tricks[-1][2] == 0  # the jack is highest
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "7C", "7H")
    assert rnd.tricks[-1][2] == 1  # any trump beats a plain card


def test_r36_plain_order_a_10_k_q_j() -> None:
    """R36: non-trump A 10 K Q J 9 8 7."""
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "8S", "JS")
    assert rnd.tricks[-1][2] == 1
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "KD", "AD")
    assert rnd.tricks[-1][2] == 1
    m, rnd = duty_round(["pass", "pass", "H"])
    act(m, "KD", "8D")
    assert rnd.tricks[-1][2] == 0


def test_r36_vc_must_beat_led_suit_best_card() -> None:
    """R36: in VC every suit ranks as trump and the led suit's best card must be beaten."""
    m, rnd = duty_round(["pass", "pass", "VC"])
    act(m, "8S")
    assert legal_cards(rnd) == {"AS", "JS", "KS"}  # 7S is below the 8 in trump order
    refused(m, "7S")
    m, rnd = duty_round(["pass", "pass", "VC"])
    act(m, "8H")
    assert legal_cards(rnd) == {"9H", "TH"}


def test_r36_vc_void_any_card_and_other_suit_never_wins() -> None:
    """R36: in VC a card of another suit never wins (void: any card)."""
    m, rnd = duty_round(["pass", "pass", "VC"])
    act(m, "7C")
    assert legal_cards(rnd) == set(DUTY[1].split())
    act(m, "JS")  # the jack of spades does not win a club trick
    assert rnd.tricks[-1][2] == 0


def test_r36_vc_every_suit_scores_as_trump() -> None:
    """R36: in VC every suit scores as trump: total = trump points of the 18 cards + 10."""
    m, rnd = duty_round(["pass", "pass", "VC"])
    play_out(m, 4, bela=False)
    played = [str(c) for t in rnd.tricks for c in t[1]]
    raw = sum(card_points(c, "VC") for c in played) + 10
    assert sum(rnd.result.card_points) == raw
    assert raw == 10 + sum({"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}.get(c[0], 0)
                           for c in played)


def test_r36_bc_no_trump_no_beat_duty() -> None:
    """R36: in BC every suit is plain: no trump, no duty to beat, void plays anything."""
    m, rnd = duty_round(["pass", "pass", "BC"])
    act(m, "8H")
    assert legal_cards(rnd) == {"9H", "TH", "7H"}
    m, rnd = duty_round(["pass", "pass", "BC"])
    act(m, "7C")
    assert legal_cards(rnd) == set(DUTY[1].split())
    act(m, "JS")
    assert rnd.tricks[-1][2] == 0


def test_r36_bc_doubles_every_point() -> None:
    """R36: in BC cards, last trick and declarations all count double."""
    m, rnd = duty_round(["pass", "pass", "BC"])
    play_out(m, 0, bela=False)
    played = [str(c) for t in rnd.tricks for c in t[1]]
    raw = sum(card_points(c, "BC") for c in played) + 10
    res = rnd.result
    assert res.total == 2 * raw
    assert sum(res.card_points) == 2 * raw
    assert all(x % 2 == 0 for x in res.card_points)
    assert res.scores in (res.card_points, (res.total, 0), (0, res.total))


def test_r36_bc_declarations_doubled() -> None:
    """R36: in BC a declaration's points are doubled too."""
    hands, x = fill("7S 8S 9S TS", "", avoid0="JS")

    def make(seed: int) -> tuple[Match, object]:
        m = new_match("belot2")
        rnd = deal(m, hands, **x)
        act(m, "pass", "pass", "BC")
        play_out(m, seed, declare={0: "7S 8S 9S TS"}, bela=False)
        return m, rnd
    m, rnd = search_round(make, lambda r: r.tricks_won[0] > 0)
    res = rnd.result
    assert res.declaration_points == (100, 0)
    assert res.total == sum(res.card_points) + 100


def test_r36_no_capot_bonus_and_r37_bela_without_a_trick() -> None:
    """R36: no capot bonus (seat 0 takes all 9 tricks: just its points). R37: seat 1's bela
    counts although it takes no trick."""
    m = new_match("belot2")
    rnd = deal(m, CAPOT, **CAPOT_X)
    act(m, "H", "keep", "keep", "JH", "KH*")
    play_out(m, 2, bela=False)
    res = rnd.result
    assert rnd.tricks_won == [9, 0]
    assert res.outcome == "pass"
    assert res.card_points == (125, 0)
    assert res.bela_points == (0, 20)
    assert res.scores == (125, 20)


# -- R37: declarations and bela -------------------------------------------------------------------

def _declared(hands: list[str], x: dict[str, str], contract: str,
              declare: dict[int, str]) -> object:
    def make(seed: int) -> tuple[Match, object]:
        m = new_match("belot2")
        rnd = deal(m, hands, **x)
        act(m, *bids_for(contract, x["turned"]))
        play_out(m, seed, declare=declare, bela=False)
        return m, rnd
    return search_round(make, lambda r: all(r.tricks_won))[1]


@pytest.mark.parametrize("four, value", [
    ("JH JS JD JC", 200), ("9H 9S 9D 9C", 140), ("AH AS AD AC", 110),
    ("TH TS TD TC", 100), ("KH KS KD KC", 100), ("QH QS QD QC", 100),
])
def test_r37_four_of_a_kind_values(four: str, value: int) -> None:
    """R37: four J 200, four 9 140, four A 110, four 10/K/Q 100."""
    hands, x = fill(four, "", seed=1)
    rnd = _declared(hands, x, "S", {0: four})
    assert rnd.result.declaration_points == (value, 0)


@pytest.mark.parametrize("seq, avoid, value", [
    ("7S 8S 9S", "TS", 20), ("7S 8S 9S TS", "JS", 50), ("7S 8S 9S TS JS", "QS", 100),
    ("7S 8S 9S TS JS QS", "KS", 100), ("7S 8S 9S TS JS QS KS AS", "", 100),
])
def test_r37_sequence_values(seq: str, avoid: str, value: int) -> None:
    """R37: sequences of 3 = 20, 4 = 50, 5 or more = 100 (8 of a suit is no belot here)."""
    hands, x = fill(seq, "", seed=2, avoid0=avoid)
    rnd = _declared(hands, x, "D", {0: seq})
    assert rnd.result.outcome != "belot"
    assert rnd.result.declaration_points == (value, 0)


@pytest.mark.parametrize("weaker, stronger", [
    ("9H 9S 9D 9C", "JH JS JD JC"), ("AH AS AD AC", "9H 9S 9D 9C"),
    ("TH TS TD TC", "AH AS AD AC"), ("KH KS KD KC", "TH TS TD TC"),
    ("QH QS QD QC", "KH KS KD KC"),
])
def test_r37_fours_rank_j_9_a_10_k_q(weaker: str, stronger: str) -> None:
    """R37: fours rank J, 9, A, 10, K, Q (seat 1's stronger four wins though announced
    second)."""
    hands, x = fill(weaker, stronger, seed=3)
    rnd = _declared(hands, x, "D", {0: weaker, 1: stronger})
    assert rnd.result.declarations_to == 1
    assert rnd.result.declaration_points[0] == 0


def test_r37_any_four_beats_any_sequence() -> None:
    """R37: four queens (100) beat a 5-sequence (100) announced first."""
    hands, x = fill("7S 8S 9S TS JS", "QH QS QD QC", seed=4, avoid0="QS")
    rnd = _declared(hands, x, "D", {0: "7S 8S 9S TS JS", 1: "QH QS QD QC"})
    assert rnd.result.declarations_to == 1
    assert rnd.result.declaration_points == (0, 100)


@pytest.mark.parametrize("seq0, avoid0, seq1, avoid1, contract, winner", [
    # a longer sequence beats a shorter one with a higher top
    ("QD KD AD", "JD", "7C 8C 9C TC", "JC", "S", 1),
    # equal length: the higher top card
    ("7C 8C 9C", "TC", "8D 9D TD", "7D JD", "S", 1),
    # equal length and top: the trump sequence (seat 1's, announced second)
    ("7D 8D 9D", "TD", "7S 8S 9S", "TS", "S", 1),
    # equal, the seat 0 one is the trump sequence
    ("7D 8D 9D", "TD", "7S 8S 9S", "TS", "D", 0),
    # equal, neither is trump: the one announced first (seat 0 leads and announces first)
    ("7D 8D 9D", "TD", "7S 8S 9S", "TS", "C", 0),
    ("7D 8D 9D", "TD", "7S 8S 9S", "TS", "VC", 0),
    ("7D 8D 9D", "TD", "7S 8S 9S", "TS", "BC", 0),
])
def test_r37_sequence_seniority(seq0: str, avoid0: str, seq1: str, avoid1: str,
                                contract: str, winner: int) -> None:
    """R37: longer beats shorter; equal length: higher top; equal top: the trump sequence;
    otherwise the one announced first."""
    hands, x = fill(seq0, seq1, seed=6, avoid0=avoid0, avoid1=avoid1)
    rnd = _declared(hands, x, contract, {0: seq0, 1: seq1})
    assert rnd.result.declarations_to == winner
    assert rnd.result.declaration_points[1 - winner] == 0


def test_r37_senior_owner_scores_all_his_declarations() -> None:
    """R37: the owner of the senior declaration scores all of them; the other none."""
    hands, x = fill("7D 8D 9D TD", "AH AS AD AC 7C 8C 9C", seed=5, avoid0="JD", avoid1="TC")
    rnd = _declared(hands, x, "S", {0: "7D 8D 9D TD", 1: "AH AS AD AC; 7C 8C 9C"})
    assert rnd.result.declaration_points == (0, 110 + 20)


def test_r37_senior_declaration_needs_a_trick() -> None:
    """R37: the senior declaration's owner scores only if he wins a trick; then nobody does."""
    m = new_match("belot2")
    rnd = deal(m, ["JH 9H AH TH KH AS AD TC TS", "QH QS QD QC 7S 8S 7D 8D 7C"],
               turned="8H", bottom="KS")
    act(m, "H", "keep", "keep", "declare 9H TH JH")
    play_out(m, 3, declare={1: "QH QS QD QC"}, bela=False)
    res = rnd.result
    assert rnd.tricks_won == [9, 0]
    assert res.declarations_to is None and res.declaration_points == (0, 0)


def test_r37_bela_is_trump_king_and_queen_only_in_suit_contract() -> None:
    """R37 (R14): in a suit contract only the trump K+Q is a bela."""
    m = new_match("belot2")
    rnd = deal(m, ["KS QS KD QD 7C 8C JH 9H AH", "TS AS 7S JD 9D TD 7H 8H TH"],
               turned="8D", bottom="AC")
    act(m, "pass", "pass", "S", "keep", "keep")
    tokens = legal_tokens(rnd)
    assert {"KS*", "QS*"} <= tokens and not {"KD*", "QD*"} & tokens


def test_r37_a_refused_bela_cites_r37_and_r14_in_bela4() -> None:
    """R37: belot2's bela rule is R37, so a bela it refuses cites R37; bela4's cites R14."""
    m = new_match("belot2")
    deal(m, ["KS QS KD QD 7C 8C JH 9H AH", "TS AS 7S JD 9D TD 7H 8H TH"],
         turned="8D", bottom="AC")
    act(m, "pass", "pass", "S", "keep", "keep")
    refused(m, "KD*", "R37")  # K+Q of diamonds, not of trump
    m4 = new_match("bela4", first_dealer=3)  # seat 0 bids first and leads
    deal(m4, ["KS QS 8S 9S KD QD 9C TC", "AS TS JS 7S 7D 8D 9D TD",
              "JH 9H AH TH JD 8C AD 7C", "KH QH 8H 7H JC QC KC AC"])
    act(m4, "H")
    refused(m4, "KD*", "R14")


def test_r37_bela_in_vc_for_each_suit() -> None:
    """R37: in VC each suit's K+Q is a bela of its own: two belas count 40."""
    m = new_match("belot2")
    rnd = deal(m, ["KS QS KD QD 7C 8C JH 9H AH", "TS AS 7S JD 9D TD 7H 8H TH"],
               turned="8D", bottom="AC")
    act(m, "pass", "pass", "VC", "keep", "keep")
    assert {"KS*", "QS*", "KD*", "QD*"} <= legal_tokens(rnd)
    rng = random.Random(1)
    while not rnd.is_over:
        acts = [a for a in rnd.legal_actions() if isinstance(a, Play)]
        belas = [a for a in acts if a.bela]
        m.apply(belas[0] if belas else rng.choice([a for a in acts if not a.bela]))
    assert sorted(s for s, _ in rnd.belas) == [0, 0]
    assert rnd.result.bela_points == (40, 0)


def test_r37_no_bela_in_bc() -> None:
    """R37: BC has no trump, so no bela."""
    m = new_match("belot2")
    rnd = deal(m, ["KS QS KD QD 7C 8C JH 9H AH", "TS AS 7S JD 9D TD 7H 8H TH"],
               turned="8D", bottom="AC")
    act(m, "pass", "pass", "BC", "keep", "keep")
    assert rnd.phase == "play"
    assert not any(t.endswith("*") for t in legal_tokens(rnd))
    refused(m, "KS*")


def test_r37_raspas_scores_minus_points_taken_never_positive() -> None:
    """R37: in raspas each scores minus the points he took (cards + last trick)."""
    for seed in range(8):
        m = new_match("belot2")
        rnd = deal(m, BASE, **BASE_X)
        act(m, "pass", "pass", "pass", "pass")
        play_out(m, seed)
        res = rnd.result
        assert res.outcome == "raspas" and res.caller is None
        played = [str(c) for t in rnd.tricks for c in t[1]]
        assert sum(res.card_points) == sum(card_points(c, "H") for c in played) + 10
        assert res.scores == tuple(-p for p in res.card_points)
        assert all(s <= 0 for s in res.scores)
        assert res.declaration_points in ((), (0, 0)) and res.bela_points in ((), (0, 0))


def test_r37_raspas_no_bela_and_no_swap() -> None:
    """R37: no bela and no swap in raspas (seat 1 holds KH QH and the 7 of the opened H)."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "pass", "pass", "pass", "pass", "keep", "keep")
    assert rnd.phase == "play"
    refused(m, "swap")
    assert not any(t.startswith("declare") for t in legal_tokens(rnd))
    act(m, "8D", "AD")  # seat 1 wins and leads, holding KH QH
    assert rnd.turn == 1 and {"KH", "QH"} <= legal_tokens(rnd)
    assert not any(t.endswith("*") for t in legal_tokens(rnd))
    refused(m, "KH*")


def test_r37_raspas_declaration_refused() -> None:
    """R37: no declarations are made in raspas: announcing one is an illegal action."""
    m = new_match("belot2")
    rnd = deal(m, BASE, **BASE_X)
    act(m, "pass", "pass", "pass", "pass")
    assert rnd.raspas and rnd.turn == 0
    refused(m, "declare QS KS AS")  # seat 0 holds the sequence Q K A of spades


# -- R38 and options ---------------------------------------------------------------------------

def test_r38_last_trick_ten_and_eighteen_cards() -> None:
    """R38: last trick +10: a suit contract's total is the points of the 18 played cards + 10."""
    for seed in range(8):
        m, rnd = plain_round(seed)
        played = [str(c) for t in rnd.tricks for c in t[1]]
        assert len(played) == 18 == len(set(played))
        raw = sum(card_points(c, rnd.trump_name) for c in played) + 10
        factor = 2 if rnd.trump_name == "BC" else 1
        assert sum(rnd.result.card_points) == factor * raw


def test_r38_target_1001() -> None:
    """R38: target 1001."""
    assert Match("belot2").options.target == 1001


@pytest.mark.parametrize("options", [{"tie": "hang"}, {"tie": "fall"},
                                     {"equal_declarations": "cancel"},
                                     {"equal_declarations": "earlier"},
                                     {"enforce": "off"}, {"enforce": "on"}])
def test_r24_belot2_has_none_of_the_r12_r22_r24_options(options: dict[str, str]) -> None:
    """R24: belot2 has none of the options of R12, R22 and R24 (only target)."""
    with pytest.raises(InvalidOptions):
        Match("belot2", options=options)


@pytest.mark.parametrize("hands, extra", [
    (BASE, {"turned": "AH"}),  # no bottom card
    (BASE, {"bottom": "QD"}),  # no opened card
    ([BASE[0], BASE[1] + " 8C"], BASE_X),  # a hand of 10
    (BASE, {"turned": "AH", "bottom": "7H"}),  # the bottom card is in a hand
    (BASE, {"turned": "AH", "bottom": "AH"}),
])
def test_r35_invalid_deals_refused(hands: list[str], extra: dict[str, str]) -> None:
    """R34, R35: two hands of 9, one opened and one bottom card, all distinct."""
    with pytest.raises(InvalidDeal):
        deal(new_match("belot2"), hands, **extra)


def test_r37_redeal_round_record_scores_trump_null() -> None:
    """R37 + RECORD.md: a redealt round scores caller and trump null."""
    m = new_match("belot2")
    deal(m, FOURS, **FOURS_X)
    act(m, "H", "redeal")
    out = score(replay(read_record(to_record(m))))
    assert out["rounds"][0]["outcome"] == "redeal"
    assert out["rounds"][0]["caller"] is None and out["rounds"][0]["trump"] is None


def test_r34_refused_bid_names_the_suit_by_its_symbol() -> None:
    """R34: a refusal speaks to people: the suit as ♠, never the record letter."""
    m = new_match("belot2")
    deal(m, BASE, **BASE_X)
    exc = refused(m, "S", "R34")  # round 1 offers only the opened suit (hearts)
    assert str(exc).startswith("♠ is not a bid") and " S " not in str(exc)


def test_r34_r37_a_falling_bidders_bela_goes_to_the_opponent() -> None:
    """R34 + R37 (the project's reading, docs/RULES.md): the bidder who falls scores 0 and the
    opponent scores everything, the bidder's bela included."""
    m = new_match("belot2")
    rnd = deal(m, CAPOT, **CAPOT_X)
    # seat 1 takes the opened hearts and announces bela
    act(m, "pass", "H", "keep", "keep", "JH", "KH*")
    play_out(m, 2, bela=False)
    res = rnd.result
    assert rnd.tricks_won == [9, 0]
    assert res.outcome == "fall" and res.caller == 1
    assert res.bela_points == (0, 20)
    assert res.total == 125 + 20
    assert res.scores == (125 + 20, 0)

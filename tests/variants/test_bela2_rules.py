"""bela2 (two players, 501): RULES.md R30-R33 and the general rules they refer to (R12 and
R22 table options, R10, R15, R21-R23).

Seat 0 is the non-dealer (``first_dealer=1``): it bids first (R31) and leads (R33).
"""

from __future__ import annotations

import pytest
from variant_helpers import (
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

from bela.engine import InvalidDeal, InvalidOptions, Match
from bela.engine.views import seat_view

# The turned card is AH; the dealer (seat 1) has the 7H in his talon.
SWAP_DEAL = ["JH 9H KS QS 8D 9D TS AS 7C 8C",
             "QH KH AD TD 7S 8S 7H 9C TC AC"]
SWAP_TURNED = "AH"

# Seat 0 takes every trick whatever is played: it holds the top six trumps (hearts) and seat 1
# always has a card of the plain suit seat 0 leads.
CAPOT_DEAL = ["JH 9H AH TH KH QH AS AD AC TS",
              "7H 8H 7S 8S 9S 7D 8D 9D 7C 8C"]
CAPOT_TURNED = "QD"

# Seats 0 and 1 hold equal 3-sequences to the 9 (spades, diamonds) and nothing else.
EQUAL_DEAL = ["7S 8S 9S AH KD 7C QC JD TH 8H",
              "7D 8D 9D AS KC 9H JS QH AC 8C"]
EQUAL_TURNED = "TC"


def plain_round(seed: int, options: dict[str, str] | None = None) -> tuple[Match, object]:
    m = Match("bela2", options=options or {}, seed=seed, first_dealer=1)
    rnd = m.deal()
    play_out(m, seed, bela=False)
    return m, rnd


def played_codes(rnd: object) -> list[str]:
    return [str(c) for t in rnd.tricks for c in t[1]]  # type: ignore[attr-defined]


# -- R30: the deal ------------------------------------------------------------------------------

def test_r30_deal_shape_and_turned_card() -> None:
    """R30: 10 cards each (6 + talon of 4) and one turned card; the other 11 are out of play."""
    m = Match("bela2", seed=3, first_dealer=1)
    rnd = m.deal()
    assert [len(h) for h in rnd.deal.hands] == [10, 10]
    assert len(rnd.deal.extra["turned"]) == 1
    dealt = {int(c) for h in rnd.deal.hands for c in h} | {int(rnd.deal.extra["turned"][0])}
    assert len(dealt) == 21


def test_r30_turned_card_is_public_and_talon_unseen() -> None:
    """R30: the turned card stays visible to both; the talon is seen only after the call."""
    m = new_match("bela2")
    deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    for seat in (0, 1):
        v = seat_view(m, seat)
        assert str(v.public["turned"]) == "AH"
        assert codes(v.hand) == set(SWAP_DEAL[seat].split()[:6]) and v.unseen == 4
    assert str(seat_view(m, None).public["turned"]) == "AH"


@pytest.mark.parametrize("hands, extra", [
    (SWAP_DEAL, {}),  # no turned card
    (SWAP_DEAL, {"turned": "AH QD"}),
    (SWAP_DEAL, {"turned": "7H"}),  # the turned card is also in a hand
    ([SWAP_DEAL[0], SWAP_DEAL[1][:-3]], {"turned": "AH"}),  # 9 cards
    (SWAP_DEAL, {"turned": "AH", "bottom": "QD"}),  # belot2's bottom card
])
def test_r30_invalid_deals_refused(hands: list[str], extra: dict[str, str]) -> None:
    """R30: two hands of 10 and exactly one turned card, all distinct."""
    with pytest.raises(InvalidDeal):
        deal(new_match("bela2"), hands, **extra)


# -- R31: two bidding rounds ---------------------------------------------------------------------

def test_r31_round_one_accept_turned_suit_or_pass() -> None:
    """R31: the non-dealer, then the dealer, may accept the turned suit or pass."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    assert rnd.turn == 0 and legal_tokens(rnd) == {"pass", "H"}
    refused(m, "D", "R31")
    refused(m, "VC", "R31")
    act(m, "pass")
    assert rnd.turn == 1 and legal_tokens(rnd) == {"pass", "H"}
    refused(m, "S", "R31")
    act(m, "H")
    assert rnd.caller == 1 and rnd.trump_name == "H"


def test_r31_round_two_non_dealer_names_another_suit_or_passes() -> None:
    """R31: after two passes the non-dealer may name another suit (not the turned one)."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "pass")
    assert rnd.turn == 0 and legal_tokens(rnd) == {"pass", "D", "S", "C"}
    refused(m, "H", "R31")
    act(m, "C")
    assert rnd.caller == 0 and rnd.trump_name == "C" and rnd.phase == "play"


def test_r31_dealer_must_name_one_of_the_three_other_suits() -> None:
    """R31: after three passes the dealer must name a suit other than the turned one."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "pass", "pass")
    assert rnd.turn == 1 and legal_tokens(rnd) == {"D", "S", "C"}
    refused(m, "pass", "R31")
    refused(m, "H", "R31")
    act(m, "D")
    assert rnd.caller == 1 and rnd.trump_name == "D"
    assert [b.token() for _, b in rnd.bids] == ["pass", "pass", "pass", "D"]


def test_r31_first_acceptance_ends_bidding() -> None:
    """R31: the first acceptance ends the bidding: no more bids."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "H")
    assert rnd.caller == 0 and rnd.phase in ("exchange", "play")
    refused(m, "pass")


# -- R32: talons and the 7 of trump -----------------------------------------------------------

def test_r32_both_take_talons_after_the_call() -> None:
    """R32: after the call both hold 10."""
    m = new_match("bela2")
    deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "H")
    for seat in (0, 1):
        v = seat_view(m, seat)
        assert codes(v.hand) == set(SWAP_DEAL[seat].split()) and v.unseen == 0


def test_r32_seven_of_trump_swap_when_trump_is_turned_suit() -> None:
    """R32: the holder of the 7 of trump may exchange it for the turned card before the first
    lead when trump is the turned suit; the 7 lies face up in its place."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "H")
    assert rnd.phase == "exchange" and rnd.turn == 0  # every seat is asked, from the first
    assert legal_tokens(rnd) == {"keep"}  # seat 0 has no 7H: keeping is its only choice
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    assert legal_tokens(rnd) == {"swap", "keep"}
    act(m, "swap")
    v = seat_view(m, 1)
    assert "AH" in codes(v.hand) and "7H" not in codes(v.hand)
    assert str(seat_view(m, 0).public["turned"]) == "7H"
    assert rnd.phase == "play" and rnd.turn == 0  # R33: the non-dealer leads
    play_out(m, 1)
    assert "AH" in played_codes(rnd) and "7H" not in played_codes(rnd)


def test_r32_swap_may_be_declined() -> None:
    """R32: the exchange is optional."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "H")
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    act(m, "keep")
    assert rnd.phase == "play" and rnd.turn == 0
    assert "7H" in codes(seat_view(m, 1).hand)
    assert str(seat_view(m, 1).public["turned"]) == "AH"
    refused(m, "swap")  # too late once declined


def test_r32_who_holds_the_seven_stays_secret() -> None:
    """R32 (the project's reading, docs/RULES.md): every seat is asked in turn, holder or
    not, and the turn is public; only the seat asked sees its choices; a "keep" is silent to
    the others, the keeper's own view records it."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "H")
    for asked, choices in ((0, {"keep"}), (1, {"swap", "keep"})):
        assert rnd.phase == "exchange" and rnd.turn == asked
        for other in (1 - asked, None):
            v = seat_view(m, other)
            assert v.phase == "exchange" and v.turn == asked and v.legal == ()
        v = seat_view(m, asked)
        assert v.turn == asked and {a.token() for a in v.legal} == choices
        act(m, "keep")
    assert seat_view(m, 0).exchanges == ((0, "keep"),)
    assert seat_view(m, 1).exchanges == ((1, "keep"),)
    assert seat_view(m, None).exchanges == ()


def test_r32_no_swap_when_trump_is_not_the_turned_suit() -> None:
    """R32: only if trump is the turned suit: seat 1 holds the 7S, spades named in round 2."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "pass", "pass", "S")
    assert rnd.phase == "play" and rnd.turn == 0
    assert "swap" not in legal_tokens(rnd)
    refused(m, "swap")
    act(m, "KS")
    refused(m, "swap")


def test_r32_refused_swap_cites_r32() -> None:
    """R32: a swap when trump is not the turned suit is refused citing R32."""
    m = new_match("bela2")
    deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "pass", "pass", "S")
    refused(m, "swap", "R32")


def test_r32_swap_only_for_the_holder_and_before_the_first_lead() -> None:
    """R32: the 7 of trump in stock: nobody may swap; a swap after the first card is refused."""
    m = new_match("bela2")
    rnd = deal(m, CAPOT_DEAL, turned="JD")  # trump D accepted; 7D held by seat 1
    act(m, "D")
    assert rnd.phase == "exchange" and rnd.turn == 0
    act(m, "keep")
    assert rnd.phase == "exchange" and rnd.turn == 1
    act(m, "keep")
    act(m, "AD")
    refused(m, "swap")
    m2 = new_match("bela2")
    rnd2 = deal(m2, SWAP_DEAL, turned="QD")  # 7D is out of play
    act(m2, "D")
    assert rnd2.phase == "exchange" and rnd2.turn == 0  # asked all the same: nobody knows
    refused(m2, "swap")
    act(m2, "keep")
    refused(m2, "swap")
    act(m2, "keep")
    assert rnd2.phase == "play"
    refused(m2, "swap")


# -- R33: play and scoring ----------------------------------------------------------------------

def test_r33_non_dealer_leads_even_when_dealer_calls() -> None:
    """R33: the non-dealer leads, whoever called."""
    m = new_match("bela2")
    rnd = deal(m, SWAP_DEAL, turned=SWAP_TURNED)
    act(m, "pass", "pass", "pass", "C")
    assert rnd.caller == 1 and rnd.turn == 0 == rnd.first


def test_r33_twenty_cards_total_is_played_points_plus_ten() -> None:
    """R30, R33: 10 tricks of 2; the round total is the points of the 20 cards actually played
    + 10 for the last trick (no declarations here)."""
    for seed in range(10):
        m, rnd = plain_round(seed)
        played = played_codes(rnd)
        assert len(played) == 20 == len(set(played)) and len(rnd.tricks) == 10
        trump = rnd.trump_name
        expected = sum(card_points(c, trump) for c in played) + 10
        assert sum(rnd.result.card_points) == expected == rnd.result.total


def test_r33_points_vary_with_cards_out_of_play() -> None:
    """R30: only 20 cards are played, so the total is not always 162."""
    totals = {plain_round(seed)[1].result.total for seed in range(20)}
    assert len(totals) > 1


def test_r33_r17_duties_apply() -> None:
    """R33 (R16-R20): follow suit and beat; void: trump."""
    m = new_match("bela2")
    rnd = deal(m, CAPOT_DEAL, turned=CAPOT_TURNED)
    act(m, "pass", "pass", "H", "TS")
    assert legal_cards(rnd) == {"7S", "8S", "9S"}  # none beats TS: any spade
    act(m, "9S", "9H")
    assert legal_cards(rnd) == {"7H", "8H"}


def test_r23_r33_capot_plus_90() -> None:
    """R23 per player (R33): the player taking every trick scores the total plus 90."""
    m = new_match("bela2")
    rnd = deal(m, CAPOT_DEAL, turned=CAPOT_TURNED)
    act(m, "pass", "pass", "H")
    play_out(m, 7, bela=False)
    res = rnd.result
    assert res.outcome == "capot"
    assert res.card_points == (115, 0) and res.total == 115
    assert res.scores == (205, 0)


def test_r23_r33_capot_with_declaration_and_bela() -> None:
    """R23, R12, R14: the capot total includes the declaration (6-sequence, 100) and bela."""
    m = new_match("bela2")
    rnd = deal(m, CAPOT_DEAL, turned=CAPOT_TURNED)
    act(m, "pass", "pass", "H", "declare 9H TH JH QH KH AH", "KH*")
    play_out(m, 8)
    res = rnd.result
    assert res.declaration_points == (100, 0) and res.bela_points == (20, 0)
    assert res.scores == (115 + 100 + 20 + 90, 0)


def _outcome_round(need: object, options: dict[str, str] | None = None) -> tuple[Match, object]:
    return search_round(lambda s: plain_round(s, options), need, 3000)  # type: ignore[arg-type]


def test_r33_caller_passes_each_scores_own() -> None:
    """R33 (R22 per player): the caller with more than half: each scores his own points."""
    m, rnd = _outcome_round(lambda r: r.result.outcome == "pass" and min(r.result.card_points))
    res = rnd.result
    assert 2 * res.card_points[rnd.caller] > res.total
    assert res.scores == res.card_points


def test_r33_caller_falls_other_scores_whole_total() -> None:
    """R22 per player: a falling caller scores 0; the other scores the whole total."""
    m, rnd = _outcome_round(lambda r: r.result.outcome == "fall"
                            and r.result.card_points[r.caller] > 0)
    res = rnd.result
    c = rnd.caller
    assert 2 * res.card_points[c] < res.total
    assert res.scores[c] == 0 and res.scores[1 - c] == res.total


def _tie(r: object) -> bool:
    cp = r.result.card_points  # type: ignore[attr-defined]
    return 2 * cp[r.caller] == sum(cp)  # type: ignore[attr-defined]


def test_r22_bela2_tie_falls_by_default() -> None:
    """R22 tie = fall (default): on an exact tie the caller falls, the other takes all."""
    m, rnd = _outcome_round(_tie)
    res = rnd.result
    c = rnd.caller
    assert res.outcome == "fall"
    assert res.scores[c] == 0 and res.scores[1 - c] == res.total


def test_r22_bela2_tie_hang_option() -> None:
    """R22 tie = hang: the other scores his own points, the caller's are held for the side
    that scores more next round."""
    m, rnd = _outcome_round(_tie, {"tie": "hang"})
    res = rnd.result
    c = rnd.caller
    half = res.total // 2
    assert res.outcome == "hang" and res.held == half
    assert res.scores[c] == 0 and res.scores[1 - c] == half
    nxt = m.deal()
    play_out(m, 5, bela=False)
    base = nxt.result.scores
    if base[0] != base[1]:
        top = 0 if base[0] > base[1] else 1
        booked = list(base)
        booked[top] += half
        assert m.sheet[-1] == tuple(booked) and m.held == 0
    else:
        assert m.held == half


def _equal_round(options: dict[str, str]) -> object:
    def make(seed: int) -> tuple[Match, object]:
        m = new_match("bela2", options)
        rnd = deal(m, EQUAL_DEAL, turned=EQUAL_TURNED)
        act(m, "pass", "pass", "H")
        play_out(m, seed, declare={0: "7S 8S 9S", 1: "7D 8D 9D"}, bela=False)
        return m, rnd
    return search_round(make, lambda r: all(r.tricks_won))[1]


def test_r12_bela2_equal_declarations_earlier_seat_wins() -> None:
    """R12 (equal_declarations = earlier): the non-dealer, earlier in turn order, scores."""
    rnd = _equal_round({})
    assert rnd.result.declarations_to == 0
    assert rnd.result.declaration_points == (20, 0)


def test_r12_bela2_equal_declarations_cancel() -> None:
    """R12 option equal_declarations = cancel: neither scores."""
    rnd = _equal_round({"equal_declarations": "cancel"})
    assert rnd.result.declarations_to is None
    assert rnd.result.declaration_points == (0, 0)


def test_r33_belot_wins_the_match() -> None:
    """R33 + R10: belot (all 8 of a suit) wins the match at once."""
    m = new_match("bela2")
    rnd = deal(m, ["7S 8S 9S TS JS QS KS AS 7D 8D", "7H 8H 9H TH JH QH KH AH 9D TD"],
               turned="AD")
    act(m, "D", "keep", "keep", "declare 7S 8S 9S TS JS QS KS AS")
    assert rnd.result.outcome == "belot" and m.winner == 0


def test_r33_target_501() -> None:
    """bela2 plays to 501 (variant table)."""
    assert Match("bela2").options.target == 501


@pytest.mark.parametrize("options", [{"enforce": "off"}, {"enforce": "on"}, {"tie": "x"},
                                     {"equal_declarations": "later"}])
def test_r24_bela2_rejects_enforce_and_bad_options(options: dict[str, str]) -> None:
    """R24: enforce is bela4 only; R12/R22 values are checked."""
    with pytest.raises(InvalidOptions):
        Match("bela2", options=options)

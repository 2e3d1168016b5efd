"""bela4 dealing, calling trump and the dealer order (RULES.md R6, R7, R39)."""

from __future__ import annotations

import pytest
from bela4_helpers import (
    act,
    cards,
    codes,
    deal,
    legal_tokens,
    new_match,
    random_finish,
    refused,
    rotate,
    snapshot,
)

from bela.engine import IllegalAction, InvalidDeal
from bela.engine.views import seat_view

HANDS = ["7H 8H 9H TH JH QH KS AS", "7D 8D 9D TD JD QD KH AH",
         "7S 8S 9S TS JS QS KD AD", "7C 8C 9C TC JC QC KC AC"]


# -- R6 -----------------------------------------------------------------------------------------
def test_r6_first_six_seen_talon_hidden_before_own_bid() -> None:
    """R6: before its own bid a seat sees only its first 6 cards; the talon stays hidden."""
    m = new_match()
    deal(m, HANDS)
    for s in range(4):
        v = seat_view(m, s)
        assert codes(v.hand) == set(HANDS[s].split()[:6])
        assert v.unseen == 2
        assert v.hand_sizes == (8, 8, 8, 8)


def test_r6_talon_seen_after_own_pass_only() -> None:
    """R6: a seat sees its talon after its own bid (a pass), the later seats still do not."""
    m = new_match()
    deal(m, HANDS)
    act(m, "pass")  # seat 0
    assert codes(seat_view(m, 0).hand) == set(HANDS[0].split())
    assert seat_view(m, 0).unseen == 0
    for s in (1, 2, 3):
        assert codes(seat_view(m, s).hand) == set(HANDS[s].split()[:6])
    act(m, "pass")  # seat 1
    assert codes(seat_view(m, 1).hand) == set(HANDS[1].split())
    assert codes(seat_view(m, 2).hand) == set(HANDS[2].split()[:6])


def test_r6_all_hold_eight_after_trump_is_fixed() -> None:
    """R6: after trump is fixed every seat holds (and sees) 8 cards."""
    m = new_match()
    deal(m, HANDS)
    act(m, "pass", "S")  # seat 1 calls
    for s in range(4):
        v = seat_view(m, s)
        assert codes(v.hand) == set(HANDS[s].split()) and v.unseen == 0


def test_r6_talon_of_others_never_in_a_view() -> None:
    """R6: no seat (nor a spectator) sees another seat's cards during the bidding."""
    m = new_match()
    deal(m, HANDS)
    for step in range(4):
        for viewer in (0, 1, 2, 3, None):
            v = seat_view(m, viewer)
            own = set(HANDS[viewer].split()) if viewer is not None else set()
            assert codes(v.hand) <= own
            assert all(a.token() in ("pass", "H", "D", "S", "C") for a in v.legal)
        if step < 3:
            act(m, "pass")


# -- R7 -----------------------------------------------------------------------------------------
def test_r7_first_call_ends_bidding() -> None:
    """R7: the first call ends the bidding; the caller's side is the calling side."""
    m = new_match()
    rnd = deal(m, HANDS)
    assert legal_tokens(rnd) == {"pass", "H", "D", "S", "C"}
    act(m, "pass", "C")
    assert rnd.phase == "play" and rnd.caller == 1 and rnd.trump_name == "C"
    assert [s for s, _ in rnd.bids] == [0, 1]
    assert rnd.turn == 0  # R16: the first seat leads, whoever called


def test_r7_no_overcalling_after_a_call() -> None:
    """R7: one round and no overcalling: after a call nobody may bid (refused, no change)."""
    m = new_match()
    deal(m, HANDS)
    act(m, "H")
    before = snapshot(m)
    for tok in ("S", "pass", "D"):
        with pytest.raises(IllegalAction):
            act(m, tok)
        assert snapshot(m) == before


def test_r7_overcall_cites_r7() -> None:
    """R7: an overcall is refused under R7."""
    m = new_match()
    deal(m, HANDS)
    act(m, "H")
    refused(m, "S", "R7")
    refused(m, "pass", "R7")


def test_r7_dealer_must_call_after_three_passes() -> None:
    """R7: after three passes the dealer must call ("mus") and may name any suit."""
    m = new_match()
    rnd = deal(m, HANDS)
    act(m, "pass", "pass", "pass")
    assert rnd.turn == rnd.dealer == 3
    assert legal_tokens(rnd) == {"H", "D", "S", "C"}
    exc = refused(m, "pass", "R7")
    assert set(exc.legal) == {"H", "D", "S", "C"}
    for suit in "HDSC":  # any suit, e.g. one the dealer does not hold at all
        act(m, suit)
        assert rnd.caller == 3 and rnd.trump_name == suit
        rnd.undo()
    act(m, "H")
    assert rnd.phase == "play"


def test_r7_bidding_refuses_plays_and_declarations() -> None:
    """R7: during the bidding only pass or a suit is allowed."""
    m = new_match()
    deal(m, HANDS)
    refused(m, "7H", "R7")
    refused(m, "declare 7H 8H 9H TH JH QH", "R7")
    refused(m, "VC", "R7")
    for exchange in ("keep", "swap", "redeal"):  # not R16: the bidding refuses them
        refused(m, exchange, "R7")


def test_r7_undo_bids() -> None:
    """R7: bids can be taken back with undo, restoring the talon secrecy of R6."""
    m = new_match()
    rnd = deal(m, HANDS)
    act(m, "pass", "pass")
    assert rnd.undo().token() == "pass"
    assert rnd.turn == 1 and seat_view(m, 1).unseen == 2
    assert rnd.undo().token() == "pass"
    assert rnd.turn == 0 and seat_view(m, 0).unseen == 2 and rnd.bids == []
    with pytest.raises(IllegalAction):
        rnd.undo()


# -- R39 ----------------------------------------------------------------------------------------
def test_r39_next_dealer_is_previous_first_seat() -> None:
    """R39: the next round's dealer is the previous round's first seat."""
    m = new_match(first_dealer=3)
    dealers = []
    for i in range(6):
        rnd = deal(m, rotate(HANDS, i))
        dealers.append((rnd.dealer, rnd.first))
        act(m, "pass", "pass", "pass", "H")
        random_finish(m, i)
    assert dealers == [(3, 0), (0, 1), (1, 2), (2, 3), (3, 0), (0, 1)]


def test_r39_deal_with_wrong_dealer_refused() -> None:
    """R39: dealing the second round with a dealer other than the previous first seat fails."""
    m = new_match(first_dealer=1)
    deal(m, HANDS)
    act(m, "H")
    random_finish(m, 0)
    for wrong in (0, 1, 3):
        with pytest.raises(InvalidDeal):
            m.deal(hands=[cards(h) for h in HANDS], dealer=wrong)
    assert len(m.rounds) == 1
    rnd = m.deal(hands=[cards(h) for h in HANDS], dealer=2)
    assert rnd.dealer == 2 and rnd.turn == 3


def test_r39_cannot_deal_before_round_ends() -> None:
    """R39/R25: the next round is dealt only once the current one is over."""
    m = new_match()
    deal(m, HANDS)
    with pytest.raises(IllegalAction):
        deal(m, HANDS)

"""Seat views: the only door to hidden cards (RULES.md R6, R13; DESIGN.md)."""

from __future__ import annotations

import dataclasses

import pytest
from bela4_helpers import (
    PASS_HANDS,
    PLAYS,
    act,
    codes,
    deal,
    legal_cards,
    new_match,
    pass_round,
)

from bela.engine import Play
from bela.engine.views import seat_view


def test_r6_spectator_view_has_no_hand() -> None:
    """R6: the public view holds no cards of any hand, before or after the call."""
    m = new_match()
    deal(m, PASS_HANDS)
    for step in ("pass", "D"):
        v = seat_view(m, None)
        assert len(v.hand) == 0 and v.unseen == 0 and v.legal == ()
        act(m, step)
    v = seat_view(m, None)
    assert len(v.hand) == 0 and v.hand_sizes == (8, 8, 8, 8)


def test_r16_legal_only_for_the_seat_to_act() -> None:
    """R16: a view lists legal actions only for the seat whose turn it is."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D")
    for s in range(4):
        v = seat_view(m, s)
        if s == rnd.turn:
            assert v.legal == tuple(rnd.legal_actions()) and v.turn == s
        else:
            assert v.legal == ()
    act(m, PLAYS[82][0])
    assert seat_view(m, 1).legal == tuple(rnd.legal_actions())
    assert seat_view(m, 0).legal == ()


def test_r16_view_tracks_trick_and_played_cards() -> None:
    """R16: views show the current trick, the finished tricks and who won them."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D", *PLAYS[82][:5])
    v = seat_view(m, 2)
    w = rnd.tricks[0][2]
    assert [(s, str(c)) for s, c in v.trick] == [(w, PLAYS[82][4])]
    assert len(v.tricks) == 1
    cards, winner = v.tricks[0]
    assert [str(c) for _, c in cards] == PLAYS[82][:4] and winner == rnd.tricks[0][2]
    assert codes(v.played) == set(PLAYS[82][:5])
    assert codes(v.hand) == set(PASS_HANDS[2].split()) - set(PLAYS[82][:5])
    assert v.hand_sizes == tuple(6 if s == w else 7 for s in range(4))


def test_view_after_round_end() -> None:
    """After the round: no turn, no legal actions, the result and the booked sheet."""
    m = new_match()
    pass_round(m, 82)
    v = seat_view(m, 0)
    assert v.phase == "done" and v.turn is None and v.legal == ()
    assert v.result.scores == (82, 80) and v.totals == (82, 80) and v.sheet == ((82, 80),)


def test_views_are_immutable() -> None:
    """A view is a frozen snapshot: changing it is impossible, and later play does not
    change a view already taken."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D")
    v = seat_view(m, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.turn = 3  # type: ignore[misc]
    hand = codes(v.hand)
    act(m, sorted(legal_cards(rnd))[0])
    assert codes(v.hand) == hand and v.trick == ()


def test_view_bids_and_caller() -> None:
    """R7: bids are public."""
    m = new_match()
    deal(m, PASS_HANDS)
    act(m, "pass", "pass", "C")
    v = seat_view(m, 3)
    assert v.bids == ((0, "pass"), (1, "pass"), (2, "C"))
    assert v.caller == 2 and v.trump == "C"


def test_view_legal_plays_are_own_cards() -> None:
    """A seat's legal plays are cards of its own hand."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D")
    while not rnd.is_over:
        v = seat_view(m, rnd.turn)
        plays = {str(a.card) for a in v.legal if isinstance(a, Play)}
        assert plays and plays <= codes(v.hand)
        act(m, sorted(plays)[0])

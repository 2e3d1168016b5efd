"""Undo (DESIGN.md: ``undo()`` pops the log for search)."""

from __future__ import annotations

import pytest
from bela4_helpers import (
    BELA_HANDS_UNDO,
    PASS_HANDS,
    PLAYS,
    act,
    deal,
    new_match,
    snapshot,
)

from bela.engine import IllegalAction, parse_action


def test_undo_play_trick_and_declaration() -> None:
    """Undoing cards, a trick's end and a declaration restores each earlier state."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D")
    states = [snapshot(m)]
    act(m, "declare 9S TS JS QS")
    states.append(snapshot(m))
    for tok in PLAYS[82][:6]:
        act(m, tok)
        states.append(snapshot(m))
    assert len(rnd.tricks) == 1
    for expected in reversed(states[:-1]):
        rnd.undo()
        assert snapshot(m) == expected
    assert rnd.tricks == [] and rnd.card_points == [0, 0]


def test_undo_bela() -> None:
    """Undo takes back a card announced with bela (R14), and the bela with it."""
    m = new_match()
    rnd = deal(m, BELA_HANDS_UNDO)
    act(m, "H", "KH*")
    assert rnd.belas == [(0, 0)]
    assert rnd.undo().token() == "KH*"
    assert rnd.belas == [] and rnd.turn == 0


def test_undo_on_empty_log_refused() -> None:
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    with pytest.raises(IllegalAction):
        rnd.undo()


def test_undo_last_card_reopens_round() -> None:
    """Undoing the last card of a round makes it playable again, with no result."""
    m = new_match()
    rnd = deal(m, PASS_HANDS)
    act(m, "D", *PLAYS[82][:-1])
    before = snapshot(m)
    rnd.apply(parse_action(PLAYS[82][-1]))
    assert rnd.is_over and rnd.result.scores == (82, 80)
    rnd.undo()
    assert not rnd.is_over and rnd.result is None and snapshot(m) == before


def test_undo_after_round_end_unbooks_the_match() -> None:
    """Undo of the last card through the match keeps the score sheet consistent."""
    m = new_match()
    deal(m, PASS_HANDS)
    act(m, "D", *PLAYS[82])
    assert m.sheet == [(82, 80)]
    m.undo()
    assert m.sheet == [] and m.totals == [0, 0] and not m.round.is_over
    act(m, PLAYS[82][-1])
    assert m.sheet == [(82, 80)] and m.totals == [82, 80]

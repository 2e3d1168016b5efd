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


@pytest.mark.parametrize("variant", ["bela2", "bela3", "bela4", "belot2"])
def test_check_refuses_exactly_what_apply_refuses_and_changes_nothing(variant: str) -> None:
    """``Match.check`` (the server's test of an action before it is stored) raises for an
    action exactly when ``apply`` would, with the same reason, and leaves the match as it
    was: over random rounds, every legal action and every card of the deck at each
    state, the last ones ending rounds (their booking taken back too)."""
    import random

    from bela.engine import Match
    from bela.engine.cards import Card

    rng = random.Random(7)
    m = Match(variant, seed=3)

    def state() -> tuple[object, ...]:
        rnd = m.round
        assert rnd is not None
        return (tuple(rnd.hands), tuple(rnd.log), rnd.turn, rnd.phase, tuple(rnd.tricks),
                tuple(m.totals), tuple(m.sheet), m.winner)

    checked = refused = 0
    for _ in range(6):
        rnd = m.deal()
        while not rnd.is_over:
            legal = rnd.legal_actions()
            for action in [*legal, *(parse_action(str(c)) for c in Card.ALL)]:
                before = state()
                try:
                    m.check(action)
                except IllegalAction as exc:
                    assert state() == before
                    with pytest.raises(IllegalAction) as applied:
                        m.apply(action)
                    assert str(applied.value) == str(exc)
                    refused += 1
                else:
                    assert state() == before
                    m.apply(action)
                    m.undo()
                    checked += 1
                assert state() == before
            m.apply(rng.choice(legal))
    assert checked > 100 and refused > 1000

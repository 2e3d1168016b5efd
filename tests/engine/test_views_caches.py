"""The work views keep from state to state: a round's finished tricks as a view carries them
and what they ruled out (R17-R19, R36) are cached, and so is the reason of a refusal for
every hand that reads the same to the duties, so the views of every state of random
apply/undo walks (claims and new rounds included) are checked against all three worked
out afresh from the round; and a view built without the dataclass's ``__init__`` has every
field."""

from __future__ import annotations

import random
from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from bela.engine import Claim, Match
from bela.engine.actions import Pass
from bela.engine.cards import Card, CardSet, iter_cards
from bela.engine.enums import Phase
from bela.engine.explain import Refusal, duty_reason, play_forbidden, proving_seats
from bela.engine.rules import play_table
from bela.engine.state import Round
from bela.engine.variants import VARIANTS
from bela.engine.views import SeatView, seat_view, seat_views


def fresh_tricks(rnd: Round) -> tuple[tuple[tuple[tuple[int, Card], ...], int], ...]:
    """A view's ``tricks`` worked out from the round as it is, without a cache."""
    return tuple((tuple(zip(seats, cards)), winner) for seats, cards, winner in rnd.tricks)


def fresh_ruled_out(rnd: Round) -> tuple[CardSet, ...]:
    """A view's ``ruled_out`` worked out from the round as it is, trick by trick, without a
    cache: each card after the lead rules out what it would have had to be played
    instead of (:func:`~bela.engine.explain.play_forbidden`), for the proving seats."""
    masks = [0] * rnd.variant.seats
    if rnd.contract is not None:
        beats = play_table(rnd.contract).beats
        proving = proving_seats(rnd)
        for seats, cards in [*((s, c) for s, c, _ in rnd.tricks), (rnd.trick_seats, rnd.trick)]:
            if not cards:
                continue
            win = cards[0]
            for seat, card in zip(seats[1:], cards[1:]):
                if seat in proving:
                    masks[seat] |= play_forbidden(rnd.variant.duties, rnd.contract, card,
                                                  cards[0] >> 3, win)
                if beats[win] >> card & 1:
                    win = card
    return tuple(CardSet(m) for m in masks)


def fresh_refusals(rnd: Round) -> tuple[Refusal, ...]:
    """The refusals of the seat to play worked out from its whole hand, without a cache."""
    if rnd.phase != Phase.PLAY or rnd.lead is None or rnd.win_card is None or rnd.table is None:
        return ()
    hand = rnd.hands[rnd.turn]
    refused = hand & ~rnd.variant.duties(hand, rnd.lead, rnd.win_card, rnd.table)
    rule = rnd.variant.rule_ids.get("duties")
    whys = [duty_reason(hand, c, rnd.lead, Card.ALL[rnd.win_card], rnd.table)
            for c in iter_cards(refused)]
    return tuple(replace(why, rule=rule) if rule else why for why in whys)


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32 - 1),
       enforce_off=st.booleans())
def test_views_with_warm_caches_equal_cold_ones_across_undos_claims_and_rounds(
        variant: str, seed: int, enforce_off: bool) -> None:
    options = {"enforce": "off"} if enforce_off and "enforce" in VARIANTS[variant].options else {}
    m = Match(variant, options, seed=seed)
    rng = random.Random(seed)
    seats: list[int | None] = [*range(m.variant.seats), None]
    for _round in range(2):
        if m.is_over:
            break
        rnd = m.deal()
        steps = 0
        while not rnd.is_over:
            if steps and rng.random() < 0.3:
                m.undo()  # the caches hold the state after it: they must not answer here
                steps -= 1
            elif rnd.claim_allowed() and rng.random() < 0.05:
                m.apply(Claim(rng.randrange(m.variant.seats)))  # the proving seats change
                steps += 1
            else:
                legal = rnd.legal_actions()
                passes = [a for a in legal if isinstance(a, Pass)]
                m.apply(passes[0] if passes and rng.random() < 0.5 else rng.choice(legal))
                steps += 1
            tricks, out = fresh_tricks(rnd), fresh_ruled_out(rnd)
            for s, v in seat_views(m, seats).items():
                assert (v.tricks, v.ruled_out) == (tricks, out), s
                if s == v.turn:
                    assert v.refusals == fresh_refusals(rnd)
                assert seat_view(m, s) == v, s


def test_a_view_has_every_field_in_the_dataclass_order() -> None:
    """Views are made by filling ``__dict__`` (no frozen ``__init__``): a field the engine
    adds to :class:`SeatView` but forgets to fill fails here, not as an AttributeError in a
    front end."""
    names = [f.name for f in fields(SeatView)]
    m = Match("bela3", seed=7)
    rnd = m.deal()
    rng = random.Random(7)
    while not rnd.is_over:
        for v in (*seat_views(m, [0, 1, 2, None]).values(),
                  *(seat_view(m, s) for s in (0, 1, 2, None))):
            assert list(vars(v)) == names
        m.apply(rng.choice(rnd.legal_actions()))

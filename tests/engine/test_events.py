"""Events: what ``apply`` returns, and what a seat sees of them (``seen_by``)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bela.engine import Match, parse_action
from bela.engine.actions import Play
from bela.engine.cards import Card, CardSet
from bela.engine.events import (
    BidMade,
    CardPlayed,
    ContractFixed,
    Declared,
    Discarded,
    Event,
    Kept,
    MatchWon,
    RoundBooked,
    RoundOver,
    Swapped,
    TalonTaken,
    TrickTaken,
    seen_by,
)
from bela.engine.views import seat_view

VARIANTS = ("bela4", "bela3", "bela2", "belot2")


def _play_match(variant: str, seed: int) -> tuple[Match, list[tuple[int, tuple[Event, ...]]]]:
    rng = random.Random(seed)
    m = Match(variant, seed=seed, options={"target": 300})
    log: list[tuple[int, tuple[Event, ...]]] = []
    while not m.is_over:
        rnd = m.deal()
        while not rnd.is_over:
            seat = rnd.turn
            log.append((seat, m.apply(rng.choice(rnd.legal_actions()))))
    return m, log


@pytest.mark.parametrize("variant", VARIANTS)
def test_events_tell_what_the_round_recorded(variant: str) -> None:
    """Cards, tricks, results and bookings in the events are exactly the round's."""
    for seed in range(3):
        m, log = _play_match(variant, seed)
        events = [e for _, evs in log for e in evs]
        plays = [(s, a.card) for rnd in m.rounds for s, a in zip(rnd.actors, rnd.log)
                 if isinstance(a, Play)]
        assert [(e.seat, e.card) for e in events if isinstance(e, CardPlayed)] == plays
        tricks = [(w, tuple(zip(seats, cards))) for rnd in m.rounds
                  for seats, cards, w in rnd.tricks]
        assert [(e.seat, e.cards) for e in events if isinstance(e, TrickTaken)] == tricks
        assert [e.result for e in events if isinstance(e, RoundOver)] == \
            [rnd.result for rnd in m.rounds]
        booked = [e for e in events if isinstance(e, RoundBooked)]
        assert [e.scores for e in booked] == m.sheet
        assert booked[-1].totals == tuple(m.totals)
        assert isinstance(events[-1], MatchWon) and events[-1].side == m.winner
        bids = [(s, a) for rnd in m.rounds for s, a in rnd.bids]
        assert [(e.seat, e.action) for e in events if isinstance(e, BidMade)] == bids
        fixed = [e for e in events if isinstance(e, ContractFixed)]
        assert [(e.contract, e.caller) for e in fixed] == \
            [(rnd.contract, rnd.caller) for rnd in m.rounds if rnd.contract is not None]


def test_a_trick_event_counts_its_points_and_the_last_trick_bonus() -> None:
    """R3: the last trick's 10 are in its points; the points add up to the round's."""
    m, log = _play_match("bela4", 5)
    rnd = m.rounds[0]
    trick_events = [e for _, evs in log for e in evs if isinstance(e, TrickTaken)][:8]
    assert sum(e.points for e in trick_events) == sum(rnd.card_points) == 162


def test_the_talon_and_discards_are_seen_only_by_their_owner() -> None:
    """R6, R27: what a seat picks up or lays away is its secret."""
    m = Match("bela3", seed=2)
    rnd = m.deal()
    caller = rnd.turn
    events = m.apply(rnd.legal_actions()[0])
    taken = {e.seat: e.cards for e in events if isinstance(e, TalonTaken)}
    assert taken[caller] is not None and len(taken[caller]) == 6  # R27: 4 + the 2 extra
    for viewer in range(3):
        seen = [e for e in seen_by(events, viewer) if isinstance(e, TalonTaken)]
        assert all((e.cards is not None) == (e.seat == viewer) for e in seen)
    discard = rnd.legal_actions()[0]
    events = m.apply(discard)
    assert events == (Discarded(caller, CardSet(rnd.discards)),)
    assert seen_by(events, (caller + 1) % 3) == (Discarded(caller, None),)
    assert seen_by(events, None) == (Discarded(caller, None),)


def test_others_see_a_declared_sequence_by_length_and_top() -> None:
    """R13: announcing shows the length and the top rank, not the suit."""
    m = Match("bela4", first_dealer=3)
    rnd = m.deal([Card.parse(h) for h in ("JH 9H AH TH 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
                                           "KS 7S 8S 9S JD QD KD AD", "KH QH 8H 7H JC QC KC AC")])
    m.apply(parse_action("H"))
    events = m.apply(rnd.legal_actions()[0])  # seat 0 declares what it holds
    (own,) = [e for e in events if isinstance(e, Declared)]
    (other,) = [e for e in seen_by(events, 1) if isinstance(e, Declared)]
    assert [d.suit for d in own.declarations] == [0, 3]  # 9-10-J of hearts, 7-10 of clubs
    assert [(d.length, d.top, d.suit, d.mask) for d in other.declarations] == \
        [(3, 4, None, 0), (4, 3, None, 0)]
    assert str(other.declarations[1]) == "sequence of 4, top 10"


def _to_exchange(seed: int) -> tuple[Match, object]:
    m = Match("bela2", seed=seed)
    rnd = m.deal()
    while rnd.phase == "bidding":
        m.apply(rnd.legal_actions()[-1])
    return m, rnd


def test_a_swap_is_public_and_keeping_is_private() -> None:
    """R32: the swap of the 7 of trump is seen by all; a seat keeping its cards (whether it
    could swap or not), only by itself."""
    for seed in range(200):
        m, rnd = _to_exchange(seed)
        if rnd.phase != "exchange":
            continue
        while rnd.phase == "exchange" and "swap" not in [a.token() for a in
                                                          rnd.legal_actions()]:
            seat = rnd.turn
            events = m.apply(parse_action("keep"))  # a seat without the 7 is asked too
            assert events == (Kept(seat),)
            assert seen_by(events, 1 - seat) == () == seen_by(events, None)
        if rnd.phase != "exchange":
            continue  # the 7 of trump was out of play
        seat = rnd.turn
        swap = next(a for a in rnd.legal_actions() if a.token() == "swap")
        turned = rnd.public["turned"]
        events = m.apply(swap)
        assert events[0] == Swapped(seat, Card.make(0, rnd.contract or 0), Card.ALL[turned])
        assert seen_by(events, 1 - seat) == events
        break
    else:
        pytest.fail("no deal offered a swap")
    m, rnd = _to_exchange(seed)
    while rnd.turn != seat:
        m.apply(parse_action("keep"))
    events = m.apply(parse_action("keep"))
    assert events[0] == Kept(seat)
    assert Kept(seat) not in seen_by(events, 1 - seat)


def _no_own_talon(events: list[Event], seat: int) -> list[Event]:
    """The events without the seat's own talon cards: it knows them, but the sampler draws
    a deal by what the seat holds now, not by which of its cards came with the talon."""
    return [replace(e, cards=None) if isinstance(e, TalonTaken) and e.seat == seat else e
            for e in events]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seat_sees_the_same_events_for_deals_that_differ_only_in_hidden_cards(
        variant: str) -> None:
    """Information-state equality for events: replaying another deal that agrees with all a
    seat saw (drawn by the sampler) gives that seat the same events, step for step."""
    from bela.engine.state import Round
    from bela.solver.sampler import sample_deals, to_round

    for seed in range(2):
        rng = random.Random(seed)
        m = Match(variant, seed=seed)
        rnd = m.deal()
        seen: dict[int, list[Event]] = {s: [] for s in range(rnd.variant.seats)}
        step = 0
        while not rnd.is_over:
            if step % 4 == 0:
                for seat in seen:
                    view = seat_view(m, seat)
                    for deal in sample_deals(view, 2, rng):
                        replay = to_round(view, deal)
                        again = Round(replay.variant, replay.options, replay.dealer, replay.deal)
                        events = [e for a in replay.log for e in seen_by(again.apply(a), seat)]
                        assert _no_own_talon(events, seat) == _no_own_talon(seen[seat], seat)
            events = m.apply(rng.choice(rnd.legal_actions()))
            for seat in seen:
                seen[seat].extend(seen_by(events, seat))
            step += 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_spectator_sees_the_least(variant: str) -> None:
    """``seen_by`` gives back the very events when a seat sees each as it is, and when a
    spectator does so does every seat (the server then skips asking seat by seat); a seat
    sees an event otherwise only when it holds another seat's secret."""
    m, log = _play_match(variant, 5)
    secret = private = 0
    for _, events in log:
        public = seen_by(events, None)
        for seat in range(m.variant.seats):
            seen = seen_by(events, seat)
            if public is events:
                assert seen is events
            elif seen is not events:
                assert seen != events
                private += 1
        secret += public is not events
    assert secret > 0 and private > 0

"""Property tests over random complete rounds of bela3, bela2 and belot2 (hypothesis).

Every round is a seeded shuffle played with seeded random legal actions (declarations, bela,
discards, swaps and redeals included); ``passes`` steers the bidding so that every contract
(belot2: raspas, VC, BC too) is reached.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from variant_helpers import (
    ALL_CODES,
    all_views,
    card_points,
    code,
    codes,
    mask_codes,
    random_action,
    random_round,
    view_cards,
)

from bela.engine import Match, Round
from bela.engine.record import read_record, replay, score, to_record
from bela.engine.views import seat_view

VARIANTS = ["bela3", "bela2", "belot2"]
SEEDS = st.integers(0, 2**32 - 1)
PASSES = st.integers(0, 4)
PROPS = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
IN_PLAY = {"bela3": 30, "bela2": 20, "belot2": 18}


def played(rnd: Round) -> list[str]:
    return [str(c) for t in rnd.tricks for c in t[1]] + [code(c) for c in rnd.trick]


def dealt(rnd: Round) -> set[str]:
    return {str(c) for h in rnd.deal.hands for c in h}


def extra(rnd: Round, key: str) -> set[str]:
    return {str(c) for c in rnd.deal.extra.get(key, ())}


def check_conservation(m: Match, rnd: Round) -> None:
    """R26/R27 (bela3), R30/R32 (bela2), R35 (belot2): no card appears or vanishes."""
    hands = [mask_codes(h) for h in rnd.hands]
    held = [c for h in hands for c in h]
    out = played(rnd)
    assert len(set(held)) == len(held) and not set(held) & set(out)
    assert len(set(out)) == len(out)
    live = set(held) | set(out)
    name = rnd.variant.name
    if name == "bela3":
        disc = mask_codes(rnd.discards)
        extras = extra(rnd, "extra")
        pending = extras if rnd.phase == "bidding" else set()
        assert not disc & live and not pending & live
        assert live | disc | pending == set(ALL_CODES)
        assert len(live) == (32 if rnd.phase == "discard" else 30)
        assert len(disc) == (2 if rnd.phase in ("play", "done") else 0)
    else:
        turned0 = extra(rnd, "turned")
        turned_now = {code(rnd.public["turned"])}
        assert not turned_now & live
        assert live | turned_now == dealt(rnd) | turned0
        assert len(live) == IN_PLAY[name]
        if name == "belot2" and rnd.phase == "bidding":
            assert "bottom" not in rnd.public  # R35: turned up after the bidding
        elif name == "belot2":
            assert code(rnd.public["bottom"]) not in live | turned_now
            assert extra(rnd, "bottom") == {code(rnd.public["bottom"])}


@pytest.mark.parametrize("variant", VARIANTS)
@PROPS
@given(seed=SEEDS, passes=PASSES)
def test_cards_conserved(variant: str, seed: int, passes: int) -> None:
    """R26-R27, R30, R32, R35: 30 in hands + 2 extra/discards (bela3); 20 in play plus the
    turned card (bela2, a swap exchanges them); 18 in play plus turned and bottom (belot2)."""
    m, rnd = random_round(variant, seed, passes, on_step=check_conservation)
    if rnd.result.outcome not in ("redeal", "belot"):
        assert len(played(rnd)) == IN_PLAY[variant]
        assert len(rnd.tricks) == IN_PLAY[variant] // rnd.variant.seats


@pytest.mark.parametrize("variant", VARIANTS)
@PROPS
@given(seed=SEEDS, passes=PASSES)
def test_card_points(variant: str, seed: int, passes: int) -> None:
    """R3, R27: bela3 sums to 162 (trick points + the caller's discards + 10); R33: bela2 is
    the points of the 20 cards played + 10; R36, R38: belot2 the points of the 18 cards
    played (VC: all at trump values, BC: all plain) + 10, doubled in BC."""
    m, rnd = random_round(variant, seed, passes)
    res = rnd.result
    if res.outcome in ("redeal", "belot"):
        return
    contract = rnd.trump_name
    cards = played(rnd)
    trick_pts = sum(card_points(c, contract) for c in cards) + 10
    if variant == "bela3":
        disc = sum(card_points(c, contract) for c in mask_codes(rnd.discards))
        assert trick_pts + disc == 162 == sum(res.card_points)
        won = sum(card_points(str(c), contract) for t in rnd.tricks if t[2] == rnd.caller
                  for c in t[1]) + (10 if rnd.tricks[-1][2] == rnd.caller else 0)
        assert res.card_points[rnd.caller] == won + disc
    else:
        factor = 2 if contract == "BC" else 1
        assert sum(res.card_points) == factor * trick_pts
    for side in range(rnd.variant.sides):  # each player's points are the tricks he took
        won = sum(card_points(str(c), contract) for t in rnd.tricks if t[2] == side
                  for c in t[1]) + (10 if rnd.tricks[-1][2] == side else 0)
        if variant == "bela3" and side == rnd.caller:
            continue
        factor = 2 if contract == "BC" else 1
        assert res.card_points[side] == factor * won


def expected_scores(rnd: Round) -> tuple[str, tuple[int, ...]]:
    """R21-R23, R28, R34, R37 from the round's points (no hang: default options)."""
    res = rnd.result
    n = rnd.variant.sides
    if rnd.variant.name == "belot2" and rnd.raspas:
        return "raspas", tuple(-p for p in res.card_points)
    own = [res.card_points[s] + res.declaration_points[s] + res.bela_points[s] for s in range(n)]
    total = sum(own)
    assert total == res.total
    c = rnd.caller
    if rnd.variant.name == "belot2":
        if own[c] > own[1 - c]:
            return "pass", tuple(own)
        return "fall", tuple(total if s != c else 0 for s in range(n))
    for s in range(n):
        if rnd.tricks_won[s] == len(rnd.tricks):
            return "capot", tuple(total + 90 if t == s else 0 for t in range(n))
    if 2 * own[c] > total:
        return "pass", tuple(own)
    if n == 3:
        return "fall", tuple(0 if s == c else own[s] for s in range(n))
    return "fall", tuple(total if s != c else 0 for s in range(n))


@pytest.mark.parametrize("variant", VARIANTS)
@PROPS
@given(seed=SEEDS, passes=PASSES)
def test_scores_follow_outcome(variant: str, seed: int, passes: int) -> None:
    """R22, R23, R28, R34, R36, R37: the score sheet follows from the round's points; raspas
    scores are never positive; belot2 has no capot; declarations only for one side."""
    m, rnd = random_round(variant, seed, passes)
    res = rnd.result
    if res.outcome in ("redeal", "belot"):
        assert res.scores == (0,) * rnd.variant.sides
        return
    assert (res.outcome, res.scores) == expected_scores(rnd)
    assert tuple(m.totals) == res.scores
    assert sum(1 for p in res.declaration_points if p) <= 1  # R12, R37
    if res.outcome == "raspas":
        assert all(s <= 0 for s in res.scores) and res.caller is None
    if variant == "belot2":
        assert res.outcome != "capot"
        if rnd.raspas:
            assert not rnd.belas and not any(rnd.declared)


@pytest.mark.parametrize("variant", VARIANTS)
@PROPS
@given(seed=SEEDS, passes=PASSES, rounds=st.integers(1, 3))
def test_record_round_trip(variant: str, seed: int, passes: int, rounds: int) -> None:
    """RECORD.md: write -> JSON -> read -> replay reproduces every round's score and the
    record itself."""
    m, _ = random_round(variant, seed, passes)
    rng = random.Random(seed)
    while len(m.rounds) < rounds and not m.is_over:
        rnd = m.deal()
        while not rnd.is_over:
            m.apply(random_action(rnd, rng, passes))
    data = to_record(m)
    again = replay(read_record(json.dumps(data)))
    assert score(again) == score(m)
    assert again.sheet == m.sheet and again.totals == m.totals and again.winner == m.winner
    assert to_record(again) == data


class Knowledge:
    """What each seat may know, computed from the deal and the actions (not the views)."""

    def __init__(self, rnd: Round) -> None:
        self.rnd = rnd
        self.seen: list[set[str]] = [set() for _ in range(rnd.variant.seats)]
        self.public: set[str] = set()

    def update(self) -> None:
        rnd = self.rnd
        for s in range(rnd.variant.seats):
            self.seen[s] |= self.visible_hand(s)
        self.public |= {code(c) for c in rnd.public.values()}
        self.public |= extra(rnd, "turned")  # the opened card stays known after a swap

    def visible_hand(self, seat: int) -> set[str]:
        rnd = self.rnd
        if rnd.phase == "bidding":  # R6-style: the first 6 cards only (R26, R30, R34)
            return {str(c) for c in rnd.deal.hands[seat][:6]}
        return mask_codes(rnd.hands[seat])

    def allowed(self, seat: int | None) -> set[str]:
        rnd = self.rnd
        ok = set(self.public) | set(played(rnd))
        if seat is not None:
            ok |= self.seen[seat]
            if seat == rnd.caller:
                ok |= mask_codes(rnd.discards)
        if rnd.tricks:  # R13, R37: declarations shown after the first trick
            for decls in rnd.declared:
                for d in decls or ():
                    ok |= codes(d.cards)
        elif seat is not None:
            for d in rnd.declared[seat] or ():
                ok |= codes(d.cards)
        return ok


def check_views(m: Match, rnd: Round, know: Knowledge) -> None:
    know.update()
    n = rnd.variant.seats
    views = all_views(m)
    for seat, v in zip([*range(n), None], views):
        if seat is not None:
            assert {str(c) for c in v.hand} == know.visible_hand(seat)
        leaked = view_cards(v) - know.allowed(seat)
        assert not leaked, (seat, rnd.phase, leaked)
        if seat != rnd.caller:
            assert v.discards is None
        assert v.ruled_out == views[-1].ruled_out  # public: the same for every viewer
        assert not any(out.mask & rnd.hands[s] for s, out in enumerate(v.ruled_out))
    hidden_stock = set(ALL_CODES) - dealt(rnd) - know.public - extra(rnd, "extra")
    for v in views:
        assert not view_cards(v) & hidden_stock  # R30, R35: the stock stays hidden
    if rnd.variant.name == "bela3":
        shown = {c for decls in rnd.declared for d in decls or () for c in codes(d.cards)}
        extras = extra(rnd, "extra") - set(played(rnd)) - (shown if rnd.tricks else set())
        for seat in range(n):
            if seat != rnd.caller or rnd.phase == "bidding":
                assert not view_cards(seat_view(m, seat)) & extras  # R26: the 2 extra cards


@pytest.mark.parametrize("variant", VARIANTS)
@PROPS
@given(seed=SEEDS, passes=PASSES)
def test_views_never_leak(variant: str, seed: int, passes: int) -> None:
    """Views are the only door to hidden cards: talons before the own bid, the bela3 extra
    cards, the caller's discards, the stock and the other hands never show; the turned and
    bottom cards are public."""
    state: dict[str, Knowledge] = {}

    def step(m: Match, rnd: Round) -> None:
        know = state.setdefault("k", Knowledge(rnd))
        check_views(m, rnd, know)

    m, rnd = random_round(variant, seed, passes, on_step=step)
    if variant != "bela3":
        for v in all_views(m):
            assert "turned" in v.public

"""The solver's compiled kernels agree with the engine: legal cards (R17-R19, R36), trick
winners (R20, R36) and points (R2, R3), in every variant and contract."""

from __future__ import annotations

import random

import numpy as np
import pytest
from dd_reference import VARIANTS, random_round

from bela.engine import Card, Play
from bela.engine.rules import (
    ALL_TRUMPS,
    NO_TRUMPS,
    bela_duties,
    belot2_duties,
    play_table,
    trick_winner_index,
)
from bela.solver import kernels as K

pytest.importorskip("numba")

CONTRACTS = range(6)  # four suits, VC, BC


def kernel_legal(hand: int, lead: int, win: int, contract: int, kind: int) -> int:
    """The kernel's legal cards, in engine numbering."""
    lay = K.layout(contract)
    R = K.rule_array(contract, kind)
    k_win = lay.to_kernel[win] if win >= 0 else -1
    return lay.mask_to_engine(int(K.legal_cards(lay.mask_to_kernel(hand), lead, k_win, R)))


def test_layout_round_trips_and_orders_suits() -> None:
    rng = random.Random(1)
    for contract in CONTRACTS:
        lay = K.layout(contract)
        table = play_table(contract)
        for c in range(32):
            k = lay.to_kernel[c]
            assert lay.to_engine[k] == c and k >> 3 == c >> 3
            above = lay.mask_to_engine((0xFF << (8 * (k >> 3))) & -(2 << k))
            assert above == table.above[c]  # kernel order within a suit = the engine's
        for _ in range(200):
            m = rng.getrandbits(32)
            assert lay.mask_to_engine(lay.mask_to_kernel(m)) == m
            assert lay.mask_to_kernel(m).bit_count() == m.bit_count()


def test_points_and_beats_tables_match_the_engine() -> None:
    for contract in CONTRACTS:
        table = play_table(contract)
        lay = K.layout(contract)
        for kind in (K.DUTY_BELA, K.DUTY_BELOT2):
            R = K.rule_array(contract, kind)
            for c in range(32):
                k = lay.to_kernel[c]
                assert R[K.R_POINTS + k] == table.points[c]
                assert lay.mask_to_engine(int(R[K.R_BEATS + k])) == table.beats[c]
            assert lay.mask_to_engine(int(R[K.R_TRUMPS])) == table.trump_mask
            assert K.mask_points(lay.mask_to_kernel((1 << 32) - 1), R) == sum(table.points)
        assert sum(table.points) == {ALL_TRUMPS: 248, NO_TRUMPS: 120}.get(contract, 152)


@pytest.mark.parametrize("contract", CONTRACTS)
def test_duties_match_engine_functions_on_random_input(contract: int) -> None:
    """Random hands, led suits and winning cards, both duty kinds, every contract."""
    rng = random.Random(contract)
    table = play_table(contract)
    for _ in range(3000):
        hand = rng.getrandbits(32) & rng.getrandbits(32)
        lead = rng.randrange(-1, 4)
        win = -1
        if lead >= 0:
            win = rng.choice([c for c in range(32) if not hand >> c & 1])
        for kind, fn in ((K.DUTY_BELA, bela_duties), (K.DUTY_BELOT2, belot2_duties)):
            assert kernel_legal(hand, lead, win, contract, kind) == fn(hand, lead, win, table)


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_cards_match_rounds(variant: str) -> None:
    """Every position of random rounds: the kernel's legal cards are Round.legal_cards."""
    rng = random.Random(hash(variant) & 0xFFFF)
    checked = 0
    while checked < 600:
        rnd = random_round(variant, rng, rng.randrange(1, 10))
        kind = K.DUTY_BELOT2 if variant == "belot2" else K.DUTY_BELA
        table = rnd.table
        assert table is not None
        while not rnd.is_over:
            win = rnd.trick[trick_winner_index(rnd.trick, table)] if rnd.trick else -1
            lead = -1 if rnd.lead is None else rnd.lead  # the kernels' "no card led yet"
            assert kernel_legal(rnd.hands[rnd.turn], lead, win, rnd.contract,
                                kind) == rnd.legal_cards()
            assert win == (-1 if rnd.win_card is None else rnd.win_card)
            checked += 1
            legal = [c for c in range(32) if rnd.legal_cards() >> c & 1]
            rnd.apply(Play(Card.ALL[rng.choice(legal)]))


@pytest.mark.parametrize("contract", CONTRACTS)
def test_trick_winners_and_points_match_the_engine(contract: int) -> None:
    rng = random.Random(100 + contract)
    table = play_table(contract)
    lay = K.layout(contract)
    R = K.rule_array(contract, K.DUTY_BELOT2 if contract >= ALL_TRUMPS else K.DUTY_BELA)
    buf = np.zeros(4, dtype=np.int64)
    for _ in range(3000):
        n = rng.choice([2, 3, 4])
        cards = rng.sample(range(32), n)
        for i, c in enumerate(cards):
            buf[i] = lay.to_kernel[c]
        assert K.trick_winner(buf, n, R) == trick_winner_index(cards, table)
        mask = sum(1 << c for c in cards)
        assert K.mask_points(lay.mask_to_kernel(mask), R) == sum(table.points[c]
                                                                  for c in cards)


def test_representatives_group_adjacent_cards_of_equal_points() -> None:
    from bela.engine.cards import HEARTS, CardSet

    lay = K.layout(HEARTS)
    R = K.rule_array(HEARTS, K.DUTY_BELA)
    hand = CardSet.parse("7S 8S 9S AS QS 7C 9C").mask
    live = hand | CardSet.parse("8C KS").mask
    out = np.zeros((2, 16), dtype=np.int64)
    n = K.representatives(lay.mask_to_kernel(hand), lay.mask_to_kernel(live), R, out[0],
                          out[1])
    classes: dict[int, set[str]] = {}
    for i in range(n):
        card = str(CardSet(1 << lay.to_engine[int(out[0, i])]))
        classes.setdefault(int(out[1, i]), set()).add(card)
    groups = sorted(sorted(g) for g in classes.values())
    # 7S 8S 9S: zero points, next to each other; QS (3) and AS (11) differ; 8C splits clubs
    assert groups == [["7C"], ["7S", "8S", "9S"], ["9C"], ["AS"], ["QS"]]

"""The compiled self-play simulator agrees with the engine: every card it plays is legal in
the engine, its legal cards at each step are the engine's (R16-R19, R36), and its card
points and tricks per side are the engine's at the end of the round (R2, R3, R21, R36), in
every variant (bela3's caller against two, belot2's VC / BC / raspas) and from any point of
the play."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bela.engine import Card, Match, Pass, Play, Round
from bela.engine.actions import Decline, Redeal
from bela.engine.rules import play_table
from bela.engine.variants import get_variant
from bela.training import selfplay
from bela.training.selfplay import Batch, batch_from_rounds, play_batch, random_batch

VARIANTS = ("bela4", "bela3", "bela2", "belot2")

pytest.importorskip("numba")


def engine_rounds(variant: str, seed: int, count: int, fresh: bool) -> list[Round]:
    """``count`` rounds of ``variant`` (any dealer) bid at random to their play phase, a
    third of belot2's passing whenever they can (raspas, R34); ``fresh``: at the first lead,
    else some cards (perhaps part of a trick) played at random too."""
    rng = random.Random(seed)
    full = get_variant(variant).hand_cards
    out: list[Round] = []
    while len(out) < count:
        left = full if fresh else rng.randrange(1, full + 1)
        rnd = engine_round(variant, rng, left, fresh, passing=len(out) % 3 == 0)
        if rnd is not None:
            out.append(rnd)
    return out


def engine_round(variant: str, rng: random.Random, left: int, fresh: bool,
                 passing: bool) -> Round | None:
    """A round bid at random (``passing``: every seat passes when it may) and played at
    random until each seat holds ``left`` cards, then (unless ``fresh``) perhaps part of a
    trick; None when the round ended first (a redeal is never asked for, R35)."""
    v = get_variant(variant)
    m = Match(variant, seed=rng.randrange(1 << 30), first_dealer=rng.randrange(v.seats))
    rnd = m.deal()
    while rnd.phase not in ("play", "done"):
        acts = rnd.legal_actions()
        if rnd.phase == "bidding" and passing:
            acts = [a for a in acts if isinstance(a, Pass)] or acts
        elif rnd.phase == "exchange":
            acts = [a for a in acts if not isinstance(a, Redeal)] or [Decline()]
        m.apply(acts[rng.randrange(len(acts))])
    extra = 0 if fresh else rng.randrange(v.seats)
    while not rnd.is_over and (rnd.hands[rnd.turn].bit_count() > left
                               or len(rnd.trick) < extra):
        plays = [a for a in rnd.legal_actions() if isinstance(a, Play)]
        m.apply(plays[rng.randrange(len(plays))])
    return None if rnd.is_over else rnd


def replay(rnd: Round, cards: np.ndarray, legal: np.ndarray) -> int:
    """Play the recorded cards through the engine, checking each step's legal cards;
    returns the number of cards played."""
    i = 0
    while i < len(cards) and cards[i] >= 0:
        assert not rnd.is_over
        assert rnd.legal_cards() == legal[i], f"step {i}: legal cards differ"
        card = Card.ALL[int(cards[i])]
        plays = [a for a in rnd.legal_actions() if isinstance(a, Play) and a.card == card]
        assert plays, f"step {i}: {card} is not legal in the engine"
        rnd.apply(plays[-1])  # the bela announcement when there is one (R14)
        i += 1
    return i


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("fresh", [True, False], ids=["first-lead", "mid-round"])
def test_the_engine_replays_every_simulated_round(variant: str, policy: str,
                                                  fresh: bool) -> None:
    rounds = engine_rounds(variant, VARIANTS.index(variant) * 100 + fresh, 40, fresh)
    batch = batch_from_rounds(rounds)
    res = play_batch(batch, policy=policy, seed=11, record_legal=True)
    assert res.cards is not None and res.legal is not None
    played = 0
    for b, rnd in enumerate(rounds):
        played += replay(rnd, res.cards[b], res.legal[b])
        assert rnd.is_over
        assert res.side_points()[b].tolist() == rnd.card_points
        assert res.side_tricks()[b].tolist() == rnd.tricks_won
    assert played == res.actions
    if variant == "belot2":
        assert batch.raspas.any() and not batch.raspas.all()
    if variant == "bela3":
        assert len(set(batch.callers.tolist())) == 3


def test_team_points_are_the_play_teams() -> None:
    """bela3: the caller (team 0) against the two others (R28); bela4: 0+2 against 1+3."""
    rounds = engine_rounds("bela3", 5, 20, fresh=True)
    res = play_batch(batch_from_rounds(rounds), seed=2)
    for b, rnd in enumerate(rounds):
        caller = rnd.caller
        assert caller is not None
        own = int(res.points[b, caller])
        assert res.team_points()[b].tolist() == [own, int(res.points[b].sum()) - own]
    res4 = play_batch(random_batch("bela4", 50, seed=3), seed=4)
    assert (res4.team_points() == res4.side_points()).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_batches_deal_the_cards_in_play(variant: str) -> None:
    v = get_variant(variant)
    batch = random_batch(variant, 300, seed=1)
    hands = batch.hands
    assert hands.shape == (300, v.seats) and len(batch) == 300
    assert {int(h).bit_count() for h in hands.flat} == {v.hand_cards}
    union = np.bitwise_or.reduce(hands, axis=1)
    assert {int(u).bit_count() for u in union} == {v.seats * v.hand_cards}  # disjoint hands
    contracts = set(batch.contracts.tolist())
    assert contracts == set(range(4 + len(v.extra_contracts)))
    assert bool(batch.raspas.any()) == v.raspas
    assert (batch.contracts[batch.raspas != 0] < 4).all()
    res = play_batch(batch, seed=9, record=True)
    assert res.actions == 300 * v.seats * v.hand_cards
    assert (res.tricks.sum(axis=1) == v.hand_cards).all()
    for b in range(0, 300, 7):  # every card point in play, plus 10 for the last trick
        points = play_table(int(batch.contracts[b])).points
        assert res.points[b].sum() == sum(points[c] for c in range(32)
                                          if int(union[b]) >> c & 1) + 10
        assert sorted(res.cards[b].tolist()) == [c for c in range(32) if int(union[b]) >> c & 1]


def test_seeds_and_policies() -> None:
    batch = random_batch("bela4", 200, seed=5)
    a = play_batch(batch, seed=1, record=True)
    assert a.cards is not None
    assert (play_batch(batch, seed=1, record=True).cards == a.cards).all()
    assert (play_batch(batch, seed=2, record=True).cards != a.cards).any()
    g = play_batch(batch, policy="greedy", seed=1, record=True)
    assert g.cards is not None
    assert (play_batch(batch, policy="greedy", seed=2, record=True).cards == g.cards).all()
    plain = play_batch(batch, seed=1)
    assert plain.cards is None and plain.legal is None
    assert (plain.points == a.points).all() and plain.actions == a.actions


def test_the_greedy_policy() -> None:
    """Win with the cheapest winning card, else give the cheapest card; raspas: give the
    costliest card that does not take the trick."""
    parse = Card.parse

    def mask(cards: str) -> int:
        return sum(1 << c for c in parse(cards))

    # bela2, hearts trump: seat 0 led the AS; seat 1 is void in spades and must trump (R18)
    b = Batch.make("bela2", [[mask("7C"), mask("JH 7H")]], [0], [0],
                   trick=[[parse("AS")[0]]])
    res = play_batch(b, policy="greedy", record=True)
    assert res.cards is not None
    assert [str(Card.ALL[c]) for c in res.cards[0]] == ["7H", "JH", "7C"]
    assert res.points[0].tolist() == [0, 41]  # AS 7H, then JH 7C and the last trick's 10
    # belot2 raspas: seat 1 keeps below the AS and gives the 10
    b = Batch.make("belot2", [[mask("7C"), mask("7S TS")]], [0], [0], raspas=[1],
                   trick=[[parse("AS")[0]]])
    res = play_batch(b, policy="greedy", record=True)
    assert res.cards is not None
    assert str(Card.ALL[res.cards[0][0]]) == "TS"
    assert res.points[0].tolist() == [31, 0]  # AS TS, then 7C 7S (led clubs) and the 10


def test_plain_python_kernel_plays_the_same() -> None:
    """Without Numba the kernel runs as plain Python, with the same cards."""
    batch = random_batch("belot2", 30, seed=8)
    for policy in ("random", "greedy"):
        compiled = play_batch(batch, policy=policy, seed=3, record_legal=True)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(selfplay, "_simulate", selfplay._simulate.py_func)
            plain = play_batch(batch, policy=policy, seed=3, record_legal=True)
        assert compiled.cards is not None and plain.cards is not None
        assert (compiled.cards == plain.cards).all()
        assert (compiled.points == plain.points).all()


def test_bad_batches_are_refused() -> None:
    rounds = engine_rounds("bela4", 1, 1, fresh=True)
    other = engine_rounds("bela2", 1, 1, fresh=True)
    with pytest.raises(ValueError, match="in one batch"):
        batch_from_rounds([*rounds, *other])
    with pytest.raises(ValueError, match="no rounds"):
        batch_from_rounds([])
    with pytest.raises(ValueError, match="bidding phase"):
        batch_from_rounds([Match("bela4", seed=1).deal()])
    with pytest.raises(ValueError, match="shape"):
        Batch.make("bela4", [[1, 2, 4]], [0], [0])
    with pytest.raises(ValueError, match="contract"):
        Batch.make("bela4", [[1, 2, 4, 8]], [4], [0])
    with pytest.raises(ValueError, match="raspas"):
        Batch.make("bela2", [[1, 2]], [0], [0], raspas=[1])
    with pytest.raises(ValueError, match="leader"):
        Batch.make("bela2", [[1, 2]], [0], [2])
    with pytest.raises(ValueError, match="caller"):
        Batch.make("bela3", [[1, 2, 4]], [0], [0], callers=[-1])
    with pytest.raises(ValueError, match="policy"):
        play_batch(random_batch("bela4", 1), policy="smart")
    with pytest.raises(ValueError, match="deal 1"):  # seat 1 holds no card
        Batch.make("bela2", [[1, 2], [1, 0]], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="deal 0"):  # a card in two hands
        Batch.make("bela2", [[1, 1]], [0], [0])
    with pytest.raises(ValueError, match="deal 0"):  # a card in the trick and a hand
        Batch.make("bela2", [[1, 2]], [0], [1], trick=[[0]])
    Batch.make("bela2", [[1, 0]], [0], [1], trick=[[1]])  # seat 1 led, seat 0 to play


def test_the_greedy_keys_in_the_kernels_numbering() -> None:
    """The greedy policy's keys, renumbered for the kernel: a card's points, then trump or
    not, then its place in its suit (the kernel numbers a suit's cards by strength)."""
    from bela.solver import kernels as K

    for kind in (K.DUTY_BELA, K.DUTY_BELOT2):
        rules, _, _, keys = selfplay._tables(kind)
        for ct in range(len(rules)):
            r = rules[ct]
            want = [int(r[K.R_POINTS + c]) * 32 + (int(r[K.R_TRUMPS]) >> c & 1) * 8 + (c & 7)
                    for c in range(32)]
            assert keys[ct].tolist() == want

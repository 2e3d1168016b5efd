"""Batched self-play of the card play, compiled with Numba.

:func:`play_batch` plays the rest of the card play of many deals at once, inside one
compiled loop, every seat choosing its card by a simple policy: ``"random"`` (a uniform
random legal card, from an in-kernel xorshift64* generator seeded per call) or ``"greedy"``
(deterministic, :func:`bela.solver.greedy.greedy_card`, which the vector environment's
greedy opponents play too).  It knows the rules only through the solver's kernels
(:mod:`bela.solver.kernels`): the rule array built from the engine's own ``PlayTable``
(points R2, R3, R36; trick winners R20, R36), :func:`~bela.solver.kernels.legal_cards` for
the duties (R16-R19, R36), the kernel card numbering; tests/training/test_selfplay.py replays
its plays through the engine.  Cards and masks are in the engine's numbering
(``8 * suit + rank``) in and out.

What a deal is (a :class:`Batch` row): the hands (the cards still to be played: bela3 after
the caller's discards, R27; bela2 and belot2 only the cards dealt into the hands, R33, R35),
the contract, the leader of the current trick and its cards, the play teams (bela4 0+2
against 1+3; bela3 the caller against the two others, R28; two players each alone), raspas
(belot2, R34: the points are still the points each takes) and what each seat has already
taken.  :func:`batch_from_rounds` builds a batch from engine rounds in their play phase,
:func:`random_batch` from fresh random deals.  The :class:`Result` holds, per deal and
seat, the card points taken over the round (cards, plus 10 for the last trick: R2, R3, R21,
R36) and the tricks won, optionally every card played in order and each one's legal cards.

Declarations, bela and the capot bonus are not part of the play (nor is BC's doubling, R36:
the points are the table's, undoubled).  The duties are always enforced (R24's ``enforce =
off`` does not apply).

>>> batch = random_batch("bela4", 4, seed=1)
>>> batch.hands.shape, len(batch)
((4, 4), 4)
>>> res = play_batch(batch, seed=7, record=True)   # compiled on the first call (seconds)
>>> res.side_points().sum(axis=1).tolist()   # R3: 152 card points + 10 for the last trick
[162, 162, 162, 162]
>>> res.cards.shape, res.actions
((4, 32), 128)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ..engine.rules import NO_TRUMPS, play_table
from ..engine.state import Round
from ..engine.variants import get_variant
from ..solver import kernels as K
from ..solver.greedy import greedy_card, greedy_keys
from ..solver.kernels import (
    LAST_TRICK,
    R_BEATS,
    R_POINTS,
    legal_cards,
    low_index,
    njit,
    popcount,
)

__all__ = ["POLICIES", "Batch", "Result", "batch_from_rounds", "play_batch", "random_batch"]

Int64s = npt.NDArray[np.int64]

POLICIES = {"random": 0, "greedy": 1}
_RANDOM = 0
_XS_MUL = np.uint64(0x2545F4914F6CDD1D)  # xorshift64* (Vigna)
_S12, _S25, _S27, _S32 = np.uint64(12), np.uint64(25), np.uint64(27), np.uint64(32)


@cache
def _tables(kind: int) -> tuple[Int64s, Int64s, Int64s, Int64s]:
    """The rule arrays of the six contracts for a duty kind, the card numberings
    engine -> kernel and kernel -> engine, and the greedy policy's card keys in the
    kernel's numbering (:func:`bela.solver.greedy.greedy_keys`), rows indexed by contract."""
    contracts = range(NO_TRUMPS + 1)
    rules = np.stack([K.rule_array(c, kind) for c in contracts])
    to_kernel = np.array([K.layout(c).to_kernel for c in contracts], dtype=np.int64)
    to_engine = np.array([K.layout(c).to_engine for c in contracts], dtype=np.int64)
    keys = np.take_along_axis(greedy_keys(), to_engine, axis=1)
    return rules, to_kernel, to_engine, keys


@njit
def _renumber(mask: int, numbering: np.ndarray) -> int:
    """A card mask with every card ``c`` moved to ``numbering[c]``."""
    out = 0
    while mask != 0:
        bit = mask & -mask
        mask ^= bit
        out |= 1 << numbering[low_index(bit)]
    return out


@njit
def _join_trick(c: int, seat: int, pos: int, lead: int, win: int, wseat: int,
                R: np.ndarray) -> tuple[int, int, int]:
    """Card ``c`` of ``seat`` joins the trick at place ``pos``: the led suit, the winning
    card and its seat after it (R20)."""
    if pos == 0:
        return c >> 3, c, seat
    if (R[R_BEATS + win] >> c) & 1:
        return lead, c, seat
    return lead, win, wseat


@njit
def _simulate(H: np.ndarray, contracts: np.ndarray, leaders: np.ndarray, trick: np.ndarray,
              teams: np.ndarray, raspas: np.ndarray, points: np.ndarray, tricks: np.ndarray,
              RT: np.ndarray, TK: np.ndarray, TE: np.ndarray, GK: np.ndarray, policy: int,
              seed: int,
              record: int, cards: np.ndarray, legal_out: np.ndarray) -> int:
    """Play every deal of the batch to its end; returns the number of cards played, or
    ``-1 - b`` when deal ``b``'s seat to play has no card (hands that do not fit a round).

    ``H`` (engine masks), ``contracts``, ``leaders``, ``trick`` (engine cards, -1 padded),
    ``teams``, ``raspas``: the deals; ``points`` / ``tricks`` (per seat) are added to;
    ``RT`` / ``TK`` / ``TE`` / ``GK``: the rule arrays, numberings and greedy keys per
    contract (:func:`_tables`);
    ``record``: 0 nothing, 1 the cards played into ``cards`` (engine numbering), 2 also
    their legal cards into ``legal_out`` (engine masks)."""
    n = H.shape[1]
    h = np.zeros(4, dtype=np.int64)
    x = np.uint64(seed)
    total = 0
    for b in range(H.shape[0]):
        ci = contracts[b]
        R = RT[ci]
        tk = TK[ci]
        te = TE[ci]
        left = 0
        for s in range(n):
            h[s] = _renumber(H[b, s], tk)
            left += popcount(h[s])
        seat = leaders[b]
        pos = 0
        lead = -1
        win = -1
        wseat = -1
        tpts = 0
        for j in range(trick.shape[1]):  # the current trick's cards
            e = trick[b, j]
            if e < 0:
                break
            c = tk[e]
            lead, win, wseat = _join_trick(c, seat, pos, lead, win, wseat, R)
            tpts += R[R_POINTS + c]
            pos += 1
            seat = seat + 1 if seat + 1 < n else 0
        misere = raspas[b]
        i = 0
        while left > 0:
            legal = legal_cards(h[seat], lead, win, R)
            if legal == 0:  # pragma: no cover - Batch.make checks the hands
                return -1 - b
            if legal & (legal - 1) == 0:
                c = low_index(legal)
            elif policy == _RANDOM:
                x ^= x >> _S12
                x ^= x << _S25
                x ^= x >> _S27
                r = ((x * _XS_MUL) >> _S32) * np.uint64(popcount(legal))
                m = legal
                for _ in range(int(r >> _S32)):
                    m &= m - 1
                c = low_index(m & -m)
            else:
                c = greedy_card(legal, pos == 0, R[R_BEATS + win] if pos > 0 else 0,
                                pos > 0 and teams[b, wseat] == teams[b, seat], misere != 0,
                                GK[ci])
            if record:
                cards[b, i] = te[c]
                if record > 1:
                    legal_out[b, i] = _renumber(legal, te)
            i += 1
            h[seat] ^= 1 << c
            left -= 1
            lead, win, wseat = _join_trick(c, seat, pos, lead, win, wseat, R)
            tpts += R[R_POINTS + c]
            if pos == n - 1:  # the trick is complete: its winner leads next (R16, R20)
                points[b, wseat] += tpts + (LAST_TRICK if left == 0 else 0)
                tricks[b, wseat] += 1
                seat = wseat
                pos = 0
                lead = -1
                win = -1
                wseat = -1
                tpts = 0
            else:
                pos += 1
                seat = seat + 1 if seat + 1 < n else 0
        total += i
    return total


def _popcounts(a: Int64s) -> Int64s:
    """Number of cards of each 32-bit mask of an array (``np.bitwise_count`` needs numpy 2)."""
    a = a - ((a >> 1) & 0x55555555)
    a = (a & 0x33333333) + ((a >> 2) & 0x33333333)
    a = (a + (a >> 4)) & 0x0F0F0F0F
    return ((a * 0x01010101) & 0xFFFFFFFF) >> 24


def _int64s(x: object, shape: tuple[int, ...], what: str) -> Int64s:
    a = np.ascontiguousarray(x, dtype=np.int64)
    if a.shape != shape:
        raise ValueError(f"{what} must have the shape {shape}, not {a.shape}")
    return a


@dataclass(frozen=True, eq=False)
class Batch:
    """Deals in their card play, one row each (engine numbering).

    ``hands``: (B, seats) masks of the cards each seat still holds; ``contracts``: (B,) a
    trump suit 0..3, or belot2's ALL_TRUMPS / NO_TRUMPS; ``leaders``: (B,) the seat that led
    the current trick (or leads next); ``trick``: (B, seats - 1) the cards of the current
    trick in play order, -1 after the last; ``callers``: (B,) the caller, -1 in raspas;
    ``teams``: (B, seats) the play team of each seat (``Variant.play_teams``); ``raspas``:
    (B,) 1 for belot2's raspas (R34); ``points`` / ``tricks``: (B, seats) the card points
    and tricks each seat has already taken."""

    variant: str
    hands: Int64s
    contracts: Int64s
    leaders: Int64s
    trick: Int64s
    callers: Int64s
    teams: Int64s
    raspas: Int64s
    points: Int64s
    tricks: Int64s

    def __len__(self) -> int:
        return int(self.hands.shape[0])

    @staticmethod
    def make(variant: str, hands: object, contracts: object, leaders: object,
             callers: object = None, raspas: object = None, trick: object = None,
             points: object = None, tricks: object = None) -> Batch:
        """A batch from array-likes (see the class); ``callers`` defaults to the leaders
        (needed in bela3: the caller plays against the two others), ``raspas`` to none,
        ``trick`` to an empty trick, ``points`` / ``tricks`` to nothing taken yet."""
        v = get_variant(variant)
        n = v.seats
        hs = np.ascontiguousarray(hands, dtype=np.int64)
        if hs.ndim != 2 or hs.shape[1] != n:
            raise ValueError(f"{variant} needs hands of shape (B, {n}), not {hs.shape}")
        size = hs.shape[0]
        cs = _int64s(contracts, (size,), "contracts")
        ls = _int64s(leaders, (size,), "leaders")
        ras = (np.zeros(size, dtype=np.int64) if raspas is None
               else _int64s(raspas, (size,), "raspas"))
        if ras.any() and not v.raspas:
            raise ValueError(f"{variant} has no raspas")
        kinds = 4 + len(v.extra_contracts)
        if ((cs < 0) | (cs >= kinds) | (ras.astype(bool) & (cs > 3))).any():
            raise ValueError(f"a contract {variant} does not play")
        if ((ls < 0) | (ls >= n)).any():
            raise ValueError(f"a leader is not a seat of {variant}")
        cl = ls.copy() if callers is None else _int64s(callers, (size,), "callers")
        cl = np.where(ras != 0, -1, cl)
        raspas_teams = v.play_teams(None) if v.raspas else (0,) * n
        rows = np.array([*(v.play_teams(c) for c in range(n)), raspas_teams],
                        dtype=np.int64)  # row -1: raspas (no caller)
        if ((cl >= n) | ((cl < 0) & (ras == 0))).any():
            raise ValueError(f"a caller is not a seat of {variant}")
        tr = (np.full((size, n - 1), -1, dtype=np.int64) if trick is None
              else _int64s(trick, (size, n - 1), "trick"))
        zeros = np.zeros((size, n), dtype=np.int64)
        pts = zeros if points is None else _int64s(points, (size, n), "points")
        tks = zeros.copy() if tricks is None else _int64s(tricks, (size, n), "tricks")
        _check(hs, ls, tr)
        return Batch(variant, hs, cs, ls, tr, cl, rows[cl], ras, pts, tks)


def _check(hands: Int64s, leaders: Int64s, trick: Int64s) -> None:
    """Raise ValueError unless each row's hands and trick fit one round: cards 0..31 in
    one place each, the trick's cards first, as many cards per seat once the trick is
    complete, and a card for the seat to play."""
    size, n = hands.shape
    if ((hands < 0) | (hands >= 1 << 32)).any() or ((trick < -1) | (trick >= 32)).any():
        raise ValueError("cards are 0..31")
    in_trick = trick >= 0
    length = in_trick.sum(axis=1)
    if (in_trick != (np.arange(n - 1) < length[:, None])).any():
        raise ValueError("a trick's cards come first, then -1")
    bits = np.where(in_trick, np.left_shift(np.int64(1), np.maximum(trick, 0)), 0)
    union = np.bitwise_or.reduce(np.concatenate([hands, bits], axis=1), axis=1)
    counts = _popcounts(hands)
    played = (np.arange(n)[None, :] - leaders[:, None]) % n < length[:, None]
    left = counts + played
    turn = (leaders + length) % n
    bad = ((_popcounts(union) != counts.sum(axis=1) + length)
           | (left != left[:, :1]).any(axis=1) | (counts[np.arange(size), turn] == 0))
    if bad.any():
        b = int(np.argmax(bad))
        raise ValueError(f"deal {b}: the hands and the trick do not fit one round (cards "
                         f"per seat {counts[b].tolist()}, trick {trick[b].tolist()})")


@dataclass(frozen=True, eq=False)
class Result:
    """The played-out deals of a :class:`Batch`.

    ``points`` / ``tricks``: (B, seats) each seat's card points (cards, plus 10 for the last
    trick: R2, R3, R21, R36) and tricks over the whole round, what it had taken before
    included; ``cards``: (B, M) the cards played in order (engine numbering; -1 after a
    deal's last card), ``legal``: (B, M) the legal cards (engine masks) of each of those
    moves, when recorded; ``actions``: the number of cards played."""

    variant: str
    points: Int64s
    tricks: Int64s
    teams: Int64s
    cards: Int64s | None
    legal: Int64s | None
    actions: int

    def side_points(self) -> Int64s:
        """(B, sides) card points per side as ``Round.card_points`` counts them (bela4: 0+2
        and 1+3; bela3 and the two-player variants: per seat)."""
        return self._per_side(self.points)

    def side_tricks(self) -> Int64s:
        """(B, sides) tricks per side as ``Round.tricks_won`` counts them."""
        return self._per_side(self.tricks)

    def team_points(self) -> Int64s:
        """(B, 2) card points per play team (bela3: the caller, then the two others)."""
        return np.stack([(self.points * (self.teams == t)).sum(axis=1) for t in (0, 1)],
                        axis=1)

    def _per_side(self, a: Int64s) -> Int64s:
        v = get_variant(self.variant)
        out = np.zeros((a.shape[0], v.sides), dtype=np.int64)
        for s in range(v.seats):
            out[:, v.side_of(s)] += a[:, s]
        return out


def play_batch(batch: Batch, policy: str = "random", seed: int = 0, record: bool = False,
               record_legal: bool = False) -> Result:
    """Play every deal of ``batch`` to the end of its card play with ``policy`` (one of
    :data:`POLICIES`; ``seed`` drives ``"random"``: the same batch and seed play the same
    cards); ``record``: keep the cards played, ``record_legal``: and their legal cards.
    Runs on the calling thread's core (releasing the GIL)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
    v = get_variant(batch.variant)
    kind = K.DUTY_BELA if v.iber else K.DUTY_BELOT2
    rules, to_kernel, to_engine, keys = _tables(kind)
    size = len(batch)
    rec = 2 if record_legal else 1 if record else 0
    width = int(_popcounts(batch.hands).sum(axis=1).max()) if rec and size else 0
    cards = np.full((size, width) if rec else (1, 1), -1, dtype=np.int64)
    legal = np.zeros((size, width) if rec > 1 else (1, 1), dtype=np.int64)
    points = batch.points.copy()
    tricks = batch.tricks.copy()
    state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & ((1 << 64) - 1) or 1
    with np.errstate(over="ignore"):  # the generator's wrapping product, without Numba
        played = int(_simulate(batch.hands, batch.contracts, batch.leaders, batch.trick,
                               batch.teams, batch.raspas, points, tricks, rules, to_kernel,
                               to_engine, keys, POLICIES[policy], state - (state >> 63 << 64), rec,
                               cards, legal))
    if played < 0:
        raise ValueError(f"deal {-1 - played}: the hands and the trick do not fit one round")
    return Result(batch.variant, points, tricks, batch.teams, cards if rec else None,
                  legal if rec > 1 else None, played)


def batch_from_rounds(rounds: Sequence[Round]) -> Batch:
    """A batch of engine rounds of one variant in their play phase (as they stand: the
    current trick and the tricks taken included)."""
    if not rounds:
        raise ValueError("no rounds")
    name = rounds[0].variant.name
    n = rounds[0].variant.seats
    rows: list[tuple[Sequence[int], int, int, int, int, list[int], list[int], list[int]]] = []
    for rnd in rounds:
        if rnd.variant.name != name:
            raise ValueError(f"rounds of {name} and {rnd.variant.name} in one batch")
        if rnd.phase != "play" or rnd.contract is None:
            raise ValueError(f"a round is in its {rnd.phase} phase, not the play phase")
        table = play_table(rnd.contract)
        pts = [0] * n
        won = [0] * n
        for _, cs, winner in rnd.tricks:
            pts[winner] += sum(table.points[c] for c in cs)
            won[winner] += 1
        leader = rnd.trick_seats[0] if rnd.trick else rnd.turn
        caller = -1 if rnd.caller is None else rnd.caller
        rows.append((rnd.hands, rnd.contract, leader, caller, int(rnd.raspas),
                     [*rnd.trick, *[-1] * (n - 1 - len(rnd.trick))], pts, won))
    cols = list(zip(*rows))
    return Batch.make(name, cols[0], cols[1], cols[2], callers=cols[3], raspas=cols[4],
                      trick=cols[5], points=cols[6], tricks=cols[7])


def random_batch(variant: str, size: int, seed: int = 0) -> Batch:
    """``size`` fresh random deals of ``variant`` at their first lead: random hands of the
    sizes played (bela4 8, bela3 10 after the discards, bela2 10, belot2 9 cards a seat), a
    random contract among the variant's (belot2: a suit, VC, BC or raspas, one in seven
    each), a random caller and a random leader."""
    v = get_variant(variant)
    n, k = v.seats, v.hand_cards
    rng = np.random.default_rng(seed)
    deck = rng.permuted(np.tile(np.arange(32, dtype=np.int64), (size, 1)), axis=1)
    hands = np.bitwise_or.reduce(np.left_shift(np.int64(1), deck[:, :n * k].reshape(size, n, k)),
                                 axis=2)
    options = 4 + len(v.extra_contracts) + int(v.raspas)
    pick = rng.integers(0, options, size=size)
    raspas = (pick == 4 + len(v.extra_contracts)).astype(np.int64)
    contracts = np.where(raspas != 0, rng.integers(0, 4, size=size), pick)
    return Batch.make(variant, hands, contracts, rng.integers(0, n, size=size),
                      callers=rng.integers(0, n, size=size), raspas=raspas)

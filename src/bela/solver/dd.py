"""Double-dummy solver: the exact value of a position with every hand known.

The value of a position for the seat to play is the card points (R2, R3, R36: cards, plus
10 for the last trick) that its side takes over the whole round (the points of the tricks it
has already won included) when everyone plays the rest of the round with full knowledge and
best play, each side maximising its own card points.  Sides: seats 0+2 against 1+3 in
bela4; in bela3 the caller against the two defenders playing together; each seat in bela2
and belot2.  Play follows the variant's duties (R16-R20, R36) exactly.

Conventions:

- Declarations and bela are not part of the value (they do not depend on the play, except
  R15's "at least one trick"), nor is the capot bonus (R23), nor bela3's discards (R27: they
  count for the caller but are not taken in tricks).
- belot2 BC (no trumps) doubles every point in scoring (R36); the value here is the card
  points of the table as they are (undoubled).
- belot2 raspas (R34, R37): each player tries to take as few points as possible.  The
  values are still the points the seat to play takes, but the best card is the one with
  the *lowest* value (``Solution.minimize`` is True).

The search (see :mod:`bela.solver.kernels`, compiled with Numba) is fail-soft alpha-beta at
card level on 32-bit masks, driven by null-window searches (galloping from a guess until the
value is bracketed, then bisecting), with a transposition table at trick starts (keyed on the
cards left and the leader, storing bounds and the best card), equivalent cards searched once,
forced cards played without a node of their own, move ordering, and quick bounds from the
points left and the sure trumps.  Each legal card's value is searched on its own, the table
shared; ``value`` searches only the position's value (about half the work).

Without Numba the kernels run as plain Python: the same results, far slower (the tests
require Numba).

A bela3 ending (the search is skipped as a doctest: the first one after an install compiles
the kernels, see :mod:`bela.solver.warm`; tests/solver/test_dd_solver.py solves it):

>>> from bela.engine.cards import CardSet, HEARTS
>>> hands = [CardSet.parse(h).mask for h in ("7H 8C", "AS 7C", "TS 9C")]   # bela3
>>> sol = solve_position(hands, HEARTS, "bela3", leader=1, taken=(40, 30, 20),
...                      caller=0)  # doctest: +SKIP
>>> sol.seat, str(sol.best), sol.value  # doctest: +SKIP
(1, 'AS', 60)
>>> {str(c): v for c, v in sol.values.items()}  # doctest: +SKIP
{'AS': 60, '7C': 50}
>>> [str(c) for c in sol.line]  # doctest: +SKIP
['AS', 'TS', '7H', '8C', '7C', '9C']
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..engine.cards import Card
from ..engine.rules import play_table, trick_winner_index
from ..engine.state import Round
from ..engine.variants import get_variant
from . import kernels as K

__all__ = [
    "Position",
    "Solution",
    "Solver",
    "solve",
    "solve_position",
    "value",
    "default_solver",
]


@cache
def _variant_info(name: str) -> tuple[int, int]:
    """(seats, duty kind) of a variant: the kernels' duties differ only by the duty to beat
    a plain lead (R17; belot2 has none, R36)."""
    v = get_variant(name)
    return v.seats, K.DUTY_BELA if v.iber else K.DUTY_BELOT2


@cache
def _teams(name: str, caller: int | None) -> tuple[int, ...]:
    """Team (0 or 1) of each seat in the card play (the variant's ``play_teams``)."""
    return get_variant(name).play_teams(caller)


def _taken(name: str, teams: tuple[int, ...], per_side: Sequence[int]) -> tuple[int, int]:
    """Card points already taken per team, from points per side (``Round.card_points``)."""
    v = get_variant(name)
    team_of_side = {v.side_of(s): teams[s] for s in range(v.seats)}
    taken = [0, 0]
    for side, points in enumerate(per_side):
        taken[team_of_side[side]] += points
    return taken[0], taken[1]


@cache
def _byte_points(contract: int) -> tuple[tuple[int, ...], ...]:
    """Card points of each byte (one suit) of a mask, per suit."""
    pts = play_table(contract).points
    return tuple(tuple(sum(pts[8 * s + r] for r in range(8) if b >> r & 1) for b in range(256))
                 for s in range(4))


def mask_points(mask: int, contract: int) -> int:
    """Card points of a mask under a contract."""
    bp = _byte_points(contract)
    return (bp[0][mask & 255] + bp[1][mask >> 8 & 255] + bp[2][mask >> 16 & 255]
            + bp[3][mask >> 24 & 255])


@dataclass(frozen=True, slots=True)
class Position:
    """A position of the play phase with every hand known.

    ``hands``: the mask of cards each seat still holds; ``leader``: the seat that led the
    current trick (or leads next when ``trick`` is empty); ``trick``: the cards of the
    current trick in play order; ``teams``: team 0 or 1 of each seat; ``taken``: card points
    each team has already taken in completed tricks; ``raspas``: belot2's four-pass contract,
    where each player takes as few points as he can.
    """

    variant: str
    contract: int
    hands: tuple[int, ...]
    leader: int
    trick: tuple[int, ...] = ()
    teams: tuple[int, ...] = (0, 1, 0, 1)
    taken: tuple[int, int] = (0, 0)
    raspas: bool = False

    @property
    def seats(self) -> int:
        return len(self.hands)

    @property
    def turn(self) -> int:
        """The seat to play."""
        return (self.leader + len(self.trick)) % len(self.hands)

    @staticmethod
    def from_round(rnd: Round, hands: Sequence[int] | None = None) -> Position:
        """The position of a round in its play phase; ``hands`` (masks) replaces the hands
        (a sampled deal seen from one seat), the rest is taken from the round."""
        if rnd.phase != "play" or rnd.table is None or rnd.contract is None:
            raise ValueError(f"the round is in its {rnd.phase} phase, not the play phase")
        name = rnd.variant.name
        teams = _teams(name, rnd.caller)
        return Position(name, rnd.contract, tuple(rnd.hands if hands is None else hands),
                        rnd.trick_seats[0] if rnd.trick else rnd.turn, tuple(rnd.trick),
                        teams, _taken(name, teams, rnd.card_points), rnd.raspas)

    @staticmethod
    def make(hands: Sequence[int], contract: int, variant: str = "bela4", leader: int = 0,
             trick: Sequence[int] = (), taken: Sequence[int] | None = None,
             caller: int | None = None, raspas: bool = False) -> Position:
        """A position from plain data; ``taken`` is per side as in ``Round.card_points``
        (bela4: 2 sides, bela3: 3 seats, two players: 2 seats); ``caller`` is needed in
        bela3."""
        seats, _ = _variant_info(variant)
        if len(hands) != seats:
            raise ValueError(f"{variant} needs {seats} hands, not {len(hands)}")
        teams = _teams(variant, caller)
        tk = (0, 0) if taken is None else _taken(variant, teams, taken)
        return Position(variant, contract, tuple(hands), leader, tuple(trick), teams, tk,
                        raspas)


@dataclass(frozen=True)
class Solution:
    """The solved position.

    ``values``: for every legal card of ``seat``, the card points its side takes over the
    whole round after playing it (equivalent cards get the same value); ``best``: a card with
    the best value (the highest, or the lowest in raspas: ``minimize``); ``value``: its
    value; ``line``: a principal variation from this card to the end of the round (empty
    unless asked for); ``nodes``: search nodes visited.
    """

    seat: int
    values: dict[Card, int]
    best: Card
    value: int
    line: list[Card] = field(default_factory=list)
    minimize: bool = False
    nodes: int = 0


Args = tuple[int, int, int, int, int, int, int, int]  # seat pos lead win wseat tpts tmask rpts


class Solver:
    """A double-dummy solver with its own transposition table and buffers.

    ``tt_bits``: the table holds ``2 ** tt_bits`` entries (16 bytes each; the default, 4 MB,
    searches bela3's full 10-card deals with far fewer nodes than 16 bits: 24 against 62
    million over six deals of a first lead; bela4's 8-card deals as fast); ``method``: how
    an exact value is found from null-window searches (see
    :func:`bela.solver.kernels.run`); ``sure_bounds``: cut with the sure-trump
    bounds at trick starts.

    Threads: the searches release the GIL, so solvers in different threads run in parallel
    (:func:`default_solver` gives each thread its own).  One solver's queries run one at a
    time (a lock): a solver shared by threads gives right answers, but no parallelism."""

    def __init__(self, tt_bits: int = 18, method: int = K.METHOD_GALLOP,
                 sure_bounds: bool = True) -> None:
        self.TT = np.zeros((1 << tt_bits, 2), dtype=np.int64)
        self.N = np.zeros((K.MAX_PLY, K.N_FIELDS), dtype=np.int64)
        self.MV = np.zeros((K.MAX_PLY, K.MAX_MOVES), dtype=np.int64)
        self.SC = np.zeros((K.MAX_PLY, K.MAX_MOVES), dtype=np.int64)
        self.S = np.zeros(K.S_SIZE, dtype=np.int64)
        self.out = np.zeros((3, K.MAX_MOVES), dtype=np.int64)
        self.method = method
        self.sure_bounds = sure_bounds
        self.gen = 0
        self._lock = threading.Lock()

    @property
    def nodes(self) -> int:
        """Search nodes of the last query."""
        return int(self.S[K.S_NODES])

    # -- setting up a search -------------------------------------------------------------
    def _load(self, pos: Position) -> tuple[np.ndarray, K.Layout, Args]:
        """Load the position into the state vector; returns the rule array, the card layout
        and the search arguments (seat, pos, lead, win, wseat, tpts, tmask, rpts), all in
        kernel numbering."""
        seats, kind = _variant_info(pos.variant)
        R = K.rule_array(pos.contract, kind)
        lay = K.layout(pos.contract)
        S = self.S
        S[:] = 0
        union = 0
        for s, h in enumerate(pos.hands):
            S[s] = lay.mask_to_kernel(h)
            union |= h
        S[K.S_NSEATS] = seats
        mover_team = pos.teams[pos.turn]
        for s in range(seats):
            S[K.S_TEAM + s] = 0 if pos.teams[s] == mover_team else 1
        S[K.S_MISERE] = int(pos.raspas)
        S[K.S_SURE] = int(self.sure_bounds)
        self.gen += 1
        if self.gen >= 1 << K.GEN_BITS:
            self.TT[:] = 0
            self.gen = 1
        S[K.S_GEN] = self.gen
        trick = pos.trick
        rpts = mask_points(union, pos.contract)
        if trick:
            table = play_table(pos.contract)
            w = trick_winner_index(trick, table)
            tpts = sum(table.points[c] for c in trick)
            tmask = 0
            for c in trick:
                tmask |= 1 << lay.to_kernel[c]
            args = (pos.turn, len(trick), trick[0] >> 3, lay.to_kernel[trick[w]],
                    (pos.leader + w) % seats, tpts, tmask, rpts + tpts)
        else:
            args = (pos.turn, 0, -1, -1, -1, 0, 0, rpts)
        return R, lay, args

    def _check(self, pos: Position) -> None:
        seats, _ = _variant_info(pos.variant)
        n = len(pos.hands)
        if n != seats:
            raise ValueError(f"{pos.variant} needs {seats} hands, not {n}")
        counts = [h.bit_count() for h in pos.hands]
        union = 0
        for h in pos.hands:
            if union & h:
                raise ValueError("a card is in two hands")
            union |= h
        for c in pos.trick:
            if union >> c & 1:
                raise ValueError(f"{Card.ALL[c]} is both in the trick and in a hand")
        left = [counts[(pos.leader + i) % n] + (1 if i < len(pos.trick) else 0)
                for i in range(n)]
        if len(set(left)) != 1 or len(pos.trick) >= n or not counts[pos.turn]:
            raise ValueError("the hands and the trick do not fit one round "
                             f"(cards per seat {counts}, trick of {len(pos.trick)})")

    # -- queries ---------------------------------------------------------------------------
    def solve(self, pos: Position, line: bool = False) -> Solution:
        """Values of every legal card of the seat to play (and a principal variation to
        the end of the round when ``line`` is true)."""
        self._check(pos)
        with self._lock:
            return self._solve(pos, line)

    def value(self, pos: Position) -> int:
        """The value of the position for the side to play (best play by everyone)."""
        self._check(pos)
        with self._lock:
            return self._value(pos)

    def _solve(self, pos: Position, line: bool) -> Solution:
        R, lay, args = self._load(pos)
        out = self.out
        n = K.run(K.OP_SOLVE, self.S, R, self.TT, self.MV, self.SC, self.N, *args, 0,
                  self.method, out)
        seat = pos.turn
        top = args[-1] + K.LAST_TRICK
        already = pos.taken[pos.teams[seat]]
        values: dict[Card, int] = {}
        best_i = 0
        for i in range(n):
            if out[2, i] > out[2, best_i]:
                best_i = i
        for i in range(n):
            v = int(out[2, i])
            values[Card.ALL[lay.to_engine[int(out[0, i])]]] = already + (
                top - v if pos.raspas else v)
        best = Card.ALL[lay.to_engine[int(out[0, best_i])]]
        nodes = self.nodes
        pv = self._line(pos, R, lay, args, int(out[2, best_i]), int(out[0, best_i])) \
            if line else []
        return Solution(seat, dict(sorted(values.items())), best, values[best], pv,
                        pos.raspas, nodes)

    def _value(self, pos: Position) -> int:
        R, _, args = self._load(pos)
        top = args[-1] + K.LAST_TRICK
        v = int(K.run(K.OP_VALUE, self.S, R, self.TT, self.MV, self.SC, self.N, *args,
                      top // 2, self.method, self.out))
        already = pos.taken[pos.teams[pos.turn]]
        return already + (top - v if pos.raspas else v)

    def _line(self, pos: Position, R: np.ndarray, lay: K.Layout, args: Args,
              target: int, first: int) -> list[Card]:
        """Play a principal variation out from the loaded position: ``target`` is the
        value (team 0's credited points from the current trick on) and ``first`` the
        kernel card to play."""
        S = self.S
        seats = len(pos.hands)
        seat, p, lead, win, wseat, tpts, tmask, rpts = args
        line: list[Card] = []
        c = first
        while True:
            line.append(Card.ALL[lay.to_engine[c]])
            S[seat] ^= 1 << c
            if p == 0:
                lead, win, wseat = c >> 3, c, seat
            elif int(R[K.R_BEATS + win]) >> c & 1:
                win, wseat = c, seat
            tpts += int(R[K.R_POINTS + c])
            tmask |= 1 << c
            if p == seats - 1:
                last = not any(S[s] for s in range(seats))
                if S[K.S_TEAM + wseat] ^ S[K.S_MISERE] == 0:
                    target -= tpts + (K.LAST_TRICK if last else 0)
                if last:
                    break
                rpts -= tpts
                seat, p, lead, win, wseat, tpts, tmask = wseat, 0, -1, -1, -1, 0, 0
            else:
                seat, p = (seat + 1) % seats, p + 1
            c = K.run(K.OP_FIND, S, R, self.TT, self.MV, self.SC, self.N, seat, p, lead, win,
                      wseat, tpts, tmask, rpts, target, self.method, self.out)
            if c < 0:  # pragma: no cover - would mean a search bug
                raise RuntimeError("principal variation lost")
        return line


_LOCAL = threading.local()


def default_solver() -> Solver:
    """The calling thread's own solver (created on its first use in the thread), used by
    :func:`solve`, :func:`value`, :func:`solve_position` and the ``pimc`` bot: threads
    (a server thinking for several bots at once) never share a transposition table or
    search buffers, and solve in parallel."""
    solver: Solver | None = getattr(_LOCAL, "solver", None)
    if solver is None:
        solver = _LOCAL.solver = Solver()
    return solver


def solve(rnd: Round | Position, hands: Sequence[int] | None = None,
          line: bool = True) -> Solution:
    """Solve a round in its play phase (or a :class:`Position`), optionally with other
    hands; ``line=False`` skips the principal variation."""
    pos = rnd if isinstance(rnd, Position) else Position.from_round(rnd, hands)
    return default_solver().solve(pos, line=line)


def value(rnd: Round | Position, hands: Sequence[int] | None = None) -> int:
    """The value of a round in its play phase for the side to play."""
    pos = rnd if isinstance(rnd, Position) else Position.from_round(rnd, hands)
    return default_solver().value(pos)


def solve_position(hands: Sequence[int], contract: int, variant: str = "bela4",
                   leader: int = 0, trick: Sequence[int] = (),
                   taken: Sequence[int] | None = None, caller: int | None = None,
                   raspas: bool = False, line: bool = True) -> Solution:
    """Solve a position given as plain data (see :meth:`Position.make`)."""
    pos = Position.make(hands, contract, variant, leader, trick, taken, caller, raspas)
    return default_solver().solve(pos, line=line)



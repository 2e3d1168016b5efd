"""Compiled inner loops of the double-dummy solver (Numba on 32-bit card masks).

Kernel card numbering.  Inside the kernels a card is ``8 * suit + strength``, where the
strength 0..7 is the card's place in its suit's order under the contract (0 the lowest):
then "the cards of a suit above c" is a range of bits, and cards next to each other in a
suit's order are next to each other in a mask.  :class:`Layout` converts masks and cards
between the engine's numbering (``8 * suit + rank``) and the kernels' one.

Rule array.  Everything the kernels know about the rules is read from one ``int64`` array per
contract and duty kind, built by :func:`rule_array` from the engine's own
:class:`bela.engine.rules.PlayTable` (``points``, ``beats``, ``trump_mask``, ``is_trump``),
so the search and the engine cannot disagree; tests/solver/test_dd_kernels.py checks legal
cards, trick winners and points against the engine on many random positions.

- ``R[R_POINTS + k]``: card points (R2, R3, R36); ``R[R_BEATS + k]``: the cards that beat k
  in a trick (R20, R36); ``R[R_TRUMPS]``: the cards that beat any card of another suit (the
  trump suit; none in VC and BC); ``R[R_KIND]``: duty kind (:data:`DUTY_BELA` R17-R19 or
  :data:`DUTY_BELOT2` R36); ``R[R_SUIT_TRUMP + s]``: 1 if suit s ranks as trump.

Search state ``S`` (``int64``): the hands of seats 0..3 (kernel masks), the number of seats,
the team of each seat (team 0 maximises), the misère flag (raspas: a trick's points are
credited to the team that does *not* win it), counters and the transposition-table
generation.

The solver calls one kernel, :func:`run` (the values of every card, the value of the
position, or a card of a principal variation), which drives :func:`search`.  The kernels
are compiled on first use and cached on disk (see :mod:`bela.solver.warm`); they release
the GIL.

Without Numba the same functions run as plain Python: correct, but far slower.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, cast

import numpy as np

from ..engine.rules import play_table

try:  # pragma: no cover - exercised by the import itself
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - the documented pure-Python fallback
    numba = None  # type: ignore[assignment]
    HAVE_NUMBA = False

F = TypeVar("F", bound=Callable[..., Any])


def njit(fn: F) -> F:
    """``numba.njit(cache=True, nogil=True)`` when Numba is installed, else the function
    itself.  ``nogil``: a search releases the GIL, so solvers in other threads (one per
    thread, see :func:`bela.solver.dd.default_solver`) run at the same time."""
    if numba is None:  # pragma: no cover
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


DUTY_BELA, DUTY_BELOT2 = 0, 1
FULL = (1 << 32) - 1
LAST_TRICK = 10  # R3, R38: the last trick is worth 10 more

R_POINTS = 0
R_BEATS = 32
R_TRUMPS = 64
R_KIND = 65
R_TRUMP_SUIT = 66
R_SUIT_TRUMP = 68
R_SIZE = 72

# State vector slots.
S_NSEATS = 4  # 0..3: hands
S_TEAM = 5  # 5..8
S_MISERE = 9
S_NODES = 10
S_GEN = 11
S_CALLS = 12
S_SURE = 13  # 1: sure-trump bounds at trick starts
S_SIZE = 16

GEN_BITS = 29  # transposition-table generations (key bits 34..62) before a clear

MAX_PLY = 48
MAX_MOVES = 16

# Fields of a node of the explicit search stack.
(N_SEAT, N_POS, N_LEAD, N_WIN, N_WSEAT, N_TPTS, N_TMASK, N_RPTS, N_ALPHA, N_BETA, N_A0, N_B0,
 N_BEST, N_BESTC, N_I, N_NM, N_IDX, N_KEY, N_G0, N_MAX, N_ONLY, N_NF, N_FC, N_FG0) = range(24)
N_FIELDS = 24

_HASH_MUL = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27, 13,
                      23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)


class Layout:
    """Card numbering of the kernels for one contract, and conversions from / to the
    engine's numbering."""

    __slots__ = ("to_kernel", "to_engine", "_bytes_k", "_bytes_e")

    def __init__(self, contract: int) -> None:
        t = play_table(contract)
        self.to_kernel = tuple((c & ~7) | (7 - t.above[c].bit_count()) for c in range(32))
        inv = [0] * 32
        for c, k in enumerate(self.to_kernel):
            inv[k] = c
        self.to_engine = tuple(inv)
        self._bytes_k = [[self._map_byte(b, s, self.to_kernel) for b in range(256)]
                         for s in range(4)]
        self._bytes_e = [[self._map_byte(b, s, self.to_engine) for b in range(256)]
                         for s in range(4)]

    @staticmethod
    def _map_byte(b: int, s: int, table: tuple[int, ...]) -> int:
        out = 0
        for r in range(8):
            if b >> r & 1:
                out |= 1 << (table[8 * s + r] & 7)
        return out

    def mask_to_kernel(self, mask: int) -> int:
        bk = self._bytes_k
        return (bk[0][mask & 255] | bk[1][mask >> 8 & 255] << 8 | bk[2][mask >> 16 & 255] << 16
                | bk[3][mask >> 24 & 255] << 24)

    def mask_to_engine(self, mask: int) -> int:
        be = self._bytes_e
        return (be[0][mask & 255] | be[1][mask >> 8 & 255] << 8 | be[2][mask >> 16 & 255] << 16
                | be[3][mask >> 24 & 255] << 24)


@cache
def layout(contract: int) -> Layout:
    return Layout(contract)


@cache
def rule_array(contract: int, duty_kind: int) -> np.ndarray:
    """The kernels' rule array for a contract (a suit, ALL_TRUMPS or NO_TRUMPS) and a duty
    kind, in kernel numbering, built from the engine's PlayTable."""
    t = play_table(contract)
    lay = layout(contract)
    r = np.zeros(R_SIZE, dtype=np.int64)
    for c in range(32):
        k = lay.to_kernel[c]
        r[R_POINTS + k] = t.points[c]
        r[R_BEATS + k] = lay.mask_to_kernel(t.beats[c])
    r[R_TRUMPS] = lay.mask_to_kernel(t.trump_mask)
    r[R_KIND] = duty_kind
    r[R_TRUMP_SUIT] = contract if t.trump_mask else -1
    for s in range(4):
        r[R_SUIT_TRUMP + s] = int(t.is_trump[8 * s])
    return r


@njit
def popcount(x: int) -> int:
    """Number of set bits of a 32-bit mask."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit
def low_index(b: int) -> int:
    """Index of a single set bit (a 32-bit mask with one bit)."""
    return int(_DEBRUIJN[((b * 0x077CB531) & 0xFFFFFFFF) >> 27])


@njit
def legal_cards(hand: int, lead: int, win: int, R: np.ndarray) -> int:
    """Legal cards of ``hand`` (kernel numbering) when ``lead`` is the led suit (-1: the
    hand leads) and ``win`` the card winning the trick so far; mirrors ``bela_duties``
    (R17-R19) and ``belot2_duties`` (R36) of bela.engine.rules."""
    if lead < 0:
        return hand
    follow = hand & (0xFF << (8 * lead))
    if R[R_KIND] == DUTY_BELA:
        if follow != 0:
            if (win >> 3) == lead:  # R17 / R19: beat the best card of the led suit
                higher = follow & -(2 << win)
                return higher if higher != 0 else follow
            return follow  # R17 exception: the trick already holds a trump
        trumps: int = hand & R[R_TRUMPS]
        if trumps != 0:
            if (R[R_TRUMPS] >> win) & 1:  # R18: beat the highest trump if you can
                higher = trumps & -(2 << win)
                return higher if higher != 0 else trumps
            return trumps
        return hand
    if follow != 0:  # R36
        if R[R_SUIT_TRUMP + (win >> 3)] != 0 and (win >> 3) == lead:
            higher = follow & -(2 << win)
            return higher if higher != 0 else follow
        return follow
    trumps = hand & R[R_TRUMPS]
    return trumps if trumps != 0 else hand


@njit
def trick_winner(cards: np.ndarray, n: int, R: np.ndarray) -> int:
    """Index of the winning card among ``cards[:n]`` (R20, R36)."""
    w = 0
    for i in range(1, n):
        if (R[R_BEATS + cards[w]] >> cards[i]) & 1:
            w = i
    return w


@njit
def mask_points(mask: int, R: np.ndarray) -> int:
    """Card points of a mask."""
    total = 0
    m = mask
    while m != 0:
        b = m & -m
        total += R[R_POINTS + low_index(b)]
        m ^= b
    return total


@njit
def representatives(legal: int, live: int, R: np.ndarray, out_card: np.ndarray,
                    out_rep: np.ndarray) -> int:
    """The legal cards, each with the representative of its class: cards of one hand that
    are next to each other in their suit's order among the ``live`` cards (the cards in
    hands and in the current trick) and have equal points are equivalent; the lowest card
    of a class represents it.  Returns the number of cards."""
    n = 0
    prev = -1
    rep = -1
    m = legal
    blockers = live & ~legal
    while m != 0:
        b = m & -m
        m ^= b
        c = low_index(b)
        if not (prev >= 0 and (prev >> 3) == (c >> 3) and R[R_POINTS + c] == R[R_POINTS + prev]
                and blockers & (b - (2 << prev)) == 0):
            rep = c
        prev = c
        out_card[n] = c
        out_rep[n] = rep
        n += 1
    return n


@njit
def _beaten_later(S: np.ndarray, R: np.ndarray, n: int, seat: int, pos: int, lead: int,
                  wcard: int, wteam: int) -> bool:
    """Could a seat still to play in this trick (after ``seat``, at place ``pos``), not of
    team ``wteam``, beat ``wcard``?  (Move ordering only: duties are approximated.)"""
    s = seat
    beats = R[R_BEATS + wcard]
    for _ in range(pos + 1, n):
        s = s + 1 if s + 1 < n else 0
        if S[S_TEAM + s] == wteam:
            continue
        h = S[s]
        follow = h & (0xFF << (8 * lead))
        if follow != 0:
            if follow & beats:
                return True
        elif h & beats:
            return True
    return False


@njit
def _partner_tops(S: np.ndarray, R: np.ndarray, n: int, seat: int, c: int, rem: int) -> bool:
    """Does a partner of ``seat`` hold the highest live card of c's suit?"""
    suit = rem & (0xFF << (c & 24))
    if suit == 0:
        return False
    top = suit
    while top & (top - 1):
        top &= top - 1
    my_team = S[S_TEAM + seat]
    for s in range(n):
        if s != seat and S[S_TEAM + s] == my_team and S[s] & top:
            return True
    return False


@njit
def _sure_trumps(S: np.ndarray, R: np.ndarray, n: int, rem: int) -> tuple[int, int]:
    """(team, points): the trumps of the team holding the highest trump left, down to the
    other team's best trump, win whatever trick they fall in; (-1, 0) without trumps."""
    ts = R[R_TRUMP_SUIT]
    if ts < 0:
        return -1, 0
    trumps = rem & (0xFF << (8 * ts))
    if trumps == 0:
        return -1, 0
    own0 = 0
    for s in range(n):
        if S[S_TEAM + s] == 0:
            own0 |= S[s]
    t0 = trumps & own0
    t1 = trumps & ~own0
    holder = 0 if t0 > t1 else 1  # disjoint masks of one suit: the larger holds the top
    run = t0 if holder == 0 else t1
    other = t1 if holder == 0 else t0
    if other != 0:
        while other & (other - 1):
            other &= other - 1  # its highest card
        run &= -(other << 1)
    return holder, mask_points(run, R)


@njit
def search(S: np.ndarray, R: np.ndarray, TT: np.ndarray, MV: np.ndarray, SC: np.ndarray,
           N: np.ndarray, seat: int, pos: int, lead: int, win: int, wseat: int, tpts: int,
           tmask: int, rpts: int, alpha: int, beta: int, only: int) -> int:
    """Fail-soft alpha-beta at card level on an explicit stack (no recursion).

    Returns the card points credited to team 0 from the current trick on (the cards
    already in the trick included), best play by both teams, as a fail-soft bound for the
    window (alpha, beta); the value lies in [0, rpts + 10].  ``seat`` is to play as card
    ``pos`` of the trick; ``lead``/``win``/``wseat``: led suit, winning card and its seat
    (-1 at a trick start); ``tpts``/``tmask``: points and cards of the trick so far;
    ``rpts``: points of the cards in hands and in the trick; ``only`` restricts the first
    mover's cards (the root's card values; no table entry for that node then).

    Nodes: a card with no alternative inside a trick is played in its parent's frame
    (taken back when the frame ends); the moves of a node are one card per class of
    equivalent cards (:func:`representatives`), ordered: the table's best card, then cards
    after which the mover's side surely wins the trick (high points first), a low lead to a
    partner's best card, cards winning for now (low first), then the rest (low first,
    trumps last when leading).  Quick bounds: the points left, and the sure trumps
    (:func:`_sure_trumps`) at trick starts.

    The transposition table holds buckets of 4 entries ``(key, lower | upper << 16 |
    (best card + 1) << 32 | cards left << 40)`` at trick starts; key: the cards left, the
    leader and the generation ``S[S_GEN]`` (the deal, so the hands, is fixed within a
    generation); a new entry replaces a stale one, else the one with the fewest cards."""
    n = S[S_NSEATS]
    S[S_CALLS] += 1
    misere = S[S_MISERE]
    gen_key = S[S_GEN] << 34
    tt_mask = TT.shape[0] - 1
    use_sure = S[S_SURE]
    ply = 0
    N[0, N_SEAT] = seat
    N[0, N_POS] = pos
    N[0, N_LEAD] = lead
    N[0, N_WIN] = win
    N[0, N_WSEAT] = wseat
    N[0, N_TPTS] = tpts
    N[0, N_TMASK] = tmask
    N[0, N_RPTS] = rpts
    N[0, N_ALPHA] = alpha
    N[0, N_BETA] = beta
    N[0, N_ONLY] = only
    nodes = 0
    v: int = 0
    entering = True
    while True:
        if entering:
            # -- a new node: a quick answer, or its moves -----------------------------------
            nodes += 1
            seat = N[ply, N_SEAT]
            pos = N[ply, N_POS]
            lead = N[ply, N_LEAD]
            win = N[ply, N_WIN]
            wseat = N[ply, N_WSEAT]
            tpts = N[ply, N_TPTS]
            tmask = N[ply, N_TMASK]
            rpts = N[ply, N_RPTS]
            alpha = N[ply, N_ALPHA]
            beta = N[ply, N_BETA]
            only = N[0, N_ONLY] if ply == 0 else FULL
            nf = 0  # forced cards played in this frame (inside a trick: no choice to search)
            fc = 0  # ... as (seat << 5 | card) << 7k
            fg0 = 0  # ... and the points they credited to team 0 by completing a trick
            while True:
                rem = S[0] | S[1] | S[2] | S[3]
                top = rpts + LAST_TRICK
                done = True
                idx = -1
                key = 0
                ttmove = -1
                if alpha >= top:  # quick bounds from the points left
                    v = top
                elif beta <= 0 or rem == 0:
                    v = 0
                elif pos != 0:
                    done = False
                elif popcount(rem) == n:  # the last trick plays itself
                    w = seat
                    wc = low_index(S[seat])
                    s = seat
                    for _ in range(n - 1):
                        s = s + 1 if s + 1 < n else 0
                        c = low_index(S[s])
                        if (R[R_BEATS + wc] >> c) & 1:
                            wc = c
                            w = s
                    v = top if S[S_TEAM + w] ^ misere == 0 else 0
                else:
                    done = False
                    if use_sure:
                        holder, sure = _sure_trumps(S, R, n, rem)
                        if holder >= 0:
                            if holder ^ misere == 0:
                                if sure >= beta:
                                    v = sure
                                    done = True
                            elif top - sure <= alpha:
                                v = top - sure
                                done = True
                    if not done and only == FULL:
                        key = rem | (seat << 32) | gen_key
                        idx = ((int(key) * _HASH_MUL) >> 40) & tt_mask & ~3  # a bucket of 4
                        slot = -1
                        for j in range(idx, idx + 4):
                            if TT[j, 0] == key:
                                slot = j
                                break
                        if slot >= 0:
                            e = TT[slot, 1]
                            lo = e & 0xFFFF
                            hi = (e >> 16) & 0xFFFF
                            if lo >= beta or lo == hi:
                                v = lo
                                done = True
                            elif hi <= alpha:
                                v = hi
                                done = True
                            else:
                                if lo > alpha:
                                    alpha = lo
                                if hi < beta:
                                    beta = hi
                                ttmove = ((e >> 32) & 0xFF) - 1
                if done:
                    break
                hand = S[seat]
                legal = legal_cards(hand, lead, win, R) & only
                if pos == 0 or only != FULL or legal & (legal - 1) != 0:
                    break
                # a forced card inside a trick: play it in this frame
                c = low_index(legal)
                S[seat] ^= legal
                fc |= ((seat << 5) | c) << (7 * nf)
                nf += 1
                if (R[R_BEATS + win] >> c) & 1:
                    win = c
                    wseat = seat
                tpts += R[R_POINTS + c]
                tmask |= legal
                if pos == n - 1:  # ... that completes the trick
                    g0 = 0
                    if S[S_TEAM + wseat] ^ misere == 0:
                        g0 = tpts
                        if rem == legal:
                            g0 += LAST_TRICK
                    fg0 += g0
                    alpha -= g0
                    beta -= g0
                    rpts -= tpts
                    seat = wseat
                    pos = 0
                    lead = -1
                    win = -1
                    wseat = -1
                    tpts = 0
                    tmask = 0
                else:
                    seat = seat + 1 if seat + 1 < n else 0
                    pos += 1
            if not done:
                if nf:
                    N[ply, N_SEAT] = seat
                    N[ply, N_POS] = pos
                    N[ply, N_LEAD] = lead
                    N[ply, N_WIN] = win
                    N[ply, N_WSEAT] = wseat
                    N[ply, N_TPTS] = tpts
                    N[ply, N_TMASK] = tmask
                    N[ply, N_RPTS] = rpts
                N[ply, N_NF] = nf
                if nf:
                    N[ply, N_FC] = fc
                    N[ply, N_FG0] = fg0
                blockers = (rem | tmask) & ~legal
                my_team = S[S_TEAM + seat]
                last_seat = pos == n - 1
                win_team = S[S_TEAM + wseat] if pos > 0 else -1
                win_beats = R[R_BEATS + win] if pos > 0 else 0
                nm = 0
                prev = -1
                m = legal
                if legal != 0 and legal & (legal - 1) == 0:  # a forced card
                    MV[ply, 0] = low_index(legal)
                    nm = 1
                    m = 0
                while m != 0:
                    b = m & -m
                    m ^= b
                    c = low_index(b)
                    p = R[R_POINTS + c]
                    if (prev >= 0 and (prev >> 3) == (c >> 3) and p == R[R_POINTS + prev]
                            and blockers & (b - (2 << prev)) == 0):
                        prev = c  # equivalent to the card below: searched once
                        continue
                    prev = c
                    if c == ttmove:
                        sc = 1000
                    elif pos == 0:
                        if not _beaten_later(S, R, n, seat, pos, c >> 3, c, my_team):  # pos: 0
                            sc = 200 + p  # the trick is ours: high points
                        elif _partner_tops(S, R, n, seat, c, rem):
                            sc = 250 - p  # low, to a partner's best card
                        else:
                            sc = -p
                            if (R[R_TRUMPS] >> c) & 1:
                                sc -= 50  # trumps last
                    else:
                        if (win_beats >> c) & 1:
                            nw = c
                            nwt = my_team
                        else:
                            nw = win
                            nwt = win_team
                        if nwt != my_team:
                            sc = -p
                        elif last_seat or not _beaten_later(S, R, n, seat, pos, lead, nw, nwt):
                            sc = 300 + p
                        else:
                            sc = 100 - p
                    j = nm  # insertion, best score first
                    while j > 0 and SC[ply, j - 1] < sc:
                        MV[ply, j] = MV[ply, j - 1]
                        SC[ply, j] = SC[ply, j - 1]
                        j -= 1
                    MV[ply, j] = c
                    SC[ply, j] = sc
                    nm += 1
                maximize = my_team == 0
                N[ply, N_ALPHA] = alpha
                N[ply, N_BETA] = beta
                N[ply, N_BEST] = -1 if maximize else top + 1
                N[ply, N_I] = 0
                N[ply, N_NM] = nm
                N[ply, N_IDX] = idx
                N[ply, N_MAX] = maximize
                if idx >= 0:
                    N[ply, N_A0] = alpha
                    N[ply, N_B0] = beta
                    N[ply, N_KEY] = key
                    N[ply, N_BESTC] = -1
                entering = False
            else:
                # the node answered at once: hand v to its parent
                if nf:
                    v += fg0
                    _give_back(S, fc, nf)
                if ply == 0:
                    S[S_NODES] += nodes
                    return v
                ply -= 1
                _undo_and_update(S, N, MV, ply, v)
                entering = False
        # -- the next move of the node at ply, or its end ------------------------------------
        i = N[ply, N_I]
        if i < N[ply, N_NM] and N[ply, N_ALPHA] < N[ply, N_BETA]:
            N[ply, N_I] = i + 1
            c = MV[ply, i]
            b = 1 << c
            seat = N[ply, N_SEAT]
            pos = N[ply, N_POS]
            win = N[ply, N_WIN]
            S[seat] ^= b
            if pos == 0:
                nlead = c >> 3
                nwin = c
                nws = seat
            else:
                nlead = N[ply, N_LEAD]
                if (R[R_BEATS + win] >> c) & 1:
                    nwin = c
                    nws = seat
                else:
                    nwin = win
                    nws = N[ply, N_WSEAT]
            ntp = N[ply, N_TPTS] + R[R_POINTS + c]
            q = ply + 1
            if pos == n - 1:  # the card completes the trick
                g0 = 0
                if S[S_TEAM + nws] ^ misere == 0:
                    g0 = ntp
                    if (S[0] | S[1] | S[2] | S[3]) == 0:
                        g0 += LAST_TRICK
                N[ply, N_G0] = g0
                N[q, N_SEAT] = nws
                N[q, N_POS] = 0
                N[q, N_LEAD] = -1
                N[q, N_WIN] = -1
                N[q, N_WSEAT] = -1
                N[q, N_TPTS] = 0
                N[q, N_TMASK] = 0
                N[q, N_RPTS] = N[ply, N_RPTS] - ntp
                N[q, N_ALPHA] = N[ply, N_ALPHA] - g0
                N[q, N_BETA] = N[ply, N_BETA] - g0
            else:
                N[ply, N_G0] = 0
                N[q, N_SEAT] = seat + 1 if seat + 1 < n else 0
                N[q, N_POS] = pos + 1
                N[q, N_LEAD] = nlead
                N[q, N_WIN] = nwin
                N[q, N_WSEAT] = nws
                N[q, N_TPTS] = ntp
                N[q, N_TMASK] = N[ply, N_TMASK] | b
                N[q, N_RPTS] = N[ply, N_RPTS]
                N[q, N_ALPHA] = N[ply, N_ALPHA]
                N[q, N_BETA] = N[ply, N_BETA]
            ply = q
            entering = True
            continue
        # the node is finished: store its bound, hand its value to the parent
        v = N[ply, N_BEST]
        idx = N[ply, N_IDX]
        if idx >= 0:
            key = N[ply, N_KEY]
            hi = N[ply, N_RPTS] + LAST_TRICK
            lo = 0
            slot = -1
            low_depth = 99
            for j in range(idx, idx + 4):  # the entry, else the stale or the shallowest one
                if TT[j, 0] == key:
                    slot = j
                    e = TT[j, 1]
                    lo = e & 0xFFFF
                    hi = (e >> 16) & 0xFFFF
                    break
                if (TT[j, 0] >> 34) != (key >> 34):
                    depth = -1
                else:
                    depth = TT[j, 1] >> 40
                if depth < low_depth:
                    low_depth = depth
                    slot = j
            if v <= N[ply, N_A0]:
                if v < hi:
                    hi = v
            elif v >= N[ply, N_B0]:
                if v > lo:
                    lo = v
            else:
                lo = v
                hi = v
            TT[slot, 0] = key
            TT[slot, 1] = (lo | (hi << 16) | ((N[ply, N_BESTC] + 1) << 32)
                           | (popcount(key & FULL) << 40))
        nf = N[ply, N_NF]
        if nf:  # take back the forced cards played in this frame
            v += N[ply, N_FG0]
            _give_back(S, N[ply, N_FC], nf)
        if ply == 0:
            S[S_NODES] += nodes
            return v
        ply -= 1
        _undo_and_update(S, N, MV, ply, v)


@njit
def _give_back(S: np.ndarray, fc: int, nf: int) -> None:
    """Return to their hands the ``nf`` forced cards packed 7 bits each in ``fc``."""
    for k in range(nf):
        x = (fc >> (7 * k)) & 127
        S[x >> 5] ^= 1 << (x & 31)


@njit
def _undo_and_update(S: np.ndarray, N: np.ndarray, MV: np.ndarray, ply: int, v: int) -> None:
    """Take back the last move of the node at ``ply``, whose child is worth ``v`` (from the
    child's trick on), and fold it into the node's best value and window."""
    c = MV[ply, N[ply, N_I] - 1]
    S[N[ply, N_SEAT]] ^= 1 << c
    v += N[ply, N_G0]
    if N[ply, N_MAX]:
        if v > N[ply, N_BEST]:
            N[ply, N_BEST] = v
            N[ply, N_BESTC] = c
            if v > N[ply, N_ALPHA]:
                N[ply, N_ALPHA] = v
    elif v < N[ply, N_BEST]:
        N[ply, N_BEST] = v
        N[ply, N_BESTC] = c
        if v < N[ply, N_BETA]:
            N[ply, N_BETA] = v


METHOD_FULL, METHOD_BISECT, METHOD_GALLOP = 0, 2, 3
OP_SOLVE, OP_VALUE, OP_FIND = 0, 1, 2


@njit
def run(op: int, S: np.ndarray, R: np.ndarray, TT: np.ndarray, MV: np.ndarray,
        SC: np.ndarray, N: np.ndarray, seat: int, pos: int, lead: int, win: int, wseat: int,
        tpts: int, tmask: int, rpts: int, arg: int, method: int, out: np.ndarray) -> int:
    """The solver's one compiled entry point: the exact values of a node for team 0 (its
    credited points from the current trick on), by :func:`search`.

    - :data:`OP_SOLVE`: the value of every legal card of the seat to play, equivalent cards
      searched once (:func:`representatives`), each class from the previous class's value
      as the guess: ``out[0]`` the cards, ``out[1]`` their class representatives, ``out[2]``
      the values; returns the number of cards.
    - :data:`OP_VALUE`: the node's value, ``arg`` the guess.
    - :data:`OP_FIND`: a card of the seat to play whose value is ``arg`` (the node's exact
      value), or -1; ``out`` is scratch.

    An exact value comes from one full-window search (``method`` :data:`METHOD_FULL`),
    null-window searches bisecting the range of values (:data:`METHOD_BISECT`), or
    null-window searches galloping from the guess until the value is bracketed and bisecting
    then (:data:`METHOD_GALLOP`).

    Cold start: Numba compiles every kernel on its own and then optimises it again together
    with the kernels it calls, so each kernel calling :func:`search` would cost about as
    much again as :func:`search` (this kernel is the only one, and calls it once; inlining
    :func:`search` with Numba's ``inline="always"`` costs more than it saves).  No kernel
    passes a literal constant to another either: Numba would compile a second version
    specialised on it."""
    top = rpts + LAST_TRICK
    if op == OP_VALUE:
        n = 1
        out[0, 0] = -1  # one item: every card of the mover
        out[1, 0] = -1
        guess = arg
    else:
        rem = S[0] | S[1] | S[2] | S[3]
        legal = legal_cards(S[seat], lead, win, R)
        n = representatives(legal, rem | tmask, R, out[0], out[1])
        guess = top // 2
    single = op == OP_FIND or method == METHOD_FULL  # one search per item
    for i in range(n):
        c = out[0, i]
        if out[1, i] != c:  # an equivalent card: its representative's value
            if op == OP_SOLVE:
                for j in range(i):
                    if out[0, j] == out[1, i]:
                        out[2, i] = out[2, j]
            continue
        only = FULL if c < 0 else 1 << c
        lo = 0
        hi = top
        if op == OP_FIND:
            wa = arg - 1
            wb = arg + 1
        elif method == METHOD_FULL:
            wa = lo - 1
            wb = hi + 1
        else:
            b = (lo + hi + 1) // 2 if method == METHOD_BISECT else min(max(guess, 1), hi)
            wa = b - 1
            wb = b
        step = 2
        up = False
        down = False
        while single or lo < hi:
            g = search(S, R, TT, MV, SC, N, seat, pos, lead, win, wseat, tpts, tmask, rpts,
                       wa, wb, only)
            if single:
                lo = g
                break
            b = wb
            if g >= b:
                lo = g
                up = True
                b = lo + step
            else:
                hi = g
                down = True
                b = hi - step + 1
            step *= 2
            if method == METHOD_BISECT or (up and down):
                b = (lo + hi + 1) // 2
            b = min(max(b, lo + 1), hi)
            wa = b - 1
            wb = b
        if op == OP_FIND:
            if lo == arg:
                return int(c)
            continue
        out[2, i] = lo
        guess = lo
    if op == OP_VALUE:
        return int(out[2, 0])
    return n if op == OP_SOLVE else -1

"""The greedy card play of the compiled simulations (Numba): the compiled self-play's
``greedy`` policy (:mod:`bela.training.selfplay`, in the solver's card numbering) and the
vector environment's greedy opponents (:mod:`bela.rl.vector.kernels`, in the engine's)
choose their cards with :func:`greedy_card`, each passing the card keys of its numbering
(:func:`greedy_keys`).

>>> from bela.engine import Card
>>> keys = greedy_keys()[0]   # hearts trumps
>>> hand = sum(Card.from_code(c).mask for c in ("7H", "JH", "AS"))
>>> str(Card.ALL[greedy_card(hand, True, 0, False, False, keys)])  # leading: the cheapest
'7H'
>>> beats = Card.from_code("JH").mask   # the trick's trump 9: only the jack beats it
>>> str(Card.ALL[greedy_card(hand & ~Card.from_code("AS").mask, False, beats, False,
...                          False, keys)])   # an opponent's trick: the cheapest winner
'JH'
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from ..engine.rules import NO_TRUMPS, play_table
from .kernels import low_index, njit

Int64s = npt.NDArray[np.int64]


@cache
def greedy_keys() -> Int64s:
    """Per contract and card (the engine's numbering), how much the card costs to give
    away: its points, then trump or not, then its place in its suit (from the engine's play
    tables, R2, R3, R36)."""
    out = np.zeros((NO_TRUMPS + 1, 32), np.int64)
    for c in range(NO_TRUMPS + 1):
        t = play_table(c)
        for card in range(32):
            trump = t.trump_mask >> card & 1
            out[c, card] = t.points[card] * 32 + trump * 8 + t.strength[card] - 8 * trump
    out.setflags(write=False)
    return out


@njit
def by_key(mask: int, keys: np.ndarray, costliest: bool) -> int:
    """The card of a non-empty mask with the lowest (``costliest``: highest) key, the
    lowest card number among equals."""
    best = -1
    best_key = 0
    m = mask
    while m != 0:
        bit = m & -m
        m ^= bit
        c = low_index(bit)
        k = keys[c]
        if best < 0 or (k > best_key if costliest else k < best_key):
            best = c
            best_key = k
    return best


@njit
def greedy_card(legal: int, leading: bool, beats: int, same_team: bool, misere: bool,
                keys: np.ndarray) -> int:
    """The greedy card of the ``legal`` ones (``beats``: the cards that beat the trick's
    winning card so far; ``keys``: per card number, :func:`greedy_keys`' row of the
    contract in that numbering): leading, the cheapest card; when the own team wins the
    trick so far, the cheapest; else the cheapest card that wins it, or the cheapest when
    none does.  Raspas (``misere``): the costliest card that does not win the trick so
    far, else the cheapest."""
    if leading:
        return by_key(legal, keys, False)
    if misere:
        losers = legal & ~beats
        return by_key(losers, keys, True) if losers != 0 else by_key(legal, keys, False)
    winners = legal & beats
    if same_team or winners == 0:
        return by_key(legal, keys, False)
    return by_key(winners, keys, False)

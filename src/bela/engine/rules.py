"""Table-driven play rules: card order, points, trick winners and play duties.

Everything here works on card ints and 32-bit masks.  One :class:`PlayTable` is built per
contract (a trump suit 0..3, ``ALL_TRUMPS`` or ``NO_TRUMPS``) and shared by every round,
the bots and the solver, so that no two places can disagree about the rules.

>>> from bela.engine.cards import HEARTS, Card, iter_cards
>>> t = play_table(HEARTS)
>>> [str(c) for c in iter_cards(t.above[Card.from_code("AH")])]   # R2: only 9 and J beat A
['9H', 'JH']
>>> t.points[Card.from_code("9H")], t.points[Card.from_code("9S")]   # R2, R3
(14, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .cards import (
    SUIT_MASKS,
    Card,
    iter_cards,
)

ALL_TRUMPS = 4  # belot2 "VC": every suit ranks and scores as trump (R36)
NO_TRUMPS = 5  # belot2 "BC": every suit ranks and scores as non-trump (R36)

# Order within a suit, higher beats lower; indexed by rank 7 8 9 T J Q K A.
TRUMP_ORDER = (0, 1, 6, 4, 7, 2, 3, 5)  # R2: J 9 A 10 K Q 8 7
PLAIN_ORDER = (0, 1, 2, 6, 3, 4, 5, 7)  # R3: A 10 K Q J 9 8 7
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)  # R2
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)  # R3

__all__ = [
    "ALL_TRUMPS",
    "NO_TRUMPS",
    "PlayTable",
    "play_table",
    "trick_winner_index",
    "DutyFn",
    "bela_duties",
    "belot2_duties",
    "lowest_card",
    "iter_cards",
]


class PlayTable:
    """Per-contract lookup tables (index by card int)."""

    __slots__ = ("contract", "trump_mask", "above", "beats", "points", "strength", "is_trump")

    def __init__(self, contract: int) -> None:
        self.contract = contract
        trump_suits = {ALL_TRUMPS: range(4), NO_TRUMPS: range(0)}.get(contract, (contract,))
        self.is_trump = tuple((c >> 3) in trump_suits for c in range(32))
        # In VC every suit is trump but no suit beats another (R36): trump_mask is the
        # mask of cards that beat any card of another suit, so it is empty there.
        self.trump_mask = SUIT_MASKS[contract] if contract < 4 else 0
        order = [TRUMP_ORDER if self.is_trump[c] else PLAIN_ORDER for c in range(32)]
        self.strength = tuple(order[c][c & 7] + (8 if self.trump_mask >> c & 1 else 0)
                              for c in range(32))
        above = []
        for c in range(32):
            suit = c >> 3
            m = 0
            for o in range(suit * 8, suit * 8 + 8):
                if order[c][o & 7] > order[c][c & 7]:
                    m |= 1 << o
            above.append(m)
        self.above = tuple(above)
        self.beats = tuple(
            above[c] | (0 if self.trump_mask >> c & 1 else self.trump_mask) for c in range(32)
        )
        self.points = tuple(
            (TRUMP_POINTS if self.is_trump[c] else PLAIN_POINTS)[c & 7] for c in range(32)
        )


@cache
def play_table(contract: int) -> PlayTable:
    if not 0 <= contract <= NO_TRUMPS:
        raise ValueError(f"unknown contract {contract}")
    return PlayTable(contract)


def trick_winner_index(cards: list[int] | tuple[int, ...], table: PlayTable) -> int:
    """Index of the winning card of a trick (R20): highest trump, else highest of the led suit.

    >>> from bela.engine.cards import HEARTS, Card
    >>> trick_winner_index(Card.parse("8S 7H AS"), play_table(HEARTS))   # seed 000: trumped
    1
    """
    win = 0
    beats = table.beats
    for i in range(1, len(cards)):
        if beats[cards[win]] >> cards[i] & 1:
            win = i
    return win


# A duty function gives the legal cards of ``hand`` for a trick whose led suit is ``lead``
# and whose currently winning card is ``win``.  Like the compiled kernels that mirror them
# (solver/kernels.py), these bit-table functions take ints only: ``NO_LEAD`` for the first
# card of a trick (the round itself says ``None``).
DutyFn = Callable[[int, int, int, PlayTable], int]
NO_LEAD = -1


def bela_duties(hand: int, lead: int, win: int, table: PlayTable) -> int:
    """Legal cards under R17-R19 (bela4, bela3, bela2).

    Follow suit and beat the best card of the led suit (unless the trick was trumped over a
    non-trump lead); void: trump, beating the best trump if possible; else anything.
    """
    if lead == NO_LEAD:
        return hand
    follow = hand & SUIT_MASKS[lead]
    if follow:
        if (win >> 3) == lead:  # no trump over the lead (R17) or trump led (R19)
            higher = follow & table.above[win]
            return higher or follow
        return follow  # R17 exception: the trick already holds a trump
    trumps = hand & table.trump_mask
    if trumps:
        if table.trump_mask >> win & 1:  # R18: beat the highest trump if you can
            return (trumps & table.above[win]) or trumps
        return trumps
    return hand


def belot2_duties(hand: int, lead: int, win: int, table: PlayTable) -> int:
    """Legal cards under R36 (belot2): follow suit, else trump, else anything; a trump lead
    must be beaten by a higher trump if possible; in VC the led suit's best card must be
    beaten if possible; no other duty to beat."""
    if lead == NO_LEAD:
        return hand
    follow = hand & SUIT_MASKS[lead]
    if follow:
        if table.is_trump[win] and (win >> 3) == lead:
            return (follow & table.above[win]) or follow
        return follow
    return (hand & table.trump_mask) or hand


def lowest_card(mask: int, table: PlayTable) -> Card:
    """The weakest card of a non-empty mask by trick strength, then by points."""
    return min(iter_cards(mask), key=lambda c: (table.strength[c], table.points[c]))

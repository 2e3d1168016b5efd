"""Declarations ("zvanja", R8-R11, R37) and bela (R14).

>>> from bela.engine.cards import CardSet
>>> [str(d) for d in find_declarations(CardSet.parse("9H TH JH QH AS AC AD AH").mask)]
['sequence of 4 to QH', 'four aces']
>>> d = find_declarations(CardSet.parse("7S 8S 9S TS JS QS KS AS").mask)[0]
>>> d.kind, d.length
('belot', 8)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import (
    ACE,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_LABELS,
    RANK_MASKS,
    SEVEN,
    SUIT_MASKS,
    SUIT_NAMES_EN,
    TEN,
    Card,
    iter_cards,
)

FOUR_RANKS = (JACK, NINE, ACE, TEN, KING, QUEEN)  # R8, strongest first (R11, R37)
_FOUR_NAMES = {JACK: "jacks", NINE: "nines", ACE: "aces", TEN: "tens", KING: "kings",
               QUEEN: "queens"}


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration a hand holds: a maximal sequence, four of a kind, or belot (R10)."""

    kind: str  # "sequence", "four" or "belot"
    mask: int
    length: int
    top: int  # highest rank in R4 order (sequence) or the rank (four)
    suit: int | None  # None for a four

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(iter_cards(self.mask))

    @property
    def strength(self) -> int:
        """R11/R37 seniority: a larger number is stronger (suit ties resolved elsewhere)."""
        if self.kind == "belot":
            return 10_000
        if self.kind == "four":
            return 5_000 + 10 * (len(FOUR_RANKS) - FOUR_RANKS.index(self.top))
        return self.length * 10 + self.top

    def __str__(self) -> str:
        if self.kind == "four":
            return f"four {_FOUR_NAMES[self.top]}"
        if self.suit is None:  # a sequence in its public form
            return f"sequence of {self.length}, top {RANK_LABELS[self.top]}"
        if self.kind == "belot":
            return f"belot (all eight {SUIT_NAMES_EN[self.suit]})"
        return f"sequence of {self.length} to {Card.make(self.top, self.suit)}"

    def pretty(self) -> str:
        """The declaration for people, the ten as ``10`` (``str`` keeps record codes).

        >>> from bela.engine.cards import CardSet
        >>> [d.pretty() for d in find_declarations(CardSet.parse("8D 9D TD JD").mask)]
        ['sequence of 4 to J♦']
        """
        if self.kind == "sequence" and self.suit is not None:
            return f"sequence of {self.length} to {Card.make(self.top, self.suit).pretty()}"
        return str(self)

    def public_form(self) -> Declaration:
        """What the others learn when it is announced (R13): a sequence's kind, length and
        top rank, not its suit or cards (``mask`` 0, ``suit`` None)."""
        return replace(self, mask=0, suit=None) if self.kind == "sequence" else self

    def public(self) -> str:
        """What announcing shows before the cards are laid down (R13): length and top rank,
        not the suit.

        >>> from bela.engine.cards import CardSet
        >>> [d.public() for d in find_declarations(CardSet.parse("8D 9D TD").mask)]
        ['sequence of 3, top 10']
        """
        if self.kind == "sequence":
            return f"sequence of {self.length}, top {RANK_LABELS[self.top]}"
        return str(self)


def find_declarations(hand: int, belot_wins: bool = True) -> list[Declaration]:
    """All declarations in a hand: maximal sequences of 3+ (R8), fours of J 9 A 10 K Q.

    With ``belot_wins`` (the bela variants, R10) eight cards of one suit are belot; otherwise
    (belot2) they are a sequence of 8.
    """
    found: list[Declaration] = []
    for suit in range(4):
        bits = (hand >> (8 * suit)) & 0xFF
        if bits == 0xFF and belot_wins:
            found.append(Declaration("belot", SUIT_MASKS[suit], 8, ACE, suit))
            continue
        rank = SEVEN
        while rank <= ACE:
            if bits >> rank & 1:
                start = rank
                while rank <= ACE and bits >> rank & 1:
                    rank += 1
                length = rank - start
                if length >= 3:
                    m = ((1 << length) - 1) << (8 * suit + start)
                    found.append(Declaration("sequence", m, length, rank - 1, suit))
            else:
                rank += 1
    for r in FOUR_RANKS:
        if hand & RANK_MASKS[r] == RANK_MASKS[r]:
            found.append(Declaration("four", RANK_MASKS[r], 4, r, None))
    return found


def declaration_of(cards: tuple[Card, ...], held: list[Declaration]) -> Declaration | None:
    """The held declaration made of exactly these cards, or None."""
    m = 0
    for c in cards:
        m |= 1 << c
    if m.bit_count() != len(cards):
        return None
    for d in held:
        if d.mask == m:
            return d
    return None


BELA_VALUES = {"four": {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100},
               "sequence": {3: 20, 4: 50}, "long": 100}
BELOT2_VALUES = {"four": {JACK: 200, NINE: 140, ACE: 110, TEN: 100, KING: 100, QUEEN: 100},
                 "sequence": {3: 20, 4: 50}, "long": 100}


def declaration_value(d: Declaration, values: dict[str, object] = BELA_VALUES) -> int:
    """Points of a declaration (R9, R37); belot scores nothing itself (R10).

    >>> from bela.engine.cards import CardSet
    >>> declaration_value(find_declarations(CardSet.parse("9H 9S 9D 9C").mask)[0])
    150
    """
    if d.kind == "belot":
        return 0
    if d.kind == "four":
        fours = values["four"]
        assert isinstance(fours, dict)
        return int(fours[d.top])
    seqs = values["sequence"]
    assert isinstance(seqs, dict)
    return int(seqs.get(d.length, values["long"]))



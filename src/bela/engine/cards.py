"""Cards and card sets (RULES.md R1-R4).

A card is an int 0..31: ``suit * 8 + rank``, suits ``H D S C`` and ranks ``7 8 9 T J Q K A``
in that order.  A set of cards is a 32-bit mask (bit ``card`` set), as in python-chess.

>>> Card.parse("JH 9h 10♠")
(Card.JH, Card.NINE_H, Card.TS)
>>> str(Card.from_code("jh")), Card.from_code("T♦").pretty()
('JH', '10♦')
>>> hand = CardSet.parse("AS KS QS 7C")
>>> len(hand), str(hand)
(4, 'QS KS AS 7C')
>>> Card.from_code("QS") in hand
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar

SUITS = "HDSC"
RANKS = "789TJQKA"
SUIT_SYMBOLS = "♥♦♠♣"
SUIT_NAMES_EN = ("hearts", "diamonds", "spades", "clubs")
SUIT_NAMES_HR = ("herc", "karo", "pik", "tref")
RANK_LABELS = ("7", "8", "9", "10", "J", "Q", "K", "A")  # for people: the ten is "10"
RANK_NAMES_HR = ("VII", "VIII", "IX", "X", "dečko", "baba", "kralj", "as")

HEARTS, DIAMONDS, SPADES, CLUBS = range(4)
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

FULL_DECK = (1 << 32) - 1
SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
RANK_MASKS = tuple(sum(1 << (s * 8 + r) for s in range(4)) for r in range(8))
CODES = tuple(RANKS[c & 7] + SUITS[c >> 3] for c in range(32))  # str(card) by its number

_SUIT_INPUT = {
    "H": 0, "D": 1, "S": 2, "C": 3,
    "♥": 0, "♦": 1, "♠": 2, "♣": 3,
    "♡": 0, "♢": 1, "♤": 2, "♧": 3,
}
_RANK_INPUT = {r: i for i, r in enumerate(RANKS)} | {"10": TEN}


class CardParseError(ValueError):
    """Text that is not a card code such as ``JH``, ``10h`` or ``j♥``."""


class Card(int):
    """One card, an ``int`` 0..31 (``suit * 8 + rank``) that prints as its code."""

    __slots__ = ()
    ALL: ClassVar[tuple[Card, ...]]

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < 32:
            raise CardParseError(f"card index must be 0..31, not {index}")
        return super().__new__(cls, index)

    @property
    def suit(self) -> int:
        return self >> 3

    @property
    def rank(self) -> int:
        return self & 7

    @property
    def mask(self) -> int:
        return 1 << self

    @staticmethod
    def make(rank: int, suit: int) -> Card:
        return Card.ALL[suit * 8 + rank]

    @staticmethod
    def from_code(code: str) -> Card:
        """Parse one card code: rank then suit, case ignored, ``10`` for ``T``, suit symbols."""
        text = code.strip().upper()
        if len(text) < 2 or text[:-1] not in _RANK_INPUT or text[-1] not in _SUIT_INPUT:
            raise CardParseError(
                f"not a card: {code!r} (expected rank 7 8 9 T J Q K A then suit H D S C, e.g. JH)"
            )
        return Card.ALL[_SUIT_INPUT[text[-1]] * 8 + _RANK_INPUT[text[:-1]]]

    @staticmethod
    def parse(text: str) -> tuple[Card, ...]:
        """Parse cards separated by spaces or commas, keeping their order."""
        return tuple(Card.from_code(tok) for tok in text.replace(",", " ").split())

    def __str__(self) -> str:
        return CODES[self]

    def __repr__(self) -> str:
        code = str(self)
        return f"Card.{code}" if code[0].isalpha() else f"Card.{_DIGIT_NAMES[code[0]]}_{code[1]}"

    def pretty(self) -> str:
        """Rank and suit symbol for people, e.g. ``J♥``, the ten as ``10♦`` (never ``T``)."""
        return RANK_LABELS[self & 7] + SUIT_SYMBOLS[self >> 3]

    def croatian(self) -> str:
        """Croatian name, e.g. ``herc dečko``."""
        return f"{SUIT_NAMES_HR[self >> 3]} {RANK_NAMES_HR[self & 7]}"


_DIGIT_NAMES = {"7": "SEVEN", "8": "EIGHT", "9": "NINE"}
Card.ALL = tuple(int.__new__(Card, i) for i in range(32))
for _card in Card.ALL:
    setattr(Card, repr(_card)[5:], _card)


def iter_cards(mask: int) -> Iterator[Card]:
    """The cards of a mask, lowest index first."""
    while mask:
        low = mask & -mask
        yield Card.ALL[low.bit_length() - 1]
        mask ^= low


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(str(Card.ALL[c]) for c in cards)


class CardSet:
    """An immutable set of cards backed by a 32-bit mask.

    >>> CardSet.parse("7H AH") | CardSet.parse("JC")
    CardSet('7H AH JC')
    """

    __slots__ = ("mask",)

    def __init__(self, mask: int | Iterable[int] = 0) -> None:
        self.mask = mask if isinstance(mask, int) else mask_of(mask)
        if not 0 <= self.mask <= FULL_DECK:
            raise CardParseError(f"card set mask out of range: {self.mask:#x}")

    @staticmethod
    def parse(text: str) -> CardSet:
        cards = Card.parse(text)
        m = mask_of(cards)
        if m.bit_count() != len(cards):
            raise CardParseError(f"duplicate card in {text!r}")
        return CardSet(m)

    def __iter__(self) -> Iterator[Card]:
        return iter_cards(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 32 and bool(self.mask >> card & 1)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __bool__(self) -> bool:
        return self.mask != 0

    def suit(self, suit: int) -> CardSet:
        return CardSet(self.mask & SUIT_MASKS[suit])

    def __str__(self) -> str:
        return format_cards(iter_cards(self.mask))

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"


def suit_from_code(code: str) -> int:
    """Parse a suit letter or symbol (``H``, ``♥``...).

    >>> suit_from_code("s"), suit_from_code("♣")
    (2, 3)
    """
    text = code.strip().upper()
    if text not in _SUIT_INPUT:
        raise CardParseError(f"not a suit: {code!r} (expected H, D, S or C)")
    return _SUIT_INPUT[text]

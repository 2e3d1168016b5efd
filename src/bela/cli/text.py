"""Cards, suits and engine texts as people read them, for ``bela play`` and ``bela score``.

Records and engine tokens write the ten as ``T`` (``TS``, RECORD.md); people always read
``10`` (``10♠``), suits as symbols, and a declaration announced with its cards hidden as
"sequence of 3, top 10" (R13).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.markup import escape

from ..engine.cards import RANKS, SUIT_SYMBOLS, Card
from ..engine.record import RecordError
from ..engine.rules import ALL_TRUMPS

RANK_TEXT = ("7", "8", "9", "10", "J", "Q", "K", "A")  # the ten is never "T" for people
CONTRACT_CODES = ("H", "D", "S", "C")


def card_text(card: Card) -> str:
    """``10♥``, ``J♠``: what a person reads (the engine's codes use ``T``).

    >>> card_text(Card.from_code("TS")), card_text(Card.from_code("jh"))
    ('10♠', 'J♥')
    """
    return RANK_TEXT[card & 7] + SUIT_SYMBOLS[card >> 3]


def suit_markup(suit: int) -> str:
    sym = SUIT_SYMBOLS[suit]
    return f"[red]{sym}[/red]" if suit in (0, 1) else sym


def card_markup(card: Card, trump: int | None = None, dim: bool = False) -> str:
    """A card with Rich markup: red hearts and diamonds, trumps bold (``ALL_TRUMPS`` = 4:
    every suit), ``dim`` for cards that may not be played now."""
    if dim:
        return f"[dim]{card_text(card)}[/dim]"
    style = "red" if card >> 3 in (0, 1) else ""
    if trump is not None and (trump == ALL_TRUMPS or card >> 3 == trump):
        style = (style + " bold").strip()
    return f"[{style}]{card_text(card)}[/]" if style else card_text(card)


def contract_text(token: str | None, markup: bool = True) -> str:
    """A contract token of a record (``H``, ``VC``, ``BC``) for people: ``♥``, ``VC``.

    >>> contract_text("S"), contract_text("H", markup=False), contract_text(None)
    ('♠', '♥', '-')
    """
    if token in CONTRACT_CODES:
        suit = CONTRACT_CODES.index(token)
        return suit_markup(suit) if markup else SUIT_SYMBOLS[suit]
    return escape(token) if token and markup else (token or "-")


_TEXT = re.compile(
    r"(?P<seq>sequence of (?P<n>\d) to (?P<top>[789TJQKA])(?![\w♥♦♠♣]))"
    r"|(?<![\w])(?P<rank>10|[789TJQKA])(?P<suit>[HDSC]\b|[♥♦♠♣])")


def pretty_codes(text: str, markup: bool = True) -> str:
    """Engine or record text for people: card codes (``TS``, ``T♠``) as ``10♠``, and a
    hidden sequence ("sequence of 3 to T") as "sequence of 3, top 10".  With ``markup``
    the text is escaped for Rich and the cards coloured.

    >>> pretty_codes("you must beat T♠ if you can", markup=False)
    'you must beat 10♠ if you can'
    >>> pretty_codes("sequence of 4 to TD", markup=False)
    'sequence of 4 to 10♦'
    >>> pretty_codes("sequence of 3 to 9", markup=False)
    'sequence of 3, top 9'
    """
    def sub(m: re.Match[str]) -> str:
        if m.group("seq"):
            return f"sequence of {m.group('n')}, top {RANK_TEXT[RANKS.index(m.group('top'))]}"
        rank = 3 if m.group("rank") == "10" else RANKS.index(m.group("rank"))
        suit = m.group("suit")
        card = Card.make(rank, "HDSC".index(suit) if suit in "HDSC" else SUIT_SYMBOLS.index(suit))
        return card_markup(card) if markup else card_text(card)

    return _TEXT.sub(sub, escape(text) if markup else text)


def record_error_markup(exc: RecordError) -> str:
    """Why a record is invalid, for people: the round and action counted from 1 (``--json``
    keeps RECORD.md's 0-based ``round`` and ``action``, and its card codes), cards as
    ``10♠``.

    >>> record_error_markup(RecordError("seat 2: you must beat KS if you can (R17): play TS",
    ...                                 0, 4))
    'round 1, action 5: seat 2: you must beat K♠ if you can (R17): play 10♠'
    """
    where = "" if exc.round is None else f"round {exc.round + 1}" + (
        "" if exc.action is None else f", action {exc.action + 1}")
    reason = pretty_codes(exc.reason)
    return f"{where}: {reason}" if where else reason


def install_extra(extra: str) -> str:
    """How to install an extra, from the package index or in a clone of the repository.

    >>> install_extra("server")
    "pip install 'bela[server]' (in a clone of the repository: pip install -e '.[server]')"
    """
    return (f"pip install 'bela[{extra}]' (in a clone of the repository: "
            f"pip install -e '.[{extra}]')")


def side_label(names: Sequence[str], seats: Sequence[int]) -> str:
    """A side for a sentence: its players' names and seats, or only the seats where the
    names are the default ``Seat N`` (a bots-only match, a record without ``players``).

    >>> side_label(["You", "Right", "Partner", "Left"], [0, 2])
    'You & Partner (seats 0+2)'
    >>> side_label(["Seat 0", "Seat 1", "Seat 2"], [2])
    'seat 2'
    """
    nums = ("seats " if len(seats) > 1 else "seat ") + "+".join(map(str, seats))
    if all(names[s] == f"Seat {s}" for s in seats):
        return nums
    return f"{' & '.join(names[s] for s in seats)} ({nums})"


def winner_line(names: Sequence[str], seats: Sequence[int], totals: Sequence[int]) -> str:
    """The match's winner, as ``bela play --all-bots`` and ``bela score`` print it.

    >>> winner_line(["You", "Right", "Partner", "Left"], [0, 2], [1068, 962])
    'Winner: You & Partner (seats 0+2), totals 1068 : 962.'
    """
    return f"Winner: {side_label(names, seats)}, totals {' : '.join(map(str, totals))}."

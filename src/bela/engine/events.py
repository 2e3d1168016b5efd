"""What an action caused: :meth:`Round.apply` and :meth:`Match.apply` return events.

Events are frozen records of what happened, in order: the bid, the contract it fixed, a
card, the trick it completed, the round's result, the booking.  Front ends narrate them
instead of comparing two views.  Some events hold a seat's secret (the talon it picked up,
bela3's discards); :func:`seen_by` gives the events as one seat may see them, the secret
left out for the others, so what a seat receives stays the same for deals that differ only
in what it cannot see.

>>> from bela.engine import Match, parse_action
>>> m = Match("bela4", seed=7); _ = m.deal()
>>> events = m.apply(parse_action("S"))
>>> [type(e).__name__ for e in events]
['BidMade', 'TalonTaken', 'TalonTaken', 'TalonTaken', 'TalonTaken', 'ContractFixed']
>>> [e.cards for e in seen_by(events, 1) if isinstance(e, TalonTaken)]
[None, CardSet('QD QS'), None, None]
>>> m.apply(parse_action("KS"))
(CardPlayed(seat=0, card=Card.KS, bela=False),)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .actions import Action
from .cards import Card, CardSet
from .declarations import Declaration

if TYPE_CHECKING:
    from .scoring import RoundResult


@dataclass(frozen=True, slots=True)
class BidMade:
    """A seat passed or called (R7, R26, R31, R34)."""

    seat: int
    action: Action


@dataclass(frozen=True, slots=True)
class TalonTaken:
    """A seat picked up the cards it had not seen (R6, R27, R32, R35); ``cards`` only for
    that seat (``None`` for the others)."""

    seat: int
    cards: CardSet | None


@dataclass(frozen=True, slots=True)
class ContractFixed:
    """The contract is fixed: ``caller`` is ``None`` in raspas (R34)."""

    contract: int
    caller: int | None
    raspas: bool


@dataclass(frozen=True, slots=True)
class Discarded:
    """bela3: the caller laid two cards away face down (R27); ``cards`` only for him."""

    seat: int
    cards: CardSet | None


@dataclass(frozen=True, slots=True)
class Swapped:
    """The 7 of trump was swapped for the face-up card (R32, R35)."""

    seat: int
    given: Card  # the 7, now face up
    taken: Card  # the card that was face up, now in the hand


@dataclass(frozen=True, slots=True)
class Kept:
    """A seat asked whether it swaps or redeals kept its cards, whether it had a right or
    not (R32, R35): seen by that seat only (the others see the turn move on)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Declared:
    """A seat announced declarations before its first card (R13); the others see them in
    their public form (a sequence's length and top, not its suit)."""

    seat: int
    declarations: tuple[Declaration, ...]


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card was played; ``bela`` when it announced bela (R14)."""

    seat: int
    card: Card
    bela: bool


@dataclass(frozen=True, slots=True)
class TrickTaken:
    """A trick is complete: ``seat`` took it (R20) with ``points`` (last-trick bonus
    included, R3)."""

    seat: int
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    points: int


@dataclass(frozen=True, slots=True)
class Claimed:
    """A seat claimed the others broke a duty (R24)."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundOver:
    """The round ended with ``result`` (a redeal, a belot, a claim, or its last trick)."""

    result: RoundResult


@dataclass(frozen=True, slots=True)
class RoundBooked:
    """The match booked the round (R22, R25): the scores written on the sheet."""

    scores: tuple[int, ...]
    totals: tuple[int, ...]
    held: int  # R22 hang: points held back for the next round


@dataclass(frozen=True, slots=True)
class MatchWon:
    """The match is over: ``side`` won it (R10, R25)."""

    side: int


Event = (BidMade | TalonTaken | ContractFixed | Discarded | Swapped | Kept | Declared
         | CardPlayed | TrickTaken | Claimed | RoundOver | RoundBooked | MatchWon)


def seen_by(events: tuple[Event, ...], seat: int | None) -> tuple[Event, ...]:
    """The events as ``seat`` (``None``: a spectator) may see them: others' picked-up and
    discarded cards left out, others' decisions not to swap or redeal dropped (R32, R35);
    ``events`` themselves (the very tuple) when the seat sees each as it is.  A spectator
    sees the least: when it sees each event as it is, so does every seat."""
    out: list[Event] = []
    changed = False
    for e in events:
        if isinstance(e, (TalonTaken, Discarded)) and e.seat != seat:
            out.append(replace(e, cards=None))
            changed = True
        elif isinstance(e, Declared) and e.seat != seat:
            out.append(replace(e, declarations=tuple(d.public_form() for d in e.declarations)))
            changed = True
        elif isinstance(e, Kept) and e.seat != seat:
            changed = True
        else:
            out.append(e)
    return tuple(out) if changed else events

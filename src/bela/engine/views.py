"""Per-seat views: exactly what one seat may know (the only door to hidden cards).

Bots, the terminal, the server and learning agents receive views, never a round.  A view
holds the seat's own visible cards as a set (no deal order), everything public, and the
legal actions when it is the seat's turn.

>>> from bela.engine import Match
>>> m = Match("bela4", seed=1); rnd = m.deal()
>>> v = seat_view(m, 1)
>>> len(v.hand), v.unseen, v.legal            # R6: the talon is unseen before the own bid
(6, 2, ())
>>> seat_view(m, 0).legal[0].token()
'pass'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .actions import CONTRACT_TOKENS, Action, Decline
from .cards import Card, CardSet
from .declarations import Declaration, declaration_value
from .enums import Phase
from .explain import Refusal, ShownRevoke, refusals, ruled_out, shown_revokes, trick_winner
from .scoring import RoundResult, round_standing
from .state import Match, Round


@dataclass(frozen=True)
class DeclarationInfo:
    """An announced declaration as others see it: value and seniority always (R13); the
    cards once shown (the winning side's, after the first trick) or when it is one's own."""

    seat: int
    value: int
    strength: int
    text: str  # for people: the cards once visible, else length and top (R13)
    cards: CardSet | None
    kind: str  # "sequence", "four" or "belot"
    length: int  # cards in it
    top: int  # rank of the top card (sequence) or of the four (R4 rank order, 0 = 7)
    suit: int | None  # the sequence's suit once visible


@dataclass(frozen=True)
class SeatView:
    variant: str
    seat: int | None  # None: the public (spectator) view
    seats: int
    sides: int
    phase: Phase
    dealer: int
    first: int
    turn: int | None  # the seat to act (public, the exchange included); None when it is over
    hand: CardSet
    unseen: int  # own cards dealt but not yet seen (bela4 talon before the own bid)
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, str], ...]
    contract: int | None
    caller: int | None
    declared: tuple[tuple[DeclarationInfo, ...] | None, ...]  # None: not announced yet
    belas: tuple[tuple[int, int], ...]  # (seat, suit)
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[tuple[tuple[tuple[int, Card], ...], int], ...]  # (cards by seat, winner)
    card_points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    legal: tuple[Action, ...]
    claim_allowed: bool
    result: RoundResult | None
    options: dict[str, Any]
    totals: tuple[int, ...]
    sheet: tuple[tuple[int, ...], ...]
    winner: int | None
    round_index: int
    public: dict[str, Card]  # face-up cards: bela2/belot2 "turned" (opened), belot2 "bottom"
    discards: CardSet | None  # bela3: the caller's discards, seen only by him (R27)
    raspas: bool
    declarations_side: int | None  # the side holding the strongest announced declaration (R12)
    declarations_seat: int | None  # the seat holding it
    declarations_tie: bool  # the strongest were equal: the earlier seat won, or they cancelled
    exchanges: tuple[tuple[int, str], ...]  # swaps and redeals, and this seat's own "keep"
    opened: Card | None  # the card first turned face up (bela2/belot2), before any swap
    trick_winner: int | None  # the seat winning the trick in progress so far (R20)
    refusals: tuple[Refusal, ...]  # own cards the duties refuse now, with rule and reason
    ruled_out: tuple[CardSet, ...]  # per seat: cards its plays showed it does not hold
    revokes_shown: tuple[ShownRevoke, ...]  # per seat its first revoke its cards proved (R24)
    strength: tuple[int, ...] | None  # per card, its rank in the contract's trick order

    @property
    def trump(self) -> str | None:
        return CONTRACT_TOKENS[self.contract] if self.contract is not None else None

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    @property
    def played(self) -> CardSet:
        """Every card played so far this round (public)."""
        m = 0
        for cards, _ in self.tricks:
            for _, c in cards:
                m |= 1 << c
        for _, c in self.trick:
            m |= 1 << c
        return CardSet(m)


def _declared(rnd: Round, viewer: int | None, shown_side: int | None
              ) -> tuple[tuple[DeclarationInfo, ...] | None, ...]:
    """Every seat's announced declarations as ``viewer`` sees them: their cards when they
    are its own or ``shown_side``'s."""
    if not any(rnd.declared):  # None: not announced yet, (): announced none
        return tuple(rnd.declared)  # type: ignore[arg-type]  # only None and (): no Declaration
    v = rnd.variant
    return tuple(None if decls is None else () if not decls else _infos(
        seat, decls, viewer == seat or (shown_side is not None and v.side_of(seat) == shown_side),
        v.declaration_values) for seat, decls in enumerate(rnd.declared))


def _own_declared(rnd: Round, seat: int, shown_side: int | None,
                  public: tuple[tuple[DeclarationInfo, ...] | None, ...]
                  ) -> tuple[tuple[DeclarationInfo, ...] | None, ...]:
    """:func:`_declared` for ``seat`` from the ``public`` one (``viewer`` None): they
    differ only in the seat's own declarations, and only while their cards are not shown
    to all (the same tuple is given back when they do not differ)."""
    decls = rnd.declared[seat]
    v = rnd.variant
    if not decls or (shown_side is not None and v.side_of(seat) == shown_side):
        return public
    out = list(public)
    out[seat] = _infos(seat, decls, True, v.declaration_values)
    return tuple(out)


def _infos(seat: int, decls: tuple[Declaration, ...], visible: bool,
           values: dict[str, Any]) -> tuple[DeclarationInfo, ...]:
    """A seat's announced ``decls`` as a viewer sees them (their cards if ``visible``),
    valued by the variant's declaration ``values``."""
    return tuple(_declaration_info(seat, d, declaration_value(d, values), visible)
                 for d in decls)


@functools.lru_cache(maxsize=4096)
def _declaration_info(seat: int, d: Declaration, value: int, visible: bool) -> DeclarationInfo:
    """One declaration as a seat sees it (worked out once: every seat's view of every
    state after the declarations carries them, and they never change)."""
    return DeclarationInfo(seat, value, d.strength, d.pretty() if visible else d.public(),
                           CardSet(d.mask) if visible else None, d.kind, d.length, d.top,
                           d.suit if visible else None)


@functools.lru_cache(maxsize=1 << 14)
def _tricks(tricks: tuple[tuple[tuple[int, ...], tuple[Card, ...], int], ...]
            ) -> tuple[tuple[tuple[tuple[int, Card], ...], int], ...]:
    """A view's ``tricks`` from the round's finished tricks (immutable tuples): worked out
    a trick at a time, each state of a trick finding the finished ones' in the cache (by
    value: an undo that takes a trick back asks for the shorter tuple, its own entry)."""
    if not tricks:
        return ()
    seats, cards, winner = tricks[-1]
    return (*_tricks(tricks[:-1]), (tuple(zip(seats, cards)), winner))


def _make(values: dict[str, Any], own: dict[str, Any] | None = None) -> SeatView:
    """The view of ``values`` (every field, in the dataclass's order, as
    :func:`_public_fields` gives them) with the seat's ``own`` in their places: what
    ``SeatView(**values | own)`` makes, without running the frozen ``__init__``'s forty
    ``object.__setattr__`` (a fifth of a view's time; a view has no ``__post_init__`` to
    skip; tests/engine/test_views_caches.py checks the fields)."""
    view = object.__new__(SeatView)
    fields = view.__dict__
    fields.update(values)
    if own is not None:
        fields.update(own)
    return view


@functools.lru_cache(maxsize=1 << 14)
def _card_sets(masks: tuple[int, ...]) -> tuple[CardSet, ...]:
    """``ruled_out``'s masks as card sets (they change a card at a time, seldom)."""
    return tuple([CardSet(m) for m in masks])


def _public_fields(match: Match, rnd: Round) -> dict[str, Any]:
    """The fields of the public (spectator) view of ``rnd``, in the dataclass's order."""
    v = rnd.variant
    standing = round_standing(rnd)  # public as soon as announced (R13: values, tops)
    strongest = standing.side
    done = rnd.phase == Phase.DONE
    shown = strongest if rnd.tricks or done else None  # declarations' cards: after trick 1
    # public in every phase: in the exchange every seat is asked, holder or not (R32, R35)
    acting = None if done else rnd.turn
    return {
        "variant": v.name, "seat": None, "seats": v.seats, "sides": v.sides,
        "phase": rnd.phase, "dealer": rnd.dealer, "first": rnd.first, "turn": acting,
        "hand": CardSet(0), "unseen": 0,
        "hand_sizes": tuple(map(int.bit_count, rnd.hands)),
        "bids": tuple([(s, a.token()) for s, a in rnd.bids]),
        "contract": rnd.contract, "caller": rnd.caller,
        "declared": _declared(rnd, None, shown),
        "belas": tuple(rnd.belas),
        "trick": tuple(zip(rnd.trick_seats, map(Card.ALL.__getitem__, rnd.trick))),
        "tricks": _tricks(tuple(rnd.tricks)),
        "card_points": tuple(rnd.card_points), "tricks_won": tuple(rnd.tricks_won),
        "legal": (), "claim_allowed": rnd.claim_allowed(), "result": rnd.result,
        "options": match.options.as_dict(),
        "totals": tuple(match.totals), "sheet": tuple(match.sheet), "winner": match.winner,
        "round_index": match.rounds.index(rnd),
        "public": {k: Card.ALL[c] for k, c in rnd.public.items()},
        "discards": None, "raspas": rnd.raspas,
        "declarations_side": strongest, "declarations_seat": standing.seat,
        "declarations_tie": standing.tie,
        "exchanges": tuple([(s, a.token()) for s, a in rnd.exchanges
                            if not isinstance(a, Decline)]),  # keeping is silent
        "opened": rnd.deal.extra["turned"][0] if "turned" in rnd.deal.extra else None,
        "trick_winner": trick_winner(rnd), "refusals": (),
        "ruled_out": _card_sets(ruled_out(rnd)),
        "revokes_shown": shown_revokes(rnd),
        "strength": rnd.table.strength if rnd.table is not None else None,
    }


def _own(rnd: Round, seat: int, public: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``seat``'s view that differ from the ``public`` one's (:func:`_public_fields`):
    its own cards, its declarations' cards, its keeping in the exchange, its legal actions
    and the duties' refusals when it is to act, its bela3 discards; a field equal to the
    public one is the public one's object."""
    mine = seat == public["turn"]
    shown = public["declarations_side"] if rnd.tricks or rnd.phase == Phase.DONE else None
    exchanges = public["exchanges"]
    if rnd.exchanges and any(s == seat and isinstance(a, Decline) for s, a in rnd.exchanges):
        exchanges = tuple([(s, a.token()) for s, a in rnd.exchanges
                           if s == seat or not isinstance(a, Decline)])  # its own keeping
    return {
        "seat": seat,
        "hand": CardSet(rnd.hands[seat] & ~rnd.hidden[seat]),
        "unseen": rnd.hidden[seat].bit_count(),
        "declared": _own_declared(rnd, seat, shown, public["declared"]),
        "legal": tuple(rnd.legal_actions()) if mine else (),
        "discards": CardSet(rnd.discards) if seat == rnd.caller and rnd.discards else None,
        "exchanges": exchanges,
        "refusals": refusals(rnd) if mine else (),
    }


def seat_view(match: Match, seat: int | None, rnd: Round | None = None) -> SeatView:
    """The view of ``seat`` (``None`` for spectators) of the match's current round."""
    rnd = rnd or match.round
    if rnd is None:
        raise ValueError("no round has been dealt yet")
    values = _public_fields(match, rnd)
    return _make(values, None if seat is None else _own(rnd, seat, values))


def seat_views(match: Match, seats: Iterable[int | None],
               rnd: Round | None = None) -> dict[int | None, SeatView]:
    """The views of several seats of one state, equal to :func:`seat_view`'s for each: the
    public part (the trick, ``ruled_out``, the sheet...) is worked out once and shared, only
    what differs from seat to seat (its hand, its declarations' cards, its legal actions...)
    per seat.

    >>> from bela.engine import Match
    >>> m = Match("bela4", seed=1); rnd = m.deal()
    >>> views = seat_views(m, [None, 0, 1])
    >>> all(views[s] == seat_view(m, s) for s in (None, 0, 1))
    True
    """
    rnd = rnd or match.round
    if rnd is None:
        raise ValueError("no round has been dealt yet")
    values = _public_fields(match, rnd)
    public = _make(values)
    return {s: public if s is None else _make(values, _own(rnd, s, values)) for s in seats}

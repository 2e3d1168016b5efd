"""Rule facts derived once, for views to carry: who wins the trick so far, why each card of
the hand is refused, what every seat has shown it no longer holds, and which revokes the
seats' own later cards have proven (R24).

Front ends (terminal, browser), bots and the deal sampler read these facts from the views;
they never re-derive them from the rules.

>>> from bela.engine import Match, parse_action
>>> from bela.engine.cards import SPADES, SUIT_MASKS
>>> m = Match("bela4", first_dealer=3)
>>> rnd = m.deal([Card.parse(h) for h in ("KS 7S 8S 9S 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
...              "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")])
>>> for token in ("H", "KS"):
...     _ = m.apply(parse_action(token))
>>> trick_winner(rnd), [(str(r.card), r.rule) for r in refusals(rnd)]
(0, [('7D', 'R17'), ('8D', 'R17'), ('9D', 'R17'), ('TD', 'R17'), ('JS', 'R17'), ('QS', 'R17')])
>>> refusals(rnd)[-1].reason
'you must beat K♠ if you can'
>>> _ = m.apply(parse_action("AS")); trick_winner(rnd)
1
>>> _ = m.apply(parse_action("9H"))             # seat 2 trumps: it holds no spade (R18)
>>> ruled_out(rnd)[2] == SUIT_MASKS[SPADES]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from .cards import SUIT_MASKS, SUIT_SYMBOLS, Card, iter_cards
from .enums import Enforce, Outcome, Phase
from .rules import DutyFn, PlayTable, play_table

if TYPE_CHECKING:
    from .state import Round


@dataclass(frozen=True, slots=True)
class Refusal:
    """A card of the hand the play duties refuse now, and why: the rule, the duty broken
    (``kind``: ``follow`` suit, ``beat`` the best card of the led suit, play a ``trump``,
    ``overtrump``) with the led suit and the card to beat, and the words in English.  Front
    ends say it in their language from these facts.  With ``enforce = off`` the card may
    be played, and breaks that rule (R24)."""

    card: Card
    rule: str
    kind: str
    suit: int  # the led suit
    to_beat: Card | None  # the card to beat (beat, overtrump)
    reason: str


@dataclass(frozen=True, slots=True)
class ShownRevoke:
    """A revoke the public cards prove (R24, ``enforce = off``): ``seat`` played ``card`` in
    trick ``trick`` (0-based) while, as its later card ``proof`` (played in trick
    ``proof_trick``) shows, it held ``proof``, which the duties (``rule``, ``kind`` as in
    :class:`Refusal`) made it play instead, or another card like it.  Public: the same for
    every viewer."""

    seat: int
    trick: int
    card: Card
    proof: Card
    proof_trick: int
    rule: str
    kind: str


def trick_winner(rnd: Round) -> int | None:
    """The seat whose card wins the trick in progress so far (R20), or None between tricks."""
    return rnd.win_seat if rnd.trick else None


def duty_reason(hand: int, card: Card, lead: int, win: Card, table: PlayTable) -> Refusal:
    """Why the duties refuse ``card`` from ``hand`` on a trick led in suit ``lead`` whose best
    card is ``win`` (the rule of the bela variants, R17-R19; belot2 cites its own)."""
    if hand & SUIT_MASKS[lead]:
        if card >> 3 != lead:
            return Refusal(card, "R17", "follow", lead, None,
                           f"you must follow suit {SUIT_SYMBOLS[lead]}")
        rule = "R19" if table.is_trump[win] and win >> 3 == lead else "R17"
        return Refusal(card, rule, "beat", lead, win, f"you must beat {win.pretty()} if you can")
    if hand & table.trump_mask:
        if table.trump_mask >> win & 1 and table.trump_mask >> card & 1:
            return Refusal(card, "R18", "overtrump", lead, win,
                           f"you cannot follow suit, so you must beat the trump {win.pretty()} "
                           "if you can")
        return Refusal(card, "R18", "trump", lead, None,
                       "you cannot follow suit, so you must play a trump")
    raise AssertionError("the duties refuse a card only for a suit or a trump held")


def refusals(rnd: Round) -> tuple[Refusal, ...]:
    """Every card of the hand of the seat to play that the duties refuse now (R17-R19,
    R36), with its rule and reason; empty outside the play or on a lead."""
    if rnd.phase != Phase.PLAY or rnd.lead is None or rnd.win_card is None or rnd.table is None:
        return ()
    hand = rnd.hands[rnd.turn]
    table, lead, win = rnd.table, rnd.lead, rnd.win_card
    refused = hand & ~rnd.variant.duties(hand, lead, win, table)
    if not refused:
        return ()
    follows, trumps = bool(hand & SUIT_MASKS[lead]), bool(hand & table.trump_mask)
    rule = rnd.variant.rule_ids.get("duties")
    return tuple([_refusal(follows, trumps, card, lead, win, table, rule)
                  for card in iter_cards(refused)])


@lru_cache(maxsize=1 << 15)
def _refusal(follows: bool, trumps: bool, card: Card, lead: int, win: int, table: PlayTable,
             rule: str | None) -> Refusal:
    """:func:`duty_reason` for a hand that ``follows`` suit ``lead`` (holds one of its
    cards) and holds a trump or not (``trumps``): all of the hand it reads, so the refusal
    is worked out once for all such hands; ``rule``: the variant's own rule id of the
    duties, if it has one."""
    hand = (SUIT_MASKS[lead] if follows else 0) | (table.trump_mask if trumps else 0)
    why = duty_reason(hand, card, lead, Card.ALL[win], table)
    return replace(why, rule=rule) if rule else why


@cache
def play_forbidden(duties: DutyFn, contract: int, card: int, lead: int, win: int) -> int:
    """Cards a seat cannot have held when it played ``card`` to a trick led in suit ``lead``
    whose winning card was ``win``: those ``x`` with ``card`` illegal from the hand
    ``{card, x}`` under the variant's ``duties`` (R17-R19, R36).  The duties are pairwise
    (a card is refused only because of some other single card), so this is exact."""
    table = play_table(contract)
    b = 1 << card
    m = 0
    for x in range(32):
        if x != card and not duties(b | 1 << x, lead, win, table) & b:
            m |= 1 << x
    return m


def proving_seats(rnd: Round) -> list[int]:
    """The seats whose plays prove what they hold: all with ``enforce = on``; with
    ``enforce = off`` (R24) an illegal card is accepted, so none, except the seats a claim
    wrongly accused once the round ended on it (they broke no duty)."""
    n = rnd.variant.seats
    if rnd.options.enforce != Enforce.OFF:
        return list(range(n))
    res = rnd.result
    if res is not None and res.outcome == Outcome.CLAIM and not res.extra.get("valid"):
        claimant = res.extra["claimant"]
        assert isinstance(claimant, int)
        side = rnd.variant.side_of(claimant)
        return [s for s in range(n) if rnd.variant.side_of(s) != side]
    return []


def ruled_out(rnd: Round) -> tuple[int, ...]:
    """Per seat, a mask of the cards its plays have shown it does not hold (a void, a card
    it would have had to play instead, R17-R19, R36): public facts, the same for every
    viewer."""
    n = rnd.variant.seats
    if rnd.contract is None:
        return (0,) * n
    duties, contract = rnd.variant.duties, rnd.contract
    proving = tuple(proving_seats(rnd))
    out = _finished_ruled_out(duties, contract, n, proving, tuple(rnd.tricks))
    if not rnd.trick:
        return out
    masks = list(out)
    _rule_out(masks, duties, contract, proving, rnd.trick_seats, rnd.trick)
    return tuple(masks)


@lru_cache(maxsize=1 << 14)
def _finished_ruled_out(duties: DutyFn, contract: int, n: int, proving: tuple[int, ...],
                        tricks: tuple[tuple[tuple[int, ...], tuple[Card, ...], int], ...]
                        ) -> tuple[int, ...]:
    """:func:`ruled_out` of the finished ``tricks`` (a round's, immutable tuples): worked
    out a trick at a time, each state of a trick finding the finished ones' in the cache
    (by value: an undo that takes a trick back asks for the shorter tuple, its own entry;
    a claim that changes the ``proving`` seats, another key)."""
    if not tricks:
        return (0,) * n
    masks = list(_finished_ruled_out(duties, contract, n, proving, tricks[:-1]))
    seats, cards, _ = tricks[-1]
    _rule_out(masks, duties, contract, proving, seats, cards)
    return tuple(masks)


def _rule_out(masks: list[int], duties: DutyFn, contract: int, proving: tuple[int, ...],
              seats: Sequence[int], cards: Sequence[int]) -> None:
    """Add to ``masks`` what the cards of one trick (a seat each, in play order) showed."""
    if not cards:
        return
    beats = play_table(contract).beats
    win = cards[0]
    lead = win >> 3
    for i in range(1, len(cards)):
        seat, card = seats[i], cards[i]
        if seat in proving:
            masks[seat] |= play_forbidden(duties, contract, card, lead, win)
        if beats[win] >> card & 1:
            win = card


def shown_revokes(rnd: Round) -> tuple[ShownRevoke, ...]:
    """Per seat (in seat order) the first revoke its own later cards prove (R24): the seat
    played ``card`` when its hand held a later card ``proof`` that made ``card`` illegal
    (:func:`play_forbidden`: exact, the duties being pairwise; cards only leave a hand
    during the play).  Only public cards are read, so it is the same for every viewer;
    with ``enforce = on`` it is empty (no illegal card is accepted).

    >>> from bela.engine import Match, parse_action
    >>> m = Match("bela4", {"enforce": "off"}, first_dealer=3)
    >>> rnd = m.deal([Card.parse(h) for h in ("KS 7S 8S 9S 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
    ...              "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")])
    >>> for token in ("H", "KS", "7D", "JH", "7H", "AD", "8H", "7C", "8D", "JC", "TC"):
    ...     _ = m.apply(parse_action(token))        # seat 1 played a diamond on K♠ ...
    >>> shown_revokes(rnd)
    ()
    >>> _ = m.apply(parse_action("QS"))             # ... and now shows it held a spade then
    >>> [(r.seat, r.trick, str(r.card), str(r.proof), r.proof_trick, r.rule, r.kind)
    ...  for r in shown_revokes(rnd)]
    [(1, 0, '7D', 'QS', 2, 'R17', 'follow')]
    """
    if rnd.contract is None or rnd.table is None or rnd.options.enforce != Enforce.OFF:
        return ()  # enforce on: every card played was legal, nothing to prove
    table = rnd.table
    duties, contract = rnd.variant.duties, rnd.contract
    rule_of_variant = rnd.variant.rule_ids.get("duties")
    tricks: list[tuple[tuple[int, int], ...]] = [
        tuple(zip(seats, cards)) for seats, cards, _ in rnd.tricks]
    tricks.append(tuple(zip(rnd.trick_seats, rnd.trick)))
    # per seat, its cards played after a lead: (trick, card, led suit, card to beat)
    plays: dict[int, list[tuple[int, int, int, int]]] = {}
    later: dict[int, list[tuple[int, int]]] = {}  # per seat, every card it played: (trick, card)
    for t, trick in enumerate(tricks):
        if not trick:
            continue
        later.setdefault(trick[0][0], []).append((t, trick[0][1]))
        win = trick[0][1]
        lead = win >> 3
        for seat, card in trick[1:]:
            plays.setdefault(seat, []).append((t, card, lead, win))
            later.setdefault(seat, []).append((t, card))
            if table.beats[win] >> card & 1:
                win = card
    out = []
    for seat in sorted(plays):
        found = _first_revoke(seat, plays[seat], later[seat], duties, contract, table)
        if found is not None:
            out.append(replace(found, rule=rule_of_variant) if rule_of_variant else found)
    return tuple(out)


def _first_revoke(seat: int, plays: list[tuple[int, int, int, int]],
                  cards: list[tuple[int, int]], duties: DutyFn, contract: int,
                  table: PlayTable) -> ShownRevoke | None:
    """The seat's first card (in play order) that a later card of its own proves illegal."""
    for t, card, lead, win in plays:
        forbidden = play_forbidden(duties, contract, card, lead, win)
        proof = next(((pt, c) for pt, c in cards if pt > t and forbidden >> c & 1), None)
        if proof is not None:
            why = duty_reason(1 << card | 1 << proof[1], Card.ALL[card], lead, Card.ALL[win],
                              table)
            return ShownRevoke(seat, t, Card.ALL[card], Card.ALL[proof[1]], proof[0], why.rule,
                               why.kind)
    return None

"""The round and match state machines.

A :class:`Round` goes through phases (:class:`~bela.engine.enums.Phase`); every action goes
through one door, :meth:`Round.apply`, which verifies it (raising :class:`IllegalAction` and
changing nothing), applies it, appends it to the log and returns the events it caused
(:mod:`bela.engine.events`).  :meth:`Round.undo` takes it back.  Only the round changes
itself: a variant's bidding says what a bid makes happen (a
:class:`~bela.engine.variants.base.BidEffect`) and the round applies it.

>>> from bela.engine import parse_action
>>> m = Match("bela4", seed=7)
>>> rnd = m.deal()
>>> str(rnd.phase), rnd.turn, [a.token() for a in rnd.legal_actions()]
('bidding', 0, ['pass', 'H', 'D', 'S', 'C'])
>>> _ = m.apply(parse_action("S")); str(rnd.phase), rnd.trump_name
('play', 'S')
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import (
    BELA_PLAYS,
    CONTRACT_TOKENS,
    DECLINE,
    PLAYS,
    Action,
    Call,
    Claim,
    Declare,
    Decline,
    Discard,
    Pass,
    Play,
    Redeal,
    Swap,
)
from .cards import Card, CardSet, iter_cards
from .declarations import Declaration, declaration_of, find_declarations
from .enums import Enforce, Outcome, Phase
from .errors import IllegalAction, InvalidDeal
from .events import (
    BidMade,
    CardPlayed,
    Claimed,
    ContractFixed,
    Declared,
    Discarded,
    Event,
    Kept,
    MatchWon,
    RoundBooked,
    RoundOver,
    Swapped,
    TalonTaken,
    TrickTaken,
)
from .explain import duty_reason
from .rules import PlayTable, play_table
from .scoring import RoundResult, book, claim_result
from .variants import get_variant
from .variants.base import BidEffect, Deal, TableOptions, Variant

_SCALARS = ("phase", "turn", "contract", "caller", "table", "lead", "win_card", "win_seat",
            "result", "_legal", "_bela_mask", "discards", "raspas", "public")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The undo state of an action other than a card: every field it may change, as it was
    before (lists whole or, for those that only grow, their lengths)."""

    scalars: tuple[Any, ...]  # the fields named in _SCALARS (values replaced, not mutated)
    hands: tuple[int, ...]
    hidden: tuple[int, ...]
    declared: tuple[tuple[Declaration, ...] | None, ...]
    belas: tuple[tuple[int, int], ...]
    trick: tuple[int, ...]
    trick_seats: tuple[int, ...]
    card_points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    revoked: tuple[int | None, ...]
    exchange_seats: tuple[int, ...]
    n_tricks: int
    n_bids: int
    n_exchanges: int


@dataclass(slots=True)
class PlayUndo:
    """The undo state of a card: what the play changed (the trick's fields when the card
    ended a trick)."""

    seat: int
    card: int
    lead: int | None
    win_card: int | None
    win_seat: int | None
    declared: tuple[Declaration, ...] | None
    n_belas: int
    revoked: int | None
    ended_trick: list[int] | None = None  # the finished trick's cards and seats
    ended_seats: list[int] | None = None
    gained: int = 0


class Round:
    """One deal, from the first bid to the score (explicitly given or shuffled hands)."""

    def __init__(self, variant: Variant, options: TableOptions, dealer: int, deal: Deal) -> None:
        if not 0 <= dealer < variant.seats:
            raise InvalidDeal(f"dealer must be a seat 0..{variant.seats - 1}, not {dealer}")
        variant.check_deal(deal)
        n = variant.seats
        self.variant = variant
        self.options = options
        self.dealer = dealer
        self.first = (dealer + 1) % n  # R5
        self.deal = deal
        self.hands = [sum(1 << c for c in h) for h in deal.hands]
        self.hidden = [variant.hidden_before_bid(deal, s) for s in range(n)]
        self.phase = Phase.BIDDING
        self.turn = self.first
        self.contract: int | None = None
        self.caller: int | None = None  # None in raspas too (R34)
        self.table: PlayTable | None = None
        self.bids: list[tuple[int, Action]] = []
        self.declared: list[tuple[Declaration, ...] | None] = [None] * n
        self.belas: list[tuple[int, int]] = []  # (seat, suit) of announced belas (R14)
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.lead: int | None = None  # the led suit of the trick in progress
        self.win_card: int | None = None  # the card winning it so far (R20)
        self.win_seat: int | None = None
        self.tricks: list[tuple[tuple[int, ...], tuple[Card, ...], int]] = []
        self.card_points = [0] * variant.sides
        self.tricks_won = [0] * variant.sides
        self.revoked: list[int | None] = [None] * n  # per seat its first illegal card (R24)
        self.log: list[Action] = []
        self.actors: list[int] = []
        self.result: RoundResult | None = None
        self._legal: int | None = None  # the legal cards, cached
        self.public = {k: v[0] for k, v in deal.extra.items()
                       if k in variant.public_keys and k not in variant.shown_after_bidding}
        self.discards = 0  # bela3: the caller's two discards (R27), his secret
        self.exchange_seats: list[int] = []  # seats still to be asked for a swap / redeal
        self.exchanges: list[tuple[int, Action]] = []  # swaps, redeals (public) and keeps
        self.raspas = False  # belot2: four passes (R34)
        self._undo: list[Snapshot | PlayUndo] = []
        self._bela_mask = 0

    # -- queries ---------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == Phase.DONE

    @property
    def trump_name(self) -> str | None:
        return CONTRACT_TOKENS[self.contract] if self.contract is not None else None

    def legal_cards(self) -> int:
        """Mask of the cards the seat to play may play (R17-R19; any card with enforce off)."""
        if self._legal is None:
            if self.phase != Phase.PLAY:
                return 0
            hand = self.hands[self.turn]
            assert self.table is not None
            lead, win = self.lead, self.win_card
            if self.options.enforce == Enforce.OFF or lead is None or win is None:
                self._legal = hand  # R16: any card leads a trick
            else:
                self._legal = self.variant.duties(hand, lead, win, self.table)
        return self._legal

    def legal_actions(self) -> list[Action]:
        """The actions of the seat to act, cheap to compute (claims are separate, R24)."""
        if self.phase == Phase.PLAY:
            seat = self.turn
            legal = self.legal_cards()
            acts: list[Action] = []
            if self.declared[seat] is None and not self.tricks:
                acts.extend(self.declare_options(seat))
            bela = self._bela_cards(seat)
            while legal:
                low = legal & -legal
                c = low.bit_length() - 1
                acts.append(PLAYS[c])
                if bela >> c & 1:
                    acts.append(BELA_PLAYS[c])
                legal ^= low
            return acts
        if self.phase == Phase.BIDDING:
            return self.variant.bid_actions(self)
        if self.phase == Phase.DISCARD:
            hand = list(iter_cards(self.hands[self.turn]))
            return [Discard((a, b)) for i, a in enumerate(hand) for b in hand[i + 1:]]
        if self.phase == Phase.EXCHANGE:
            return [*self.variant.exchange_options(self, self.turn), DECLINE]
        return []

    @property
    def lone_keep(self) -> bool:
        """The seat asked in the exchange has no swap or redeal (R32, R35): keeping its cards
        is its only choice, answered for it without a prompt (the server after a bot's fixed
        delay, so that nobody learns it from the turn's length)."""
        return (self.phase == Phase.EXCHANGE
                and not self.variant.exchange_options(self, self.turn))

    def declare_options(self, seat: int) -> list[Declare]:
        """Every non-empty subset of the seat's declarations (R13), largest first."""
        if self.raspas:
            return []  # R37: no declarations in raspas
        held = find_declarations(self.hands[seat], self.variant.belot_wins)
        out = []
        for bits in range((1 << len(held)) - 1, 0, -1):
            out.append(Declare(tuple(held[i].cards for i in range(len(held)) if bits >> i & 1)))
        return out

    def _bela_cards(self, seat: int) -> int:
        """K/Q of a bela suit whose partner is still in hand (R14: the first of the two)."""
        kq = self.hands[seat] & self._bela_mask
        if not kq:
            return 0
        m = 0
        for s in range(4):
            pair = kq & (0b01100000 << (8 * s))
            if pair.bit_count() == 2:
                m |= pair
        return m

    def set_options(self, options: TableOptions) -> None:
        """Play on under other table options (a position replayed with the duties off
        gets its table's options back)."""
        self.options = options
        self._legal = None

    def claim_allowed(self) -> bool:
        """R24: with enforce off, after the first card of the round and before the last."""
        return (self.options.enforce == Enforce.OFF and self.phase == Phase.PLAY
                and bool(self.tricks or self.trick))

    # -- the one door ----------------------------------------------------------------------
    def can_apply(self, action: Action) -> bool:
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is legal now."""
        if self.phase == Phase.DONE:
            raise IllegalAction("the round is over")
        if isinstance(action, Play) and self.phase == Phase.PLAY:
            self._verify_play(action)
            return
        if isinstance(action, Claim):
            if not self.claim_allowed():
                raise IllegalAction("a claim (auzmeš) is allowed only with enforce = off, after "
                                    "the first card and before the last", "R24")
            if not 0 <= action.seat < self.variant.seats:
                raise IllegalAction(f"no seat {action.seat}", "R24")
            return
        if isinstance(action, Declare) and self.phase == Phase.PLAY:
            self._verify_declare(action)
            return
        if isinstance(action, Discard) and self.phase == Phase.DISCARD:
            a, b = action.cards
            hand = self.hands[self.turn]
            if a == b or not (hand >> a & 1 and hand >> b & 1):
                raise IllegalAction("discard two different cards of your hand", "R27")
            return
        if action not in self.legal_actions():
            raise IllegalAction(self._why_not(action), self._rule_for(action),
                                [a.token() for a in self.legal_actions()])

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Verify and apply ``action`` for the seat to act (``Claim`` names its own seat);
        return the events it caused (:mod:`bela.engine.events`), secrets included: give a
        seat :func:`~bela.engine.events.seen_by` of them."""
        if isinstance(action, Play) and self.phase == Phase.PLAY:
            self._verify_play(action)
            return self._play(action)
        self.verify(action)
        self._push()
        actor = action.seat if isinstance(action, Claim) else self.turn
        events: list[Event] = []
        try:
            if isinstance(action, Claim):
                events.append(Claimed(action.seat))
                self._finish(claim_result(self, action.seat), events)
            elif isinstance(action, Declare):
                self._declare(action, events)
            elif isinstance(action, Discard):
                self._discard(action, events)
            elif isinstance(action, (Swap, Redeal, Decline)):
                self._exchange(action, events)
            else:
                self._bid(action, self.variant.bid_effect(self, action), events)
        except IllegalAction:
            entry = self._undo.pop()
            assert isinstance(entry, Snapshot)
            self._restore(entry)
            raise
        self.log.append(action)
        self.actors.append(actor)
        self._legal = None
        return tuple(events)

    def undo(self) -> Action:
        """Take back the last action and return it."""
        if not self._undo:
            raise IllegalAction("nothing to undo")
        entry = self._undo.pop()
        if isinstance(entry, PlayUndo):
            self._undo_play(entry)
        else:
            self._restore(entry)
        self.actors.pop()
        return self.log.pop()

    def _undo_play(self, u: PlayUndo) -> None:
        if u.ended_trick is not None and u.ended_seats is not None:  # it completed a trick
            _, _, winner = self.tricks.pop()
            side = self.variant.side_of(winner)
            self.card_points[side] -= u.gained
            self.tricks_won[side] -= 1
            self.trick = u.ended_trick
            self.trick_seats = u.ended_seats
            self.result = None  # a card is played only while the round is on
            self.phase = Phase.PLAY
        self.trick.pop()
        self.trick_seats.pop()
        self.hands[u.seat] |= 1 << u.card
        self.declared[u.seat] = u.declared
        del self.belas[u.n_belas:]
        self.revoked[u.seat] = u.revoked
        self.lead, self.win_card, self.win_seat = u.lead, u.win_card, u.win_seat
        self.turn = u.seat
        self._legal = None

    # -- internals -------------------------------------------------------------------------
    def _push(self) -> None:
        self._undo.append(Snapshot(
            tuple(getattr(self, k) for k in _SCALARS), tuple(self.hands), tuple(self.hidden),
            tuple(self.declared), tuple(self.belas), tuple(self.trick),
            tuple(self.trick_seats), tuple(self.card_points), tuple(self.tricks_won),
            tuple(self.revoked), tuple(self.exchange_seats), len(self.tricks), len(self.bids),
            len(self.exchanges)))

    def _restore(self, snap: Snapshot) -> None:
        for k, v in zip(_SCALARS, snap.scalars):
            setattr(self, k, v)
        self.hands = list(snap.hands)
        self.hidden = list(snap.hidden)
        self.declared = list(snap.declared)
        self.belas = list(snap.belas)
        self.trick = list(snap.trick)
        self.trick_seats = list(snap.trick_seats)
        self.card_points = list(snap.card_points)
        self.tricks_won = list(snap.tricks_won)
        self.revoked = list(snap.revoked)
        self.exchange_seats = list(snap.exchange_seats)
        del self.tricks[snap.n_tricks:]
        del self.bids[snap.n_bids:]
        del self.exchanges[snap.n_exchanges:]

    def _bid(self, action: Action, effect: BidEffect, events: list[Event]) -> None:
        """Record a bid and do what the variant's bidding says it makes happen."""
        seat = self.turn
        self.bids.append((seat, action))
        events.append(BidMade(seat, action))
        for s in effect.reveal:  # the talon, and the caller's gains with it
            picked = self.hidden[s] | (effect.gains if s == effect.caller else 0)
            if picked:
                events.append(TalonTaken(s, CardSet(picked)))
            self.hidden[s] = 0
        if effect.contract is None:
            assert effect.next_turn is not None
            self.turn = effect.next_turn
            return
        self.contract = effect.contract
        self.caller = effect.caller
        self.raspas = effect.raspas
        self.table = play_table(effect.contract)
        for key in self.variant.shown_after_bidding:  # R35: the bottom card is turned now
            self.public = {**self.public, key: self.deal.extra[key][0]}
        suits = 0 if effect.raspas else self.variant.bela_suits(effect.contract)
        self._bela_mask = sum(0b01100000 << (8 * s) for s in range(4) if suits >> s & 1)
        if effect.gains:
            assert effect.caller in effect.reveal  # the TalonTaken above names the gains
            self.hands[effect.caller] |= effect.gains
        events.append(ContractFixed(effect.contract, effect.caller, effect.raspas))
        if effect.then == Phase.DISCARD:
            assert effect.caller is not None
            self.phase = Phase.DISCARD
            self.turn = effect.caller
        elif effect.then == Phase.EXCHANGE:
            self._start_exchange()
        else:
            self._start_play()

    def _start_exchange(self) -> None:
        """Ask every seat, in turn order from the first seat, whether it swaps or redeals
        (R32, R35), when public facts leave a right possible at all
        (:meth:`~bela.engine.variants.base.Variant.exchange_possible`); else play starts.
        Every seat is asked, holder or not, and its only choice may be to keep its cards:
        who acts and when tells nobody who holds the 7 of trump or four 7s / 8s.  Every
        right is its holder's until the first lead, whoever used another first: after a swap
        (public), while public facts still allow a right (belot2), every seat is asked again
        in turn from the swapper (the turned card may be its fourth 8; another seat may now
        want its redeal, R35); nobody can swap twice, so this ends."""
        n = self.variant.seats
        if self._exchange_possible():
            self.exchange_seats = [(self.first + i) % n for i in range(n)]
        self._next_exchange()

    def _exchange_possible(self) -> bool:
        assert self.contract is not None
        return self.variant.exchange_possible(self.contract, self.public.get("turned"),
                                              self.raspas)

    def _next_exchange(self) -> None:
        if self.exchange_seats:
            self.phase = Phase.EXCHANGE
            self.turn = self.exchange_seats.pop(0)
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self.turn = self.first  # R16, R33, R35: the first seat (non-dealer) leads

    def _discard(self, action: Discard, events: list[Event]) -> None:
        a, b = action.cards
        self.discards = (1 << a) | (1 << b)
        self.hands[self.turn] &= ~self.discards
        events.append(Discarded(self.turn, CardSet(self.discards)))
        self._start_play()  # R27: then the first seat leads

    def _exchange(self, action: Action, events: list[Event]) -> None:
        seat = self.turn
        self.exchanges.append((seat, action))
        if isinstance(action, Redeal):  # R35: the round ends unscored, the dealer deals again
            extra: dict[str, object] = {"seat": seat}
            for s, a in self.exchanges:  # a swap before it stays in the round's detail
                if isinstance(a, Swap):
                    extra["swapped"] = s
            self._finish(RoundResult(Outcome.REDEAL, (0,) * self.variant.sides, None, None,
                                     extra=extra), events)
            return
        if isinstance(action, Swap):  # R32, R35: the 7 of trump for the face-up card
            assert self.contract is not None
            seven = Card.make(0, self.contract)
            turned = self.public["turned"]
            self.hands[seat] = self.hands[seat] & ~(1 << seven) | (1 << turned)
            self.public = {**self.public, "turned": seven}
            events.append(Swapped(seat, seven, Card.ALL[turned]))
            if self._exchange_possible():  # R35: all asked again from the swapper
                n = self.variant.seats
                self.exchange_seats = [(seat + i) % n for i in range(n)]
            else:  # bela2: the 7 of trump lies face up, no right is left to anyone
                self.exchange_seats = []
        else:
            events.append(Kept(seat))
        self._next_exchange()

    def _verify_play(self, action: Play) -> None:
        seat = self.turn
        bit = 1 << action.card
        if not self.hands[seat] & bit:
            raise IllegalAction(f"seat {seat} does not hold {action.card.pretty()}", None,
                                [str(c) for c in iter_cards(self.legal_cards())])
        if not self.legal_cards() & bit:
            reason, rule = self._explain_duty(action.card)
            rule = self.variant.rule_ids.get("duties", rule)
            raise IllegalAction(reason, rule, [str(c) for c in iter_cards(self.legal_cards())])
        if action.bela and self.raspas:
            raise IllegalAction("there is no bela in raspas", "R37",
                                [str(c) for c in iter_cards(self.legal_cards())])
        if action.bela and not self._bela_cards(seat) & bit:
            raise IllegalAction(
                f"bela is announced with the first of K and Q of trump, holding both: "
                f"{action.card.pretty()} cannot announce it",
                self.variant.rule_ids.get("bela", "R14"),
                [str(c) for c in iter_cards(self.legal_cards())])

    def _verify_declare(self, action: Declare) -> None:
        seat = self.turn
        if self.raspas:
            raise IllegalAction("no declarations are made in raspas", "R37")
        if self.tricks or self.trick_seats.count(seat) or self.declared[seat] is not None:
            raise IllegalAction("declarations are announced only once, right before your first "
                                "card", "R13")
        held = find_declarations(self.hands[seat], self.variant.belot_wins)
        chosen = [declaration_of(g, held) for g in action.groups]
        if None in chosen or len(set(chosen)) != len(chosen):
            bad = next((" ".join(map(str, g)) for g, d in zip(action.groups, chosen) if d is None),
                       action.token()[8:])
            options = "; ".join(" ".join(map(str, d.cards)) for d in held) or "none"
            raise IllegalAction(f"{bad} is not a declaration you hold at its full length "
                                f"(your declarations: {options})", "R8")

    def _play(self, action: Play) -> tuple[Event, ...]:
        seat = self.turn
        card = action.card
        bit = 1 << card
        table = self.table
        assert table is not None
        lead, win = self.lead, self.win_card
        undo = PlayUndo(seat, card, lead, win, self.win_seat,
                        self.declared[seat], len(self.belas), self.revoked[seat])
        self._undo.append(undo)  # completed below when the card ends a trick
        if (lead is not None and win is not None and self.options.enforce == Enforce.OFF
                and self.revoked[seat] is None
                and not self.variant.duties(self.hands[seat], lead, win, table) & bit):
            self.revoked[seat] = card  # R24: accepted, but a claim may follow
        self.hands[seat] ^= bit
        if self.declared[seat] is None:
            self.declared[seat] = ()  # R13: no declare before the first card announces nothing
        if action.bela:
            self.belas.append((seat, card >> 3))
        if lead is None or win is None:
            self.lead = card >> 3
            self.win_card = card
            self.win_seat = seat
        elif table.beats[win] >> card & 1:
            self.win_card = card
            self.win_seat = seat
        self.trick.append(card)
        self.trick_seats.append(seat)
        self.log.append(action)
        self.actors.append(seat)
        self._legal = None
        played = CardPlayed(seat, card, action.bela)
        n = self.variant.seats
        if len(self.trick) < n:
            self.turn = (seat + 1) % n
            return (played,)
        winner = self.win_seat
        assert winner is not None
        side = self.variant.side_of(winner)
        pts = table.points
        gained = 0
        for c in self.trick:
            gained += pts[c]
        if not self.hands[winner]:
            gained += self.variant.last_trick_bonus
        self.card_points[side] += gained
        self.tricks_won[side] += 1
        seats = tuple(self.trick_seats)
        cards = tuple([Card.ALL[c] for c in self.trick])
        self.tricks.append((seats, cards, winner))
        events: list[Event] = [played, TrickTaken(winner, tuple(zip(seats, cards)), gained)]
        undo.ended_trick = self.trick
        undo.ended_seats = self.trick_seats
        undo.gained = gained
        self.trick = []
        self.trick_seats = []
        self.lead = None
        self.win_card = None
        self.win_seat = None
        self.turn = winner  # R16
        if not self.hands[winner]:
            self._finish(self.variant.score(self), events)
        return tuple(events)

    def _declare(self, action: Declare, events: list[Event]) -> None:
        seat = self.turn
        held = find_declarations(self.hands[seat], self.variant.belot_wins)
        decls = []
        for group in action.groups:
            d = declaration_of(group, held)
            assert d is not None  # verified: the action is one of declare_options
            decls.append(d)
        self.declared[seat] = tuple(decls)
        events.append(Declared(seat, tuple(decls)))
        belot = next((d for d in decls if d.kind == "belot"), None)
        if belot is not None:  # R10: the round ends, the holder's side wins the match
            side = self.variant.side_of(seat)
            self._finish(RoundResult(Outcome.BELOT, (0,) * self.variant.sides, self.caller,
                                     self.contract, winner=side), events)

    def _finish(self, result: RoundResult, events: list[Event]) -> None:
        self.result = result
        self.phase = Phase.DONE
        self._legal = None
        events.append(RoundOver(result))

    # -- explanations ----------------------------------------------------------------------
    def _explain_duty(self, card: Card) -> tuple[str, str]:
        assert self.table is not None and self.lead is not None and self.win_card is not None
        why = duty_reason(self.hands[self.turn], card, self.lead, Card.ALL[self.win_card],
                          self.table)
        return why.reason, why.rule

    def _why_not(self, action: Action) -> str:
        if self.phase == Phase.BIDDING:
            return f"{action.pretty()} is not a bid you can make now"
        if self.phase == Phase.DISCARD:
            return "the caller must discard two cards of his hand"
        return f"{action.pretty()} is not allowed in the {self.phase} phase"

    def _rule_for(self, action: Action) -> str:
        if isinstance(action, (Pass, Call)) or self.phase == Phase.BIDDING:
            return self.variant.rule_ids["bidding"]  # one round of bidding, no overcalling
        if isinstance(action, (Swap, Redeal, Decline)):
            return self.variant.rule_ids.get("exchange", "R16")
        return self.variant.rule_ids.get(self.phase, "R16")


class Match:
    """Rounds to a target (R25), with seeded shuffles and the R39 dealer order.

    Chance is explicit: :meth:`deal` starts the next round from the match's seeded shuffle,
    or from hands you give (a record, a test, a deal sampler).
    """

    def __init__(self, variant: str | Variant = "bela4", options: dict[str, Any] | None = None,
                 seed: int | None = None, first_dealer: int | None = None,
                 belot_board: int | None = None) -> None:
        self.variant = get_variant(variant) if isinstance(variant, str) else variant
        self.belot_board = belot_board  # duplicate boards: a belot wins its board (book)
        self.options = self.variant.make_options(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.first_dealer = self.variant.seats - 1 if first_dealer is None else first_dealer
        self.rounds: list[Round] = []
        self.sheet: list[tuple[int, ...]] = []  # booked scores per finished round
        self.totals = [0] * self.variant.sides
        self.held = 0  # R22 hang
        self.winner: int | None = None
        self._before_booking: list[tuple[tuple[int, ...], int, int | None]] = []

    @property
    def round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def next_dealer(self) -> int:
        if not self.rounds:
            return self.first_dealer
        last = self.rounds[-1]
        if last.result is not None and last.result.outcome == Outcome.REDEAL:
            return last.dealer  # R37: after a redeal the same dealer deals again
        return last.first  # R39

    def deal(self, hands: Sequence[Sequence[int]] | None = None,
             extra: Mapping[str, Sequence[int]] | None = None, dealer: int | None = None) -> Round:
        """Start the next round: shuffled with the match seed, or with the given hands."""
        if self.is_over:
            raise IllegalAction("the match is over")
        if self.rounds and not self.rounds[-1].is_over:
            raise IllegalAction("the current round is not finished")
        expected = self.next_dealer()
        if dealer is not None and dealer != expected:
            raise InvalidDeal(f"dealer must be seat {expected} (R39), not {dealer}")
        if hands is None:
            d = self.variant.shuffle(self.rng, expected)
        else:
            d = Deal(tuple(tuple(Card.ALL[c] for c in h) for h in hands),
                     {k: tuple(Card.ALL[c] for c in v) for k, v in (extra or {}).items()})
        rnd = Round(self.variant, self.options, expected, d)
        self.rounds.append(rnd)
        return rnd

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply an action to the current round, and book the round when it ends; return
        the events it caused (the round's, then the booking's)."""
        rnd = self.round
        if rnd is None or rnd.is_over:
            raise IllegalAction("no round is being played: deal first")
        events = rnd.apply(action)
        if rnd.is_over:
            events += self._book(rnd)
        return events

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would, changing nothing
        (the server checks an action before storing it, then applies it): a card is
        verified, the whole of its rule; another action is applied and taken back, some
        of its refusals coming from its effects.

        >>> m = Match("bela4", seed=1); rnd = m.deal()
        >>> m.check(rnd.legal_actions()[0]); len(rnd.log)
        0
        """
        rnd = self.round
        if rnd is None or rnd.is_over:
            raise IllegalAction("no round is being played: deal first")
        if isinstance(action, Play) and rnd.phase == Phase.PLAY:
            rnd.verify(action)
            return
        self.apply(action)
        self.undo()

    def undo(self) -> Action:
        """Take back the last action of the current round, un-booking the round if that
        action had finished it (use this, not ``Round.undo``, on a match)."""
        rnd = self.round
        if rnd is None:
            raise IllegalAction("nothing to undo")
        if rnd.is_over:
            self.sheet.pop()
            totals, self.held, self.winner = self._before_booking.pop()
            self.totals = list(totals)
        return rnd.undo()

    def _book(self, rnd: Round) -> tuple[Event, ...]:
        self._before_booking.append((tuple(self.totals), self.held, self.winner))
        res = rnd.result
        assert res is not None
        b = book(res, self.totals, self.held, self.winner, self.options.target,
                 self.belot_board)
        self.sheet.append(b.scores)
        self.totals, self.held, self.winner = list(b.totals), b.held, b.winner
        booked: tuple[Event, ...] = (RoundBooked(b.scores, b.totals, self.held),)
        return booked if self.winner is None else (*booked, MatchWon(self.winner))


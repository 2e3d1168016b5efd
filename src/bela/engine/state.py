"""The round and match state machines.

A :class:`Round` goes through phases (bidding, play, done); every action goes through one
door, :meth:`Round.apply`, which verifies it (raising :class:`IllegalAction` and changing
nothing), applies it and appends it to the log.  :meth:`Round.undo` pops it again.

>>> from bela.engine import parse_action
>>> m = Match("bela4", seed=7)
>>> rnd = m.deal()
>>> rnd.phase, rnd.turn, [a.token() for a in rnd.legal_actions()]
('bidding', 0, ['pass', 'H', 'D', 'S', 'C'])
>>> m.apply(parse_action("S")); rnd.phase, rnd.trump_name
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
from .cards import Card, iter_cards
from .declarations import Declaration, declaration_of, find_declarations
from .errors import IllegalAction, InvalidDeal
from .explain import duty_reason
from .rules import PlayTable, play_table
from .scoring import RoundResult, claim_result
from .variants import get_variant
from .variants.base import Deal, TableOptions, Variant

BIDDING, DISCARD, EXCHANGE, PLAY, DONE = "bidding", "discard", "exchange", "play", "done"
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
    revoked: tuple[bool, ...]
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
    lead: int
    win_card: int
    win_seat: int
    declared: tuple[Declaration, ...] | None
    n_belas: int
    revoked: bool
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
        self.phase = BIDDING
        self.turn = self.first
        self.contract = -1
        self.caller = -1
        self.table: PlayTable | None = None
        self.bids: list[tuple[int, Action]] = []
        self.declared: list[tuple[Declaration, ...] | None] = [None] * n
        self.belas: list[tuple[int, int]] = []  # (seat, suit) of announced belas (R14)
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.lead = -1
        self.win_card = -1
        self.win_seat = -1
        self.tricks: list[tuple[tuple[int, ...], tuple[Card, ...], int]] = []
        self.card_points = [0] * variant.sides
        self.tricks_won = [0] * variant.sides
        self.revoked = [False] * n
        self.log: list[Action] = []
        self.actors: list[int] = []
        self.result: RoundResult | None = None
        self._legal = -1
        self.public = {k: v[0] for k, v in deal.extra.items()
                       if k in variant.public_keys and k not in variant.shown_after_bidding}
        self.discards = 0  # bela3: the caller's two discards (R27), his secret
        self.exchange_seats: list[int] = []  # seats still to decide on a swap / redeal
        self.exchanges: list[tuple[int, Action]] = []  # swaps, redeals and keeps made (public)
        self.raspas = False  # belot2: four passes (R34)
        self._undo: list[Snapshot | PlayUndo] = []
        self._bela_mask = 0

    # -- queries ---------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == DONE

    @property
    def trump_name(self) -> str | None:
        return CONTRACT_TOKENS[self.contract] if self.contract >= 0 else None

    def legal_cards(self) -> int:
        """Mask of the cards the seat to play may play (R17-R19; any card with enforce off)."""
        if self._legal < 0:
            if self.phase != PLAY:
                return 0
            hand = self.hands[self.turn]
            assert self.table is not None
            if self.options.enforce == "off":
                self._legal = hand
            else:
                self._legal = self.variant.duties(hand, self.lead, self.win_card, self.table)
        return self._legal

    def legal_actions(self) -> list[Action]:
        """The actions of the seat to act, cheap to compute (claims are separate, R24)."""
        if self.phase == PLAY:
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
        if self.phase == BIDDING:
            return self.variant.bid_actions(self)
        if self.phase == DISCARD:
            hand = list(iter_cards(self.hands[self.turn]))
            return [Discard((a, b)) for i, a in enumerate(hand) for b in hand[i + 1:]]
        if self.phase == EXCHANGE:
            return [*self.variant.exchange_options(self, self.turn), DECLINE]
        return []

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

    def claim_allowed(self) -> bool:
        """R24: with enforce off, after the first card of the round and before the last."""
        return (self.options.enforce == "off" and self.phase == PLAY
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
        if self.phase == DONE:
            raise IllegalAction("the round is over")
        if isinstance(action, Play) and self.phase == PLAY:
            self._verify_play(action)
            return
        if isinstance(action, Claim):
            if not self.claim_allowed():
                raise IllegalAction("a claim (auzmeš) is allowed only with enforce = off, after "
                                    "the first card and before the last", "R24")
            if not 0 <= action.seat < self.variant.seats:
                raise IllegalAction(f"no seat {action.seat}", "R24")
            return
        if isinstance(action, Declare) and self.phase == PLAY:
            self._verify_declare(action)
            return
        if isinstance(action, Discard) and self.phase == DISCARD:
            a, b = action.cards
            hand = self.hands[self.turn]
            if a == b or not (hand >> a & 1 and hand >> b & 1):
                raise IllegalAction("discard two different cards of your hand", "R27")
            return
        if action not in self.legal_actions():
            raise IllegalAction(self._why_not(action), self._rule_for(action),
                                [a.token() for a in self.legal_actions()])

    def apply(self, action: Action) -> None:
        """Verify and apply ``action`` for the seat to act (``Claim`` names its own seat)."""
        if isinstance(action, Play) and self.phase == PLAY:
            self._verify_play(action)
            self._play(action)
            return
        self.verify(action)
        self._push()
        actor = action.seat if isinstance(action, Claim) else self.turn
        try:
            if isinstance(action, Claim):
                self._finish(claim_result(self, action.seat))
            elif isinstance(action, Declare):
                self._declare(action)
            elif isinstance(action, Discard):
                self._discard(action)
            elif isinstance(action, (Swap, Redeal, Decline)):
                self._exchange(action)
            else:
                self.variant.apply_bid(self, action)
        except IllegalAction:
            entry = self._undo.pop()
            assert isinstance(entry, Snapshot)
            self._restore(entry)
            raise
        self.log.append(action)
        self.actors.append(actor)
        self._legal = -1

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
            self.phase = PLAY
        self.trick.pop()
        self.trick_seats.pop()
        self.hands[u.seat] |= 1 << u.card
        self.declared[u.seat] = u.declared
        del self.belas[u.n_belas:]
        self.revoked[u.seat] = u.revoked
        self.lead, self.win_card, self.win_seat = u.lead, u.win_card, u.win_seat
        self.turn = u.seat
        self._legal = -1

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

    def set_contract(self, contract: int, caller: int, raspas: bool = False) -> None:
        """Fix the contract (called by the variant's bidding); ``caller`` is -1 in raspas."""
        self.contract = contract
        self.caller = caller
        self.raspas = raspas
        self.table = play_table(contract)
        for key in self.variant.shown_after_bidding:  # R35: the bottom card is turned now
            self.public = {**self.public, key: self.deal.extra[key][0]}
        suits = 0 if raspas else self.variant.bela_suits(contract)
        self._bela_mask = sum(0b01100000 << (8 * s) for s in range(4) if suits >> s & 1)

    def start_exchange(self) -> None:
        """Offer swaps / redeals (R32, R35) to the seats that may make one, in turn order
        from the first seat; play starts when none is left.  Both are rights until the first
        lead, in any order: a seat that swaps is asked again while it has a right left (the
        turned card may bring its fourth 8, R35)."""
        n = self.variant.seats
        order = [(self.first + i) % n for i in range(n)]
        self.exchange_seats = [s for s in order if self.variant.exchange_options(self, s)]
        self._next_exchange()

    def _next_exchange(self) -> None:
        if self.exchange_seats:
            self.phase = EXCHANGE
            self.turn = self.exchange_seats.pop(0)
        else:
            self.start_play()

    def start_play(self) -> None:
        self.phase = PLAY
        self.turn = self.first  # R16, R33, R35: the first seat (non-dealer) leads

    def _discard(self, action: Discard) -> None:
        a, b = action.cards
        self.discards = (1 << a) | (1 << b)
        self.hands[self.turn] &= ~self.discards
        self.variant.after_discard(self)

    def _exchange(self, action: Action) -> None:
        seat = self.turn
        self.exchanges.append((seat, action))
        if isinstance(action, Redeal):  # R35: the round ends unscored, the dealer deals again
            self._finish(RoundResult("redeal", (0,) * self.variant.sides, None, None,
                                     extra={"seat": seat}))
            return
        if isinstance(action, Swap):  # R32, R35: the 7 of trump for the face-up card
            seven = Card.make(0, self.contract)
            turned = self.public["turned"]
            self.hands[seat] = self.hands[seat] & ~(1 << seven) | (1 << turned)
            self.public = {**self.public, "turned": seven}
            if self.variant.exchange_options(self, seat):
                self.exchange_seats.insert(0, seat)  # R35: a redeal may still follow
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
                f"{action.card.pretty()} cannot announce it", "R14",
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

    def _play(self, action: Play) -> None:
        seat = self.turn
        card = action.card
        bit = 1 << card
        table = self.table
        assert table is not None
        undo = PlayUndo(seat, card, self.lead, self.win_card, self.win_seat,
                        self.declared[seat], len(self.belas), self.revoked[seat])
        self._undo.append(undo)  # completed below when the card ends a trick
        if self.options.enforce == "off" and not (
                self.variant.duties(self.hands[seat], self.lead, self.win_card, table) & bit):
            self.revoked[seat] = True  # R24: accepted, but a claim may follow
        self.hands[seat] ^= bit
        if self.declared[seat] is None:
            self.declared[seat] = ()  # R13: no declare before the first card announces nothing
        if action.bela:
            self.belas.append((seat, card >> 3))
        if self.lead < 0:
            self.lead = card >> 3
            self.win_card = card
            self.win_seat = seat
        elif table.beats[self.win_card] >> card & 1:
            self.win_card = card
            self.win_seat = seat
        self.trick.append(card)
        self.trick_seats.append(seat)
        self.log.append(action)
        self.actors.append(seat)
        self._legal = -1
        n = self.variant.seats
        if len(self.trick) < n:
            self.turn = (seat + 1) % n
            return
        winner = self.win_seat
        side = self.variant.side_of(winner)
        pts = table.points
        gained = 0
        for c in self.trick:
            gained += pts[c]
        if not self.hands[winner]:
            gained += self.variant.last_trick_bonus
        self.card_points[side] += gained
        self.tricks_won[side] += 1
        self.tricks.append((tuple(self.trick_seats), tuple(Card.ALL[c] for c in self.trick),
                            winner))
        undo.ended_trick = self.trick
        undo.ended_seats = self.trick_seats
        undo.gained = gained
        self.trick = []
        self.trick_seats = []
        self.lead = -1
        self.win_card = -1
        self.turn = winner  # R16
        if not self.hands[winner]:
            self._finish(self.variant.score(self))

    def _declare(self, action: Declare) -> None:
        seat = self.turn
        held = find_declarations(self.hands[seat], self.variant.belot_wins)
        decls = []
        for group in action.groups:
            d = declaration_of(group, held)
            assert d is not None  # verified: the action is one of declare_options
            decls.append(d)
        self.declared[seat] = tuple(decls)
        belot = next((d for d in decls if d.kind == "belot"), None)
        if belot is not None:  # R10: the round ends, the holder's side wins the match
            side = self.variant.side_of(seat)
            self._finish(RoundResult("belot", (0,) * self.variant.sides, self.caller,
                                     self.contract, winner=side))

    def _finish(self, result: RoundResult) -> None:
        self.result = result
        self.phase = DONE
        self._legal = -1

    # -- explanations ----------------------------------------------------------------------
    def _explain_duty(self, card: Card) -> tuple[str, str]:
        assert self.table is not None
        why = duty_reason(self.hands[self.turn], card, self.lead, Card.ALL[self.win_card],
                          self.table)
        return why.reason, why.rule

    def _why_not(self, action: Action) -> str:
        if self.phase == BIDDING:
            return f"{action.pretty()} is not a bid you can make now"
        if self.phase == DISCARD:
            return "the caller must discard two cards of his hand"
        return f"{action.pretty()} is not allowed in the {self.phase} phase"

    def _rule_for(self, action: Action) -> str:
        if isinstance(action, (Pass, Call)) or self.phase == BIDDING:
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
                 seed: int | None = None, first_dealer: int | None = None) -> None:
        self.variant = get_variant(variant) if isinstance(variant, str) else variant
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
        if last.result is not None and last.result.outcome == "redeal":
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

    def apply(self, action: Action) -> None:
        """Apply an action to the current round, and book the round when it ends."""
        rnd = self.round
        if rnd is None or rnd.is_over:
            raise IllegalAction("no round is being played: deal first")
        rnd.apply(action)
        if rnd.is_over:
            self._book(rnd)

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

    def _book(self, rnd: Round) -> None:
        self._before_booking.append((tuple(self.totals), self.held, self.winner))
        res = rnd.result
        assert res is not None
        scores = list(res.scores)
        if res.outcome == "belot":
            self.winner = res.winner
        elif res.outcome == "hang":
            self.held += res.held
        elif self.held and res.outcome not in ("redeal", "unfinished"):
            top = max(scores)
            if scores.count(top) == 1:  # R22: held points go to the side scoring more
                scores[scores.index(top)] += self.held
                self.held = 0
        self.sheet.append(tuple(scores))
        self.totals = [t + s for t, s in zip(self.totals, scores)]
        if self.winner is None:
            target = self.options.target
            if max(self.totals) >= target:  # R25
                top = max(self.totals)
                if self.totals.count(top) == 1:
                    self.winner = self.totals.index(top)


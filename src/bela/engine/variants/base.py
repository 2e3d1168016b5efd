"""What a variant is: data (seats, sides, deal shape, values, options) plus small hooks.

The :class:`~bela.engine.state.Round` state machine is shared by every variant; it asks the
variant for the few things that differ: the deal, the bidding, the play duties, declaration
values and seniority, and how a finished round is scored.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..actions import CALLS, PASS, Action, Call, Pass
from ..cards import Card
from ..declarations import BELA_VALUES, Declaration
from ..enums import Enforce, EqualDeclarations, Outcome, Phase, Tie
from ..errors import IllegalAction, InvalidDeal, InvalidOptions
from ..rules import DutyFn, bela_duties
from ..scoring import RoundResult, score_played_round, score_points

if TYPE_CHECKING:
    from ..state import Round


@dataclass(frozen=True)
class TableOptions:
    """Table options (RECORD.md ``options``)."""

    target: int
    equal_declarations: EqualDeclarations = EqualDeclarations.EARLIER  # R12
    tie: Tie = Tie.FALL  # R22
    enforce: Enforce = Enforce.ON  # R24 (bela4 only)

    def as_dict(self) -> dict[str, Any]:
        """The options as plain JSON values (RECORD.md ``options``)."""
        return {"target": self.target, "equal_declarations": str(self.equal_declarations),
                "tie": str(self.tie), "enforce": str(self.enforce)}


TARGET_RANGE = (1, 5001)  # the targets a table may play to (R25; RULES.md readings)

OPTION_CHOICES: dict[str, type[StrEnum]] = {
    "equal_declarations": EqualDeclarations,
    "tie": Tie,
    "enforce": Enforce,
}


@dataclass(frozen=True, slots=True)
class BidEffect:
    """What a bid makes happen, as a variant's bidding decides it; only the round applies it.

    The bid is recorded and the seats in ``reveal`` see the rest of their hand.  Then either
    the bidding goes on with ``next_turn``, or (``contract`` set) the contract is fixed for
    ``caller`` (``None`` in raspas, R34), the caller takes the cards ``gains`` (bela3's two
    extra cards, R27) and the round goes on to the phase ``then``.
    """

    reveal: tuple[int, ...] = ()
    next_turn: int | None = None
    contract: int | None = None
    caller: int | None = None
    raspas: bool = False
    gains: int = 0
    then: Phase = Phase.PLAY


DEAL_KEY_SIZES = {"extra": 2, "turned": 1, "bottom": 1}


@dataclass(frozen=True)
class Deal:
    """The cards of one round, in the order each seat received them (RECORD.md ``hands``)."""

    hands: tuple[tuple[Card, ...], ...]
    extra: dict[str, tuple[Card, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Variant:
    """A Bela / Belot variant.  Subclasses override the hooks that differ."""

    name: str
    seats: int
    sides: int
    default_target: int
    hand_cards: int  # cards per seat in the record's ``hands``
    seen_before_bid: int  # cards a seat sees before its own bid
    options: tuple[str, ...] = ("target", "equal_declarations", "tie", "enforce")
    deal_keys: tuple[str, ...] = ()  # extra per-round deal keys of RECORD.md
    public_keys: tuple[str, ...] = ()  # deal keys whose card is face up for everyone
    shown_after_bidding: tuple[str, ...] = ()  # public keys turned up only after the bidding
    rule_ids: dict[str, str] = field(default_factory=lambda: {
        "bidding": "R7", "play": "R16", "declarations": "R13"})
    duties: DutyFn = bela_duties
    belot_wins: bool = True  # R10: eight of a suit wins the match
    capot_bonus: int = 90  # R23
    bela_needs_trick: bool = True  # R15: a side without a trick scores no bela (belot2: R37)
    last_trick_bonus: int = 10  # R3
    declaration_values: dict[str, Any] = field(default_factory=lambda: BELA_VALUES)
    iber: bool = True  # R17: beat the led suit's best card (belot2: only a led trump, R36)
    discards: int = 0  # cards the caller discards after the call (bela3: 2, R27)
    redeal_ranks: tuple[int, ...] = ()  # four of one of these ranks allow a redeal (R35)
    face_up_name: str = "turned"  # what the rules call the face-up card (belot2: "opened")
    extra_contracts: tuple[int, ...] = ()  # contracts beyond a trump suit (belot2: VC, BC)
    raspas: bool = False  # four passes play the deal without a contract (belot2, R34)
    trump_sequence_first: bool = False  # R37: of equal sequences the trump one is senior
    exchange_actions: tuple[str, ...] = ()  # the exchange's choices (bela2: swap; belot2: + redeal)
    mus: bool = False  # R7: after three passes the dealer must call ("mus", bela4)

    # -- sides and seats -------------------------------------------------------------------
    def side_of(self, seat: int) -> int:
        return seat % self.sides

    @property
    def partners(self) -> bool:
        """Do seats play in sides of two or more (bela4)?"""
        return self.sides < self.seats

    def play_teams(self, caller: int | None) -> tuple[int, ...]:
        """Which seats play together in the card play, as a team number per seat: the sides
        (bela4: 0+2 against 1+3; two players: each his own)."""
        return tuple(self.side_of(s) for s in range(self.seats))

    def callable_suits(self, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
        """The suits the bid number ``index`` of a round may name, and whether it must name
        one (bela4, R7: any suit; the fourth bidder, the dealer, must call)."""
        return list(range(4)), index == self.seats - 1

    # -- options -----------------------------------------------------------------------------
    def make_options(self, given: dict[str, Any] | None) -> TableOptions:
        """The table options ``given`` (JSON values), checked: every option is one of this
        variant's, ``target`` a whole number in :data:`TARGET_RANGE`, the others one of their
        choices; a missing option takes its default (raises :class:`InvalidOptions`)."""
        given = dict(given or {})
        low, high = TARGET_RANGE
        for key, value in given.items():
            if key not in self.options:
                raise InvalidOptions(f"{self.name} has no table option {key!r} "
                                     f"(options: {', '.join(self.options)})")
            if key == "target":
                if (isinstance(value, bool) or not isinstance(value, int)
                        or not low <= value <= high):
                    raise InvalidOptions(f"target must be a whole number from {low} to {high} "
                                         f"(R25), not {value!r:.40}")
            elif value not in [str(c) for c in OPTION_CHOICES[key]]:
                raise InvalidOptions(f"option {key} must be one of "
                                     f"{', '.join(OPTION_CHOICES[key])}, not {value!r}")
            else:
                given[key] = OPTION_CHOICES[key](value)
        given.setdefault("target", self.default_target)
        return TableOptions(**given)

    # -- dealing -----------------------------------------------------------------------------
    def shuffle(self, rng: random.Random, dealer: int) -> Deal:
        deck = list(Card.ALL)
        rng.shuffle(deck)
        return self.deal_from_deck(deck, dealer)

    def deal_from_deck(self, deck: list[Card], dealer: int) -> Deal:
        n, k = self.seats, self.hand_cards
        return Deal(tuple(tuple(deck[i * k:(i + 1) * k]) for i in range(n)))

    def check_deal(self, deal: Deal) -> None:
        """Raise :class:`InvalidDeal` unless ``deal`` has the shape of this variant."""
        if len(deal.hands) != self.seats:
            raise InvalidDeal(f"{self.name} needs {self.seats} hands, not {len(deal.hands)}")
        seen: set[int] = set()
        parts = [(f"seat {seat}", hand, self.hand_cards) for seat, hand in enumerate(deal.hands)]
        if set(deal.extra) != set(self.deal_keys):
            raise InvalidDeal(f"{self.name} deals {', '.join(self.deal_keys) or 'no extra cards'}"
                              f", not {', '.join(sorted(deal.extra)) or 'none'}")
        parts += [(f"'{k}'", deal.extra[k], DEAL_KEY_SIZES[k]) for k in self.deal_keys]
        for name, cards, size in parts:
            if len(cards) != size:
                raise InvalidDeal(f"{name} must have {size} card{'s' * (size > 1)}, "
                                  f"not {len(cards)}")
            for c in cards:
                if c in seen:
                    raise InvalidDeal(f"card {Card.ALL[c]} is dealt twice")
                seen.add(c)

    def hidden_before_bid(self, deal: Deal, seat: int) -> int:
        """Mask of the seat's own cards it may not see yet (bela4: the talon, R6)."""
        m = 0
        for c in deal.hands[seat][self.seen_before_bid:]:
            m |= 1 << c
        return m

    # -- bidding (bela4, R7) -------------------------------------------------------------------
    def bid_actions(self, rnd: Round) -> list[Action]:
        calls: list[Action] = list(CALLS[:4])
        if rnd.turn == rnd.dealer:  # R7: "mus", the dealer must call
            return calls
        return [PASS, *calls]

    def bid_effect(self, rnd: Round, action: Action) -> BidEffect:
        """What the bid ``action`` of the seat to act makes happen (raise
        :class:`IllegalAction` when it is not a bid it may make)."""
        everyone = tuple(range(self.seats))
        if isinstance(action, Pass):
            if rnd.turn == rnd.dealer:
                raise IllegalAction("the dealer must call trump after three passes", "R7",
                                    [a.token() for a in self.bid_actions(rnd)])
            # R6: the talon is seen after the own bid
            return BidEffect(reveal=(rnd.turn,), next_turn=(rnd.turn + 1) % self.seats)
        if not isinstance(action, Call) or action.contract > 3:
            raise IllegalAction(f"{action.pretty()} is not a bid in {self.name}", "R7",
                                [a.token() for a in self.bid_actions(rnd)])
        # R6: after trump is fixed all seats hold 8
        return BidEffect(reveal=everyone, contract=action.contract, caller=rnd.turn)

    # -- declarations ------------------------------------------------------------------------
    def declaration_key(self, seat: int, d: Declaration, first: int,
                        contract: int | None) -> tuple[int, ...]:
        """Seniority of a declaration (R11, R12): larger wins; ties by turn order from the
        first seat."""
        return (d.strength, -((seat - first) % self.seats))

    def exchange_possible(self, contract: int, turned: int | None, raspas: bool) -> bool:
        """Whether some seat may still have a swap or redeal right (R32, R35), judged from
        public facts only: the contract, the face-up card now and raspas.  When it is true
        every seat is asked in turn, holder or not, so that the exchange phase tells nobody
        who holds what (none in bela4 and bela3)."""
        return False

    def exchange_options(self, rnd: Round, seat: int) -> list[Action]:
        """Swaps / redeals the seat may make before the first lead (none in bela4)."""
        return []

    def score(self, rnd: Round) -> RoundResult:
        """Score a round whose tricks are all played."""
        return score_played_round(rnd)

    def score_points(self, options: TableOptions, caller: int, contract: int | None,
                     cards: Sequence[int], declarations: Sequence[int], bela: Sequence[int],
                     capot: int | None, declarations_to: int | None = None) -> RoundResult:
        """The result of a round's points per side (see :func:`bela.engine.scoring.
        score_points`): of a played round, or of a deal written on a score pad."""
        return score_points(self, options, caller, contract, cards, declarations, bela,
                            capot, declarations_to)

    def bela_suits(self, contract: int) -> int:
        """Bit per suit whose K+Q make a bela (R14): the trump suit."""
        return 1 << contract if contract < 4 else 0

    # -- scoring -------------------------------------------------------------------------------
    def fall(self, options: TableOptions, caller: int, own: list[int], total: int, tie: bool,
             common: dict[str, Any]) -> RoundResult:
        """The calling side did not pass (R22): the other side takes the whole total, or with
        ``tie = hang`` on an exact tie its own points while the caller's are held back."""
        caller_side = self.side_of(caller)
        if tie and options.tie == Tie.HANG:
            scores = list(own)
            scores[caller_side] = 0
            return RoundResult(Outcome.HANG, tuple(scores), held=own[caller_side], **common)
        scores = [0] * self.sides
        scores[1 - caller_side] = total
        return RoundResult(Outcome.FALL, tuple(scores), **common)

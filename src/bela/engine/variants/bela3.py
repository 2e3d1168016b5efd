"""bela3: three players, each for himself, 10 cards each, to 701 (R26-R29)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..actions import CALLS, Action, Call
from ..cards import Card
from ..errors import IllegalAction
from ..scoring import RoundResult
from .base import Deal, Variant

if TYPE_CHECKING:
    from ..state import Round


@dataclass(frozen=True)
class Bela3(Variant):
    rule_ids: dict[str, str] = field(
        default_factory=lambda: {"bidding": "R26", "discard": "R27", "play": "R16",
                                 "declarations": "R13"})

    def deal_from_deck(self, deck: list[Card], dealer: int) -> Deal:
        # R26: 6 + a 4-card talon each, and the last 2 cards to the first seat.
        hands = tuple(tuple(deck[i * 10:(i + 1) * 10]) for i in range(3))
        return Deal(hands, {"extra": tuple(deck[30:32])})

    def bid_actions(self, rnd: Round) -> list[Action]:
        return list(CALLS[:4])  # R26: the first seat must call on its first 6 cards

    def apply_bid(self, rnd: Round, action: Action) -> None:
        if not isinstance(action, Call) or action.contract > 3:
            raise IllegalAction("the first seat must call a trump suit (no passing)", "R26",
                                [a.token() for a in self.bid_actions(rnd)])
        seat = rnd.turn
        rnd.bids.append((seat, action))
        rnd.hidden = [0] * self.seats  # R27: everyone takes his talon
        for c in rnd.deal.extra["extra"]:
            rnd.hands[seat] |= 1 << c  # ... and the caller the 2 extra cards
        rnd.set_contract(action.contract, seat)
        rnd.phase = "discard"  # R27: the caller discards 2 cards face down

    def play_teams(self, caller: int) -> tuple[int, ...]:
        """R28: the caller must take more than the two others together: in the card play
        he is one team (0), the two others the other (1)."""
        if not 0 <= caller < self.seats:
            raise ValueError("bela3 needs the caller's seat (the caller plays against the two "
                             "others)")
        return tuple(0 if s == caller else 1 for s in range(self.seats))

    def callable_suits(self, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
        """R26: the first seat must call, any suit."""
        return list(range(4)), True

    def fall(self, rnd: Round, own: list[int], total: int, tie: bool,
             common: dict[str, Any]) -> RoundResult:
        """R28: a falling caller scores 0 and the others their own points; with
        ``tie = hang`` an exact half is held back for the next round (R22)."""
        scores = list(own)
        scores[rnd.caller] = 0
        if tie and rnd.options.tie == "hang":
            return RoundResult("hang", tuple(scores), held=own[rnd.caller], **common)
        return RoundResult("fall", tuple(scores), **common)


BELA3 = Bela3(
    name="bela3",
    seats=3,
    sides=3,
    default_target=701,  # R29
    hand_cards=10,
    seen_before_bid=6,
    options=("target", "equal_declarations", "tie"),  # R24: R12 and R22 apply
    deal_keys=("extra",),
    discards=2,  # R27
)

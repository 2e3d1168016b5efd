"""bela3: three players, each for himself, 10 cards each, to 701 (R26-R29)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..actions import CALLS, Action, Call
from ..cards import Card
from ..enums import Outcome, Phase, Tie
from ..errors import IllegalAction
from ..scoring import RoundResult
from .base import BidEffect, Deal, TableOptions, Variant

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

    def bid_effect(self, rnd: Round, action: Action) -> BidEffect:
        if not isinstance(action, Call) or action.contract > 3:
            raise IllegalAction("the first seat must call a trump suit (no passing)", "R26",
                                [a.token() for a in self.bid_actions(rnd)])
        # R27: everyone takes his talon, the caller the 2 extra cards too, and he discards
        # 2 cards face down
        return BidEffect(reveal=tuple(range(self.seats)), contract=action.contract,
                         caller=rnd.turn, gains=sum(1 << c for c in rnd.deal.extra["extra"]),
                         then=Phase.DISCARD)

    def play_teams(self, caller: int | None) -> tuple[int, ...]:
        """R28: the caller must take more than the two others together: in the card play
        he is one team (0), the two others the other (1)."""
        if caller is None or not 0 <= caller < self.seats:
            raise ValueError("bela3 needs the caller's seat (the caller plays against the two "
                             "others)")
        return tuple(0 if s == caller else 1 for s in range(self.seats))

    def callable_suits(self, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
        """R26: the first seat must call, any suit."""
        return list(range(4)), True

    def fall(self, options: TableOptions, caller: int, own: list[int], total: int, tie: bool,
             common: dict[str, Any]) -> RoundResult:
        """R28: a falling caller scores 0 and the others their own points; with
        ``tie = hang`` an exact half is held back for the next round (R22)."""
        scores = list(own)
        scores[caller] = 0
        if tie and options.tie == Tie.HANG:
            return RoundResult(Outcome.HANG, tuple(scores), held=own[caller], **common)
        return RoundResult(Outcome.FALL, tuple(scores), **common)


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

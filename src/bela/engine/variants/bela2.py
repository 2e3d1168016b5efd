"""bela2: two players, a turned card, 10 cards each of which 20 are played, to 501 (R30-R33)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..actions import CALLS, PASS, SWAP, Action, Call, Pass
from ..cards import SEVEN, Card
from ..enums import Phase
from ..errors import IllegalAction
from .base import BidEffect, Deal, Variant

if TYPE_CHECKING:
    from ..state import Round


def turned_suit(rnd: Round) -> int:
    return int(rnd.deal.extra["turned"][0]) >> 3


def swap_possible(contract: int, turned: int | None, raspas: bool) -> bool:
    """R32, R35, from public facts: trump is the face-up card's suit (not raspas) and the
    face-up card is not the 7 of trump, so a seat may hold the 7 and swap it."""
    return (not raspas and turned is not None and contract == turned >> 3
            and turned != Card.make(SEVEN, contract))


def holds_seven_of_turned_trump(rnd: Round, seat: int) -> bool:
    """R32, R35: the 7 of trump may be swapped for the face-up card when trump is its suit."""
    trump = rnd.contract
    return (not rnd.raspas and trump == turned_suit(rnd)
            and bool(rnd.hands[seat] >> Card.make(SEVEN, trump) & 1))


@dataclass(frozen=True)
class Bela2(Variant):
    rule_ids: dict[str, str] = field(
        default_factory=lambda: {"bidding": "R31", "exchange": "R32", "play": "R16",
                                 "declarations": "R13"})

    def deal_from_deck(self, deck: list[Card], dealer: int) -> Deal:
        # R30: 6 + a 4-card talon each, one card turned; the other 11 are out of play.
        return Deal((tuple(deck[0:10]), tuple(deck[10:20])), {"turned": (deck[20],)})

    def bid_actions(self, rnd: Round) -> list[Action]:
        turned = turned_suit(rnd)
        others = [CALLS[s] for s in range(4) if s != turned]
        passes = len(rnd.bids)
        if passes < 2:  # R31 round 1: accept the turned suit or pass
            return [PASS, CALLS[turned]]
        if passes == 2:  # the non-dealer may name another suit or pass again
            return [PASS, *others]
        return list(others)  # the dealer must name one of the other three

    def bid_effect(self, rnd: Round, action: Action) -> BidEffect:
        if action not in self.bid_actions(rnd):
            raise IllegalAction(f"{action.pretty()} is not a bid you can make now", "R31",
                                [a.token() for a in self.bid_actions(rnd)])
        seat = rnd.turn
        if isinstance(action, Pass):
            return BidEffect(next_turn=1 - seat)
        assert isinstance(action, Call)
        # R32: both take their talons; then the swap of the 7 of trump may follow
        return BidEffect(reveal=(0, 1), contract=action.contract, caller=seat,
                         then=Phase.EXCHANGE)

    def callable_suits(self, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
        """R31: the first two bids may accept the turned suit; then the other three suits,
        the dealer's (the fourth bid) forced."""
        assert turned_suit is not None
        if index < 2:
            return [turned_suit], False
        return [s for s in range(4) if s != turned_suit], index == 3

    def exchange_possible(self, contract: int, turned: int | None, raspas: bool) -> bool:
        """R32: a swap is possible when trump is the face-up card's suit and that card is
        not the 7 of trump itself (then someone may hold the 7)."""
        return swap_possible(contract, turned, raspas)

    def exchange_options(self, rnd: Round, seat: int) -> list[Action]:
        return [SWAP] if holds_seven_of_turned_trump(rnd, seat) else []


BELA2 = Bela2(
    name="bela2",
    seats=2,
    sides=2,
    default_target=501,
    hand_cards=10,
    seen_before_bid=6,
    options=("target", "equal_declarations", "tie"),  # R24: R12 and R22 apply
    deal_keys=("turned",),
    public_keys=("turned",),
    exchange_actions=("swap",),  # R32
)

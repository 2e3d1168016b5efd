"""belot2: two-player Belot with suit, all-trump (VC) and no-trump (BC) contracts and raspas,
9 cards each, to 1001 (R34-R38, seed 004)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..actions import CALLS, PASS, REDEAL, SWAP, Action, Call, Pass
from ..cards import EIGHT, RANK_MASKS, SEVEN, Card
from ..declarations import BELOT2_VALUES, Declaration
from ..enums import Outcome, Phase
from ..errors import IllegalAction
from ..rules import ALL_TRUMPS, NO_TRUMPS, belot2_duties
from ..scoring import RoundResult, announced_points, declaration_winner
from .base import BidEffect, Deal, TableOptions, Variant
from .bela2 import holds_seven_of_turned_trump, turned_suit

if TYPE_CHECKING:
    from ..state import Round


@dataclass(frozen=True)
class Belot2(Variant):
    rule_ids: dict[str, str] = field(
        default_factory=lambda: {"bidding": "R34", "exchange": "R35", "play": "R36",
                                 "duties": "R36", "declarations": "R37", "bela": "R37"})

    def deal_from_deck(self, deck: list[Card], dealer: int) -> Deal:
        # R34, R35: 6 each, the opened card, 3 more each after bidding, the bottom card shown.
        return Deal((tuple(deck[0:9]), tuple(deck[9:18])),
                    {"turned": (deck[18],), "bottom": (deck[31],)})

    def bid_actions(self, rnd: Round) -> list[Action]:
        opened = turned_suit(rnd)
        if len(rnd.bids) < 2:  # R34 round 1: take the opened suit, or pass
            return [PASS, CALLS[opened]]
        # Round 2: any other suit, VC or BC, or pass (four passes: raspas).
        return [PASS, *(CALLS[s] for s in range(4) if s != opened),
                *(CALLS[c] for c in self.extra_contracts)]

    def bid_effect(self, rnd: Round, action: Action) -> BidEffect:
        if action not in self.bid_actions(rnd):
            raise IllegalAction(f"{action.pretty()} is not a bid you can make now", "R34",
                                [a.token() for a in self.bid_actions(rnd)])
        seat = rnd.turn
        if isinstance(action, Pass):
            if len(rnd.bids) < 3:
                return BidEffect(next_turn=1 - seat)
            # R34: four passes play raspas in the opened suit; R35: 3 more cards to each
            return BidEffect(reveal=(0, 1), contract=turned_suit(rnd), raspas=True,
                             then=Phase.EXCHANGE)
        assert isinstance(action, Call)
        return BidEffect(reveal=(0, 1), contract=action.contract, caller=seat,
                         then=Phase.EXCHANGE)

    def exchange_possible(self, contract: int, turned: int | None, raspas: bool) -> bool:
        """R35: a seat may hold four 7s or four 8s in any contract, raspas included, so
        every round has an exchange step (and after a swap every seat is asked again, from
        the swapper: the swap may have brought its fourth 8)."""
        return True

    def exchange_options(self, rnd: Round, seat: int) -> list[Action]:
        """R35: the swap (suit contract in the opened suit) and the redeal (four 7s or 8s)."""
        hand = rnd.hands[seat]
        options: list[Action] = []
        if holds_seven_of_turned_trump(rnd, seat):
            options.append(SWAP)
        if any(hand & RANK_MASKS[r] == RANK_MASKS[r] for r in self.redeal_ranks):
            options.append(REDEAL)
        return options

    def callable_suits(self, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
        """R34: the first two bids may take the opened suit; then any other suit (or VC,
        BC), never forced (four passes give raspas)."""
        assert turned_suit is not None
        if index < 2:
            return [turned_suit], False
        return [s for s in range(4) if s != turned_suit], False

    def declaration_key(self, seat: int, d: Declaration, first: int,
                        contract: int | None) -> tuple[int, ...]:
        """R37: four > sequence, longer, higher top, then the trump sequence, then the one
        announced first."""
        trump = self.trump_sequence_first and d.kind == "sequence" and d.suit == contract
        return (d.strength, int(trump), -((seat - first) % self.seats))

    def bela_suits(self, contract: int) -> int:
        """R37: the trump K+Q; in VC each suit's K+Q; none in BC."""
        return {ALL_TRUMPS: 0b1111, NO_TRUMPS: 0}.get(contract, 1 << contract)

    def score(self, rnd: Round) -> RoundResult:
        cards = list(rnd.card_points)
        if rnd.raspas:  # R37: each scores minus the points he took; no caller
            return raspas_result(cards, rnd.contract)
        decl = [0, 0]
        to = declaration_winner(rnd)  # R37: only the senior declaration's owner, with a trick
        if to is not None:
            decl[to] = announced_points(rnd.declared[to], rnd)
        bela = [0, 0]
        for seat, _suit in rnd.belas:
            bela[seat] += 20  # R37: bela counts even without a trick
        caller = rnd.caller
        assert caller is not None  # not raspas
        return self.score_points(rnd.options, caller, rnd.contract, cards, decl, bela, None,
                                 declarations_to=to)

    def score_points(self, options: TableOptions, caller: int, contract: int | None,
                     cards: Sequence[int], declarations: Sequence[int], bela: Sequence[int],
                     capot: int | None, declarations_to: int | None = None) -> RoundResult:
        """R34-R37: BC doubles every point (it has no bela, R37); the bidder passes with
        strictly more than the other, else the other takes the total (also on a tie); no
        štiglja bonus (R36): taking every trick is a pass like any other."""
        factor = 2 if contract == NO_TRUMPS else 1  # R36: BC doubles every point
        own = [factor * (cards[s] + declarations[s] + bela[s]) for s in range(2)]
        total = sum(own)
        common: dict[str, Any] = dict(
            total=total, card_points=tuple(factor * c for c in cards),
            declaration_points=tuple(factor * d for d in declarations),
            bela_points=tuple(bela), declarations_to=declarations_to)
        if own[caller] > own[1 - caller]:  # R34: the bidder must score more
            return RoundResult(Outcome.PASS, tuple(own), caller, contract, **common)
        scores = [0, 0]
        scores[1 - caller] = total  # also on a tie
        return RoundResult(Outcome.FALL, tuple(scores), caller, contract, **common)


def raspas_result(cards: Sequence[int], contract: int | None = None) -> RoundResult:
    """R37 raspas: no caller; each scores minus the card points he took."""
    return RoundResult(Outcome.RASPAS, tuple(-c for c in cards), None, contract,
                       total=sum(cards), card_points=tuple(cards))


BELOT2 = Belot2(
    name="belot2",
    seats=2,
    sides=2,
    default_target=1001,  # R38
    hand_cards=9,
    seen_before_bid=6,
    options=("target",),  # R24: belot2 has none of R12, R22, R24's options
    duties=belot2_duties,
    belot_wins=False,
    capot_bonus=0,  # R36
    bela_needs_trick=False,  # R37: bela counts even without a trick
    declaration_values=BELOT2_VALUES,
    deal_keys=("turned", "bottom"),
    public_keys=("turned", "bottom"),
    shown_after_bidding=("bottom",),
    iber=False,  # R36: no duty to beat a plain lead
    face_up_name="opened",  # R34
    extra_contracts=(ALL_TRUMPS, NO_TRUMPS),  # R34: VC and BC
    raspas=True,  # R34
    trump_sequence_first=True,  # R37
    redeal_ranks=(SEVEN, EIGHT),  # R35
    exchange_actions=("swap", "redeal"),  # R35
)

"""bela4: four players in two sides, 8 cards each (6 + a 2-card talon), to 1001 (R6-R25)."""

from __future__ import annotations

from .base import Variant

BELA4 = Variant(
    name="bela4",
    seats=4,
    sides=2,  # seats 0+2 against 1+3
    default_target=1001,
    hand_cards=8,
    seen_before_bid=6,  # R6: the talon is seen after the own bid
    mus=True,  # R7
)

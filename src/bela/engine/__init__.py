"""The Bela rules engine: standard library only, no I/O."""

from .actions import (
    Action,
    Call,
    Claim,
    Declare,
    Discard,
    Pass,
    Play,
    Redeal,
    Swap,
    parse_action,
)
from .cards import Card, CardSet
from .enums import Outcome, Phase
from .errors import BelaError, IllegalAction, InvalidDeal, InvalidOptions
from .events import Event, seen_by
from .state import Match, Round

__all__ = [
    "Action", "Call", "Claim", "Declare", "Discard", "Pass", "Play", "Redeal", "Swap",
    "parse_action", "Card", "CardSet", "BelaError", "IllegalAction", "InvalidDeal",
    "InvalidOptions", "Match", "Round", "Outcome", "Phase", "Event", "seen_by",
]

"""Bots that fail on purpose, for the one bot-failure policy (``bela.bots.driver``)."""

from __future__ import annotations

from bela.bots import RandomBot
from bela.engine import Phase, parse_action
from bela.engine.actions import Action
from bela.engine.views import SeatView


class Broken:
    """Raises in ``phases`` (every phase when None); plays like the random bot elsewhere."""

    name = "broken"
    phases: tuple[Phase, ...] | None = None

    def __init__(self, seed: int | None = None) -> None:
        self.random = RandomBot(seed)

    def act(self, view: SeatView) -> Action:
        if self.phases is None or view.phase in self.phases:
            raise RuntimeError("out of its depth")
        return self.random.act(view)


class BrokenInPlay(Broken):
    """Bids like the random bot, raises whenever it is to play a card."""

    phases = (Phase.PLAY,)


class Bluffer:
    """A random bot that claims in the bidding, where a claim is never legal."""

    name = "bluffer"

    def __init__(self, seed: int | None = None) -> None:
        self.random = RandomBot(seed)

    def act(self, view: SeatView) -> Action:
        if view.phase == Phase.BIDDING:
            return parse_action(f"claim {view.seat}")
        return self.random.act(view)

"""A bot that picks uniformly among the legal actions (seeded)."""

from __future__ import annotations

import random

from ..engine.actions import Action
from ..engine.views import SeatView


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> Action:
        if not view.legal:
            raise ValueError("it is not this seat's turn")
        return view.legal[self.rng.randrange(len(view.legal))]

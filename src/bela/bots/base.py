"""The bot protocol: a bot sees only its seat's view and returns one of ``view.legal``."""

from __future__ import annotations

from typing import Protocol

from ..engine.actions import Action
from ..engine.views import SeatView


class Bot(Protocol):
    name: str

    def act(self, view: SeatView) -> Action:
        """Choose one of ``view.legal`` (the view's seat is to act)."""
        ...

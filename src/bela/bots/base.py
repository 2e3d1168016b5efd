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


def with_settings(spec: str, settings: str) -> str:
    """A bot spec with ``KEY=VALUE,...`` ``settings`` after its own (none given: ``spec``).

    >>> with_settings("learned", "model=m.npz"), with_settings("learned:endgame=0", "model=m.npz")
    ('learned:model=m.npz', 'learned:endgame=0,model=m.npz')
    """
    if not settings:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{settings}"

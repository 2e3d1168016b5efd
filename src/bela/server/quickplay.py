"""Quick play: a queue per variant matched by rating; bots fill the seats after a wait."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

router = APIRouter()


class QuickPlay:
    """The quick-play queues of a server (see the module)."""

    def __init__(self, router: Any, config: Any) -> None:
        self.router = router
        self.config = config

    async def start(self) -> None:
        """Begin matching (the server's start)."""

    async def stop(self) -> None:
        """Stop matching (the server's end)."""

"""Bots: each sees only its seat's view (:mod:`bela.engine.views`)."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by name (``random``, ``heuristic``), seeded for reproducible play."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None


__all__ = ["Bot", "BOTS", "HeuristicBot", "RandomBot", "make_bot"]

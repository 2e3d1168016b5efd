"""Bots: each sees only its seat's view (:mod:`bela.engine.views`).

A bot is named by a spec, ``NAME`` or ``NAME:KEY=VALUE,...`` with the bot's settings:

>>> make_bot("random", 1).name
'random'
>>> make_bot("pimc:samples=8,inference=off", 1).samples
8

Each bot's settings are typed (:mod:`bela.bots.settings`) and refused with a message
naming the setting and its allowed values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot
from .heuristic import HeuristicBot
from .levels import LEVELS, level_spec
from .random_bot import RandomBot
from .settings import IsmctsConfig, LearnedConfig, PimcConfig


def _pimc(seed: int | None = None, **settings: Any) -> Bot:
    from .pimc import PimcBot  # the solver needs numba: imported only when asked for

    return PimcBot(seed, PimcConfig.parse(settings))


def _ismcts(seed: int | None = None, **settings: Any) -> Bot:
    from .ismcts import IsmctsBot

    return IsmctsBot(seed, IsmctsConfig.parse(settings))


def _learned(seed: int | None = None, **settings: Any) -> Bot:
    from .learned import LearnedBot

    return LearnedBot(seed, LearnedConfig.parse(settings))


def _level(name: str) -> Callable[..., Bot]:
    def make(seed: int | None = None, **settings: Any) -> Bot:
        extra = ",".join(f"{k}={v}" for k, v in settings.items())
        return make_bot(level_spec(f"{name}:{extra}" if extra else name), seed)

    return make


BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "pimc": _pimc,
    "ismcts": _ismcts,
    "learned": _learned,
    **{name: _level(name) for name in LEVELS},
}


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("on", "true", "yes"):
        return True
    if low in ("off", "false", "no"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME:KEY=VALUE,...`` into the name and its settings."""
    name, _, rest = spec.partition(":")
    settings: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, val = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad bot setting {item!r} in {spec!r} (expected KEY=VALUE)")
        settings[key.strip()] = _value(val.strip())
    return name.strip(), settings


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot by spec (``random``, ``heuristic``, ``pimc``, ``ismcts``, ``learned``, or a
    level: ``beginner``, ``club``, ``expert``, ``master``; with optional ``:KEY=VALUE``
    settings), seeded for reproducible play."""
    name, settings = parse_spec(spec)
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
    try:
        return BOTS[name](seed, **settings)
    except TypeError as exc:
        raise ValueError(f"bad settings for bot {name!r}: {exc}") from None


__all__ = ["Bot", "BOTS", "HeuristicBot", "RandomBot", "make_bot", "parse_spec"]

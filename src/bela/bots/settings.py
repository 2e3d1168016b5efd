"""The bots' settings, typed: a frozen dataclass per bot, an enum per choice.

A spec's ``KEY=VALUE`` settings (:func:`bela.bots.parse_spec`) become a config by
:func:`parse_settings`, which refuses an unknown setting or a value that is not one of the
choices with a message that names the setting and what it allows:

>>> PimcConfig.parse({"samples": 8, "objective": "score"}).objective
<Objective.SCORE: 'score'>
>>> def refused(settings):
...     try:
...         PimcConfig.parse(settings)
...     except ValueError as exc:
...         return str(exc)
>>> refused({"bidding": "sim"})
"bad settings for bot 'pimc': bidding must be one of hybrid, heuristic, learned, not 'sim'"
>>> refused({"reach": "round"})[:60]
"bad settings for bot 'pimc': unknown setting 'reach' (known:"

Only the settings a shipped bot, a level or a user-facing knob uses are kept; the
experiments' switches removed are listed in docs/experiments/2026-12.md with the commit
that replays their rows.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Self, TypeVar

C = TypeVar("C")

# The endgame search's work budget per decision (solver nodes, about 12 million a second on
# one core): it bounds the slowest decisions (docs/experiments/2026-12.md, Performance) and
# leaves the others alone.
ENDGAME_NODES = 8_000_000


class Bidding(StrEnum):
    """Who orders: ``hybrid`` the heuristic decides whether to order and the search (the
    network for ``learned``) which contract; ``heuristic`` as the heuristic bot;
    ``learned`` (pimc with ``prior=learned``) as the learned bot."""

    HYBRID = "hybrid"
    HEURISTIC = "heuristic"
    LEARNED = "learned"


class LearnedBidding(StrEnum):
    """The learned bot's bidding: the network chooses the contract (``hybrid``) or not."""

    HYBRID = "hybrid"
    HEURISTIC = "heuristic"


class Objective(StrEnum):
    """What a sampled deal's card is worth: the side's card points or the round's score."""

    POINTS = "points"
    SCORE = "score"


class Discard(StrEnum):
    """bela3's discards (R27): the heuristic's, or the best of its first by simulation."""

    HEURISTIC = "heuristic"
    SEARCH = "search"


class Bids(StrEnum):
    """How the sampler reads the bids: the hand-made model or the heuristic's estimates."""

    MODEL = "model"
    ESTIMATE = "estimate"


class Prior(StrEnum):
    """The search's prior and opponent model: none, or the learned network."""

    OFF = "off"
    LEARNED = "learned"


def _whole(name: str, value: object, low: int, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low} ({what}), not {value!r}")


def _convert(name: str, kind: Any, value: object) -> object:
    """``value`` as the field's type ``kind`` (an enum, a number, a switch, optional)."""
    if value is None:
        return None
    args = typing.get_args(kind) if isinstance(kind, types.UnionType) else ()
    if args:  # X | None
        kind = next(a for a in args if a is not type(None))
    if isinstance(kind, type) and issubclass(kind, StrEnum):
        if value is False and "off" in kind._value2member_map_:  # a spec's ``off``
            value = "off"
        if not isinstance(value, str) or value not in kind._value2member_map_:
            allowed = ", ".join(m.value for m in kind)
            raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
        return kind(value)
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be on or off, not {value!r}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise ValueError(f"{name} must be a number, not {value!r}")
        return float(value)
    return value  # int (checked by the config) or str


def parse_settings(cls: type[C], bot: str, settings: Mapping[str, object]) -> C:
    """The config ``cls`` of ``bot`` from a spec's settings (ValueError naming the setting
    and its allowed values when one is unknown or wrong)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    values: dict[str, object] = {}
    try:
        for key, value in settings.items():
            if key not in fields:
                raise ValueError(f"unknown setting {key!r} (known: {', '.join(fields)})")
            values[key] = _convert(key, hints[key], value)
        return cls(**values)
    except ValueError as exc:
        raise ValueError(f"bad settings for bot {bot!r}: {exc}") from None


@dataclass(frozen=True)
class PimcConfig:
    """``pimc``'s settings (:mod:`bela.bots.pimc`): the search's size and caps, the bidding,
    the objective, the prior and what it plays alone, bela3's discards, the bids' reading."""

    samples: int | None = None  # deals per card decision (None: 16, or the profile's)
    budget: float | None = None  # seconds per decision
    min_samples: int = 6
    inference: bool = True
    bid_samples: int = 10  # deals per bid or discard simulation
    bidding: Bidding = Bidding.HYBRID
    prior: Prior = Prior.OFF
    model: str | None = None  # the prior's model file
    nodes: int | None = None  # solver nodes per decision
    objective: Objective = Objective.POINTS
    opening: int | None = None  # first tricks the network plays alone (None: the profile's)
    discard: Discard = Discard.HEURISTIC
    order: float | None = None  # the second round's order threshold (None: the profile's)
    bids: Bids | None = None  # None: the profile's with prior=learned, else model

    def __post_init__(self) -> None:
        for name in ("samples", "nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"samples, min_samples and nodes must be >= 1, not {value!r}")
        if isinstance(self.min_samples, bool) or not isinstance(self.min_samples, int) \
                or self.min_samples < 1:
            raise ValueError("samples, min_samples and nodes must be >= 1")
        _whole("bid_samples", self.bid_samples, 0, "the deals of a bid's simulation")
        if self.opening is not None:
            _whole("opening", self.opening, 0, "the first tricks played by the network")
        if self.order is not None and (isinstance(self.order, bool)
                                       or not isinstance(self.order, int | float)
                                       or not math.isfinite(self.order)):
            raise ValueError(f"order must be a number of points (the estimated margin from "
                             f"which to order in the second round), not {self.order!r}")
        for name, kind in (("bidding", Bidding), ("prior", Prior), ("objective", Objective),
                           ("discard", Discard), ("bids", Bids)):
            value = getattr(self, name)
            if value is not None and value not in kind._value2member_map_:
                allowed = ", ".join(m.value for m in kind)
                raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
        if self.prior != Prior.LEARNED and (self.opening or self.bidding == Bidding.LEARNED):
            raise ValueError("opening and bidding=learned play by the learned network: "
                             "give prior=learned")

    @classmethod
    def parse(cls, settings: Mapping[str, object]) -> Self:
        return parse_settings(cls, "pimc", settings)


@dataclass(frozen=True)
class LearnedConfig:
    """``learned``'s settings (:mod:`bela.bots.learned`): the model, the bidding, the
    human-like mistakes of the levels and the endgame search."""

    model: str | None = None
    bidding: LearnedBidding = LearnedBidding.HYBRID
    temperature: float = 0.0  # points: a card drawn from the softmax of the values
    forget: float = 0.0  # the probability of a missed count per decision
    symmetric: bool = True  # the mean over the namings of the side suits (off: one pass,
    # as ``bela train`` plays its deals)
    revoke: float = 0.0  # the probability of a broken duty where the table lets it
    endgame: int | None = None  # last tricks searched (None: the profile's)
    nodes: int = ENDGAME_NODES  # the endgame search's solver nodes per decision (0: no cap)

    def __post_init__(self) -> None:
        if self.bidding not in LearnedBidding._value2member_map_:
            raise ValueError(f"bidding must be one of hybrid, heuristic, not {self.bidding!r}")
        if self.temperature < 0 or not 0 <= self.forget <= 1 or not 0 <= self.revoke <= 1:
            raise ValueError("temperature must be >= 0, forget and revoke between 0 and 1")
        if self.endgame is not None:
            _whole("endgame", self.endgame, 0, "the last tricks played by search")
        _whole("nodes", self.nodes, 0, "the endgame search's solver nodes per decision; "
               "0: no cap")
        if self.model is not None and not Path(self.model).is_file():
            raise ValueError(f"no model file {self.model!r} (bela train writes "
                             "FOLDER/model.npz)")

    @classmethod
    def parse(cls, settings: Mapping[str, object]) -> Self:
        return parse_settings(cls, "learned", settings)


@dataclass(frozen=True)
class IsmctsConfig:
    """``ismcts``'s settings (:mod:`bela.bots.ismcts`): the tree's iterations, an optional
    time budget, the UCB1 exploration constant and the sampler's inference.

    >>> IsmctsConfig.parse({"iterations": 50, "inference": False}).iterations
    50
    >>> IsmctsConfig.parse({"iterations": 0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: bad settings for bot 'ismcts': iterations must be a whole number >= 1 ...
    """

    iterations: int = 1000  # tree iterations per card decision
    budget: float | None = None  # seconds per decision (whichever comes first)
    exploration: float = 0.7  # UCB1's constant
    inference: bool = True  # the sampler reads the bids and the play

    def __post_init__(self) -> None:
        _whole("iterations", self.iterations, 1, "the tree's iterations per card")
        if self.budget is not None and not self.budget > 0:
            raise ValueError(f"budget must be a number of seconds > 0, not {self.budget!r}")
        if not self.exploration >= 0:
            raise ValueError(f"exploration must be a number >= 0, not {self.exploration!r}")

    @classmethod
    def parse(cls, settings: Mapping[str, object]) -> Self:
        return parse_settings(cls, "ismcts", settings)

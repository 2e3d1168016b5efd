"""One profile per variant for everything the bots, the levels and the tools know of a
variant beyond its rules (the rules and their facts are the engine's
:class:`~bela.engine.variants.Variant`): the heuristic's knobs, the fitted contract
estimates, the search's and the learned bot's settings, the shipped model and the levels'
measured Elo.  Nothing else keys anything on a variant's name; a variant without a profile
is refused by name.

>>> profile("belot2").learned_search, profile("bela3").opening
((128, 8000000), 0)
>>> profile("bela5")
Traceback (most recent call last):
...
ValueError: no profile for the variant 'bela5' (known: bela4, bela3, bela2, belot2)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from types import MappingProxyType
from typing import Literal

from ..engine.variants import VARIANTS, Variant


@dataclass(frozen=True)
class HeuristicParams:
    """The heuristic bot's knobs that the variants' profiles (or the bots built on it) set
    apart (:class:`~bela.bots.heuristic.HeuristicBot`; tuned with :mod:`bela.bots.duplicate`);
    those no profile varies are constants of the heuristic (:mod:`bela.bots.heuristic`,
    :mod:`bela.bots.contracts`)."""

    # -- play: value of keeping a card for later tricks = chance that it takes a later
    # trick * (its points + keep_capture, the points of the others' cards it would take)
    keep_capture: float = 10.0
    lead_master_min_safe: float = 0.6  # lead a side master if no ruff is this likely
    draw_low_trumps_min: int = 2  # the caller leads a low trump holding this many trumps
    # -- the other variants (bela3, bela2, belot2): bidding thresholds on the estimated
    # margin (bela.bots.contracts), by (non-dealer, dealer)
    accept: tuple[float, float] = (0.0, 0.0)  # round 1 (R31, R34): take the face-up suit
    order: tuple[float, float] = (0.0, 0.0)  # round 2: order another contract (R31: the
    # non-dealer names a suit, the dealer must; R34: else raspas may follow)
    redeal_samples: int = 24  # belot2 four 7s / 8s (R35): rounds played out to decide


DEFAULT_PARAMS = HeuristicParams()


@dataclass(frozen=True)
class VariantProfile:
    """What the bots and the levels know of one variant beyond its rules."""

    variant: Variant  # the engine's variant: its rules and facts
    heuristic: HeuristicParams  # the heuristic's knobs (bela4 bids on their ``bid_*`` fit)
    # the caller's-margin estimates of :mod:`bela.bots.contracts` by contract kind (``suit``,
    # ``VC``, ``BC``): the least-squares weights of its features (none in bela4, which bids
    # on the heuristic's own fit)
    weights: Mapping[str, tuple[float, ...]]
    # ``pimc:prior=learned`` (:class:`~bela.bots.pimc.PimcBot`): the first tricks the network
    # plays alone (``opening`` overrides); the deals drawn and the solver nodes of a decision
    # when no ``samples`` is given; the estimated margin from which the second round's first
    # bidder orders (``order`` overrides; None: the heuristic's own); how the card play's
    # sampled deals read the bids (``bids`` overrides)
    opening: int
    learned_search: tuple[int, int]
    learned_order: float | None
    learned_bids: Literal["estimate", "model"]
    endgame: int  # the last tricks the learned bot plays by search (``endgame`` overrides)
    model: str  # the shipped learned model's file, in bela/bots/learned/models/
    elo: Mapping[str, int]  # each level's measured Elo over beginner (empty: not measured)

    @property
    def name(self) -> str:
        return self.variant.name


# Each level's Elo over ``beginner`` per variant, computed by tools/strength.py from the
# committed arena results into levels.json (docs/STRENGTH.md), never copied by hand.
_ELO: dict[str, dict[str, int]] = json.loads(
    resources.files("bela.bots").joinpath("levels.json").read_text(encoding="utf-8"))["elo"]


def _elo(name: str) -> Mapping[str, int]:
    """Each level's Elo over ``beginner`` in ``name`` (none for a variant not measured yet)."""
    return MappingProxyType(dict(_ELO[name]) if name in _ELO else {})


# Where each value below comes from, with the measurements that chose it:
# docs/experiments/2026-12.md, "The variants' profiles" (heuristic knobs, contract weights,
# ``opening``, ``learned_search``, ``learned_order``, ``learned_bids``, ``endgame``).
# The heuristic's knobs were tuned with duplicate deals of each variant against
# DEFAULT_PARAMS; the contract weights are least-squares fits of the caller's margin
# (``python -m bela.training.fit``; bela.bots.contracts.SUIT_FEATURES, VC_FEATURES,
# BC_FEATURES).
_TWO_PLAYER = replace(DEFAULT_PARAMS, lead_master_min_safe=0.4, draw_low_trumps_min=3,
                      keep_capture=15.0)

_MADE = (
    VariantProfile(
        VARIANTS["bela4"], DEFAULT_PARAMS, weights=MappingProxyType({}),
        opening=2, learned_search=(64, 4_000_000), learned_order=None, learned_bids="model",
        endgame=6, model="bela4.npz", elo=_elo("bela4")),
    VariantProfile(
        VARIANTS["bela3"], replace(DEFAULT_PARAMS, keep_capture=15.0), weights=MappingProxyType({
            "suit": (-42, 14, 16, 43, 27, 62, 31, 28, 30, 14, 29, 29, 16, 15, 13, 10, 2, 3,
                     15, 4, -42, 0)}),
        opening=0, learned_search=(64, 4_000_000), learned_order=None, learned_bids="model",
        endgame=9, model="bela3.npz", elo=_elo("bela3")),
    VariantProfile(
        VARIANTS["bela2"], replace(_TWO_PLAYER, accept=(0.0, -15.0)), weights=MappingProxyType({
            "suit": (-115, 11, 13, 41, 28, 64, 29, 27, 26, 6, 4, -1, 16, 14, 16, 11, 5, 3,
                     16, 13, -2, 1)}),
        opening=2, learned_search=(64, 4_000_000), learned_order=None, learned_bids="model",
        endgame=0, model="bela2.npz", elo=_elo("bela2")),
    VariantProfile(
        VARIANTS["belot2"], replace(_TWO_PLAYER, accept=(0.0, -15.0)), weights=MappingProxyType({
            "suit": (-109, 12, 14, 37, 27, 64, 28, 28, 27, 9, 9, -6, 17, 9, 13, 10, 5, 3,
                     17, 13, -2, 0),
            "VC": (-8, 17, 7, -4, -11, -15, -16, 3, 8, 18, -7, -26),
            "BC": (-1, 12, 20, 14, 7, -6, -12, -18, -25, 28, -7, 7)}),
        opening=1, learned_search=(128, 8_000_000), learned_order=-10.0,
        learned_bids="estimate", endgame=8, model="belot2.npz", elo=_elo("belot2")),
)

# The profiles in the engine's order of its variants (tests/bots/test_profiles.py: one for
# every variant, none for another)
PROFILES: dict[str, VariantProfile] = {
    name: p for name in VARIANTS for p in _MADE if p.name == name}


def profile(variant: str) -> VariantProfile:
    """The profile of the variant named ``variant`` (ValueError naming the known ones)."""
    try:
        return PROFILES[variant]
    except KeyError:
        raise ValueError(f"no profile for the variant {variant!r} "
                         f"(known: {', '.join(PROFILES)})") from None

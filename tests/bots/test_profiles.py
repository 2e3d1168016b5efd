"""One profile per variant for everything outside the engine (bela.bots.profiles): every
variant of the engine has one, an unknown variant is refused by name, and the values are
those the bots played with before the profiles held them (arena results must not move)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bela.bots.levels import level_elo
from bela.bots.profiles import DEFAULT_PARAMS, PROFILES, HeuristicParams, profile
from bela.engine.variants import VARIANTS

LEVELS_JSON = Path(__file__).parents[2] / "src" / "bela" / "bots" / "levels.json"


def test_every_variant_of_the_engine_has_a_profile() -> None:
    assert list(PROFILES) == list(VARIANTS)  # one each, in the engine's order, no other
    for name, variant in VARIANTS.items():
        p = profile(name)
        assert p.variant is variant and p.name == name
        assert p.model == f"{name}.npz"
        assert p.learned_bids in ("estimate", "model")
        assert (p.learned_bids == "estimate") <= bool(p.weights)  # read only where fitted
        assert set(p.weights) <= {"suit", *(("VC", "BC") if variant.extra_contracts else ())}


def test_an_unknown_variant_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'bela5'.*known: bela4, bela3, bela2, belot2"):
        profile("bela5")
    with pytest.raises(ValueError, match="bela5"):
        level_elo("bela5")


def test_the_heuristics_knobs_are_the_tuned_ones() -> None:
    assert profile("bela4").heuristic == DEFAULT_PARAMS == HeuristicParams()
    assert profile("bela3").heuristic == HeuristicParams(keep_capture=15.0)
    two = HeuristicParams(lead_master_min_safe=0.4, draw_low_trumps_min=3, keep_capture=15.0,
                          accept=(0.0, -15.0))
    assert profile("bela2").heuristic == two == profile("belot2").heuristic
    assert two.order == (0.0, 0.0)


def test_the_search_and_the_learned_settings() -> None:
    assert {v: p.opening for v, p in PROFILES.items()} == {
        "bela4": 2, "bela3": 0, "bela2": 2, "belot2": 1}
    assert {v: p.learned_search for v, p in PROFILES.items()} == {
        "bela4": (64, 4_000_000), "bela3": (64, 4_000_000), "bela2": (64, 4_000_000),
        "belot2": (128, 8_000_000)}
    assert {v: p.learned_order for v, p in PROFILES.items()} == {
        "bela4": None, "bela3": None, "bela2": None, "belot2": -10.0}
    assert {v: p.learned_bids for v, p in PROFILES.items()} == {
        "bela4": "model", "bela3": "model", "bela2": "model", "belot2": "estimate"}
    assert {v: p.endgame for v, p in PROFILES.items()} == {
        "bela4": 6, "bela3": 9, "bela2": 0, "belot2": 8}


def test_the_contract_weights() -> None:
    assert {v: sorted(p.weights) for v, p in PROFILES.items()} == {
        "bela4": [], "bela3": ["suit"], "bela2": ["suit"], "belot2": ["BC", "VC", "suit"]}
    assert profile("bela3").weights["suit"][:3] == (-42, 14, 16)
    assert profile("bela2").weights["suit"][-4:] == (16, 13, -2, 1)
    assert profile("belot2").weights["VC"] == (-8, 17, 7, -4, -11, -15, -16, 3, 8, 18, -7, -26)
    assert profile("belot2").weights["BC"] == (-1, 12, 20, 14, 7, -6, -12, -18, -25, 28, -7, 7)


def test_the_elo_is_the_generated_one() -> None:
    made = json.loads(LEVELS_JSON.read_text(encoding="utf-8"))["elo"]
    for name, p in PROFILES.items():
        assert dict(p.elo) == made.get(name, {}) == level_elo(name)

"""The contract fitter (``python -m bela.training.fit``), whose output is pasted into each
variant profile's contract ``weights`` (:mod:`bela.bots.profiles`): its least squares
recover known weights, its samples are the features the estimates read with a game's
margin, and what it prints has the shape of the profile's weights entries."""

from __future__ import annotations

import ast
import random
import re
import sys

import pytest

from bela.bots.contracts import BC_FEATURES, SUIT_FEATURES, VC_FEATURES
from bela.bots.profiles import profile
from bela.training import fit

NAMES = {"suit": SUIT_FEATURES, "VC": VC_FEATURES, "BC": BC_FEATURES}


def test_least_squares_recovers_known_weights() -> None:
    """Targets made from known weights (and a little noise) give those weights back."""
    rng = random.Random(3)
    weights = [-40.0, 12.0, 30.0, -7.0, 0.5, 22.0]
    data = []
    for _ in range(400):
        f = [1.0] + [float(rng.randrange(4)) for _ in weights[1:]]
        data.append((f, sum(w * x for w, x in zip(weights, f)) + rng.gauss(0, 0.5)))
    assert fit.least_squares(data, ridge=1e-9) == pytest.approx(weights, abs=0.3)
    assert fit.least_squares(data) == pytest.approx(weights, abs=1.0)  # the ridge's pull


def test_least_squares_keeps_an_unused_feature_at_zero() -> None:
    rng = random.Random(4)
    data = [([1.0, float(rng.randrange(3)), 0.0], 0.0) for _ in range(50)]
    data = [(f, 5 + 2 * f[1]) for f, _ in data]
    w = fit.least_squares(data)
    assert w[2] == 0 and w[:2] == pytest.approx([5, 2], abs=0.05)


@pytest.mark.parametrize("variant", ["bela3", "bela2", "belot2"])
def test_the_samples_are_the_estimates_features_and_a_margin(variant: str) -> None:
    """Every kind the fitter samples has a weights entry of its features' length, and
    the weights fitted back from their own predictions on the samples' features reproduce
    those predictions: the fit and the estimate read the same feature vectors."""
    data = fit.samples(variant, 40, seed=2)
    weights = profile(variant).weights
    assert data and set(data) <= set(weights)
    assert data == fit.samples(variant, 40, seed=2)  # seeded
    for kind, rows in data.items():
        known = weights[kind]
        for f, margin in rows:
            assert len(f) == len(known) == len(NAMES[kind]) and f[0] == 1  # base
            assert abs(margin) <= 2 * 1000  # a round's score margin, not a total
        predicted = [(f, sum(w * x for w, x in zip(known, f))) for f, _ in rows]
        w = fit.least_squares(predicted, ridge=1e-9)
        for f, y in predicted:
            assert sum(a * b for a, b in zip(w, f)) == pytest.approx(y, abs=1.0)


def test_the_printed_entries_have_the_shape_of_weights(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    monkeypatch.setattr(sys, "argv", ["fit", "belot2", "--rounds", "120", "--seed", "5"])
    fit.main()
    out = capsys.readouterr().out
    entries = {}
    for line in out.splitlines():
        if re.match(r'\s+"(suit|VC|BC)": \(', line):
            key, value = ast.literal_eval("{" + line.strip().rstrip(",") + "}").popitem()
            entries[key] = value
    weights = profile("belot2").weights
    assert set(entries) == set(weights), out
    for key, value in entries.items():
        assert len(value) == len(weights[key]) and all(isinstance(x, int) for x in value)
    assert re.search(r"# suit: \d+ rounds, mean margin [-+]\d+\.\d, R2 -?\d\.\d{3}", out), out

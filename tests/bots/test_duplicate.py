"""Duplicate-deal evaluation (bela4): reproducible, symmetric, and heuristic beats random."""

from __future__ import annotations

import math

import pytest

from bela.bots.duplicate import DuplicateResult, duplicate_match, format_result
from bela.bots.heuristic import HeuristicBot


def test_same_seed_same_result() -> None:
    a = duplicate_match("heuristic", "random", deals=6, seed=11)
    b = duplicate_match("heuristic", "random", deals=6, seed=11)
    assert a.diffs == b.diffs and a.mean == b.mean
    assert duplicate_match("heuristic", "random", deals=6, seed=12).diffs != a.diffs


@pytest.mark.parametrize("a, b", [("heuristic", "random"), ("random", "random")])
def test_swapping_the_bots_negates_the_result(a: str, b: str) -> None:
    ab = duplicate_match(a, b, deals=8, seed=5)
    ba = duplicate_match(b, a, deals=8, seed=5)
    assert ba.diffs == tuple(-d for d in ab.diffs)
    assert ba.mean == -ab.mean


def test_a_bot_against_itself_scores_zero() -> None:
    r = duplicate_match("heuristic", "heuristic", deals=5, seed=2)
    assert r.diffs == (0,) * 5 and r.mean == 0 and r.sd == 0


def test_statistics_and_format() -> None:
    seen: list[tuple[int, int]] = []
    r = duplicate_match("heuristic", HeuristicBot, deals=4, seed=3,
                        progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert isinstance(r, DuplicateResult) and r.n == 4 and r.games == 8
    mean = sum(r.diffs) / 4
    sd = math.sqrt(sum((d - mean) ** 2 for d in r.diffs) / 3)
    assert r.mean == pytest.approx(mean) and r.sd == pytest.approx(sd)
    assert r.ci95 == pytest.approx((mean - 1.96 * sd / 2, mean + 1.96 * sd / 2))
    line = format_result(r)
    assert "\n" not in line and "per deal" in line and "95% CI" in line


def test_unknown_bot() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        duplicate_match("nobody", "random", deals=1, seed=0)
    with pytest.raises(ValueError):
        duplicate_match("random", "random", deals=0, seed=0)


def test_heuristic_beats_random() -> None:
    r = duplicate_match("heuristic", "random", deals=50, seed=2024)
    assert r.mean > 40 and r.ci_low > 0

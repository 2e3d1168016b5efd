"""Duplicate-deal evaluation (bela4): reproducible, symmetric, heuristic beats random, and a
failing bot is counted, not fatal."""

from __future__ import annotations

import math

import pytest

from bela.bots.duplicate import DuplicateResult, duplicate_match, failure_warning, format_result
from bela.bots.heuristic import HeuristicBot
from failing_bots import Bluffer, Broken


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


# -- a failing bot: the driver's fallback moves for it, and the result counts it -------------

def test_a_failing_bot_is_counted_not_fatal() -> None:
    r = duplicate_match(Broken, "random", deals=3, seed=1)
    assert r.failures[0] == r.moves[0] > 0 and r.failures[1] == 0 and r.moves[1] > 0
    assert r.errors == ("RuntimeError: out of its depth", None)
    # every move of A was the fallback's: the very games of the heuristic bot
    assert r.diffs == duplicate_match("heuristic", "random", deals=3, seed=1).diffs
    warning = failure_warning(r)
    assert warning is not None and warning.startswith(
        f"Warning: bot A (broken) failed on {r.failures[0]} of its {r.moves[0]} moves (100.0%)")
    assert f"bot failures A {r.failures[0]} / B 0" in format_result(r)


def test_no_failures_no_warning() -> None:
    r = duplicate_match("heuristic", "random", deals=2, seed=1)
    assert r.failures == (0, 0) and r.errors == (None, None) and min(r.moves) > 0
    assert failure_warning(r) is None and "failures" not in format_result(r)


def test_an_illegal_choice_is_counted_and_the_counts_are_symmetric() -> None:
    ab = duplicate_match(Bluffer, "random", deals=4, seed=7, variant="bela2")
    ba = duplicate_match("random", Bluffer, deals=4, seed=7, variant="bela2")
    assert 0 < ab.failures[0] < ab.moves[0] and ab.failures[1] == 0
    assert ab.errors[0] is not None and ab.errors[0].startswith("IllegalAction")
    assert ba.failures == ab.failures[::-1] and ba.moves == ab.moves[::-1]
    assert ba.diffs == tuple(-d for d in ab.diffs)


def test_failures_add_up_the_same_over_processes() -> None:
    serial = duplicate_match(Bluffer, "heuristic", deals=6, seed=3, variant="bela3")
    parallel = duplicate_match(Bluffer, "heuristic", deals=6, seed=3, variant="bela3",
                               workers=2)
    assert parallel.workers == 2 and serial.failures[0] > 0
    assert (parallel.diffs, parallel.failures, parallel.moves, parallel.errors) == (
        serial.diffs, serial.failures, serial.moves, serial.errors)

"""Duplicate-deal evaluation in every variant: seatings, symmetry, and heuristic > random."""

from __future__ import annotations

import pytest

from bela.bots.duplicate import duplicate_match, format_result, game_score, seatings


def test_seatings() -> None:
    assert seatings("bela4") == [(0, 2), (1, 3)]
    assert seatings("bela2") == seatings("belot2") == [(0,), (1,)]
    assert seatings("bela3") == [(0,), (1,), (2,)]


def test_game_scores() -> None:
    assert game_score((100, 62), (0, 2), "bela4") == 38
    assert game_score((100, 62), (1, 3), "bela4") == -38
    assert game_score((100, 62), (1,), "bela2") == -38
    assert game_score((90, 40, 32), (0,), "bela3") == 90 - 36
    assert game_score((90, 40, 32), (2,), "bela3") == 32 - 65


@pytest.mark.parametrize("variant", ["bela3", "bela2", "belot2"])
def test_same_seed_same_result(variant: str) -> None:
    a = duplicate_match("heuristic", "random", deals=4, seed=11, variant=variant)
    b = duplicate_match("heuristic", "random", deals=4, seed=11, variant=variant)
    assert a.diffs == b.diffs and a.variant == variant
    assert a.games == 4 * len(seatings(variant))
    other = duplicate_match("heuristic", "random", deals=4, seed=12, variant=variant)
    assert other.diffs != a.diffs


@pytest.mark.parametrize("variant", ["bela2", "belot2"])
@pytest.mark.parametrize("a, b", [("heuristic", "random"), ("random", "random")])
def test_two_player_swap_negates(variant: str, a: str, b: str) -> None:
    ab = duplicate_match(a, b, deals=6, seed=5, variant=variant)
    ba = duplicate_match(b, a, deals=6, seed=5, variant=variant)
    assert ba.diffs == tuple(-d for d in ab.diffs)
    assert ba.mean == -ab.mean


@pytest.mark.parametrize("variant", ["bela3", "bela2", "belot2"])
def test_a_deterministic_bot_against_itself_scores_zero(variant: str) -> None:
    r = duplicate_match("heuristic", "heuristic", deals=4, seed=2, variant=variant)
    assert all(d == pytest.approx(0) for d in r.diffs)


def test_bela3_plays_each_seat() -> None:
    seen: list[tuple[int, int]] = []
    r = duplicate_match("heuristic", "random", deals=3, seed=1, variant="bela3",
                        progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)] and r.per_deal == 3 and r.games == 9
    assert "(bela3)" in format_result(r) and "9 games" in format_result(r)


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        duplicate_match("random", "random", deals=1, seed=0, variant="bela5")


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_heuristic_beats_random(variant: str) -> None:
    r = duplicate_match("heuristic", "random", deals=30, seed=2024, variant=variant)
    assert r.mean > 40 and r.ci_low > 0, format_result(r)

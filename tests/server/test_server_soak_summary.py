"""The soak tool's summary (tools/soak.py): windows, slope and the flat criterion on
hand-made samples with known answers.  No server is started here: the soak itself is a
half-hour run (docs/CAPACITY.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import soak  # tools/soak.py (pytest puts tools/ on the path)

TOOL = Path(__file__).parents[2] / "tools" / "soak.py"


def run(rss: Any, fds: Any, end: int = 1800, every: int = 15) -> list[dict[str, Any]]:
    """Samples every ``every`` s from 0 to ``end``, RSS and fds as functions of the time."""
    return [{"t": float(t), "rss_mb": rss(t), "fds": fds(t)} for t in range(0, end + 1, every)]


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    return soak.summarize(samples, warmup=120, window=300, rss_tolerance=0.10, fd_margin=16)


def test_the_slope_is_least_squares_per_ten_minutes() -> None:
    # mean t 600, mean y 2; covariance 600, variance 720,000: 1/1200 MB a second
    assert soak.slope_per_10min([(0, 1.0), (600, 3.0), (1200, 2.0)]) == pytest.approx(0.5)
    line = [(float(t), 100 + 0.01 * t) for t in range(0, 1801, 15)]
    assert soak.slope_per_10min(line) == pytest.approx(6.0)
    assert soak.slope_per_10min([(7.0, 1.0), (7.0, 2.0)]) is None  # no spread in time
    assert soak.slope_per_10min([]) is None


def test_the_windows_leave_out_the_warm_up() -> None:
    first, last = soak.windows(run(lambda t: 1.0, lambda t: 1), warmup=120, window=300)
    assert [s["t"] for s in first] == [float(t) for t in range(120, 420, 15)]
    assert [s["t"] for s in last] == [float(t) for t in range(1500, 1801, 15)]
    assert soak.windows([], 120, 300) == ([], [])


def test_a_steady_run_after_a_warm_up_is_flat() -> None:
    # memory climbs while the tables fill, then holds; the warm-up is left out
    s = summary(run(lambda t: 150.0 if t < 120 else 200.0 + (t // 15) % 2,
                    lambda t: 60 if t < 120 else 460 + (t // 15) % 3))
    assert s["rss_mb_first"] == {"mean": 200.5, "min": 200.0, "max": 201.0}
    assert s["fds_first"]["max"] == 462 and s["fds_last"]["max"] == 462
    assert s["rss_slope_mb_per_10min"] == pytest.approx(0.0, abs=0.01)
    assert s["first_window"] == [120.0, 405.0] and s["last_window"] == [1500.0, 1800.0]
    assert s["flat"] is True


def test_growing_memory_is_not_flat() -> None:
    s = summary(run(lambda t: 200.0 + 0.05 * t, lambda t: 460))
    assert s["rss_mb_first"]["mean"] == pytest.approx(213.125)  # 200 + 0.05 * 262.5
    assert s["rss_mb_last"]["mean"] == pytest.approx(282.5)  # 200 + 0.05 * 1650
    assert s["rss_slope_mb_per_10min"] == pytest.approx(30.0)
    assert s["flat"] is False


def test_leaking_file_descriptors_are_not_flat() -> None:
    s = summary(run(lambda t: 200.0, lambda t: 460 + t // 60))  # one a minute
    assert s["fds_first"]["max"] == 466 and s["fds_last"]["max"] == 490
    assert s["flat"] is False


def test_the_criterion_at_its_bounds() -> None:
    assert soak.is_flat(200.0, 220.0, 100, 116, 0.10, 16)
    assert soak.is_flat(200.0, 180.0, 100, 90, 0.10, 16)  # a drop within 10 % too
    assert not soak.is_flat(200.0, 220.5, 100, 116, 0.10, 16)
    assert not soak.is_flat(200.0, 179.5, 100, 100, 0.10, 16)
    assert not soak.is_flat(200.0, 200.0, 100, 117, 0.10, 16)


def test_a_run_too_short_for_its_windows_is_not_judged() -> None:
    s = summary(run(lambda t: 200.0, lambda t: 460, end=100))
    assert s["rss_mb_first"] is None and s["flat"] is None


@pytest.mark.parametrize("argv", [["--tables", "0"], ["--duration", "-5"],
                                  ["--duration", "600"], ["--every", "x"],
                                  ["--think", "-1"], ["--every", "400"]])
def test_bad_settings_are_refused_before_anything_starts(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        soak.main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err

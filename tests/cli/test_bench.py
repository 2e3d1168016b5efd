"""``bela bench``: every run prints its numbers (timings are reported, never asserted)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bela.bots import BOTS
from bela.cli.main import app
from failing_bots import Broken

runner = CliRunner()


def test_bench_all_runs_json() -> None:
    result = runner.invoke(app, ["bench", "--run", "all", "--seconds", "0.2", "--deals", "3",
                                 "--batch", "500", "--bot", "pimc:samples=2,bid_samples=1",
                                 "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["engine"]["rounds"] > 0
    assert out["solver"]["8_cards_all_values"]["n"] == 3
    assert out["sampler"]["views"] == 100
    assert out["selfplay"]["deals"] == 500 and out["selfplay"]["actions"] == 500 * 32
    assert out["latency"]["decisions"] > 0 and out["latency"]["failures"] == 0
    (decisions,) = out["decisions"]
    assert decisions["positions"] == 3 and decisions["bot"] == "pimc:samples=2,bid_samples=1"


def test_bench_plain_lines_per_variant() -> None:
    for variant in ("bela3", "bela2", "belot2"):
        result = runner.invoke(app, ["bench", "--variant", variant, "--seconds", "0.1"])
        assert result.exit_code == 0 and result.stdout.startswith(f"{variant}: ")
    result = runner.invoke(app, ["bench", "--run", "latency", "--bot", "heuristic",
                                 "--rounds", "1"])
    assert "latency, bela4, heuristic: median" in result.stdout


def test_bench_selfplay_line_and_json() -> None:
    """The self-play simulator's card actions per second (bela3: 30 cards a deal)."""
    args = ["bench", "--run", "selfplay", "--variant", "bela3", "--batch", "200"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("selfplay, bela3: ")
    assert "card actions/s on one core (200 deals, 6,000 cards in" in result.stdout
    out = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert out["actions"] == 6000 and out["policy"] == "random" and out["actions_per_s"] > 0


def test_bench_decisions_compares_bots_on_the_same_positions() -> None:
    """Points lost against the true deal's best card: never negative; the same positions
    for every bot; a bot that plays the first legal card loses more than the heuristic
    over 150 positions."""
    from bela.cli.bench import bench_decisions, decision_positions

    rows = bench_decisions("bela2", ["heuristic", "random"], 150, 3)
    assert [r["positions"] for r in rows] == [150, 150]
    assert all(r["points_lost"] >= 0 and 0 <= r["best_share"] <= 1 for r in rows)
    assert rows[0]["points_lost"] < rows[1]["points_lost"]
    cases = decision_positions("bela2", 5, 3)
    assert all(len(values) >= 2 and view.seat == view.turn for view, values in cases)
    result = runner.invoke(app, ["bench", "--run", "decisions", "--variant", "belot2",
                                 "--bot", "heuristic", "--deals", "5"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("decisions, belot2, heuristic: ")


def test_bench_rejects_unknown_runs_and_variants() -> None:
    assert runner.invoke(app, ["bench", "--run", "speed"]).exit_code == 2
    assert runner.invoke(app, ["bench", "--variant", "bela5"]).exit_code == 2


def test_bench_latency_counts_a_failing_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rounds run through the driver: the fallback moves for the failing bot."""
    monkeypatch.setitem(BOTS, "broken", Broken)
    args = ["bench", "--run", "latency", "--bot", "broken", "--rounds", "2"]
    out = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert out["failures"] == out["decisions"] > 0
    assert f"the bot failed {out['failures']} times" in runner.invoke(app, args).stdout

"""``bela bench``: every run prints its numbers (timings are reported, never asserted)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bela.cli.main import app

runner = CliRunner()


def test_bench_all_runs_json() -> None:
    result = runner.invoke(app, ["bench", "--run", "all", "--seconds", "0.2", "--deals", "3",
                                 "--bot", "pimc:samples=2,bid_samples=1", "--rounds", "1",
                                 "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["engine"]["rounds"] > 0
    assert out["solver"]["8_cards_all_values"]["n"] == 3
    assert out["sampler"]["views"] == 100
    assert out["latency"]["decisions"] > 0


def test_bench_plain_lines_per_variant() -> None:
    for variant in ("bela3", "bela2", "belot2"):
        result = runner.invoke(app, ["bench", "--variant", variant, "--seconds", "0.1"])
        assert result.exit_code == 0 and result.stdout.startswith(f"{variant}: ")
    result = runner.invoke(app, ["bench", "--run", "latency", "--bot", "heuristic",
                                 "--rounds", "1"])
    assert "latency, bela4, heuristic: median" in result.stdout


def test_bench_rejects_unknown_runs_and_variants() -> None:
    assert runner.invoke(app, ["bench", "--run", "speed"]).exit_code == 2
    assert runner.invoke(app, ["bench", "--variant", "bela5"]).exit_code == 2

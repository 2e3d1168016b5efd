"""``bela arena``: duplicate deals between two bots from the command line."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from bela.cli import arena as arena_module
from bela.cli.arena import arena

app = typer.Typer()
app.command()(arena)
runner = CliRunner()


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_json(variant: str) -> None:
    result = runner.invoke(app, ["--variant", variant, "--deals", "5", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["deals"] == 5 and out["variant"] == variant
    assert out["bots"] == ["heuristic", "random"]
    lo, hi = out["ci95"]
    assert lo <= out["mean"] <= hi and out["sd"] >= 0 and out["seconds"] >= 0
    again = json.loads(runner.invoke(
        app, ["--variant", variant, "--deals", "5", "--seed", "3", "--json"]).stdout)
    assert again["mean"] == out["mean"]


def test_defaults_and_text() -> None:
    result = runner.invoke(app, ["--deals", "3", "--bots", "random,heuristic"])
    assert result.exit_code == 0, result.output
    line = result.stdout.strip()
    assert line.startswith("random vs heuristic (bela4):") and "95% CI" in line
    assert "3 deals = 6 games" in line


@pytest.mark.parametrize("args, word", [
    (["--bots", "heuristic"], "A,B"),
    (["--bots", "heuristic,nobody"], "unknown bot"),
    (["--variant", "bela5"], "unknown variant"),
    (["--deals", "0"], "deals"),
])
def test_bad_options(args: list[str], word: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert word in result.output


def test_progress_bar() -> None:
    r = arena_module._run("heuristic", "random", "bela2", 4, 0, bar=True)
    assert r.n == 4 and r.variant == "bela2"

"""``bela bench --run vecenv``: every variant's AEC env figure, the vector env's beside it
(timings are reported, never asserted)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")
pytest.importorskip("pettingzoo")

from bela.cli.main import app  # noqa: E402
from bela.engine.variants import VARIANTS  # noqa: E402

runner = CliRunner()


def test_bench_vecenv_reports_every_variant() -> None:
    args = ["bench", "--run", "vecenv", "--seconds", "0.1", "--envs", "64"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["variant"] for r in rows] == list(VARIANTS)
    for r in rows:
        assert r["aec"]["steps"] > 0
        assert r["vector"]["envs"] == 64 and r["vector"]["steps"] % 64 == 0
    lines = runner.invoke(app, args).stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"vecenv, {v}" for v in VARIANTS]
    assert all("AEC env " in line and "; vector env " in line for line in lines)

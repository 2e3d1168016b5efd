"""The package stays typed (``mypy --strict``) and the code lint-clean (ruff)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_package_passes_mypy_strict() -> None:
    """The whole package, as ``mypy`` with no arguments checks it (``[tool.mypy]``)."""
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--strict",
                                str(ROOT / "src" / "bela")])
    assert status == 0, out + err


def test_package_is_marked_typed() -> None:
    """``py.typed`` (PEP 561) ships with the package, so users' type checkers read it."""
    import tomllib

    assert (ROOT / "src" / "bela" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["bela"]


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr

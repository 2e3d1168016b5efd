"""The package stays typed (``mypy --strict``) and the code lint-clean (ruff)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_package_passes_mypy_strict() -> None:
    """The whole package, as ``mypy`` with no arguments checks it (``[tool.mypy]``), and the
    tools beside it (tools/)."""
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--strict",
                                str(ROOT / "src" / "bela"), str(ROOT / "tools")])
    assert status == 0, out + err


def test_package_is_marked_typed() -> None:
    """``py.typed`` (PEP 561) ships with the package, so users' type checkers read it."""
    import tomllib

    assert (ROOT / "src" / "bela" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["bela"]


def test_ruff_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "tools",
                           "conftest.py"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


ROUND_WRITE = re.compile(r"\b(rnd|round)\.[a-z_]+(\[[^]]*\])? *([-+|&^]?=)(?!=)")


def test_only_the_round_changes_a_round() -> None:
    """Variants, bots, the solver and front ends ask the round to act (``apply``, ``undo``,
    ``set_options``); none writes its fields (a hook says what should happen, a
    ``BidEffect``, and the round applies it)."""
    found = []
    for path in sorted((ROOT / "src" / "bela").rglob("*.py")):
        if path.name == "state.py" and path.parent.name == "engine":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ROUND_WRITE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
    assert ROUND_WRITE.search("rnd.phase = 'discard'") and ROUND_WRITE.search("rnd.hidden[s] = 0")
    assert not ROUND_WRITE.search("if rnd.phase == 'play':")

"""The strength tables are generated from the committed arena results, never edited by hand:
docs/STRENGTH.md, the README's bot table and the levels' Elo the lobby shows
(src/bela/bots/levels.json) are what tools/strength.py makes of benchmarks/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import strength  # tools/strength.py (pytest puts tools/ on the path)

ROOT = Path(__file__).parents[1]


def test_generated_files_are_up_to_date() -> None:
    for path, text in strength.outputs().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is not what tools/strength.py makes of benchmarks/: "
            "run python tools/strength.py")


def test_levels_shown_are_the_generated_ones() -> None:
    from bela.bots.levels import level_elo
    made = json.loads((ROOT / "src" / "bela" / "bots" / "levels.json").read_text())["elo"]
    for variant, elo in made.items():
        assert level_elo(variant) == elo


def test_elo_of_a_score_rate() -> None:
    # 1,115 / 1,099 / 786 of 3,000 deals: the score rate 0.5548 is +38 Elo
    assert round(strength.elo_of(1115, 1099, 786)) == 38
    assert strength.elo_of(10, 0, 10) == 0
    assert 300 < strength.elo_of(5, 0, 0) < 400  # clamped off 1, still finite


def test_a_level_step_pools_its_rows(tmp_path: Path) -> None:
    results = {f"{v}-a": {"variant": v, "wins": 60, "draws": 0, "losses": 40}
               for v in strength.VARIANTS}
    ladder = {"levels": ["beginner", "club"],
              "steps": {"club": {"rows": {v: [f"{v}-a", f"-{v}-a"] for v in strength.VARIANTS}}}}
    # a row and its mirror pool to an even score: 0 Elo
    assert strength.level_elo(results, ladder)["bela4"] == {"beginner": 0, "club": 0}
    ladder["steps"]["club"]["rows"] = {v: [f"{v}-a"] for v in strength.VARIANTS}
    assert strength.level_elo(results, ladder)["bela2"]["club"] == round(strength.elo_of(60, 0, 40))
    with pytest.raises(SystemExit):
        bad = {v: ["bela4-a"] for v in strength.VARIANTS}
        strength.level_elo(results, {**ladder, "steps": {"club": {"rows": bad}}})

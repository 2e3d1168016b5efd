"""The shipped sounds are exactly what tools/make_sounds.py synthesizes (docs/SOUNDS.md:
their licence is the project's because the script makes them), small, and the ones
sound.js plays."""

from __future__ import annotations

import re
from pathlib import Path

import make_sounds as tool  # tools/make_sounds.py (pytest puts tools/ on the path)

ROOT = Path(__file__).parents[2]
SOUNDS = ROOT / "src" / "bela" / "web" / "sounds"


def test_the_committed_sounds_are_the_scripts_output(tmp_path: Path) -> None:
    names = sorted(tool.SOUNDS)
    assert sorted(p.stem for p in SOUNDS.glob("*.wav")) == names
    for name in names:
        fresh = tool.write(name, tmp_path)
        shipped = SOUNDS / f"{name}.wav"
        assert shipped.read_bytes() == fresh.read_bytes(), name
        assert shipped.stat().st_size < 32_000, name


def test_sound_js_plays_the_shipped_sounds() -> None:
    js = (ROOT / "src" / "bela" / "web" / "sound.js").read_text(encoding="utf-8")
    listed = re.search(r"export const SOUNDS = \[([^\]]*)\]", js)
    assert listed is not None
    assert sorted(re.findall(r'"(\w+)"', listed.group(1))) == sorted(
        p.stem for p in SOUNDS.glob("*.wav"))

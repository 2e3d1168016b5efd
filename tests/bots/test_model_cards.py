"""Every shipped model file has a card in docs/TRAINING.md, and the card's size and sha256
are the file's (a model replaced without its card fails here)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
MODELS = ROOT / "src" / "bela" / "bots" / "learned" / "models"
CARDS = (ROOT / "docs" / "TRAINING.md").read_text(encoding="utf-8")


def test_every_model_has_a_true_card() -> None:
    rows = {m.group(1): (int(m.group(2)), m.group(3)) for m in re.finditer(
        r"^\| \w+ \| `([\w.]+\.npz)` \| (\d+) \| `([0-9a-f]{64})` \|", CARDS, re.M)}
    files = sorted(MODELS.glob("*.npz"))
    assert files, "no model files shipped"
    for path in files:
        assert path.name in rows, f"{path.name} has no model card in docs/TRAINING.md"
        size, sha = rows[path.name]
        data = path.read_bytes()
        assert len(data) == size, f"{path.name}: the card says {size} bytes, not {len(data)}"
        assert hashlib.sha256(data).hexdigest() == sha, f"{path.name}: sha256 differs"
        assert f"### {path.stem}" in CARDS, f"{path.name} has no card section"
    assert set(rows) == {p.name for p in files}, "a card names a model that is not shipped"

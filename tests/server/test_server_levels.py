"""The levels for people (bela.bots.levels) in the lobby: listed weakest first with their
measured Elo per variant, and a table made with a level plays to its end with the level's
own bot (no fallback)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from server_helpers import guest, server

from bela.bots import levels, profiles
from bela.bots.learned import Mlp, save_models
from bela.bots.learned import bot as learned_bot
from bela.bots.learned.features import FEATURES_VERSION, bid_feature_size, feature_size

ORDER = ["beginner", "club", "expert", "master"]


def measured_elo(monkeypatch: pytest.MonkeyPatch, elo: dict[str, dict[str, int]]) -> None:
    """The variants' profiles with ``elo`` as their levels' measured Elo (none elsewhere)."""
    for name, p in profiles.PROFILES.items():
        monkeypatch.setitem(profiles.PROFILES, name, replace(p, elo=elo.get(name, {})))


def test_the_levels_are_listed_weakest_first_with_their_elo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    measured_elo(monkeypatch, {"bela4": {"beginner": 0, "club": 180, "expert": 310,
                                         "master": 420},
                               "bela2": {"club": 95}})
    with server(tmp_path) as client:
        data = client.get("/api/variants").json()
    listed = data["levels"]
    assert [lv["name"] for lv in listed] == ORDER
    assert set(ORDER) <= set(data["bots"])
    by_name = {lv["name"]: lv for lv in listed}
    assert {name: lv["spec"] for name, lv in by_name.items()} == levels.LEVELS
    assert by_name["beginner"]["elo"] == {"bela4": 0}
    assert by_name["club"]["elo"] == {"bela4": 180, "bela2": 95}
    assert by_name["expert"]["elo"] == {"bela4": 310}
    assert by_name["master"]["elo"] == {"bela4": 420}


def test_without_measurements_the_levels_have_no_elo(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    measured_elo(monkeypatch, {})
    with server(tmp_path) as client:
        listed = client.get("/api/variants").json()["levels"]
    assert [lv["name"] for lv in listed] == ORDER
    assert all(lv["elo"] == {} for lv in listed)


def _tiny_model(path: Path, variant: str) -> Path:
    rng = np.random.default_rng(0)
    meta = {"variant": variant, "scale": 100.0, "features": FEATURES_VERSION}
    nets = {"play": Mlp.initial([feature_size(variant), 16, 32], rng, meta)}
    if variant != "bela3":
        nets["bid"] = Mlp.initial([bid_feature_size(variant), 8, 1], rng, meta)
    save_models(path, nets)
    return path


def test_a_table_of_the_club_level_plays_to_its_end(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The level's learned model is the one shipped; until it is, a tiny one stands in (the
    point is that the level's bot plays, not how well)."""
    variant = "bela4"
    if not learned_bot.shipped_model_path(variant).exists():
        model = _tiny_model(tmp_path / f"{variant}.npz", variant)
        monkeypatch.setattr(learned_bot, "shipped_model_path", lambda v: model)
    with server(tmp_path) as client:
        _, h = guest(client, "Ana")
        r = client.post("/api/tables", json={"variant": variant, "bot": "club", "seat": None,
                                             "seed": 5, "options": {"target": 1}}, headers=h)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        assert r.json()["bot"] == "club"
        assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # keeps it in memory
            assert ws.receive_json()["type"] == "welcome"
            assert client.post(f"/api/tables/{tid}/start", headers=h).status_code == 200
            # stuck means no new event for a while, however slow a loaded machine plays
            seen, since = -1, time.monotonic()
            t: dict[str, Any] = {}
            while True:
                t = client.get(f"/api/tables/{tid}").json()
                if t["status"] == "finished":
                    break
                if t["seq"] != seen:
                    seen, since = t["seq"], time.monotonic()
                assert time.monotonic() - since < 30, f"the table is stuck at event {t['seq']}"
                time.sleep(0.05)
        assert t["bot_fallback"] is False, "the level's bot failed: the heuristic played"
        assert t["seq"] > 32  # a deal and at least its 32 cards

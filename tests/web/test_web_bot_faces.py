"""Bots with faces per seat (issue 44): at a tournament's table a beginners' pair of bots
meets a club pair; each bot's seat shows its own level's face and name, not the table's
one bot setting."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import assert_no_errors, close_pages, open_page, texts  # noqa: E402

HR = texts("hr")


def _api(url: str, method: str = "GET", body: Any = None, token: str | None = None) -> Any:
    req = urllib.request.Request(url, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def _tables(data: Any) -> list[str]:
    """Every table id a tournament's answer names."""
    if isinstance(data, dict):
        own = [data["table"]] if isinstance(data.get("table"), str) else []
        return own + [t for v in data.values() for t in _tables(v)]
    if isinstance(data, list):
        return [t for v in data for t in _tables(v)]
    return []


def test_each_bot_seat_shows_its_own_levels_face_and_name(browser: Any, bela_url: str) -> None:
    token = _api(f"{bela_url}/api/guests", "POST", {"name": "Sutkinja"})["token"]
    tour = str(_api(f"{bela_url}/api/tournaments", "POST",
                    {"name": "Mješoviti", "variant": "bela4", "format": "swiss", "rounds": 1,
                     "rated": False, "options": {"target": 301}}, token)["id"])
    for level in ("beginner", "club"):
        _api(f"{bela_url}/api/tournaments/{tour}/entries", "POST", {"bot": level}, token)
    _api(f"{bela_url}/api/tournaments/{tour}/start", "POST", token=token)
    deadline = time.monotonic() + 30
    while not (tables := _tables(_api(f"{bela_url}/api/tournaments/{tour}"))):
        assert time.monotonic() < deadline, "the round made no table"
        time.sleep(0.2)
    seats = _api(f"{bela_url}/api/tables/{tables[0]}")["seats"]
    levels = sorted({s["bot"] for s in seats})
    assert levels == ["beginner", "club"], seats
    page = open_page(browser, f"{bela_url}/?table={tables[0]}")
    for s in seats:
        plate = page.locator(f".seat-row[data-seat='{s['seat']}'], .seat[data-seat='{s['seat']}']")
        plate.locator(f"svg.bot-face[data-bot='{s['bot']}']").first.wait_for(timeout=20_000)
    # each bot seat's tag names its level in the page's words (Početnik, Klupski...)
    shown = page.locator(".bot-level").all_inner_texts()
    for s in seats:
        assert any(HR[f"bot_{s['bot']}"] in text for text in shown), (s, shown)
    assert_no_errors(page)
    close_pages(page)

"""The levels for people in the create form, in Chromium: listed first, weakest first, each
with its Elo in the variant chosen (none where the arena has not measured it), updated when
the variant changes; a table of a level names it in words.

The server's Elo table (bela.bots.levels.ELO) is set in the served ``GET /api/variants`` by
rewriting the answer in the browser, so the test does not depend on what is measured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    PHONE,
    assert_no_errors,
    close_pages,
    enter_name,
    no_overflow,
    open_page,
    texts,
)

HR, EN = texts("hr"), texts("en")
LEVELS = ["beginner", "club", "expert", "master"]
ELO = {"bela4": {"beginner": 0, "club": 180, "expert": 310, "master": 420},
       "bela2": {"club": 95}}


def _serve_elo(page: Any, elo: dict[str, dict[str, int]]) -> None:
    """The page's ``GET /api/variants`` answers with ``elo`` as the measured table; reloaded."""

    def handle(route: Any) -> None:
        response = route.fetch()
        data = response.json()
        for level in data["levels"]:
            level["elo"] = {v: e[level["name"]] for v, e in elo.items() if level["name"] in e}
        route.fulfill(response=response, body=json.dumps(data))

    page.route("**/api/variants", handle)
    page.reload()
    page.wait_for_selector("#bot-select option", state="attached")


def _options(page: Any) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        "#bot-select option", "os => os.map(o => [o.value, o.textContent])")


def test_levels_come_first_with_their_elo_per_variant(browser: Any, bela_url: str,
                                                     artifacts: Path) -> None:
    page = open_page(browser, bela_url, lang="hr")
    _serve_elo(page, ELO)
    options = _options(page)
    assert [v for v, _ in options[:4]] == LEVELS
    assert [v for v, _ in options[4:]][:2] == ["random", "heuristic"]
    assert "learned" in [v for v, _ in options] and HR["bot_learned"] in dict(options).values()
    assert page.locator("#bot-select").input_value() == "club"  # the default for people
    assert [label for _, label in options[:4]] == [
        "Početnik · polazna razina", "Klupski igrač · +180 Elo", "Stručnjak · +310 Elo",
        "Majstor · +420 Elo"]
    page.locator("#create-panel").screenshot(path=str(artifacts / "levels-desktop.png"))
    help_text = page.locator("#bot-help").inner_text()
    assert help_text == f"{HR['levels_help']} {HR['levels_help_elo']}"

    # the player's choice stays; the numbers follow the variant
    page.select_option("#bot-select", "expert")
    page.select_option("#variant-select", "bela2")
    page.wait_for_function("() => document.querySelector('#bot-select option[value=club]')"
                           ".textContent.includes('95')")
    assert [label for _, label in _options(page)[:4]] == [
        "Početnik · polazna razina", "Klupski igrač · +95 Elo", "Stručnjak", "Majstor"]
    assert page.locator("#bot-select").input_value() == "expert"
    page.select_option("#variant-select", "bela3")  # not measured: names only, no numbers
    page.wait_for_function("() => !document.querySelector('#bot-select').textContent"
                           ".includes('Elo')")
    assert [label for _, label in _options(page)[:4]] == [
        HR["bot_beginner"], HR["bot_club"], HR["bot_expert"], HR["bot_master"]]
    assert page.locator("#bot-help").inner_text() == HR["levels_help"]

    # a table of a level: its summary names the level in words
    enter_name(page, "Ana")
    page.select_option("#bot-select", "club")
    page.click("#create-table")
    page.wait_for_selector(".waiting[data-status='open']")
    assert page.evaluate("() => window.__bela.summary.bot") == "club"
    assert f"{HR['bot']}: {HR['bot_club']}" in page.locator(".waiting").inner_text()
    # its bots' seats say the level (issue 38: seats show the level), not just "bot"
    page.click("[data-cmd=bots]")
    page.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind)")
    bots = page.evaluate("() => window.__bela.summary.seats.filter(s => s.kind === 'bot')"
                         ".length")
    assert bots >= 2 and page.locator(".waiting").inner_text().count(
        f"{HR['bot_label']} · {HR['bot_club']}") == bots
    page.once("dialog", lambda d: d.accept())
    page.click("[data-cmd=close]")
    page.wait_for_selector(".waiting[data-status='closed']")
    assert_no_errors(page)
    close_pages(page)


def test_without_measurements_no_number_shows_and_the_form_fits_a_phone(
        browser: Any, bela_url: str, artifacts: Path) -> None:
    page = open_page(browser, bela_url, lang="en", viewport=PHONE)
    _serve_elo(page, {})
    labels = [label for _, label in _options(page)]
    assert labels[:4] == ["Beginner", "Club player", "Expert", "Master"]
    assert not any("Elo" in label or "baseline" in label for label in labels)
    assert page.locator("#bot-help").inner_text() == EN["levels_help"]
    no_overflow(page)
    for sel in ("#bot-select", "#bot-help"):
        box = page.locator(sel).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (sel, box)
    page.locator("#create-panel").screenshot(path=str(artifacts / "levels-phone.png"))
    assert_no_errors(page)
    close_pages(page)

"""Talk and sound in Chromium against a real server: two browsers write between deals and
see each other's lines as text (hostile markup stays text), a phrase shows on the sayer's
seat, a line is reported; the sound is on by default, its mute is remembered, and nothing
is played while muted (the page's Audio is stubbed and its calls counted)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    assert_no_errors,
    claim_name,
    click_first_legal,
    close_pages,
    enter_name,
    open_page,
    texts,
    wait_until,
)

HR = texts("hr")
PASSWORD = "konj-i-kraljica-7"
HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> & "bok"'
# every Audio the page makes is this stub: its plays are counted in window.__plays
AUDIO_STUB = """
window.__plays = [];
window.Audio = class {
  constructor(src) { this.src = src; this.volume = 1; this.currentTime = 0; }
  play() { window.__plays.push(this.src); return Promise.resolve(); }
  pause() {}
};
"""


def _account(browser: Any, url: str, name: str) -> Any:
    page = open_page(browser, url)
    enter_name(page, name)
    claim_name(page, PASSWORD)
    return page


def test_two_browsers_talk_between_deals_and_markup_stays_text(browser: Any,
                                                               bela_url: str) -> None:
    ana = _account(browser, bela_url, "Anica")
    ana.wait_for_selector("#variant-select")
    ana.select_option("#variant-select", "bela4")
    ana.click("#create-table")
    ana.wait_for_selector(".waiting")
    tid = ana.evaluate("() => window.__bela.tableId")
    bruno = _account(browser, bela_url, "Brunić")
    bruno.goto(f"{bela_url}/?table={tid}")
    bruno.wait_for_selector(".waiting")
    bruno.click("[data-cmd='sit:1']")
    wait_until(ana, lambda: ana.evaluate(
        "() => window.__bela.summary.seats[1].kind === 'human'"), 10)
    # a line with hostile markup: the other browser shows it as text, nothing runs
    ana.fill("#talk-text", HOSTILE)
    ana.click(".talk-form button[type=submit]")
    line = bruno.locator(".talk-line .talk-text")
    line.wait_for()
    assert line.text_content() == HOSTILE
    assert bruno.locator(".talk-lines img, .talk-lines script").count() == 0
    assert bruno.evaluate("() => window.__xss") is None
    assert bruno.locator(".talk-line .talk-name").text_content() == "Anica"
    # a phrase: on the sayer's seat in both browsers, in the page's words
    bruno.click("[data-cmd='say:bravo']")
    for page in (ana, bruno):
        bubble = page.locator(".seat-row[data-seat='1'] .talk-bubble")
        bubble.wait_for()
        assert bubble.text_content() == HR["talk_phrase_bravo"]
    # Bruno reports Ana's line: the server's answer marks it reported
    bruno.click(".talk-report")
    wait_until(bruno, lambda: bruno.locator(".talk-report").text_content()
               == HR["talk_reported"], 10)
    # Ana mutes all talk: her page shows no lines, no phrases, remembered after a reload
    ana.click("[data-cmd=talk-mute-all]")
    wait_until(ana, lambda: ana.locator(".talk-line").count() == 0, 5)
    assert ana.locator("[data-cmd^='say:']").count() == 0
    ana.reload()
    ana.wait_for_selector(".waiting")
    assert ana.locator("[data-cmd=talk-mute-all]").get_attribute("aria-pressed") == "true"
    assert_no_errors(ana, bruno)
    close_pages(ana, bruno)


def test_a_guest_says_phrases_only(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url)
    enter_name(page, "Gostić")
    page.wait_for_selector("#variant-select")
    page.click("#create-table")
    page.wait_for_selector(".waiting")
    assert page.locator("#talk-text").count() == 0
    assert page.locator(".talk-note").text_content() == HR["talk_guest_phrases_only"]
    assert page.locator("[data-cmd^='say:']").count() == 12
    close_pages(page)


def test_sounds_play_unless_muted_and_the_mute_is_remembered(browser: Any,
                                                             bela_url: str) -> None:
    page = open_page(browser, bela_url)
    page.context.add_init_script(AUDIO_STUB)
    page.reload()
    enter_name(page, "Zvonko")
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "false"
    page.wait_for_selector("#variant-select")
    page.select_option("#variant-select", "bela2")
    page.click("#create-table")
    page.wait_for_selector(".waiting")
    page.click("[data-cmd=bots]")
    page.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind)")
    page.click("[data-cmd=start]")
    page.wait_for_selector(".game[data-seat='0']")

    def plays() -> list[str]:
        return list(page.evaluate("() => window.__plays"))

    def play_some(clicks: int) -> None:
        made = 0
        for _ in range(400):
            if made >= clicks or page.locator("#match-result").count():
                return
            if click_first_legal(page):
                made += 1
            else:
                page.wait_for_timeout(60)

    play_some(4)
    wait_until(page, lambda: any(p.endswith("/web/sounds/card.wav") for p in plays()), 15)
    assert all(p.startswith("/web/sounds/") for p in plays())
    page.click("#sound-toggle")
    wait_until(page, lambda: page.locator("#sound-toggle").get_attribute("aria-pressed")
               == "true", 5)
    page.evaluate("() => { window.__plays = []; }")
    play_some(6)
    page.wait_for_timeout(500)
    assert plays() == []
    page.reload()
    page.wait_for_selector(".game")
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"
    play_some(3)
    assert plays() == []
    assert_no_errors(page)
    close_pages(page)


def test_the_lobby_room_between_two_browsers(browser: Any, bela_url: str) -> None:
    ana = _account(browser, bela_url, "Lovorka")
    bruno = _account(browser, bela_url, "Lovro")
    gost = open_page(browser, bela_url)
    enter_name(gost, "Gostko")
    for page in (ana, bruno, gost):
        page.wait_for_selector("#lobby-talk-body")
    assert gost.locator("#lobby-talk-text").count() == 0
    assert gost.locator("#lobby-talk-body .talk-note").text_content() == HR["talk_guest_reads"]
    wait_until(ana, lambda: ana.locator("#lobby-talk-text").count() == 1, 10)
    ana.fill("#lobby-talk-text", HOSTILE)
    ana.press("#lobby-talk-text", "Enter")
    for page in (bruno, gost):
        line = page.locator(f"#lobby-talk-body .talk-line:has-text('{HOSTILE[-5:]}') .talk-text")
        line.first.wait_for()
        assert line.first.text_content() == HOSTILE
        assert page.evaluate("() => window.__xss") is None
    assert_no_errors(ana, bruno, gost)
    close_pages(ana, bruno, gost)

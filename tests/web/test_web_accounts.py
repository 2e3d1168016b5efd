"""Accounts, ratings, profiles, the leaderboard and quick play in Chromium (issue 12).

A guest claims his name with a password and logs in on a second browser; a new password and
"log out everywhere" end the other browser's login (it shows the player logged out, never a
new guest with the taken name); a rated match against bots moves the rating shown on the
profile (its chart, the match listed) and the leaderboard; "Play now" seats the player with
bots after the shortest wait.  Screenshots: tests/web/artifacts/profile-phone.png,
leaderboard-phone.png, quick-play-waiting-phone.png, account-panel-phone.png.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    PHONE,
    assert_no_errors,
    claim_name,
    close_pages,
    enter_name,
    log_in,
    no_overflow,
    open_page,
    park,
    play_match_with_bots,
    stays,
    texts,
)

HR = texts("hr")
EN = texts("en")


def _fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _stored(page: Any) -> dict[str, Any]:
    return page.evaluate(  # type: ignore[no-any-return]
        "() => JSON.parse(localStorage.getItem('bela.guest') || 'null') || {}")


def _account_msg(page: Any, text: str) -> None:
    page.wait_for_function("t => document.getElementById('account-msg')?.textContent === t",
                           arg=text)


def test_a_guest_claims_his_name_and_logs_in_on_another_browser(
        browser: Any, bela_url: str, artifacts: Path) -> None:
    name = "Lucija Test"
    first = open_page(browser, bela_url, lang="hr", viewport=PHONE)
    enter_name(first, name)
    guest = _stored(first)
    assert guest["account"] is False
    assert first.locator("#player-kind").inner_text() == HR["kind_guest"]

    # the claim form checks the repeat and the length before asking the server
    first.click("#show-claim")
    assert first.locator("#claim-name").input_value() == name
    first.fill("#claim-password", "kratka")
    first.fill("#claim-password2", "kratka")
    first.click("#claim-submit")
    _account_msg(first, HR["err_weak_password"])
    first.fill("#claim-password", "dobra-lozinka-1")
    first.fill("#claim-password2", "dobra-lozinka-2")
    first.click("#claim-submit")
    _account_msg(first, HR["passwords_differ"])
    first.click("[data-cmd='account-form:']")  # cancel: back to the buttons
    assert first.locator("form[data-form=claim]").count() == 0
    claim_name(first, "dobra-lozinka-1")
    me = _stored(first)
    assert me["account"] is True and me["player_id"] == guest["player_id"]
    assert me["token"] == guest["token"]  # the guest's token keeps working
    first.wait_for_selector("#account-note")
    assert first.locator("#account-note").inner_text() == _fill(HR["claimed"], name=name)
    assert first.locator("#player-kind").inner_text() == HR["kind_account_short"]
    assert first.locator("[data-cmd=change-name]").count() == 0  # names change for guests only
    for sel in ("#logout", "#logout-all", "#show-password", "#my-profile"):
        assert first.locator(sel).is_visible(), sel
    no_overflow(first)
    first.screenshot(path=str(artifacts / "account-panel-phone.png"))

    # the name is taken: a new guest may not have it (in any letter case)
    other = open_page(browser, bela_url, lang="en")
    form = other.locator("form[data-form=guest]")
    form.locator("input[name=name]").fill("lucija  TEST")
    form.locator("button").click()
    other.wait_for_function("t => document.getElementById('lobby-msg')?.textContent === t",
                            arg=EN["err_name_taken"])
    assert other.evaluate("() => window.__bela.guest") is None

    # a second browser logs in with name and password: the same player
    other.click("#show-login")
    other.fill("#login-name", name)
    other.fill("#login-password", "wrong-password")
    other.click("#login-submit")
    _account_msg(other, EN["err_bad_login"])
    assert other.evaluate("() => window.__bela.guest") is None
    log_in(other, name, "dobra-lozinka-1")
    other.wait_for_function("() => window.__bela.guest && window.__bela.guest.account")
    there = _stored(other)
    assert there["player_id"] == me["player_id"] and there["name"] == name
    assert there["token"] != me["token"] and there["account"] is True
    assert other.locator(".who-am-i").inner_text() == _fill(EN["play_as"], name=name)

    # a new password in the second browser: the first one's login ends; opened again, it
    # shows the player logged out (no new guest takes the name) and asks for the password
    # (parked meanwhile: its lobby's refresh would see it at a moment of its own)
    lobby = park(first)
    other.click("#show-password")
    other.fill("#old-password", "dobra-lozinka-1")
    other.fill("#new-password", "nova-lozinka-22")
    other.fill("#new-password2", "nova-lozinka-22")
    other.click("#password-submit")
    other.wait_for_function("t => document.getElementById('account-note')?.textContent === t",
                            arg=EN["password_changed"])
    assert _stored(other)["token"] != there["token"]
    guests: list[Any] = []
    first.on("request", lambda r: guests.append(r.url) if r.url.endswith("/api/guests") else None)
    first.goto(lobby)
    first.wait_for_selector("#account-note")
    assert first.locator("#account-note").inner_text() == _fill(HR["session_ended"], name=name)
    assert first.evaluate("() => window.__bela.guest") is None
    assert _stored(first) == {}
    assert first.locator("#login-name").input_value() == name  # the login form, name filled
    assert not guests
    first.fill("#login-password", "nova-lozinka-22")
    first.click("#login-submit")
    first.wait_for_function("() => window.__bela.guest && window.__bela.guest.account")
    assert _stored(first)["player_id"] == me["player_id"]

    # log out everywhere in the first browser: the second one, opened again, is logged out
    lobby = park(other)
    first.once("dialog", lambda d: d.accept())
    first.click("#logout-all")
    first.wait_for_function("t => document.getElementById('account-note')?.textContent === t",
                            arg=HR["logged_out_all"])
    assert _stored(first) == {}
    assert first.locator("form[data-form=guest]").count() == 1
    other.goto(lobby)
    other.wait_for_selector("#account-note")
    assert other.locator("#account-note").inner_text() == _fill(EN["session_ended"], name=name)
    assert _stored(other) == {}
    assert other.locator(".who-am-i").count() == 0
    assert other.locator("#nav-profile").count() == 0

    # a plain log out: the token sent stops working, the browser has no player
    log_in(other, name, "nova-lozinka-22")
    other.wait_for_function("() => window.__bela.guest && window.__bela.guest.account")
    token = _stored(other)["token"]
    other.click("#logout")
    other.wait_for_function("t => document.getElementById('account-note')?.textContent === t",
                            arg=EN["logged_out"])
    assert _stored(other) == {}
    status = other.evaluate("""async (tok) => (await fetch('/api/players/me',
        {headers: {Authorization: 'Bearer ' + tok}})).status""", token)
    assert status == 401
    assert_no_errors(first, other)
    close_pages(first, other)


def test_a_rated_match_shows_on_the_profile_and_the_leaderboard(
        browser: Any, bela_url: str, artifacts: Path) -> None:
    name = "Matej Rejting"
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, name)
    claim_name(page, "matej-lozinka")
    me = _stored(page)
    assert page.locator("#rated-check").is_checked()  # rated by default

    sent: list[dict[str, Any]] = []
    page.on("request", lambda r: sent.append(r.post_data_json)
            if r.method == "POST" and r.url.endswith("/api/tables") else None)
    table_id = play_match_with_bots(page, "bela2")
    assert sent and sent[-1]["rated"] is True
    assert page.evaluate("() => window.__bela.summary.rated") is True
    assert page.locator(".topbar .tag.rated").inner_text() == HR["rated_tag"]
    # the seat's name links to the player's profile (in a new tab: the game stays)
    link = page.locator(".seat[data-seat='0'] a.seat-name")
    assert link.get_attribute("href") == f"/?player={me['player_id']}"
    assert link.get_attribute("target") == "_blank"

    page.click("#match-result [data-cmd=lobby]")
    page.wait_for_selector("#guest-panel")
    page.click("#my-profile")
    page.wait_for_selector(f".profile-page[data-player='{me['player_id']}']")
    assert re.search(r"[?&]player=" + me["player_id"], page.url)
    assert page.locator(".profile-name").inner_text() == name
    assert page.locator(".profile-head .tag.kind-account").inner_text() == HR["kind_account"]
    stats = page.locator(".variant-stats[data-variant='bela2']")
    rating = int(stats.locator(".rating").inner_text())
    assert rating != 1000
    chart = stats.locator("svg.rating-chart")
    assert chart.get_attribute("role") == "img"
    assert chart.locator("circle").count() == 1
    assert int(chart.locator("circle").get_attribute("data-rating") or 0) == rating
    label = chart.get_attribute("aria-label") or ""
    assert label == _fill(HR["chart_label"], first=rating, last=rating,
                          games=_fill(HR["games_one"], n=1)), label
    assert stats.locator(".stats").inner_text().startswith(_fill(HR["games_one"], n=1))
    assert stats.locator(".tag.provisional").inner_text() == HR["provisional"]
    match = page.locator(f".match-list li[data-match='{table_id}']")
    assert match.count() == 1
    result = match.get_attribute("data-result")
    assert result in ("won", "lost")
    assert match.locator(f".tag.result-{result}").inner_text() == HR[f"history_{result}"]
    delta = int(match.locator(".rating-change").get_attribute("data-delta") or 0)
    assert delta == rating - 1000 and delta != 0
    assert _fill(HR["rating_change"], before=1000, after=rating) in match.inner_text()
    with page.expect_download() as dl:
        match.locator("[data-cmd^='record:']").click()
    record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert record["variant"] == "bela2" and record["players"][0] == name

    # an unrated table: the choice is sent, and no "rated" tag
    page.goto(bela_url)
    page.wait_for_selector("#rated-check")
    page.locator("#rated-check").uncheck()
    page.click("#create-table")
    page.wait_for_selector(".waiting[data-status='open']")
    assert sent[-1]["rated"] is False
    assert page.locator(".waiting .tag.rated").count() == 0
    page.once("dialog", lambda d: d.accept())
    page.click("[data-cmd=close]")
    page.wait_for_selector(".waiting[data-status='closed']")
    page.goto(f"{bela_url}/?player={me['player_id']}")
    page.wait_for_selector(".variant-stats[data-variant='bela2']")

    # the profile at a phone's size, in the other deck: no sideways scrolling
    phone = open_page(browser, f"{bela_url}/?player={me['player_id']}", lang="hr",
                      deck="french", viewport=PHONE)
    phone.wait_for_selector(".variant-stats[data-variant='bela2'] svg.rating-chart circle")
    no_overflow(phone)
    box = phone.locator("svg.rating-chart").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    phone.screenshot(path=str(artifacts / "profile-phone.png"), full_page=True)

    # the leaderboard (header link, by keyboard): the account is listed, linked to his profile
    page.focus("#nav-leaders")
    page.keyboard.press("Enter")
    page.wait_for_selector(".leaders-page")
    page.click("[data-cmd='leaders:bela2']")
    page.wait_for_selector(".leaders-page[data-variant='bela2'] .leaders-table")
    assert "leaders=bela2" in page.url
    row = page.locator(f".leaders-table tr[data-player='{me['player_id']}']")
    assert row.count() == 1
    cells = row.locator("td")
    assert cells.nth(1).inner_text() == name
    assert int(cells.nth(2).locator("b").inner_text()) == rating
    assert cells.nth(3).inner_text() == "1"
    assert row.get_attribute("class") == "me"
    bot = page.locator(".leaders-table tr[data-player='bot-heuristic']")
    assert bot.count() == 1 and HR["bot_heuristic"] in bot.inner_text()
    phone.goto(f"{bela_url}/?leaders=bela2")
    phone.wait_for_selector(".leaders-table")
    no_overflow(phone)
    phone.screenshot(path=str(artifacts / "leaderboard-phone.png"), full_page=True)
    # the name links back to the profile
    row.locator("a.player-link").click()
    page.wait_for_selector(f".profile-page[data-player='{me['player_id']}']")
    page.go_back()
    page.wait_for_selector(".leaders-page[data-variant='bela2']")
    # a bot's profile
    bot.locator("a.player-link").click()
    page.wait_for_selector(".profile-page[data-player='bot-heuristic']")
    assert page.locator(".profile-name").inner_text() == HR["bot_heuristic"]
    assert page.locator(".profile-head .tag.kind-bot").count() == 1
    assert_no_errors(page, phone)
    close_pages(page, phone)


def test_play_now_seats_the_player_with_bots(browser: Any, bela_url: str,
                                            artifacts: Path) -> None:
    page = open_page(browser, bela_url, lang="hr", viewport=PHONE)
    enter_name(page, "Nikola Brzi")
    page.wait_for_selector("#quick-play")
    waits = page.evaluate(
        "() => [...document.querySelectorAll('#quick-wait option')].map(o => Number(o.value))")
    assert waits == sorted(waits) and len(waits) >= 2
    assert page.locator("#quick-wait").input_value() == "30"  # preselected
    page.select_option("#quick-variant", "bela2")
    shortest = waits[0]
    page.select_option("#quick-wait", str(shortest))

    # waiting, then cancelled: the form again
    page.click("#quick-play")
    page.wait_for_selector("#quick-status[data-status=waiting]")
    assert page.evaluate("() => document.activeElement.id") == "quick-cancel"
    page.click("#quick-cancel")
    page.wait_for_selector("#quick-play")
    assert page.evaluate("() => window.__bela.quick") in (None, {"status": "idle"})

    # waiting survives a reload; after the wait bots fill the table and it opens
    started = time.monotonic()
    page.select_option("#quick-variant", "bela2")
    page.select_option("#quick-wait", str(shortest))
    page.click("#quick-play")
    page.wait_for_selector("#quick-status[data-status=waiting]")
    line = page.locator("#quick-line")
    pattern = r"\d+".join(re.escape(part) for part in HR["quick_searching"].split("{n}"))
    assert re.fullmatch(pattern, line.inner_text()), line.inner_text()
    queue = page.locator(".quick-queue").inner_text()
    assert queue == HR["quick_queue_none"], queue  # nobody but himself
    page.wait_for_function("() => /[1-9]/.test(document.getElementById('quick-line').textContent)")
    no_overflow(page)
    page.screenshot(path=str(artifacts / "quick-play-waiting-phone.png"))
    page.reload()
    page.wait_for_selector("#quick-status[data-status=waiting]")
    page.wait_for_selector(".game", timeout=(shortest + 30) * 1000)
    assert time.monotonic() - started >= shortest - 2
    assert "table=" in page.url
    summary = page.evaluate("() => window.__bela.summary")
    assert summary["variant"] == "bela2" and summary["rated"] is True
    kinds = sorted(s["kind"] for s in summary["seats"])
    assert kinds == ["bot", "human"], summary["seats"]
    assert page.evaluate("() => window.__bela.view.seat") is not None

    # back in the lobby the table is not opened again: a link to it, and the form; the
    # lobby's list tags the table rated
    page.goto(bela_url)
    page.wait_for_selector("#quick-play")
    listed = page.locator(f"#running-list [data-table='{summary['id']}']")
    listed.wait_for()
    assert listed.locator(".tag.rated").inner_text() == HR["rated_tag"]
    assert "table=" not in page.url
    stays(page, lambda: page.url, 1.5, "the address")  # the table is not opened again
    if page.locator("#quick-open").count():
        assert page.locator("#quick-open").get_attribute("data-cmd") == f"open:{summary['id']}"
    assert_no_errors(page)
    close_pages(page)

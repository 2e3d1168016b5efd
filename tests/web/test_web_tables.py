"""The creator's controls, private tables, closed tables and the lobby's pages in Chromium.

Only a table's creator fills it with bots, starts and closes it (docs/SECURITY.md); a private
table is joined through its invite link and refused without it; a closed table says so and
is not reconnected to; the lobby list is read page by page; the server's refusals are worded
in the page's language.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    REFRESH,
    assert_no_errors,
    close_pages,
    enter_name,
    open_page,
    stays,
    texts,
    wait_until,
)

HR, EN = texts("hr"), texts("en")
OWNER_CONTROLS = ("bots", "start", "close")


def _controls(page: Any) -> dict[str, int]:
    return {c: page.locator(f"[data-cmd='{c}']").count() for c in OWNER_CONTROLS}


def _accept_confirm(page: Any) -> None:
    page.once("dialog", lambda d: d.accept())


def _sockets_opened(page: Any) -> list[str]:
    """The WebSockets the page opens from now on."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


def _assert_no_reconnect(page: Any, opened: list[str]) -> None:
    """No socket for 2.5 s (the first reconnect would come after 0.5 s) and none held."""
    assert opened == [], opened
    stays(page, lambda: list(opened), 2.5, "the sockets opened")
    state = page.evaluate("() => ({ws: window.__bela.ws, conn: window.__bela.conn})")
    assert state == {"ws": None, "conn": "closed"}, state


def test_only_the_creator_fills_starts_and_closes_a_table(browser: Any, bela_url: str,
                                                          artifacts: Path) -> None:
    host = open_page(browser, bela_url, lang="hr")
    enter_name(host, "Ana")
    host.click("#create-table")
    host.wait_for_selector(".waiting[data-status='open']")
    invite = host.locator("#invite-link").input_value()
    assert "/?table=" in invite and "code=" not in invite  # a public table's link
    assert _controls(host) == {"bots": 1, "start": 1, "close": 1}

    guest = open_page(browser, invite, lang="en")
    guest.wait_for_selector(".waiting[data-status='open']")
    assert _controls(guest) == {"bots": 0, "start": 0, "close": 0}  # not even named yet
    enter_name(guest, "Bruno")
    guest.click("[data-cmd='sit:1']")
    guest.wait_for_function("() => window.__bela.summary.seats[1].name === 'Bruno'")
    host.wait_for_function("() => window.__bela.summary.seats[1].name === 'Bruno'")
    assert _controls(guest) == {"bots": 0, "start": 0, "close": 0}  # seated, not the creator
    assert EN["only_creator_starts"] in guest.locator(".waiting").inner_text()
    assert _controls(host) == {"bots": 1, "start": 1, "close": 1}
    assert HR["only_creator_starts"] not in host.locator(".waiting").inner_text()
    guest.screenshot(path=str(artifacts / "waiting-room-guest.png"))

    # the server refuses a stranger's start: the page says so in its own words
    guest.evaluate("""() => { const b = document.createElement('button');
        b.dataset.cmd = 'start'; document.getElementById('app').append(b); b.click(); }""")
    guest.wait_for_function("t => document.querySelector('.waiting .toast')?.textContent === t",
                            arg=EN["err_not_owner"])

    # the creator closes the open table: both pages say so and stop connecting
    opened = {p: _sockets_opened(p) for p in (host, guest)}
    _accept_confirm(host)
    host.click("[data-cmd='close']")
    for p, lang in ((host, HR), (guest, EN)):
        note = p.locator(".waiting[data-status='closed'] .closed-note")
        note.wait_for()
        assert note.inner_text() == lang["table_closed"]
        assert _controls(p) == {"bots": 0, "start": 0, "close": 0}
        assert p.locator("[data-cmd^='sit:'], [data-cmd='leave'], #invite-link").count() == 0
    host.screenshot(path=str(artifacts / "table-closed.png"))
    for p in (host, guest):
        _assert_no_reconnect(p, opened[p])

    # opened again later, the closed table says so at once, and once
    guest.reload()
    guest.locator(".closed-note").wait_for()
    guest.wait_for_function("() => window.__bela.ws === null")
    _assert_no_reconnect(guest, _sockets_opened(guest))
    assert_no_errors(host, guest)
    close_pages(host, guest)


def test_the_creator_stops_his_table_of_bots(browser: Any, bela_url: str) -> None:
    host = open_page(browser, bela_url, lang="en")
    enter_name(host, "Ana")
    host.uncheck("#sit-check")  # only bots play; the creator watches
    host.click("#create-table")
    host.wait_for_selector(".waiting")
    host.click("[data-cmd=bots]")
    host.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind === 'bot')")
    host.click("[data-cmd=start]")
    host.wait_for_selector(".game[data-seat='']")
    stop = host.locator(".topbar [data-cmd='close']")
    assert stop.inner_text() == EN["close_table"]
    watcher = open_page(browser, host.url, lang="hr")  # another guest watching: no button
    watcher.wait_for_selector(".game[data-seat='']")
    assert watcher.locator("[data-cmd='close']").count() == 0
    _accept_confirm(host)
    stop.click()
    for p, lang in ((host, EN), (watcher, HR)):
        p.locator(".closed-note").wait_for()
        assert p.locator(".closed-note").inner_text() == lang["table_closed"]
        assert p.locator(".game").count() == 0
    assert_no_errors(host, watcher)
    close_pages(host, watcher)


def test_a_private_table_is_joined_by_its_invite_link(browser: Any, bela_url: str,
                                                      artifacts: Path) -> None:
    host = open_page(browser, bela_url, lang="hr")
    enter_name(host, "Ana")
    assert host.locator("label:has(#private-check)").inner_text().strip() == HR["private_table"]
    host.check("#private-check")
    host.click("#create-table")
    host.wait_for_selector(".waiting[data-private='true']")
    tid = host.evaluate("() => window.__bela.tableId")
    invite = host.locator("#invite-link").input_value()
    code = parse_qs(urlparse(invite).query)["code"][0]
    assert invite == f"{bela_url}/?table={tid}&code={code}"
    kept = host.evaluate("() => JSON.parse(localStorage.getItem('bela.codes'))")
    assert kept[tid] == code
    listed = host.evaluate("() => fetch('/api/tables').then(r => r.json())")
    assert tid not in {t["id"] for t in listed}  # a private table is not in the lobby
    host.screenshot(path=str(artifacts / "private-table-waiting.png"))

    # a friend opens the invite link: he watches, names himself and sits down
    friend = open_page(browser, invite, lang="en")
    friend.wait_for_selector(".waiting[data-private='true']")
    enter_name(friend, "Bruno")
    friend.click("[data-cmd='sit:2']")
    for p in (host, friend):
        p.wait_for_function("() => window.__bela.summary.seats[2].name === 'Bruno'")
    assert friend.locator("#invite-link").input_value() == invite
    assert _controls(friend) == {"bots": 0, "start": 0, "close": 0}

    # someone with the table's address but not its code is refused, once
    stranger = open_page(browser, f"{bela_url}/?table={tid}", lang="hr")
    note = stranger.locator(".table-error")
    note.wait_for()
    assert note.inner_text() == HR["err_invite_required"]
    assert stranger.locator(".waiting, [data-cmd^='sit:']").count() == 0
    _assert_no_reconnect(stranger, _sockets_opened(stranger))
    stranger.screenshot(path=str(artifacts / "private-table-refused.png"))

    # the creator's browser keeps the code: the plain address shows the whole invite again
    host.goto(f"{bela_url}/?table={tid}")
    host.wait_for_selector(".waiting[data-private='true']")
    assert host.locator("#invite-link").input_value() == invite
    _accept_confirm(host)
    host.click("[data-cmd='close']")
    friend.locator(".closed-note").wait_for()
    assert_no_errors(host, friend, stranger)
    close_pages(host, friend, stranger)


def _fake_table(i: int) -> dict[str, Any]:
    return {"id": f"fake{i:03d}", "variant": "bela4", "status": "open", "owner": "someone",
            "options": {"target": 1001, "equal_declarations": "earlier", "tie": "fall",
                        "enforce": "on"}, "bot": "heuristic", "seq": 0, "spectators": 0,
            "seats": [{"seat": s, "name": f"P{i}" if s == 0 else None,
                       "kind": "human" if s == 0 else None, "player_id": None,
                       "connected": False, "autopilot": False} for s in range(4)],
            "private": False, "invite": f"/?table=fake{i:03d}", "totals": None,
            "winner": None, "bot_fallback": False}


def test_the_lobby_pages_and_words_the_refusals(browser: Any, bela_url: str) -> None:
    """53 tables: the first 50, then "more" reads the rest (offset 50) and the refresh
    goes on over both pages; a refused new table says why (Retry-After seconds included)."""
    total = 53
    asked: list[tuple[int, int]] = []

    def listing(route: Any) -> None:
        q = parse_qs(urlparse(route.request.url).query)
        limit, offset = int(q.get("limit", ["50"])[0]), int(q.get("offset", ["0"])[0])
        asked.append((offset, limit))
        body = [_fake_table(i) for i in range(offset, min(total, offset + limit))]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body),
                      headers={"X-Total-Count": str(total)})

    refusal: dict[str, Any] = {}

    def create(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        route.fulfill(status=refusal["status"], content_type="application/json",
                      headers=refusal.get("headers", {}),
                      body=json.dumps({"error": {"code": refusal["code"], "message": "x"}}))

    page = open_page(browser, f"{bela_url}/?{REFRESH}", lang="en")
    page.route(re.compile(r"/api/tables\?"), listing)
    page.route(re.compile(r"/api/tables$"), create)
    page.reload()
    rows = page.locator("#table-list li[data-table^='fake']")
    page.wait_for_function("() => document.querySelectorAll('#table-list li').length === 50")
    more = page.locator("#more-tables")
    assert more.inner_text() == EN["more_tables"].replace("{n}", "3")
    assert (0, 50) in asked
    more.click()
    page.wait_for_function("() => document.querySelectorAll('#table-list li').length === 53")
    assert (50, 50) in asked
    assert more.count() == 0
    assert rows.last.get_attribute("data-table") == "fake052"
    asked.clear()
    # the lobby's refresh: both pages again, nothing lost
    wait_until(page, lambda: (0, 50) in asked and (50, 50) in asked, what="a refresh of both pages")
    assert rows.count() == 53 and more.count() == 0

    enter_name(page, "Ana")
    msg = page.locator("#lobby-msg")
    for status, code, headers, text in (
            (429, "rate_limited", {"Retry-After": "7"}, EN["err_rate_limited_in"].replace(
                "{n}", "7")),
            (429, "rate_limited", {}, EN["err_rate_limited"]),
            (409, "too_many_tables", {}, EN["err_too_many_tables"]),
            (422, "bad_options", {}, EN["err_bad_options"]),
            (422, "bad_turn_clock", {}, EN["err_bad_turn_clock"])):
        refusal.update(status=status, code=code, headers=headers)
        page.click("#create-table")
        page.wait_for_function("t => document.getElementById('lobby-msg').textContent === t",
                               arg=text)
        assert "error" in (msg.get_attribute("class") or "")
        page.evaluate("() => { document.getElementById('lobby-msg').textContent = ''; }")
    assert_no_errors(page)
    close_pages(page)

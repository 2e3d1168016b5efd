"""The turn clock and expired guests in Chromium.

The create form offers a turn clock (60 s for a public table, none for a private one) and
the target's range; the countdown runs on the plate of the seat to act and, for one's own
turn, beside the status line, rewritten each second without drawing the table again; when
the bot played a turn for a player whose time ran out, he is told; an expired guest token
is renewed once with the same name (REST 401 ``token_expired``, WebSocket close 4401).

The server's shortest clock is 15 s: the countdown is read on a real table, and the bot's
move for a player out of time comes from a faked WebSocket (``page.route_web_socket``) with
real engine views.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    REFRESH,
    assert_no_errors,
    click_first_legal,
    close_pages,
    enter_name,
    facts,
    lobby_refreshes,
    open_page,
    park,
    stays,
    taken,
    texts,
    wait_until,
)

HR, EN = texts("hr"), texts("en")
MINE = ".status-line [data-clock='mine']"
NAMES = ["Ana", "Bruno", "Cvita", "Dino"]


def _seconds(text: str, pattern: str) -> int:
    """The count in a countdown text made from an i18n pattern ("Još {n} s")."""
    m = re.fullmatch(re.escape(pattern).replace(re.escape("{n}"), r"(\d+)"), text.strip())
    assert m, (text, pattern)
    return int(m.group(1))


def test_the_create_form_and_the_countdown(browser: Any, bela_url: str, artifacts: Path) -> None:
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Ana")
    page.wait_for_selector("#clock-select")
    ranges = page.evaluate("() => window.__bela.variants.ranges")
    low, high = ranges["turn_clock"]
    target = page.locator("#target-input")
    assert (target.get_attribute("min"), target.get_attribute("max")) == tuple(
        str(x) for x in ranges["target"])

    # none, 30 s, 60 s and 2 min (those the server allows); 60 s while the table is public
    clock = page.locator("#clock-select")
    values = clock.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert values == [""] + [str(c) for c in (30, 60, 120) if low <= c <= high], values
    labels = clock.locator("option").all_inner_texts()
    assert labels[0] == HR["clock_none"] and "60 s" in labels
    assert page.locator("label:has(#clock-select)").inner_text().startswith(HR["turn_clock"])
    assert clock.input_value() == "60"
    page.check("#private-check")
    assert clock.input_value() == ""  # a private table: no clock
    page.uncheck("#private-check")
    assert clock.input_value() == "60"
    clock.select_option("30")  # the player's own choice stays, private or not
    page.check("#private-check")
    assert clock.input_value() == "30"
    page.uncheck("#private-check")

    with page.expect_request(lambda r: r.url.endswith("/api/tables") and r.method == "POST") as req:
        page.click("#create-table")
    body = req.value.post_data_json
    assert body["turn_clock"] == 30 and body["private"] is False, body
    page.wait_for_selector(".waiting")
    assert page.evaluate("() => window.__bela.summary.turn_clock") == 30
    info = HR["turn_clock_info"].replace("{n}", "30")
    assert page.locator(".waiting .clock-info").inner_text() == info

    page.click("[data-cmd=bots]")
    page.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind)")
    page.click("[data-cmd=start]")
    page.wait_for_selector(".game[data-seat='0']")
    assert page.locator(".topbar .clock-info").inner_text() == info

    # the bots bid at once; at our turn the clock runs on our plate and above the hand
    page.wait_for_function("() => window.__bela.clock && window.__bela.clock.seat === 0",
                           timeout=15_000)
    mine = page.locator(MINE)
    mine.wait_for()
    first = _seconds(mine.inner_text(), HR["clock_mine"])
    assert 20 <= first <= 30, first
    plates = page.locator(".seat [data-clock='seat']")
    assert plates.count() == 1
    assert page.locator(".seat[data-seat='0'] [data-clock='seat']").count() == 1
    assert _seconds(plates.first.inner_text(), HR["clock_seat"]) == first
    assert "urgent" not in (mine.get_attribute("class") or "")
    assert mine.get_attribute("role") == "timer"
    # the timer rewrites the countdown only: a mark on the table's element stays
    page.evaluate("() => { document.getElementById('game').dataset.mark = 'kept'; }")
    wait_until(page, lambda: _seconds(mine.inner_text(), HR["clock_mine"]) <= first - 2,
               what="the countdown two seconds on")
    shown = page.evaluate("""() => [...document.querySelectorAll('[data-clock]')].map(
        (e) => e.textContent)""")  # both countdowns, read at once
    later = _seconds(shown[-1], HR["clock_mine"])
    assert first - 3 <= later <= first - 1, (first, later)
    assert _seconds(shown[0], HR["clock_seat"]) == later
    assert page.evaluate("() => document.getElementById('game').dataset.mark") == "kept"
    page.screenshot(path=str(artifacts / "clock-countdown-hr.png"))

    page.select_option("#lang-select", "en")
    _seconds(mine.inner_text(), EN["clock_mine"])  # "12 s left"
    assert page.locator(".topbar .clock-info").inner_text() == EN["turn_clock_info"].replace(
        "{n}", "30")

    # our own move: the clock leaves us (or starts afresh at our next turn), and nobody
    # says the bot played for us
    seq = page.evaluate("() => window.__bela.seq")
    assert click_first_legal(page)
    page.wait_for_function("s => window.__bela.seq > s && !window.__bela.busy", arg=seq)
    left = page.evaluate("""() => { const c = window.__bela.clock;
        return c && c.seat === 0 ? (c.deadline - performance.now()) / 1000 : null; }""")
    assert left is None or left > 25, left
    assert EN["clock_ran_out"] not in page.locator(".status-line").inner_text()
    assert page.evaluate("() => window.__bela.toast") is None
    assert_no_errors(page)
    close_pages(page)


# -- a faked table: the bot's move for a player whose time ran out --------------------------
def _views() -> tuple[int, dict[str, Any], dict[str, Any]]:
    """A bela4 deal's first bidder, its view at its turn and the view after its pass."""
    from bela.engine import Match
    from bela.engine.views import seat_view
    from bela.server.protocol import view_json

    m = Match("bela4", seed=1)
    rnd = m.deal()
    seat = rnd.turn
    before = view_json(seat_view(m, seat))
    m.apply(next(a for a in rnd.legal_actions() if a.token() == "pass"))
    return seat, before, view_json(seat_view(m, seat))


class FakeTable:
    """The server's side of the page's WebSocket: messages are sent as the test says."""

    def __init__(self, pid: str, seat: int) -> None:
        self.ws: Any = None
        self.got: list[dict[str, Any]] = []
        self.seat = seat
        humans = {seat, (seat + 1) % 4}  # the next seat is a player too: his clock is shown
        self.summary = {
            "id": "clockfake", "variant": "bela4", "status": "running", "owner": "someone",
            "options": {"target": 1001, "equal_declarations": "earlier", "tie": "fall",
                        "enforce": "on"}, "bot": "heuristic", "seq": 5, "spectators": 0,
            "seats": [{"seat": s, "name": NAMES[s], "kind": "human" if s in humans else "bot",
                       "player_id": pid if s == seat else f"p{s}", "connected": True,
                       "autopilot": False} for s in range(4)],
            "private": False, "invite": "/?table=clockfake", "totals": [0, 0], "winner": None,
            "bot_fallback": False, "turn_clock": 60, "facts": facts("bela4")}

    def __call__(self, ws: Any) -> None:
        self.ws = ws
        ws.on_message(lambda m: self.got.append(json.loads(m)))
        self.send({"type": "welcome", "seat": self.seat, "player_id": "x", "table": self.summary})

    def wait_for(self, page: Any, msg: dict[str, Any]) -> None:
        """Until the page has sent ``msg``."""
        for _ in range(100):
            if msg in self.got:
                return
            page.wait_for_timeout(50)
        raise AssertionError(f"the page did not send {msg}: {self.got}")

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def state(self, seq: int, view: dict[str, Any], clock: tuple[int, float] | None,
              last: str | None = None) -> None:
        events = [{"type": "bid_made", "seat": self.seat, "bid": last}] if last else []
        self.send({"type": "state", "seq": seq, "status": "running",
                   "last": {"seat": self.seat, "action": last} if last else None,
                   "clock": {"seat": clock[0], "deadline_in": clock[1]} if clock else None,
                   "events": events, "view": view})


def _at_fake_table(browser: Any, bela_url: str, seat: int) -> tuple[Any, FakeTable]:
    """A guest's page at the faked table, in ``seat``, connected."""
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Ana")
    fake = FakeTable(page.evaluate("() => window.__bela.guest.player_id"), seat)
    page.route_web_socket(re.compile(r"/ws/tables/clockfake"), fake)
    page.goto(f"{bela_url}/?table=clockfake")
    page.wait_for_function("() => window.__bela.summary && window.__bela.conn === 'open'")
    return page, fake


def test_the_player_is_told_when_the_bot_played_for_him(browser: Any, bela_url: str,
                                                         artifacts: Path) -> None:
    seat, before, after = _views()
    page, fake = _at_fake_table(browser, bela_url, seat)
    other = (seat + 1) % 4

    # our turn with 8.4 s left: the last seconds are stressed, on our plate and above the hand
    fake.state(5, before, (seat, 8.4))
    mine = page.locator(MINE)
    mine.wait_for()
    first = _seconds(mine.inner_text(), HR["clock_mine"])
    assert first in (8, 9), first
    assert "urgent" in (mine.get_attribute("class") or "")
    plate = page.locator(f".seat[data-seat='{seat}'] [data-clock='seat']")
    assert "urgent" in (plate.get_attribute("class") or "")
    wait_until(page, lambda: _seconds(mine.inner_text(), HR["clock_mine"]) < first,
               what="the countdown a second on")
    page.screenshot(path=str(artifacts / "clock-urgent-hr.png"))

    # our own pass: no word about the bot; the next player's clock shows on his plate
    page.click("[data-act='pass']")
    fake.wait_for(page, {"type": "act", "action": "pass", "seq": 5})
    fake.state(6, after, (other, 59.8), last="pass")
    page.wait_for_function("() => window.__bela.seq === 6")
    assert mine.count() == 0
    theirs = page.locator(f".seat[data-seat='{other}'] [data-clock='seat']")
    assert _seconds(theirs.inner_text(), HR["clock_seat"]) == 60
    assert "urgent" not in (theirs.get_attribute("class") or "")
    assert page.evaluate("() => window.__bela.toast") is None

    # our turn again, and our time runs out: the bot's pass comes without our sending one
    fake.state(7, before, (seat, 3))
    mine.wait_for()
    fake.state(8, after, None, last="pass")
    toast = page.locator(".status-line .toast")
    toast.wait_for()
    assert toast.inner_text() == HR["clock_ran_out"]
    assert "warn" in (toast.get_attribute("class") or "")
    assert mine.count() == 0 and page.locator("[data-clock]").count() == 0  # clock: null
    page.screenshot(path=str(artifacts / "clock-ran-out-hr.png"))

    # a resent state (welcome, sync: no events) of our own last action says nothing
    page.evaluate("() => { window.__bela.toast = null; }")
    fake.send({"type": "state", "seq": 8, "status": "running",
               "last": {"seat": seat, "action": "pass"}, "clock": None, "events": [],
               "view": after})
    taken(page, fake)
    assert page.evaluate("() => window.__bela.toast") is None

    # we passed at the last moment, but the bot's move came first: our pass is stale
    page.select_option("#lang-select", "en")
    fake.state(9, before, (seat, 1))
    page.wait_for_selector("[data-act='pass']")
    page.click("[data-act='pass']")
    fake.wait_for(page, {"type": "act", "action": "pass", "seq": 9})
    fake.state(10, after, None, last="pass")
    page.wait_for_function("() => window.__bela.seq === 10")
    assert page.evaluate("() => window.__bela.toast") is None  # as far as we know, ours
    fake.send({"type": "error", "code": "stale", "message": "the table moved on", "seq": 10})
    page.wait_for_function("t => document.querySelector('.status-line .toast')?.textContent === t",
                           arg=EN["clock_ran_out"])
    fake.wait_for(page, {"type": "sync"})  # then the current state, as for any stale
    assert_no_errors(page)
    close_pages(page)


def test_a_notice_that_ends_redraws_only_the_status_line(browser: Any, bela_url: str) -> None:
    """A tap that comes as a notice ends is not lost: the end of the notice rewrites the
    status line, not the table and the hand under the finger."""
    seat, _, after = _views()
    page, fake = _at_fake_table(browser, bela_url, seat)
    fake.state(6, after, ((seat + 1) % 4, 59.8))  # the next seat's turn
    card = page.locator(".hand .hand-card").first
    card.click(position={"x": 6, "y": 14}, force=True)  # aria-disabled: not our turn
    toast = page.locator(".status-line .toast")
    assert toast.inner_text() == HR["not_your_turn"]
    page.evaluate("""() => { window.keptCard = document.querySelector('.hand .hand-card');
        document.getElementById('game').dataset.mark = 'kept'; }""")
    page.wait_for_function("() => !document.querySelector('.status-line .toast')", timeout=6000)
    assert page.evaluate("() => window.__bela.toast") is None
    assert page.evaluate("() => document.contains(window.keptCard)")
    assert page.evaluate("() => document.getElementById('game').dataset.mark") == "kept"
    line = page.locator(".status-line").inner_text()
    assert line == HR["waiting_for"].replace("{name}", NAMES[(seat + 1) % 4]), line
    assert_no_errors(page)
    close_pages(page)


def test_a_state_that_comes_during_a_press_waits_for_the_release(browser: Any,
                                                                  bela_url: str) -> None:
    """A page drawn again between the press and the release of a tap would drop the click:
    a state that comes while the button is held is drawn just after the release, and the
    tap acts."""
    seat, before, _ = _views()
    page, fake = _at_fake_table(browser, bela_url, seat)
    fake.state(5, before, (seat, 50))
    button = page.locator("[data-act='pass']")
    box = button.bounding_box()
    assert box is not None
    page.evaluate("() => { document.getElementById('game').dataset.mark = 'kept'; }")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    fake.state(5, before, (seat, 40))  # the same state again (a sync): the page would redraw
    page.wait_for_function("() => window.__bela.clock.deadline - performance.now() < 41000")
    assert page.evaluate("() => document.getElementById('game').dataset.mark") == "kept"
    page.mouse.up()
    fake.wait_for(page, {"type": "act", "action": "pass", "seq": 5})
    page.wait_for_function("() => !document.getElementById('game').dataset.mark")  # drawn now
    assert_no_errors(page)
    close_pages(page)


def _trick_won() -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """A bela4 trick after the first, taken by the seat that leads next: that seat, its view
    then and the events it saw of the trick's last card (first legal actions throughout)."""
    from bela.engine import Match
    from bela.engine.events import TrickTaken, seen_by
    from bela.engine.views import seat_view
    from bela.server.protocol import event_json, view_json

    m = Match("bela4", seed=1)
    rnd = m.deal()
    tricks = 0
    while True:
        events = m.apply(rnd.legal_actions()[0])
        taken = [e for e in events if isinstance(e, TrickTaken)]
        if taken:
            tricks += 1
            seat = taken[0].seat
            if tricks > 1:
                return seat, view_json(seat_view(m, seat)), [
                    event_json(e, m.variant) for e in seen_by(events, seat)]


def test_a_tap_while_a_taken_trick_is_shown_stands_when_only_a_resent_state_waits(
        browser: Any, bela_url: str) -> None:
    """While the trick we took is still on the table, the same state comes again (a sync, a
    reconnect): the view shown is still the latest, so the card we tap is played."""
    seat, view, events = _trick_won()
    assert view["turn"] == seat and view["phase"] == "play"
    card = next(c for c in view["legal"] if not c.endswith("*") and c + "*" not in view["legal"])
    page, fake = _at_fake_table(browser, bela_url, seat)

    def tap_while_held(shown: int, waiting: int) -> None:
        """State ``shown`` with the trick taken, held on the table; state ``waiting`` comes
        meanwhile; then the tap on ``card``."""
        for seq, evs in ((shown, events), (waiting, [])):
            fake.send({"type": "state", "seq": seq, "status": "running", "last": None,
                       "clock": None, "events": evs, "view": view})
            page.wait_for_function("() => window.__bela.busy && window.__bela.anim.trick")
        page.wait_for_function("() => window.__bela.queue.length === 1")
        page.evaluate("c => document.querySelector(`.hand [data-card='${c}']`).click()", card)

    tap_while_held(20, 20)
    fake.wait_for(page, {"type": "act", "action": card, "seq": 20})

    # a newer state waiting is another matter: the view shown is out of date, nothing is sent
    fake.got.clear()
    tap_while_held(21, 22)
    page.wait_for_function("() => window.__bela.seq === 22 && !window.__bela.busy")
    assert not [m for m in fake.got if m.get("type") == "act"], fake.got
    assert_no_errors(page)
    close_pages(page)


# -- an expired guest token ---------------------------------------------------------------
def _expire(page: Any, token: str) -> dict[str, Any]:
    """Answer the page's requests with ``token`` as the server does for an expired one
    (REST: 401 token_expired; WebSocket: the error, then close 4401); count what it does."""
    seen: dict[str, Any] = {"refused": 0, "guests": [], "sockets": [], "expired_sockets": 0}

    def rest(route: Any) -> None:
        req = route.request
        if req.method == "POST" and req.url.endswith("/api/guests"):
            seen["guests"].append(req.post_data_json)
        if req.headers.get("authorization") == f"Bearer {token}":
            seen["refused"] += 1
            route.fulfill(status=401, content_type="application/json", body=json.dumps(
                {"error": {"code": "token_expired", "message": "make a new guest"}}))
        else:
            route.continue_()

    def socket(ws: Any) -> None:
        seen["sockets"].append(ws.url)
        if f"token={token}" in ws.url:
            seen["expired_sockets"] += 1
            ws.send(json.dumps({"type": "error", "code": "token_expired",
                                "message": "this token was not used for too long"}))
            ws.close(code=4401, reason="token_expired")
        else:
            ws.connect_to_server()

    page.route(re.compile(r"/api/"), rest)
    page.route_web_socket(re.compile(r"/ws/tables/"), socket)
    return seen


def _stored_token(page: Any) -> str:
    return page.evaluate(  # type: ignore[no-any-return]
        "() => (JSON.parse(localStorage.getItem('bela.guest')) || {}).token || ''")


def test_an_expired_guest_is_renewed_once_in_the_lobby(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Ana")
    old = _stored_token(page)
    lobby = park(page)  # else the lobby's refresh may meet the expiry before the page opens
    seen = _expire(page, old)
    refreshes = lobby_refreshes(page)
    with page.expect_response(lambda r: r.url.endswith("/api/guests")) as renewal:
        page.goto(urljoin(lobby, f"/?{REFRESH}"))
    assert renewal.value.ok, f"POST /api/guests: {renewal.value.status} {renewal.value.text()}"
    text = HR["guest_renewed"].replace("{name}", "Ana")
    page.wait_for_function("t => document.getElementById('lobby-msg')?.textContent === t",
                           arg=text)
    assert seen["guests"] == [{"name": "Ana"}]
    new = _stored_token(page)
    assert new and new != old
    assert page.evaluate("() => window.__bela.guest.token") == new
    assert page.locator(".who-am-i").inner_text() == HR["play_as"].replace("{name}", "Ana")
    assert page.locator("form[data-form=guest]").count() == 0  # no need to type the name
    refused = seen["refused"]
    # the lobby's refreshes: the new token, no more refusals
    asked = refreshes()
    wait_until(page, lambda: refreshes() >= asked + 2, what="two refreshes of the lobby")
    assert seen["refused"] == refused <= 4, seen
    assert seen["guests"] == [{"name": "Ana"}]
    assert_no_errors(page)
    close_pages(page)


def test_an_expired_guest_at_a_table_is_renewed_once(browser: Any, bela_url: str) -> None:
    host = open_page(browser, bela_url, lang="hr")
    enter_name(host, "Ana")
    host.click("#create-table")
    host.wait_for_selector(".waiting[data-status='open']")
    invite = host.locator("#invite-link").input_value()

    page = open_page(browser, bela_url, lang="en")
    enter_name(page, "Bruno")
    old = _stored_token(page)
    park(page)  # else the lobby's refresh may meet the expiry before the table opens
    seen = _expire(page, old)
    with page.expect_response(lambda r: r.url.endswith("/api/guests")) as renewal:
        page.goto(invite)
    assert renewal.value.ok, f"POST /api/guests: {renewal.value.status} {renewal.value.text()}"
    text = EN["guest_renewed"].replace("{name}", "Bruno")
    page.wait_for_function("t => document.querySelector('.waiting .toast')?.textContent === t",
                           arg=text)
    new = _stored_token(page)
    assert new and new != old
    page.wait_for_function("() => window.__bela.conn === 'open'")
    assert any(f"token={new}" in url for url in seen["sockets"]), seen["sockets"]
    assert seen["guests"] == [{"name": "Bruno"}]
    # the new guest sits down at once
    page.click("[data-cmd='sit:1']")
    host.wait_for_function("() => window.__bela.summary.seats[1].name === 'Bruno'")
    expired, refused = seen["expired_sockets"], seen["refused"]
    # no loop (a reconnect would come within 0.5 s, the next ones 1 s and 2 s later): no more
    # refusals, no more new guests
    stays(page, lambda: (seen["expired_sockets"], seen["refused"], len(seen["guests"])), 3.0,
          "the refusals")
    assert (seen["expired_sockets"], seen["refused"]) == (expired, refused), seen
    assert expired <= 2 and refused <= 3, seen
    assert seen["guests"] == [{"name": "Bruno"}]
    assert "this token" not in page.locator(".waiting").inner_text()  # the server's English
    assert_no_errors(host, page)
    close_pages(host, page)

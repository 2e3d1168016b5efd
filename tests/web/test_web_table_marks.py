"""The table page's marks and questions in Chromium (issue 38): a lone legal card plays
itself (a preference, on by default), a bot over its delay is marked "razmišlja…", an
absent player's seat counts down to its bot, the auzmeš claim is asked in the page, and the
match's end shows the rating change and the last deal.

The server's side is a faked WebSocket (``page.route_web_socket``) sending real engine
views, except for the rated match, played against a real server's bots.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    assert_no_errors,
    close_pages,
    enter_name,
    facts,
    open_page,
    play_match_with_bots,
    received,
    stays,
    taken,
    texts,
    wait_until,
)

HR, EN = texts("hr"), texts("en")
NAMES = ["Ana", "Bruno", "Cvita", "Dino"]
TABLE = "marksfake"


def _fill(pattern: str, **values: Any) -> str:
    for k, v in values.items():
        pattern = pattern.replace("{" + k + "}", str(v))
    return pattern


class Fake:
    """The server's side of the page's WebSocket: messages are sent as the test says."""

    def __init__(self, pid: str, seat: int, options: dict[str, Any] | None = None,
                 seats: list[dict[str, Any]] | None = None) -> None:
        self.ws: Any = None
        self.got: list[dict[str, Any]] = []
        self.seat = seat
        self.summary = {
            "id": TABLE, "variant": "bela4", "status": "running", "owner": "someone",
            "options": {"target": 1001, "equal_declarations": "earlier", "tie": "fall",
                        "enforce": "on", **(options or {})}, "bot": "heuristic", "seq": 5,
            "spectators": 0,
            "seats": seats or [{"seat": s, "name": NAMES[s],
                                "kind": "human" if s == seat else "bot",
                                "player_id": pid if s == seat else f"p{s}", "connected": True,
                                "autopilot": False, "autopilot_in": None} for s in range(4)],
            "private": False, "invite": f"/?table={TABLE}", "totals": [0, 0], "winner": None,
            "bot_fallback": False, "turn_clock": None, "rated": False, "ratings": None,
            "facts": facts("bela4")}

    def __call__(self, ws: Any) -> None:
        self.ws = ws
        ws.on_message(lambda m: self.got.append(json.loads(m)))
        self.send({"type": "welcome", "seat": self.seat, "player_id": "x", "table": self.summary})

    def acts(self) -> list[dict[str, Any]]:
        return [m for m in self.got if m.get("type") == "act"]

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def state(self, seq: int, view: dict[str, Any], status: str = "running") -> None:
        self.send({"type": "state", "seq": seq, "status": status, "last": None, "clock": None,
                   "events": [], "view": view})


def _at_fake(browser: Any, bela_url: str, make: Any, lang: str = "hr",
             **prefs: Any) -> tuple[Any, Fake]:
    page = open_page(browser, bela_url, lang=lang)
    if prefs:
        page.evaluate("(p) => localStorage.setItem('bela.prefs', JSON.stringify("
                      "{...JSON.parse(localStorage.getItem('bela.prefs')), ...p}))", prefs)
    enter_name(page, "Ana")
    fake = make(page.evaluate("() => window.__bela.guest.player_id"))
    page.route_web_socket(re.compile(rf"/ws/tables/{TABLE}"), fake)
    page.goto(f"{bela_url}/?table={TABLE}")
    page.wait_for_function("() => window.__bela.summary && window.__bela.conn === 'open'")
    return page, fake


def _lone_card_view(options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """A bela4 play position where the seat to act has exactly one legal card, and a
    view of that seat."""
    from bela.engine import Match
    from bela.engine.views import seat_view
    from bela.server.protocol import view_json

    for k in range(200):
        m = Match("bela4", options or {}, seed=k)
        rnd = m.deal()
        rng = random.Random(k)
        while not rnd.is_over:
            v = view_json(seat_view(m, rnd.turn))
            if v["phase"] == "play" and len(v["legal"]) == 1 and v["tricks"]:
                return rnd.turn, v
            legal = rnd.legal_actions()
            decl = [a for a in legal if a.token().startswith("declare")]
            m.apply(decl[-1] if decl else legal[rng.randrange(len(legal))])
    raise AssertionError("no lone card found")


def test_a_lone_legal_card_plays_itself_unless_turned_off(browser: Any, bela_url: str) -> None:
    seat, v = _lone_card_view()
    card = v["legal"][0]
    page, fake = _at_fake(browser, bela_url, lambda pid: Fake(pid, seat))
    assert page.locator("#autoplay-check").is_checked()  # on by default
    sent = time.monotonic()  # the pause (app.js AUTOPLAY_MS, 600 ms) begins after this
    fake.state(5, v)
    page.wait_for_selector(f".hand [data-card='{card}'].legal")
    wait_until(page, lambda: fake.acts() != [], what="the lone card played by itself")
    # a short pause first (the player may still click): measured from before the state was
    # sent, so a slow machine only lengthens it
    assert time.monotonic() - sent > 0.5
    assert fake.acts() == [{"type": "act", "action": card, "seq": 5}]
    page.click(f".hand [data-card='{card}']")  # a late click sends nothing more
    received(page, fake)
    assert len(fake.acts()) == 1
    # a click before the pause ends: played once
    fake.state(6, v)
    page.wait_for_function("() => window.__bela.seq === 6")
    page.click(f".hand [data-card='{card}']", position={"x": 6, "y": 14})
    received(page, fake)
    assert [a["seq"] for a in fake.acts()] == [5, 6]
    # past the pause (0.6 s from the state): the card is not played again
    stays(page, lambda: len(fake.acts()), 0.9, "the actions sent")
    # turned off: nothing plays by itself; the choice is kept
    page.click("#autoplay-check")
    stored = json.loads(page.evaluate("() => localStorage.getItem('bela.prefs')"))
    assert stored["autoplay"] is False
    fake.state(7, v)
    page.wait_for_function("() => window.__bela.seq === 7")
    stays(page, lambda: len(fake.acts()), 1.0, "the actions sent")  # past the pause
    assert [a["seq"] for a in fake.acts()] == [5, 6]
    assert not page.locator("#autoplay-check").is_checked()
    assert_no_errors(page)
    close_pages(page)


def test_a_thinking_bot_and_an_absent_players_countdown(browser: Any, bela_url: str) -> None:
    seat, v = _lone_card_view()
    bot = (seat + 1) % 4
    away = (seat + 2) % 4
    waiting = dict(v, turn=bot, legal=[])

    def make(pid: str) -> Fake:
        f = Fake(pid, seat)
        f.summary["seats"][away].update(kind="human", connected=False, autopilot_in=5.2)
        return f

    page, fake = _at_fake(browser, bela_url, make, autoplay=False)
    fake.state(5, waiting)
    page.wait_for_function("() => window.__bela.seq === 5")
    tag = page.locator(f".seat[data-seat='{away}'] [data-away]")
    first = tag.inner_text()
    assert first == _fill(HR["away_in"], n=6) or first == _fill(HR["away_in"], n=5), first
    left = lambda text: int(re.sub(r"\D", "", text))  # noqa: E731
    wait_until(page, lambda: left(tag.inner_text()) < left(first), what="the countdown a second on")
    # the bot takes the seat: the countdown goes, "nije tu" stays
    fake.summary["seats"][away].update(autopilot=True, autopilot_in=None)
    fake.send({"type": "table", "table": fake.summary})
    page.wait_for_selector(f".seat[data-seat='{away}'] .tag.warn >> text={HR['away']}")
    assert page.locator("[data-away]").count() == 0
    # a bot over its delay: marked on its plate until its move
    assert page.locator("[data-thinking]").count() == 0
    fake.send({"type": "thinking", "seat": bot, "seq": 4})  # of a state gone by: nothing
    taken(page, fake)
    assert page.locator("[data-thinking]").count() == 0
    fake.send({"type": "thinking", "seat": bot, "seq": 5})
    mark = page.locator(f".seat[data-seat='{bot}'] [data-thinking]")
    mark.wait_for()
    assert mark.inner_text() == HR["thinking"]
    fake.state(6, dict(waiting, turn=(bot + 1) % 4))
    page.wait_for_function("() => window.__bela.seq === 6")
    assert page.locator("[data-thinking]").count() == 0
    assert_no_errors(page)
    close_pages(page)


def test_the_claim_is_asked_in_the_page(browser: Any, bela_url: str) -> None:
    """The claim asked in an in-page dialog; and a declaration folded after the first trick
    shows its cards on a tap."""
    seat, v = _lone_card_view({"enforce": "off"})
    assert v["claim_allowed"] and v["tricks"]
    other = (seat + 1) % 4
    v["declared"][other] = [{"seat": other, "value": 50, "strength": 0, "text": "",
                             "kind": "sequence", "length": 4, "top": "A", "suit": "H",
                             "cards": ["JH", "QH", "KH", "AH"]}]
    page, fake = _at_fake(browser, bela_url, lambda pid: Fake(pid, seat, {"enforce": "off"}),
                          autoplay=False)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    fake.state(5, v)
    page.click("[data-cmd=claim]")
    ask = page.locator("#claim-ask")
    ask.wait_for()
    assert HR["claim_confirm"] in ask.inner_text()
    page.click("#claim-no")
    assert ask.count() == 0 and fake.acts() == []
    page.click("[data-cmd=claim]")
    page.keyboard.press("Escape")
    assert page.locator("#claim-ask").count() == 0
    page.click("[data-cmd=claim]")
    page.click("#claim-yes")
    received(page, fake)
    assert fake.acts() == [{"type": "act", "action": f"claim {seat}", "seq": 5}]
    assert page.locator("#claim-ask").count() == 0
    assert dialogs == []  # never the browser's confirm()
    chip = page.locator(f".seat[data-seat='{other}'] .decl")
    assert chip.inner_text() == "Zvanje: 50" and chip.locator(".card").count() == 0
    chip.click()
    assert chip.locator(".card.mini").count() == 4  # its cards on a tap, folded on another
    chip.click()
    assert chip.locator(".card.mini").count() == 0
    assert_no_errors(page)
    close_pages(page)


def test_a_rated_match_ends_with_the_rating_change_and_the_last_deal(
        browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Rea")
    play_match_with_bots(page, "bela2", rated=True)
    box = page.locator("#match-result")
    mine = box.locator("#rating-changes li.mine")
    mine.wait_for()
    m = re.fullmatch(r"Tvoj rejting: 1000 → (\d+) \(([+−])(\d+)\)", mine.inner_text().strip())
    assert m, mine.inner_text()
    after, sign, diff = int(m.group(1)), m.group(2), int(m.group(3))
    assert after - 1000 == (diff if sign == "+" else -diff)
    assert box.locator("#rating-changes li").count() == 2  # the bot's entry too
    last = box.locator("#last-deal")
    assert last.locator(".result-table tr.sum td").count() == 2
    assert "undefined" not in last.inner_text()
    ratings = page.evaluate("() => window.__bela.summary.ratings")
    assert [r["seat"] for r in ratings] == [0, 1] and ratings[0]["after"] == after
    assert_no_errors(page)
    close_pages(page)

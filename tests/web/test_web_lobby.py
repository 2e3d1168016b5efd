"""The lobby as a newcomer meets it (issue 38 item 9, browser review N8/N9): the list of
tables on the first screen of a desktop and of a phone, the open tables apart from the ones
being played (with the level of their bots), quick play's queue counted without the player
himself, a finished quick-play table no longer offered, the house-rule choices readable,
and the "the name is yours" note that goes.  Screenshots: tests/web/artifacts/lobby-*.png."""

from __future__ import annotations

import json
import re
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
    open_page,
    texts,
)

HR = texts("hr")
DESKTOP = {"width": 1280, "height": 800}


def _fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_tables_are_on_the_first_screen(browser: Any, bela_url: str, artifacts: Path,
                                            size: dict[str, int]) -> None:
    page = open_page(browser, bela_url, lang="hr", viewport=size)
    page.wait_for_selector("#create-table")
    # the open tables' list starts on the first screen; so do the running ones while no open
    # table is listed above them (the shared test server may hold other tests' open tables)
    page.wait_for_selector("#table-list")
    empty = page.locator("#table-list [data-table]").count() == 0
    for panel in ("#tables-panel", "#running-panel") if empty else ("#tables-panel",):
        box = page.locator(f"{panel} h2").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (
            panel, box)
    assert page.locator("#tables-panel h2").inner_text().startswith(HR["open_tables"])
    assert page.locator("#running-panel h2").inner_text() == HR["running_tables"]
    # the house rules' choices are not cut off: the chosen text fits its select
    page.select_option("#variant-select", "bela4")
    for sel in page.locator("#create-panel fieldset select").all():
        text_w, inner_w = sel.evaluate("""(s) => {
          const c = document.createElement('canvas').getContext('2d');
          const st = getComputedStyle(s);
          c.font = st.font;
          const pad = parseFloat(st.paddingLeft) + parseFloat(st.paddingRight);
          return [c.measureText(s.options[s.selectedIndex].text).width, s.clientWidth - pad - 16];
        }""")
        assert text_w <= inner_w, (sel.get_attribute("id"), text_w, inner_w)
    name = "desktop" if size == DESKTOP else "phone"
    page.screenshot(path=str(artifacts / f"lobby-first-screen-{name}.png"))
    assert_no_errors(page)
    close_pages(page)


def _table(tid: str, status: str, bot: str) -> dict[str, Any]:
    bots = status == "running"
    seats = [{"seat": s, "name": "Ana" if s == 0 else (f"Bot {s + 1}" if bots else None),
              "kind": "human" if s == 0 else ("bot" if bots else None),
              "player_id": None, "connected": s == 0, "autopilot": False} for s in range(4)]
    return {"id": tid, "variant": "bela4", "status": status, "owner": None, "rated": True,
            "options": {"target": 1001, "equal_declarations": "earlier", "tie": "fall",
                        "enforce": "on"}, "bot": bot, "seq": 0, "spectators": 0,
            "seats": seats, "private": False, "invite": f"/?table={tid}", "totals": None,
            "winner": None, "bot_fallback": False}


def test_open_and_running_tables_are_apart(browser: Any, bela_url: str) -> None:
    """An open table is listed to join, one being played apart to watch, with its bots'
    level by name."""
    listing = [_table("running1", "running", "club"), _table("open1", "open", "club")]

    def tables(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(listing),
                      headers={"X-Total-Count": str(len(listing))})

    page = open_page(browser, bela_url, lang="hr")
    page.route(re.compile(r"/api/tables\?"), tables)
    page.reload()
    page.wait_for_selector("#table-list li[data-table='open1']")
    page.wait_for_selector("#running-list li[data-table='running1']")
    assert page.locator("#table-list li").count() == 1
    assert page.locator("#running-list li").count() == 1
    running = page.locator("#running-list li[data-table='running1']")
    assert running.locator(".bot-level").inner_text() == HR["bot_club"]
    assert running.locator("button").inner_text() == HR["watch"]
    assert page.locator("#table-list .bot-level").count() == 0  # no bot sits there yet
    listing[:] = [_table("open1", "open", "club")]
    page.click("[data-cmd='refresh']")
    page.wait_for_selector("#running-list li", state="detached")
    assert page.locator("#running-list").inner_text() == HR["no_running"]
    assert_no_errors(page)
    close_pages(page)


def test_the_queue_counts_the_others_and_a_finished_table_goes(browser: Any,
                                                                bela_url: str) -> None:
    """Quick play waiting says who else waits (not the player himself); a matched table
    the server no longer offers (it has finished) is not offered back in the lobby."""
    answer: dict[str, Any] = {"status": "idle"}

    def quick(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Ana")
    page.route(re.compile(r"/api/quick$"), quick)
    waiting = {"status": "waiting", "variant": "bela4", "wait": 30, "waited": 3,
               "rating": 1000}
    for waiting_n, others, text in ((1, 0, HR["quick_queue_none"]),
                                    (2, 1, _fill(HR["quick_queue_one"], n=1)),
                                    (4, 3, _fill(HR["quick_queue_few"], n=3))):
        answer.clear()
        answer.update(waiting, waiting=waiting_n, others=others)
        page.reload()
        page.wait_for_selector("#quick-status[data-status=waiting]")
        page.wait_for_function("t => document.querySelector('.quick-queue').textContent === t",
                               arg=text)
    assert "Osim tebe" in HR["quick_queue_one"]
    # matched, opened once before: back in the lobby it is offered ...
    answer.clear()
    answer.update({"status": "matched", "table": "done1", "variant": "bela4"})
    page.evaluate("() => localStorage.setItem('bela.quick', 'done1')")
    page.reload()
    page.wait_for_selector("#quick-open")
    # ... until the server says the table has finished (idle): the lobby asks again
    answer.clear()
    answer.update({"status": "idle"})
    page.wait_for_selector("#quick-open", state="detached", timeout=6000)
    assert page.locator("#quick-play").is_visible()
    assert HR["quick_wait"] == "Igrače čekam najviše"
    assert_no_errors(page)
    close_pages(page)


def test_the_claimed_note_can_be_dismissed(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Nota")
    claim_name(page, "lozinka-duga-1")
    page.wait_for_selector("#account-note")
    assert page.locator("#account-note").inner_text() == _fill(HR["claimed"], name="Nota")
    page.click("#account-note-close")
    page.wait_for_selector("#account-note", state="detached")
    # it stays gone when the lobby is drawn again
    page.click("[data-cmd='refresh']")
    page.select_option("#variant-select", "bela2")
    assert page.locator("#account-note").count() == 0
    assert_no_errors(page)
    close_pages(page)

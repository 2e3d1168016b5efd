"""Friends, presence, invitations and avatars in Chromium against a real server: a request
from a profile, accepted in the lobby; the friend shown online at his table; an invitation
from the table page that brings the friend to the table; a chosen avatar on the plates;
bots' faces with their level's name."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    assert_no_errors,
    claim_name,
    close_pages,
    enter_name,
    open_page,
    texts,
    wait_until,
)

HR = texts("hr")
PASSWORD = "konj-i-kraljica-7"


def _account(browser: Any, url: str, name: str) -> Any:
    page = open_page(browser, url)
    enter_name(page, name)
    claim_name(page, PASSWORD)
    return page


def _id(page: Any) -> str:
    return str(page.evaluate("() => window.__bela.guest.player_id"))


def test_friends_request_accept_presence_and_invite_to_a_table(browser: Any,
                                                               bela_url: str) -> None:
    ana = _account(browser, bela_url, "Anka")
    bruno = _account(browser, bela_url, "Bruna")
    # Bruno asks from Ana's profile
    bruno.goto(f"{bela_url}/?player={_id(ana)}")
    bruno.click("#friend-add")
    bruno.wait_for_selector(f"text={HR['friend_asked']}")
    # Ana accepts in her lobby
    ana.goto(bela_url)
    ana.locator(f".request-row[data-player='{_id(bruno)}'] [data-cmd^='friend-accept']").click()
    ana.wait_for_selector(f".friend-row[data-player='{_id(bruno)}']")
    # Ana picks an avatar on her profile, then opens a table and sits
    ana.goto(f"{bela_url}/?player={_id(ana)}")
    ana.click("[data-cmd='avatar:owl']")
    wait_until(ana, lambda: ana.locator("[data-cmd='avatar:owl']").get_attribute(
        "aria-pressed") == "true", 10)
    # Bruno's profile lists his friends for others: Ana, with her avatar, a link to her
    ana.goto(f"{bela_url}/?player={_id(bruno)}")
    friend = ana.locator(f".profile-public-friends .friend[data-player='{_id(ana)}']")
    friend.locator("svg.avatar[data-avatar='owl']").wait_for()
    assert friend.text_content().strip() == "Anka"
    ana.goto(bela_url)
    ana.wait_for_selector("#variant-select")
    ana.select_option("#variant-select", "bela4")
    ana.click("#create-table")
    ana.wait_for_selector(".waiting")
    tid = ana.evaluate("() => window.__bela.tableId")
    ana.wait_for_selector(".seat-row[data-seat='0'] svg.avatar[data-avatar='owl']")
    # Bruno's lobby: Ana online, at her table
    bruno.goto(bela_url)
    row = bruno.locator(f".friend-row[data-player='{_id(ana)}']")
    row.wait_for()
    wait_until(bruno, lambda: row.get_attribute("data-online") == "true", 10)
    assert bruno.locator("#online-count").text_content() != ""
    # Ana invites Bruno from the table page; his lobby shows it; he joins and sits
    ana.reload()
    ana.wait_for_selector(".waiting")
    ana.click(f"[data-cmd='friend-invite:{_id(bruno)}']")
    bruno.reload()
    bruno.locator(".invite-row [data-cmd^='open:']").click()
    bruno.wait_for_selector(".waiting")
    assert bruno.evaluate("() => window.__bela.tableId") == tid
    bruno.click("[data-cmd='sit:1']")
    wait_until(ana, lambda: ana.evaluate(
        f"() => window.__bela.summary.seats[1].player_id === {_id(bruno)!r}"), 10)
    # bots in the other seats: their faces and their level's name
    ana.click("[data-cmd=bots]")
    ana.wait_for_selector(".seat-row[data-seat='2'] svg.bot-face")
    assert_no_errors(ana, bruno)
    close_pages(ana, bruno)

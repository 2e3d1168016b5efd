"""The analysis board in Chromium (issue 13): a pasted record stepped through with the keys
and the action list; every legal card's value is the solver's (``bela solve``'s
``dd.solve`` on the replayed round), the played and the best cards are marked; one seat's
view hides the other hands and adds the sampled values; the review of the whole match reaches
100 % and marks ``bela review``'s costly plays; the bidding simulation at a bid; "play on from
here" opens a running table where the hint button shows (unrated, bots only) and marks a
card; no hint at a rated table; a finished match links to its analysis (the result dialog,
the lobby's history).  Screenshots: tests/web/artifacts/analysis-phone.png,
analysis-seat-view-phone.png, analysis-hint-phone.png, analysis-desktop.png.
"""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from web_helpers import (  # noqa: E402
    ACTIVE,
    PHONE,
    assert_no_errors,
    click_first_legal,
    close_pages,
    diagnose,
    enter_name,
    no_overflow,
    open_page,
    texts,
)

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "bela4-pass-with-bela.json"
HR = texts("hr")


def _record() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _position(record: dict[str, Any], rnd: int, step: int) -> Any:
    """The round of ``record`` after ``step`` actions of round ``rnd`` (as `bela solve` reads a
    record that stops there)."""
    from bela.engine.record import read_record, replay

    cut = copy.deepcopy(record)
    cut["rounds"] = cut["rounds"][:rnd + 1]
    cut["rounds"][rnd]["actions"] = cut["rounds"][rnd]["actions"][:step]
    for key in ("card_points", "declarations", "bela", "total", "declared", "belas", "tricks"):
        cut["rounds"][rnd].pop(key, None)
    return replay(read_record(json.dumps(cut))).round


def _solved(record: dict[str, Any], rnd: int, step: int) -> tuple[int, dict[str, int], bool]:
    """The seat to play, the double-dummy value of each legal card, and raspas (fewest best)."""
    from bela.solver import dd

    sol = dd.solve(_position(record, rnd, step), line=False)
    return sol.seat, {str(c): v for c, v in sol.values.items()}, bool(sol.minimize)


def _costly(record: dict[str, Any]) -> dict[tuple[int, int], int]:
    from bela.analysis.review import review_match
    from bela.engine.record import read_record

    return {(p.round, p.action): p.loss for p in review_match(read_record(json.dumps(record)))}


@pytest.fixture(scope="module")
def bela_url(own_bela_url: str) -> str:
    """The analysis board's tests run on a server of their own: the analysis workers and
    the CPU are not shared with the bot tables and reviews the earlier browser tests left
    running on the session's server."""
    return own_bela_url


def _ready(page: Any, rnd: int, step: int, seat: int | None = None) -> None:
    """The board shows this position (the first one may wait for the workers: after a
    fresh install the solver compiles once, a minute on a slow machine)."""
    who = "all" if seat is None else str(seat)
    page.wait_for_selector(f"#an-board[data-ready='true'][data-round='{rnd}'][data-step='{step}']"
                           f"[data-seat='{who}']", timeout=120_000)


def _paste(page: Any, record: dict[str, Any]) -> None:
    page.fill("#an-paste", json.dumps(record))
    page.click("#an-paste-go")
    _ready(page, 0, 0)


def _shown_values(page: Any) -> dict[str, int]:
    rows = page.locator("#an-values tr[data-card]")
    out = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        out[row.get_attribute("data-card")] = int(row.locator("td.dd").inner_text())
    return out


def test_values_review_keys_and_seat_view(browser: Any, bela_url: str, artifacts: Path) -> None:
    record = _record()
    actions = record["rounds"][0]["actions"]
    page = open_page(browser, bela_url + "/analysis", lang="hr")
    page.fill("#an-paste", '{"variant": "bela4"}')  # not a record: said so, nothing opens
    page.click("#an-paste-go")
    assert page.locator("#an-load-error").inner_text() == HR["an_bad_json"]
    page.set_input_files("#an-file", str(EXAMPLE))  # a record file chosen (or dropped)
    _ready(page, 0, 0)
    assert EXAMPLE.name in page.locator("#an-source").inner_text()

    # the bidding: the bots' simulation of every call the bidder had, the call made marked
    page.wait_for_selector("#an-bidding tr[data-bid]", timeout=20000)
    legal = {a.token() for a in _position(record, 0, 0).legal_actions()}
    bids = page.locator("#an-bidding tr[data-bid]")
    assert {bids.nth(i).get_attribute("data-bid") for i in range(bids.count())} == legal
    assert page.locator("#an-bidding tr.played").get_attribute("data-bid") == actions[0]
    assert page.locator("#an-bidding tr.best").count() >= 1

    # the arrow keys, Home and End step through the round
    page.locator("#an-board").focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    _ready(page, 0, 5)
    assert page.locator("#an-counter").inner_text() == HR["an_step"].replace(
        "{n}", "5").replace("{total}", str(len(actions)))
    page.keyboard.press("ArrowLeft")
    _ready(page, 0, 4)
    page.keyboard.press("End")
    _ready(page, 0, len(actions))
    assert "Prolaz" in page.locator("#an-status").inner_text()
    page.keyboard.press("Home")
    _ready(page, 0, 0)

    # a card of the play, chosen in the action list: the solver's value on every legal card
    step = 9
    page.click(f"#an-act-0-{step}")
    _ready(page, 0, step)
    seat, values, minimize = _solved(record, 0, step)
    assert page.locator("#an-board").get_attribute("data-turn") == str(seat)
    assert _shown_values(page) == values
    hand = page.locator(f".an-seat[data-seat='{seat}']")
    for card, value in values.items():  # on the cards at the table too
        assert hand.locator(f".an-card[data-card='{card}'] .an-val.dd").inner_text() == str(value)
    played = actions[step].rstrip("*")
    assert page.locator("#an-values tr.played").get_attribute("data-card") == played
    assert hand.locator(".an-card.played").get_attribute("data-card") == played
    best = (min if minimize else max)(values.values())
    marked = page.locator("#an-values tr.best")
    assert {marked.nth(i).get_attribute("data-card") for i in range(marked.count())} == {
        c for c, v in values.items() if v == best}
    # every hand is face up: each seat's cards are drawn
    for s in range(4):
        assert page.locator(f".an-seat[data-seat='{s}'] .an-card[data-card]").count() > 0

    # the review of the whole match: 100 %, bela review's costly plays marked in the list
    page.wait_for_selector("#an-progress[data-status='done']", timeout=60000)
    assert page.locator("#an-progress").get_attribute("value") == "100"
    assert "100 %" in page.locator("#an-progress-text").inner_text()
    expected = _costly(record)
    assert expected, "the example has costly plays"
    marks = page.locator(".an-act.costly")
    shown = {}
    for i in range(marks.count()):
        _, r, a = marks.nth(i).get_attribute("id").split("-")[1:]
        shown[(int(r), int(a))] = int(marks.nth(i).get_attribute("data-loss"))
    assert shown == expected
    lost = [sum(v for (r, a), v in expected.items() if _seat_of(record, r, a) == s)
            for s in range(4)]
    cells = page.locator("#an-review td[data-lost]")
    assert [int(cells.nth(s).get_attribute("data-lost")) for s in range(4)] == lost
    # a mistake of the summary goes to its position
    page.click("#an-mistake-0")
    top = max(expected, key=expected.__getitem__)
    _ready(page, top[0], top[1])
    page.screenshot(path=str(artifacts / "analysis-desktop.png"), full_page=True)

    # one seat's view: the seat to play sees only its own cards, and the sampled values
    seat, values_now, _ = _solved(record, *top)
    page.click(f"#an-view-{seat}")
    _ready(page, top[0], top[1], seat)
    for s in range(4):
        faces = page.locator(f".an-seat[data-seat='{s}'] .an-card[data-card]").count()
        backs = page.locator(f".an-seat[data-seat='{s}'] .an-card.back").count()
        if s == seat:
            assert faces > 0 and backs == 0
        else:
            assert faces == 0 and backs > 0, s
    assert _shown_values(page) == values_now
    sampled = page.locator("#an-values td.smp")
    assert sampled.count() == len(values_now)
    for i in range(sampled.count()):
        float(sampled.nth(i).get_attribute("data-sampled"))
    # another seat's view: the cards and the values of the seat to play are hidden
    other = (seat + 1) % 4
    page.click(f"#an-view-{other}")
    _ready(page, top[0], top[1], other)
    assert page.locator(f".an-seat[data-seat='{seat}'] .an-card[data-card]").count() == 0
    assert page.locator("#an-values tr[data-card]").count() == 0
    page.click("#an-view-all")
    _ready(page, top[0], top[1])
    no_overflow(page)
    assert_no_errors(page)
    close_pages(page)


def _seat_of(record: dict[str, Any], rnd: int, index: int) -> int:
    return int(_position(record, rnd, index).turn)


def test_phone_play_on_and_the_hint(browser: Any, bela_url: str, artifacts: Path) -> None:
    record = _record()
    page = open_page(browser, bela_url, lang="hr", viewport=PHONE)
    enter_name(page, "Analitičarka")
    page.goto(bela_url + "/analysis")
    _paste(page, record)
    step = 9
    page.click(f"#an-act-0-{step}")
    _ready(page, 0, step)
    seat = int(page.locator("#an-board").get_attribute("data-turn"))
    page.wait_for_selector("#an-progress[data-status='done']", timeout=60000)
    page.evaluate("window.scrollTo(0, 0)")
    no_overflow(page)
    page.screenshot(path=str(artifacts / "analysis-phone.png"), full_page=True)
    page.click(f"#an-view-{seat}")
    _ready(page, 0, step, seat)
    no_overflow(page)
    page.screenshot(path=str(artifacts / "analysis-seat-view-phone.png"))

    # play on from here: a new table where this player sits in the seat to play, with bots
    page.select_option("#an-playon-seat", str(seat))
    page.click("#an-playon")
    page.wait_for_url(re.compile(r"/\?table=[\w-]+"), timeout=20000)
    page.wait_for_selector(f".game[data-seat='{seat}']", timeout=20000)
    page.wait_for_function("() => window.__bela.status === 'running'")
    summary = page.evaluate("() => window.__bela.summary")
    assert summary["rated"] is False
    assert all(s["kind"] == "bot" for s in summary["seats"] if s["seat"] != seat)
    v = page.evaluate("() => window.__bela.view")
    assert v["turn"] == seat and v["phase"] == "play"
    from bela.engine.cards import CardSet

    held = CardSet(_position(record, 0, step).hands[seat])
    assert sorted(v["hand"]) == sorted(str(c) for c in held)
    # the hint: an unrated table with bots only, this player's turn; it marks a legal card
    page.click("#hint-btn")
    page.wait_for_selector(".hand .hand-card.hinted", timeout=20000)
    page.screenshot(path=str(artifacts / "analysis-hint-phone.png"))
    hinted = page.locator(".hand .hand-card.hinted").get_attribute("data-card")
    assert hinted in {a.rstrip("*") for a in v["legal"]}
    assert page.locator("#hint-text").count() == 1
    no_overflow(page)
    assert_no_errors(page)
    close_pages(page)


def _start_with_bots(page: Any, variant: str, rated: bool) -> None:
    """From the lobby: a table of ``variant`` to 1, bots in the other seats, started."""
    page.wait_for_selector("#variant-select")
    page.select_option("#variant-select", variant)
    page.fill("#target-input", "1")
    page.select_option("#bot-select", "heuristic")
    check = page.locator("#rated-check")
    if check.is_checked() != rated:
        check.click()
    page.click("#create-table")
    page.wait_for_selector(".waiting")
    page.click("[data-cmd=bots]")
    page.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind)")
    page.click("[data-cmd=start]")
    page.wait_for_selector(".game[data-seat='0']")


def test_no_hint_at_a_rated_table(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url, lang="hr")
    enter_name(page, "Bez Savjeta")
    _start_with_bots(page, "bela2", rated=True)
    page.wait_for_selector(ACTIVE, timeout=20000)  # this player's turn
    assert page.evaluate("() => window.__bela.summary.rated") is True
    assert page.locator("#hint-btn").count() == 0
    assert_no_errors(page)
    close_pages(page)


def test_a_finished_match_opens_in_the_analysis(browser: Any, bela_url: str) -> None:
    page = open_page(browser, bela_url, lang="en")
    enter_name(page, "Reviewer")
    seen_hint: list[bool] = []

    def watch() -> None:  # at each of the player's turns: is the hint button there?
        shown = page.evaluate("(active) => document.querySelector(active) ? "
                              "!!document.getElementById('hint-btn') : null", ACTIVE)
        if shown is not None:
            seen_hint.append(shown)

    # an unrated match against bots: the hint button shows at every turn of the player
    table_id = _play_watching(page, watch)
    assert seen_hint and all(seen_hint), seen_hint

    link = page.locator("#analyse-match")
    assert link.get_attribute("href") == f"/analysis?table={table_id}"
    link.click()
    page.wait_for_url(re.compile(r"/analysis\?table="))
    _ready(page, 0, 0)
    heading = page.locator("#an-heading").inner_text()
    assert "Reviewer" in heading
    page.wait_for_selector("#an-progress[data-status='done']", timeout=60000)

    # the lobby's history and the profile's matches link to the analysis of each
    for url in (bela_url, bela_url + "/?player=" + page.evaluate(
            "() => JSON.parse(localStorage.getItem('bela.guest')).player_id")):
        page.goto(url)
        page.wait_for_selector(f"[data-analyse='{table_id}']", timeout=20000)
        assert page.locator(f"[data-analyse='{table_id}']").get_attribute("href") == (
            f"/analysis?table={table_id}")
    assert_no_errors(page)
    close_pages(page)


def _play_watching(page: Any, watch: Any, timeout: float = 120) -> str:
    """As web_helpers.play_match_with_bots (unrated bela2 to 1), calling ``watch()`` before
    each click; the table's id."""
    _start_with_bots(page, "bela2", rated=False)
    table_id: str = page.evaluate("() => window.__bela.tableId")
    deadline = time.monotonic() + timeout
    while not page.locator("#match-result").count():
        if time.monotonic() > deadline:
            raise AssertionError("the match did not finish:\n" + diagnose([page]))
        watch()
        if not click_first_legal(page):
            page.wait_for_timeout(60)
    return table_id


"""Helpers of the browser tests: pages with given preferences, names, playing by the UI."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urljoin

# Every control that makes a game decision carries the class "act" (legal cards, bids,
# exchange and declaration prompts, the bela prompt); illegal ones are aria-disabled.
ACTIVE = ".act:not([aria-disabled='true']):not([disabled])"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def open_page(browser: Any, url: str, *, lang: str = "hr", deck: str = "hungarian",
              viewport: dict[str, int] | None = None, **context_args: Any) -> Any:
    """A new context and page at ``url`` with the given language and deck preferences."""
    phone = viewport == PHONE
    ctx = browser.new_context(viewport=viewport or DESKTOP, accept_downloads=True,
                              has_touch=phone, is_mobile=phone, **context_args)
    prefs = json.dumps({"lang": lang, "deck": deck})
    ctx.add_init_script(f"if (!localStorage.getItem('bela.prefs')) "
                        f"localStorage.setItem('bela.prefs', {json.dumps(prefs)})")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.bela_errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def park(page: Any) -> str:
    """Leave the app for a document without scripts of the same origin (its storage stays):
    nothing of the page polls the server while a test changes what it will find there (the
    lobby's refresh would otherwise see the change first, at a moment of its own).  The
    address it left, to come back to."""
    url = page.url
    page.goto(urljoin(url, "/web/favicon.svg"))
    return url


def enter_name(page: Any, name: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    form = page.locator("form[data-form=guest]")
    form.locator("input[name=name]").fill(name)
    try:
        with page.expect_response(lambda r: r.url.endswith("/api/guests")) as answer:
            form.locator("button").click()
    except PlaywrightTimeout:  # the click sent nothing: say what the page held then
        state = page.evaluate("""() => ({forms: [...document.querySelectorAll(
            'form[data-form=guest]')].map(f => f.querySelector('input[name=name]')?.value ?? null),
            guest: !!(window.__bela && window.__bela.guest)})""")
        raise AssertionError(f"no POST /api/guests after the click at {page.url}: guest "
                             f"forms' names {state['forms']}, a guest {state['guest']}, "
                             f"page errors {getattr(page, 'bela_errors', [])}") from None
    assert answer.value.ok, f"POST /api/guests: {answer.value.status} {answer.value.text()}"
    page.wait_for_function("() => window.__bela && window.__bela.guest")


def view(page: Any) -> dict[str, Any] | None:
    return page.evaluate("() => window.__bela.view")  # type: ignore[no-any-return]


def click_first_legal(page: Any) -> bool:
    """Click the first enabled game control of the page, if there is one."""
    loc = page.locator(ACTIVE)
    if not loc.count():
        return False
    try:
        # near the top left corner: the part of an overlapped card in a fanned hand that shows
        loc.first.click(timeout=1500, position={"x": 6, "y": 14})
    except Exception:  # the page re-rendered under the click: try again next time
        return False
    return True


def play_until(pages: Sequence[Any], done: Callable[[], bool], timeout: float,
               each: Callable[[int], None] | None = None) -> int:
    """Click the first legal choice on each page in turn until ``done()``; the clicks made."""
    deadline = time.monotonic() + timeout
    clicks = 0
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError("the game did not get there in time:\n" + diagnose(pages))
        moved = False
        for p in pages:
            if click_first_legal(p):
                clicks += 1
                moved = True
                if each is not None:
                    each(clicks)
        if not moved:
            pages[0].wait_for_timeout(60)
    return clicks


def wait_until(page: Any, ready: Callable[[], bool], timeout: float = 5.0,
               what: str = "the expected state") -> None:
    """Poll ``ready()`` (a condition on the test's side: messages a fake server got, requests
    the page made) until it holds, failing after ``timeout`` seconds; the page's events run
    meanwhile."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come within {timeout} s")
        page.wait_for_timeout(40)


def stays(page: Any, value: Callable[[], Any], seconds: float, what: str = "it") -> None:
    """``value()`` does not change for ``seconds`` (what must not happen, as a reconnect
    loop or a timer's move, would have happened by then): polled, failing at the first
    change."""
    first = value()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_timeout(50)
        now = value()
        assert now == first, f"{what} changed: {first!r} -> {now!r}"


_FENCES = itertools.count(1)


def taken(page: Any, fake: Any) -> None:
    """Until the page has taken every message the fake server (``fake.send``, its
    ``summary``) sent before: a summary marked with a new number follows them, and the page
    holds it (a socket's messages come in order)."""
    n = next(_FENCES)
    fake.send({"type": "table", "table": {**fake.summary, "fence": n}})
    page.wait_for_function("(n) => window.__bela.summary && window.__bela.summary.fence === n",
                           arg=n)


def received(page: Any, fake: Any) -> None:
    """Until the fake server (``fake.got``) has every message the page sent before: a
    message of the test's own follows them on the page's socket."""
    n = next(_FENCES)
    page.evaluate("(n) => window.__bela.ws.send(JSON.stringify({type: 'fence', n}))", n)
    wait_until(page, lambda: {"type": "fence", "n": n} in fake.got, what="the page's messages")


def settled(page: Any, timeout: float = 3.0) -> None:
    """Until the page's animations and transitions (a card sliding in, a trick collected)
    have ended: a screenshot then shows the table at rest (a running pulse, as the urgent
    clock's, goes on for ever and is not waited for)."""
    page.wait_for_function(
        """() => document.getAnimations().every((a) => a.playState !== 'running'
              || a.effect.getTiming().iterations === Infinity)""",
        timeout=timeout * 1000)


def lobby_refreshes(page: Any) -> Callable[[], int]:
    """A counter of the lobby's list requests (GET /api/tables?...) the page makes from now
    on: each refresh of the lobby asks for it."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url) if "/api/tables?" in r.url else None)
    return lambda: len(seen)


# the lobby refreshing every quarter second (app.js: ?refresh= in seconds), for the tests
# that wait for a refresh
REFRESH = "refresh=0.25"


def diagnose(pages: Sequence[Any]) -> str:
    """Each page's state (and a screenshot in the artifacts) for a failed test."""
    from pathlib import Path

    out = []
    folder = Path(__file__).parent / "artifacts"
    folder.mkdir(exist_ok=True)
    for i, p in enumerate(pages):
        try:
            p.screenshot(path=str(folder / f"stuck-{i}.png"))
            info = p.evaluate("""(active) => { const S = window.__bela, v = S.view || {};
                return {seq: S.seq, status: S.status, conn: S.conn, busy: S.busy,
                        queue: S.queue.length, phase: v.phase, seat: v.seat, turn: v.turn,
                        legal: v.legal, trick: v.trick, ui: S.ui, toast: S.toast,
                        active: document.querySelectorAll(active).length}; }""", ACTIVE)
        except Exception as exc:  # noqa: BLE001
            info = repr(exc)
        out.append(f"page {i}: {info}")
    return "\n".join(out)


def texts(lang: str) -> dict[str, str]:
    """The UI's texts in ``lang`` ("hr", "en"), read from its dictionary (web/i18n/LANG.json)."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[2] / "src" / "bela" / "web" / "i18n" / f"{lang}.json"
    texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return texts


def facts(variant: str) -> dict[str, Any]:
    """The variant's facts a table summary carries (``facts``), as the server sends them."""
    from bela.engine.variants import get_variant
    from bela.server.hub import variant_facts

    return variant_facts(get_variant(variant))


def close_pages(*pages: Any) -> None:
    """Close each page's browser context."""
    for p in pages:
        p.context.close()


def assert_no_errors(*pages: Any) -> None:
    """No page logged a script error or a failed request (``bela_errors``)."""
    for p in pages:
        assert not p.bela_errors, p.bela_errors


# -- accounts, matches against bots (issue 12) ----------------------------------------------
def claim_name(page: Any, password: str) -> None:
    """The guest of ``page`` claims his name with ``password`` (the account panel's form)."""
    page.click("#show-claim")
    page.fill("#claim-password", password)
    page.fill("#claim-password2", password)
    page.click("#claim-submit")
    page.wait_for_function("() => window.__bela.guest && window.__bela.guest.account")


def log_in(page: Any, name: str, password: str) -> None:
    """Log in on ``page`` (no player, or a guest) with name and password."""
    if not page.locator("#login-name").count():
        page.click("#show-login")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login-submit")


def play_match_with_bots(page: Any, variant: str = "bela2", *, rated: bool = True,
                         timeout: float = 120) -> str:
    """From the lobby: a table of ``variant`` to 1 with bots in the other seats, played by
    clicking the first legal choice until the match's result shows; the table's id."""
    page.wait_for_selector("#variant-select")
    page.select_option("#variant-select", variant)
    page.fill("#target-input", "1")  # the smallest target: one round decides the match
    page.select_option("#bot-select", "heuristic")
    check = page.locator("#rated-check")
    if check.is_checked() != rated:
        check.click()
    page.click("#create-table")
    page.wait_for_selector(".waiting")
    table_id: str = page.evaluate("() => window.__bela.tableId")
    page.click("[data-cmd=bots]")
    page.wait_for_function("() => window.__bela.summary.seats.every(s => s.kind)")
    page.click("[data-cmd=start]")
    page.wait_for_selector(".game[data-seat='0']")
    deadline = time.monotonic() + timeout
    while not page.locator("#match-result").count():
        if time.monotonic() > deadline:
            raise AssertionError("the match did not finish:\n" + diagnose([page]))
        if not click_first_legal(page):
            page.wait_for_timeout(60)
    return table_id


def no_overflow(page: Any) -> None:
    """Nothing of the page is wider than the window (no sideways scrolling)."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    inner = page.evaluate("() => window.innerWidth")
    assert width <= inner, (width, inner)

"""Talk between two browsers across two instances (issue 44, part 6): two ``bela serve``
processes on one PostgreSQL and one Redis; Ana's page talks to the first, Bruno's to the
second, at one table (run by the first, Bruno's connection relayed through Redis).  They
exchange lines of free text while no deal runs and a phrase; Bruno reports Ana's line and
the report is read back from the database.  Needs BELA_TEST_POSTGRES_URL (PostgreSQL) and
``redis-server``, like tests/server/test_server_cluster.py."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

from conftest import serve_bela  # noqa: E402
from web_helpers import (  # noqa: E402
    assert_no_errors,
    claim_name,
    close_pages,
    enter_name,
    open_page,
    texts,
    wait_until,
)

from server.server_helpers import redis_server  # noqa: E402  (tests/ is on the path)

URL = os.environ.get("BELA_TEST_POSTGRES_URL")
REDIS = shutil.which("redis-server")
pytestmark = [
    pytest.mark.skipif(not URL or not URL.startswith("postgresql"),
                       reason="BELA_TEST_POSTGRES_URL (PostgreSQL) is not set"),
    pytest.mark.skipif(REDIS is None, reason="redis-server is not installed"),
]
HR = texts("hr")
PASSWORD = "konj-i-kraljica-7"



@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two instances on an emptied database and a fresh Redis: their addresses."""
    from sqlalchemy import create_engine, text

    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    tmp = tmp_path_factory.mktemp("bela-site")
    with contextlib.ExitStack() as stack:
        redis, _ = stack.enter_context(redis_server(tmp))
        serve = contextlib.contextmanager(serve_bela)
        urls = []
        for name in ("bela1", "bela2"):
            (tmp / name).mkdir()
            urls.append(stack.enter_context(serve(
                tmp / name, URL, ("--redis", redis, "--instance", name, "--lease-ttl", "1.5"))))
        yield urls


def _account(browser: Any, url: str, name: str) -> Any:
    page = open_page(browser, url)
    enter_name(page, name)
    claim_name(page, PASSWORD)
    return page


def test_two_browsers_at_two_instances_talk_and_a_report_is_stored(
        browser: Any, site: list[str]) -> None:
    from sqlalchemy import create_engine, select

    from bela.storage.models import talk_reports

    first, second = site
    ana = _account(browser, first, "Anica")
    ana.wait_for_selector("#variant-select")
    ana.select_option("#variant-select", "bela2")
    ana.click("#create-table")
    ana.wait_for_selector(".waiting")
    tid = ana.evaluate("() => window.__bela.tableId")
    bruno = _account(browser, second, "Brunić")
    bruno.goto(f"{second}/?table={tid}")
    bruno.wait_for_selector(".waiting")
    bruno.click("[data-cmd='sit:1']")
    wait_until(ana, lambda: ana.evaluate(
        "() => window.__bela.summary.seats[1].kind === 'human'"), 10)
    # lines both ways while no deal runs, through Redis
    ana.fill("#talk-text", "bok Bruno, <b>igramo</b>?")
    ana.click(".talk-form button[type=submit]")
    line = bruno.locator(".talk-line .talk-text")
    line.wait_for()
    assert line.text_content() == "bok Bruno, <b>igramo</b>?"
    bruno.fill("#talk-text", "može, Anice")
    bruno.click(".talk-form button[type=submit]")
    wait_until(ana, lambda: ana.locator(".talk-line .talk-text").all_text_contents()
               == ["bok Bruno, <b>igramo</b>?", "može, Anice"], 10)
    # a phrase from the relayed page shows on his seat in both browsers
    bruno.click("[data-cmd='say:sretno']")
    for page in (ana, bruno):
        bubble = page.locator(".seat-row[data-seat='1'] .talk-bubble")
        bubble.wait_for()
        assert bubble.text_content() == HR["talk_phrase_sretno"]
    # Bruno reports Ana's line at his instance: stored in the site's database
    bruno.locator(".talk-report").first.click()
    wait_until(bruno, lambda: bruno.locator(".talk-report").first.text_content()
               == HR["talk_reported"], 10)
    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:
        rows = [dict(r._mapping) for r in conn.execute(select(talk_reports))]
    engine.dispose()
    assert [(r["table_id"], r["text"]) for r in rows] == [(tid, "bok Bruno, <b>igramo</b>?")]
    assert [c["text"] for c in rows[0]["context"]] == ["bok Bruno, <b>igramo</b>?"]
    assert_no_errors(ana, bruno)
    close_pages(ana, bruno)

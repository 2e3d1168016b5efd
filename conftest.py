"""Test tiers, and no silent skips in CI (for tests/ and the doctests of src/bela).

Every test gets one tier marker from where it lives (CONTRIBUTING.md):

- ``unit``: the engine, variants, solver, bots, terminal, learning environment, docs and
  static checks, the doctests outside the server: no browser, database server or Redis
  (``pytest -m unit``);
- ``server``: the server and storage in one process on SQLite (their doctests too);
- ``browser``: Playwright in Debian's Chromium (``tests/web``);
- ``postgres``: the server or storage on a real PostgreSQL (``BELA_TEST_POSTGRES_URL``);
- ``cluster``: several server instances on PostgreSQL and Redis, and Redis itself.

A module may name its own tier (``pytestmark = pytest.mark.postgres``); then it gets no other.

Under ``CI=true`` (``.ci/run`` in CI) a skip is a failure: a missing Chromium, PostgreSQL,
Redis or package must not pass as green. A skip that is a test's own decision, not a missing
service, says so with a reason starting ``not applicable:``.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

TIERS = ("unit", "server", "browser", "postgres", "cluster")
ROOT = Path(__file__).resolve().parent
# modules of tests/server and tests/storage that need a service beside the server
SERVICE_MODULES = {
    "test_server_postgres.py": "postgres",
    "test_storage_accounts.py": "server",
    "test_server_cluster.py": "cluster",
}
NOT_APPLICABLE = "not applicable:"


def tier_of(path: Path) -> str:
    """The tier of the test or doctest module at ``path``."""
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return "unit"
    parts = rel.parts
    if parts[:2] == ("tests", "web"):
        return "browser"
    if parts[:1] == ("tests",) and len(parts) > 1 and parts[1] in ("server", "storage"):
        return SERVICE_MODULES.get(rel.name, "server")
    if parts[:3] in (("src", "bela", "server"), ("src", "bela", "storage")):
        return "server"
    return "unit"


def pytest_configure(config: pytest.Config) -> None:
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier}: the {tier} tier (tests/conftest.py)")
    _own_postgres_database()


def _own_postgres_database() -> None:
    """Under pytest-xdist (``-n``), each worker gets a PostgreSQL database of its own,
    ``BELA_TEST_POSTGRES_URL``'s name with the worker's after it (made where missing): the
    PostgreSQL tests empty their database first, so two workers must not share one."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get("BELA_TEST_POSTGRES_URL")
    if not worker or not url or f"_{worker}" in url.rsplit("/", 1)[-1]:
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(url)
    own = f"{base.database}_{worker}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :d"),
                            {"d": own}).first() is None:
                conn.execute(text(f'CREATE DATABASE "{own}"'))
    except Exception:  # PostgreSQL unreachable: its tests say so themselves, as without -n
        return
    finally:
        engine.dispose()
    os.environ["BELA_TEST_POSTGRES_URL"] = base.set(database=own).render_as_string(
        hide_password=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(t) for t in TIERS):
            item.add_marker(getattr(pytest.mark, tier_of(Path(str(item.fspath)))))


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_skip(report: Any) -> None:
    reason = _reason(report.longrepr)
    if NOT_APPLICABLE in reason:
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped under CI=true, where every service the tests need is "
                       f"installed by .ci/run: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]
                              ) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if _in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        _fail_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if _in_ci() and report.skipped:
        _fail_skip(report)

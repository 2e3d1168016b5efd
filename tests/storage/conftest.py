"""The storage tests' database: each test runs on SQLite and, where
``BELA_TEST_POSTGRES_URL`` names one (``.ci/run`` makes it), on an empty PostgreSQL."""

from __future__ import annotations

import os
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import text  # noqa: E402

from bela.storage import Database, make_engine  # noqa: E402

POSTGRES = os.environ.get("BELA_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest) -> Any:
    if request.param == "sqlite":
        url = "sqlite://"
    elif POSTGRES:
        url = POSTGRES
        engine = make_engine(url)
        with engine.begin() as conn:  # an empty database
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    else:
        pytest.skip("BELA_TEST_POSTGRES_URL is not set")
    database = Database(url)
    yield database
    database.close()

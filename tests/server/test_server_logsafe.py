"""The server's log never carries hidden cards, and a database outage does not flood it
(docs/SECURITY.md "Logs"): a refused statement's error shows no values, and the lease tick
logs a database error once, then at debug level, as it does a Redis error."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from bela.storage import Database

CARD = re.compile(r"\b[789TJQKA][HDSC]\b")


def test_a_refused_deal_shows_no_hand(tmp_path: Path,
                                      caplog: pytest.LogCaptureFixture) -> None:
    """The database refuses a deal (here: a trigger): the error, as the table's actor logs
    it, has the statement but not its values (the hands)."""
    path = tmp_path / "bela.db"
    db = Database(f"sqlite:///{path}")
    try:
        pid, _ = db.players.create_player("Ana")
        db.tables.create_table("t1", "bela2", {}, 1, "heuristic", pid, 2, private=False,
                        invite_code=None, active_at=datetime.now(UTC), turn_clock=None)
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON rounds "
                         "BEGIN SELECT RAISE(ABORT, 'refused'); END")
        deal = {"hands": ["AS TC 9S JC QC KD", "7D AC 8H 9H TH JH"], "extra": {}}
        logger = logging.getLogger("bela.server")
        with pytest.raises(SQLAlchemyError) as refused, caplog.at_level(logging.DEBUG):
            try:
                db.tables.add_round("t1", 0, 1, 0, deal)
            except SQLAlchemyError:
                logger.exception("table t1: the deal could not be stored")  # as the actor
                raise
        assert "refused" in str(refused.value)
        assert not CARD.search(str(refused.value)), str(refused.value)
        assert caplog.text and not CARD.search(caplog.text), caplog.text
    finally:
        db.close()


def test_a_database_error_in_the_lease_tick_is_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    from bela.server.cluster import Cluster
    from bela.server.metrics import Metrics

    async def run() -> None:
        lobby = SimpleNamespace(on_change=None, on_drop=None, on_conflict=None)

        async def serve(*_args: Any) -> Any:
            return None

        cluster = Cluster("redis://127.0.0.1:1", "i0", lobby, Metrics(),  # type: ignore[arg-type]
                          0.03, serve)
        ticks = 0

        async def failing_tick() -> None:
            nonlocal ticks
            ticks += 1
            raise OperationalError("UPDATE tables SET x=?", ("AS TC",),
                                   Exception("the database is down"))

        cluster.tick = failing_tick  # type: ignore[method-assign]
        closed = asyncio.Event()
        task = asyncio.create_task(cluster._ticks(closed))
        while ticks < 10:
            await asyncio.sleep(0.01)
        closed.set()
        await task
        await cluster.redis.aclose()

    with caplog.at_level(logging.DEBUG, logger="bela.server"):
        asyncio.run(run())
    tick_lines = [r for r in caplog.records if "lease tick" in r.getMessage()]
    assert len(tick_lines) >= 10
    assert [r.levelno for r in tick_lines if r.levelno > logging.DEBUG] == [logging.WARNING]
    assert not any(r.exc_info for r in tick_lines)  # no tracebacks
    assert "AS TC" not in caplog.text  # nor the statement's values

"""The tables' log as the server's writer appends it (:meth:`Tables.append`, a group
commit run on the driver's cursor): every event of a batch written in one transaction,
each fenced on its table's stored event count (an entry whose fence does not move is not
written, the others are), deals stored as the JSON they were given, on SQLite and
PostgreSQL alike."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import text  # noqa: E402

from bela.storage import Database, make_engine  # noqa: E402
from bela.storage.db import now  # noqa: E402
from bela.storage.repos.tables import LogEntry  # noqa: E402

DEAL = {"hands": [["JH", "9H"], ["AS", "10S"]], "extra": {"talon": ["KD"]}}


def _tables(db: Database, *ids: str) -> None:
    for tid in ids:
        db.tables.create_table(tid, "bela2", {}, 1, "random", None, 2, private=False,
                               invite_code=None, active_at=now(), turn_clock=None)


def _log(db: Database, tid: str) -> tuple[list[tuple[int, int, dict]], list[tuple[int, str]]]:
    table = db.tables.load_table(tid, with_log=True)
    assert table is not None
    return ([(r["seq"], r["dealer"], r["deal"]) for r in table["rounds"]],
            [(a["seq"], a["token"]) for a in table["actions"]])


def test_a_batch_of_deals_and_actions_is_written_whole(db: Database) -> None:
    _tables(db, "a", "b")
    assert db.tables.append([LogEntry("a", 1, 0, 1, deal=DEAL),
                             LogEntry("b", 1, 0, 0, deal=DEAL)]) == [True, True]
    assert db.tables.append([LogEntry("a", 2, 0, 0, "JH"),
                             LogEntry("b", 2, 0, 1, "AS")]) == [True, True]
    assert db.tables.append([LogEntry("b", 3, 0, 0, "9H")]) == [True]
    assert _log(db, "a") == ([(1, 1, DEAL)], [(2, "JH")])
    assert _log(db, "b") == ([(1, 0, DEAL)], [(2, "AS"), (3, "9H")])


def test_an_entry_whose_fence_does_not_move_is_refused_alone(db: Database) -> None:
    """Event ``seq`` is written only where the table's log stands at ``seq - 1`` (the
    fencing of docs/ARCHITECTURE.md); the batch's other events are kept."""
    _tables(db, "a", "b", "c")
    assert db.tables.append([LogEntry(t, 1, 0, 0, deal=DEAL) for t in "abc"]) == [True] * 3
    written = db.tables.append([LogEntry("a", 2, 0, 1, "JH"),
                                LogEntry("b", 5, 0, 1, "AS"),  # a gap: not at 4
                                LogEntry("c", 1, 0, 1, "9H")])  # already written
    assert written == [True, False, False]
    assert _log(db, "a")[1] == [(2, "JH")]
    assert _log(db, "b")[1] == [] and _log(db, "c") == ([(1, 0, DEAL)], [])
    assert db.tables.append([LogEntry("b", 2, 0, 1, "AS")]) == [True]  # the log goes on


def test_a_failed_batch_writes_nothing_and_the_next_one_is_written(db: Database) -> None:
    _tables(db, "a", "b")
    with pytest.raises(Exception, match="(?i)null"):  # the driver's error: no token
        db.tables.append([LogEntry("a", 1, 0, 0, deal=DEAL), LogEntry("b", 1, 0, 0, None)])
    assert _log(db, "a") == ([], []) and _log(db, "b") == ([], [])
    assert db.tables.append([LogEntry("a", 1, 0, 0, deal=DEAL)]) == [True]
    assert _log(db, "a") == ([(1, 0, DEAL)], [])
    assert db.tables.load_table("a")["seq"] == 1 and db.tables.load_table("b")["seq"] == 0


def test_two_events_of_one_table_in_a_batch_are_refused(db: Database) -> None:
    """A table's next event waits for its last, so a batch holds one event a table; one
    that does not is refused whole (it could not be fenced event by event)."""
    _tables(db, "a", "b")
    with pytest.raises(ValueError, match="one event a table"):
        db.tables.append([LogEntry("a", 1, 0, 0, deal=DEAL), LogEntry("b", 1, 0, 0, deal=DEAL),
                          LogEntry("a", 2, 0, 0, "JH")])
    assert _log(db, "a") == ([], []) and _log(db, "b") == ([], [])


def test_a_batch_leaves_its_connection_as_it_found_it(db: Database) -> None:
    """The next query on the pooled connection runs in a transaction of its own again
    (PostgreSQL's batch runs as one statement in autocommit), after a written batch and
    after a failed one."""
    _tables(db, "a")
    assert db.tables.append([LogEntry("a", 1, 0, 0, deal=DEAL)]) == [True]
    with pytest.raises(Exception, match="(?i)null"):
        db.tables.append([LogEntry("a", 2, 0, 0, None)])
    with db.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert getattr(raw, "autocommit", False) in (False, -1)  # -1: sqlite3's legacy mode


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)  # a server that drops one
def test_a_connection_the_database_lost_fails_its_batch_and_is_dropped(db: Database) -> None:
    """The batch on a connection PostgreSQL closed fails (the writer's waiters hear of
    it), and the next batch gets a new connection from the pool and is written."""
    _tables(db, "a")
    assert db.tables.append([LogEntry("a", 1, 0, 0, deal=DEAL)]) == [True]
    with db.engine.connect() as conn:
        pid = conn.connection.dbapi_connection.info.backend_pid
    admin = make_engine(db.url)
    with admin.begin() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()
    with pytest.raises(Exception, match="(?i)terminat|closed|lost"):
        db.tables.append([LogEntry("a", 2, 0, 0, "JH")])
    assert db.tables.append([LogEntry("a", 2, 0, 0, "JH")]) == [True]
    assert _log(db, "a") == ([(1, 0, DEAL)], [(2, "JH")])

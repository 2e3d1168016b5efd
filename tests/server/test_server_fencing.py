"""The log fence: ``tables.seq``, the count of a table's stored events (deals and actions).

It exists so that two server processes that both believe they run a table (a lease that
expired while its holder was paused, a process started twice on one database) cannot both
append to the table's log: each write of event ``seq`` checks and advances the count from
``seq - 1`` in its own transaction (``bela.storage.db._advance``), and a write at a ``seq``
the log has passed, or with a gap before it, raises :class:`~bela.storage.LogConflict` and
writes nothing.  The process that gets it lets the table go: one process alone reloads it
from the database (``Lobby._reload``), its clients are told to connect again.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

from alembic import command  # noqa: E402
from alembic.script import ScriptDirectory  # noqa: E402
from sqlalchemy import func, select, text  # noqa: E402

from bela.engine.views import seat_view  # noqa: E402
from bela.server.hub import RECONNECT, Conn, Hub  # noqa: E402
from bela.server.lobby import Lobby  # noqa: E402
from bela.server.model import ServerConfig, Table, TableStatus  # noqa: E402
from bela.server.store import Store  # noqa: E402
from bela.storage import Database, LogConflict, make_engine  # noqa: E402
from bela.storage.db import alembic_config, now  # noqa: E402
from bela.storage.models import actions, rounds  # noqa: E402

DEAL = {"hands": ["7H 8H", "9H TH"], "extra": {}}  # the database does not read a deal


def _new_table(db: Database, tid: str = "t1") -> str:
    db.tables.create_table(tid, "bela2", {}, 1, "heuristic", None, 2, private=False,
                    invite_code=None, active_at=now(), turn_clock=None)
    return tid


def _count(db: Database, table: Any, tid: str) -> int:
    with db.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(table)
                                .where(table.c.table_id == tid)).scalar_one())


def _seq(db: Database, tid: str) -> int:
    row = db.tables.load_table(tid)
    assert row is not None
    return int(row["seq"])


# -- the database ----------------------------------------------------------------------------
def test_each_event_advances_the_count_once(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        tid = _new_table(db)
        assert _seq(db, tid) == 0
        db.tables.add_round(tid, 0, 1, 0, DEAL)
        assert _seq(db, tid) == 1
        db.tables.add_action(tid, 2, 0, 1, "pass")
        assert _seq(db, tid) == 2
        db.tables.add_action(tid, 3, 0, 0, "pass")
        assert _seq(db, tid) == 3
        db.tables.add_round(tid, 1, 4, 1, DEAL)
        assert _seq(db, tid) == 4
        assert _count(db, rounds, tid) == 2 and _count(db, actions, tid) == 2
    finally:
        db.close()


def test_a_written_or_skipped_seq_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        tid = _new_table(db)
        other = _new_table(db, "t2")
        with pytest.raises(LogConflict):  # an action before the deal: event 1 is missing
            db.tables.add_action(tid, 2, 0, 1, "pass")
        db.tables.add_round(tid, 0, 1, 0, DEAL)
        db.tables.add_action(tid, 2, 0, 1, "pass")
        with pytest.raises(LogConflict):  # event 2 again: another process wrote it
            db.tables.add_action(tid, 2, 0, 1, "H")
        with pytest.raises(LogConflict):  # a gap: event 3 is missing
            db.tables.add_action(tid, 4, 0, 0, "pass")
        with pytest.raises(LogConflict):  # a deal is fenced the same way
            db.tables.add_round(tid, 0, 1, 0, DEAL)
        with pytest.raises(LogConflict):
            db.tables.add_action("nowhere", 1, 0, 0, "pass")
        assert _seq(db, tid) == 2
        assert _count(db, rounds, tid) == 1 and _count(db, actions, tid) == 1
        row = db.tables.load_table(tid, with_log=True)
        assert row is not None and [a["token"] for a in row["actions"]] == ["pass"]
        # each table has its own count
        assert _seq(db, other) == 0
        db.tables.add_round(other, 0, 1, 0, DEAL)
        assert _seq(db, other) == 1 and _seq(db, tid) == 2
        db.tables.add_action(tid, 3, 0, 0, "pass")  # the log goes on where it is
        assert _seq(db, tid) == 3 and _count(db, actions, tid) == 2
    finally:
        db.close()


def test_the_migration_counts_the_events_stored_before(tmp_path: Path) -> None:
    """A database of schema 0003 with logs: upgraded to the newest, each table's count is
    its deals and actions, and the fence goes on from there."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    cfg = alembic_config(url)
    with engine.begin() as conn:  # as bela.storage.db.migrate does, stopping at 0003
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0003")
    events = {"a": (1, 3), "b": (2, 5), "c": (0, 0)}  # table: (deals, actions)
    with engine.begin() as conn:
        assert "seq" not in {c[1] for c in conn.execute(text("PRAGMA table_info(tables)"))}
        for tid, (n_rounds, n_actions) in events.items():
            conn.execute(text(
                "INSERT INTO tables (id, variant, options, seed, bot, status, created_at) "
                "VALUES (:id, 'bela2', '{}', 1, 'heuristic', :status, "
                "'2025-01-01 00:00:00')"),
                {"id": tid, "status": "running" if n_rounds else "open"})
            for seat in range(2):
                conn.execute(text("INSERT INTO seats (table_id, seat, is_bot, name) "
                                  "VALUES (:t, :s, 0, '')"), {"t": tid, "s": seat})
            seq = 0
            for idx in range(n_rounds):
                seq += 1
                conn.execute(text("INSERT INTO rounds (table_id, idx, seq, dealer, deal) "
                                  "VALUES (:t, :i, :q, 0, '{}')"), {"t": tid, "i": idx, "q": seq})
            for _ in range(n_actions):
                seq += 1
                conn.execute(text("INSERT INTO actions (table_id, seq, round, seat, token) "
                                  "VALUES (:t, :q, 0, 0, 'pass')"), {"t": tid, "q": seq})
    engine.dispose()

    db = Database(url)  # migrates to the newest schema
    try:
        with db.begin() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() \
                == ScriptDirectory.from_config(cfg).get_current_head()
        for tid, (n_rounds, n_actions) in events.items():
            assert _seq(db, tid) == n_rounds + n_actions, tid
        with pytest.raises(LogConflict):
            db.tables.add_action("a", 4, 0, 0, "pass")  # written before the migration
        db.tables.add_action("a", 5, 0, 0, "pass")
        assert _seq(db, "a") == 5 and _count(db, actions, "a") == 4
        db.tables.add_round("c", 0, 1, 0, DEAL)
        assert _seq(db, "c") == 1
    finally:
        db.close()


# -- one process, a table also run elsewhere -------------------------------------------------
async def _no_send(_text: str) -> None:
    """The connections of these tests are read from their queues, never sent."""


def _config() -> ServerConfig:
    return ServerConfig(bot_delay=0, round_pause=0, allow_seed=True)


async def _until(done: Any, what: str, timeout: float = 2.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not done():
        assert loop.time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def test_a_stale_process_is_fenced_off_and_reloads_the_table(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Two lobbies (as two processes) on one SQLite file both run a human table.  The
    second applies an action; the first, stale in memory, is refused when it writes its
    own for the same event: nothing is applied twice, its player hears ``table_moving``,
    its connections are closed with RECONNECT, and it reloads the table from the database
    (the log is the truth), from where the table goes on."""
    url = f"sqlite:///{tmp_path / 'bela.db'}"
    caplog.set_level(logging.WARNING, logger="bela.server")
    tids: list[str] = []

    async def main() -> None:
        db1, db2 = Database(url), Database(url)
        lobby1 = Lobby(Store(db1), Hub(), _config())
        lobby2 = Lobby(Store(db2), Hub(), _config())
        try:
            players = []
            for name in ("Ana", "Bruno"):
                pid, _token = db1.players.create_player(name)
                players.append({"id": pid, "name": name})
            table1 = lobby1.factory.create(players[0], "bela2", {}, "heuristic", 0, seed=5)
            lobby1.seating.sit(table1, players[1], 1)
            await lobby1.start(table1, players[0])
            assert table1.seq == 1 and table1.match is not None
            assert table1.match.round is not None
            tid, turn = table1.id, table1.match.round.turn
            tids.append(tid)
            legal = [a.token() for a in seat_view(table1.match, turn).legal]
            assert len(legal) >= 2

            mover1 = Conn(_no_send, players[turn]["id"], turn)
            watcher1 = Conn(_no_send, None, None)
            for conn in (mover1, watcher1):
                await lobby1.connect(table1, conn)

            # the second process takes the table from the database and plays a move
            row = lobby2.store.db.tables.load_table(tid, with_log=True)
            assert row is not None and row["seq"] == 1
            table2 = lobby2.adopt(row)
            assert table2 is not None and table2 is not table1 and tid in lobby2.actors
            mover2 = Conn(_no_send, players[turn]["id"], turn)
            await lobby2.connect(table2, mover2)
            assert await lobby2.act(table2, mover2, legal[0], 1) is None
            assert table2.seq == 2 and _seq(db1, tid) == 2

            # the first still believes the table is at event 1: its write is fenced off
            reply = await lobby1.act(table1, mover1, legal[1], 1)
            assert reply is not None and reply["code"] == "table_moving", reply
            assert table1.seq == 1 and not table1.match.round.log  # undone in memory
            conflicts = lobby1.metrics.registry.get_sample_value(
                "bela_errors_total", {"kind": "log_conflict"})
            assert conflicts == 1

            # the first reloads the table: the database's log, written once
            await _until(lambda: lobby1.tables.get(tid) not in (None, table1)
                         and tid in lobby1.actors, "the reload")
            # its connections were closed, to connect again
            assert mover1.closed and mover1.close_code == RECONNECT
            assert watcher1.closed and watcher1.close_code == RECONNECT
            stored = lobby1.store.db.tables.load_table(tid, with_log=True)
            assert stored is not None and stored["seq"] == 2
            assert [a["token"] for a in stored["actions"]] == [legal[0]]
            assert len(stored["rounds"]) == 1
            reloaded = lobby1.tables[tid]
            assert isinstance(reloaded, Table) and reloaded.status == TableStatus.RUNNING
            assert reloaded.seq == stored["seq"] == 2
            assert reloaded.last == (turn, legal[0])
            assert reloaded.match is not None and reloaded.match.round is not None
            assert [a.token() for a in reloaded.match.round.log] == [legal[0]]
            assert not lobby1.hub.conns(reloaded)  # the old connections are gone

            # the first process runs the table again: a client that connected again acts
            nxt = reloaded.match.round.turn
            back = Conn(_no_send, players[nxt]["id"], nxt)
            await lobby1.connect(reloaded, back)
            token = seat_view(reloaded.match, nxt).legal[0].token()
            assert await lobby1.act(reloaded, back, token, 2) is None
            assert reloaded.seq == 3 and _seq(db1, tid) == 3
            # ...and now the second process is the stale one
            stale_mover = Conn(_no_send, players[nxt]["id"], nxt)
            await lobby2.connect(table2, stale_mover)
            reply2 = await lobby2.act(table2, stale_mover, token, 2)
            assert reply2 is not None and reply2["code"] == "table_moving", reply2
            assert _count(db1, actions, tid) == 2 and _seq(db1, tid) == 3
            await _until(lambda: lobby2.tables.get(tid) not in (None, table2)
                         and tid in lobby2.actors, "the second reload")
            assert lobby2.tables[tid].seq == 3
        finally:
            await lobby1.shutdown()
            await lobby2.shutdown()
            db1.close()
            db2.close()

    asyncio.run(main())
    handed_back = [r for r in caplog.records if "another process wrote" in r.getMessage()]
    assert len(handed_back) == 2  # once in each process
    assert all(r.table == tids[0] for r in handed_back)  # type: ignore[attr-defined]

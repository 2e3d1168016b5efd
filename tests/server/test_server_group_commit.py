"""The tables' log group-committed off the event loop (:mod:`bela.server.writer`) keeps
"stored before shown": the events of many tables go in one transaction, each still fenced
on its table's event count; no seat is sent a state whose event is not in the database,
whether the commit fails (nothing is sent, the table goes on) or the process is killed
between the commit and the send (the event is there when the table comes back)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from server_helpers import run_lobby

from bela.server.hub import Conn
from bela.server.lobby import Lobby
from bela.server.metrics import Metrics
from bela.server.model import Table
from bela.server.store import Store
from bela.server.writer import LogWriter
from bela.storage import Database, LogConflict
from bela.storage.repos.tables import LogEntry


async def _no_send(_text: str) -> None:
    """Connections of these tests are read from their queues, never sent."""


def _stored_events(db: Database, table_id: str) -> int:
    row = db.tables.load_table(table_id, with_log=True)
    assert row is not None
    return len(row["rounds"]) + len(row["actions"])


def _states(conn: Conn) -> list[dict[str, Any]]:
    """The state messages queued for ``conn`` (taken from its queue)."""
    out = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        if text is not None and '"type":"state"' in text:
            out.append(json.loads(text))
    return out


def _new_table(db: Database, table_id: str) -> None:
    db.tables.create_table(table_id, "bela2", {}, 1, "random", None, 2, private=False,
                           invite_code=None, active_at=datetime.now(UTC), turn_clock=None)


def _tables(tmp_path: Path, n: int) -> tuple[Database, list[str]]:
    """A database with ``n`` bela2 tables, t0, t1..."""
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    ids = [f"t{i}" for i in range(n)]
    for tid in ids:
        _new_table(db, tid)
    return db, ids


def _held_appends(db: Database) -> tuple[threading.Event, list[list[str]]]:
    """Every transaction of ``db``'s log noted (its events' tables, in order) and held
    until the gate is open: the writer's next events gather meanwhile."""
    gate, batches = threading.Event(), []
    append = db.tables.append

    def held(entries: list[LogEntry]) -> list[bool]:
        batches.append([e.table_id for e in entries])
        gate.wait(10)
        return append(entries)

    db.tables.append = held  # type: ignore[method-assign]
    return gate, batches


def test_the_waiting_events_of_many_tables_go_in_one_fenced_transaction(
        tmp_path: Path) -> None:
    """While a transaction commits, the events of five tables wait, then go in one; the
    one fenced off (its table's log is elsewhere) raises LogConflict, the others are
    written."""
    db, ids = _tables(tmp_path, 6)
    gate, batches = _held_appends(db)
    metrics = Metrics()
    writer = LogWriter(db.tables, metrics)

    async def main() -> list[BaseException | None]:
        first = asyncio.ensure_future(writer.write(LogEntry("t0", 1, 0, 0, "pass"), "action"))
        while not batches:
            await asyncio.sleep(0.005)
        rest = [asyncio.ensure_future(writer.write(
            LogEntry(tid, 2 if tid == "t5" else 1, 0, 0, "pass"), "action"))
            for tid in ids[1:]]  # t5's log is at 0: its event 2 is fenced off
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(first, *rest, return_exceptions=True)

    try:
        results = asyncio.run(main())
    finally:
        writer.close()
    assert batches == [["t0"], ["t1", "t2", "t3", "t4", "t5"]]
    assert results[:5] == [None] * 5 and isinstance(results[5], LogConflict)
    assert [_stored_events(db, tid) for tid in ids] == [1, 1, 1, 1, 1, 0]
    sample = metrics.registry.get_sample_value
    assert (sample("bela_store_batch_events_count"), sample("bela_store_batch_events_sum")) == (
        2, 6)
    db.close()


def test_under_load_the_next_transaction_gathers_for_a_while(tmp_path: Path) -> None:
    """After a transaction of ``gather_from`` events or more, the next one waits until
    ``gather`` seconds after it began: two events 0.1 s apart go in one transaction.  After
    a transaction of fewer (a quiet server), an event is committed at once: two events
    0.1 s apart go in two."""
    db, ids = _tables(tmp_path, 8)
    gate, batches = _held_appends(db)
    gate.set()
    writer = LogWriter(db.tables, Metrics(), gather=1.0, gather_from=2)

    async def write(tid: str) -> None:
        await writer.write(LogEntry(tid, 1, 0, 0, "pass"), "action")

    async def two_apart(a: str, b: str) -> None:
        first = asyncio.ensure_future(write(a))
        await asyncio.sleep(0.1)
        await asyncio.gather(first, write(b))

    async def main() -> None:
        await write("t0")
        await two_apart("t1", "t2")  # quiet: each at once
        gate.clear()  # a transaction held while two more events come: one of two
        held_one = asyncio.ensure_future(write("t3"))
        for _ in range(1000):
            if len(batches) == 4:
                break
            await asyncio.sleep(0.01)
        assert batches[3:] == [["t3"]]
        more = [asyncio.ensure_future(write(t)) for t in ("t4", "t5")]
        await asyncio.sleep(0.05)
        gate.set()
        await asyncio.gather(held_one, *more)
        await two_apart("t6", "t7")  # under load: gathered

    try:
        asyncio.run(main())
    finally:
        writer.close()
    assert batches == [["t0"], ["t1"], ["t2"], ["t3"], ["t4", "t5"], ["t6", "t7"]]
    assert [_stored_events(db, tid) for tid in ids] == [1] * 8
    db.close()


async def _two_seats(lobby: Lobby, players: list[dict[str, Any]]) -> tuple[Table, list[Conn]]:
    table = lobby.factory.create(players[0], "bela2", {}, "random", 0, seed=5)
    lobby.seating.sit(table, players[1], 1)
    await lobby.start(table, players[0])
    conns = [Conn(_no_send, players[s]["id"], s) for s in range(2)]
    for conn in conns:
        await lobby.connect(table, conn)
    return table, conns


def test_a_failed_commit_sends_nothing_and_the_table_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group commit fails: the player hears ``storage``, no seat is sent a state, the
    match is as it was; the same action then goes through and both seats see it."""
    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        table, conns = await _two_seats(lobby, players)
        assert table.match is not None and table.match.round is not None
        for conn in conns:
            _states(conn)
        turn = table.match.round.turn
        db = lobby.store.db

        def disk_full(_entries: list[LogEntry]) -> list[bool]:
            raise OSError("the disk is full")

        with monkeypatch.context() as m:
            m.setattr(db.tables, "append", disk_full)
            reply = await lobby.act(table, conns[turn], "pass", 1)
        assert reply is not None and reply["code"] == "storage"
        assert [_states(c) for c in conns] == [[], []]
        assert table.seq == 1 and not table.match.round.log
        assert _stored_events(db, table.id) == 1
        assert await lobby.act(table, conns[turn], "pass", 1) is None
        assert [[s["seq"] for s in _states(c)] for c in conns] == [[2], [2]]
        assert _stored_events(db, table.id) == 2

    run_lobby(tmp_path, scenario)


def test_every_state_sent_is_stored_already(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots play a match watched by two spectators: whenever a state message is queued for
    a connection, the database holds every event up to its ``seq``."""
    checked: list[int] = []
    db_of: list[Database] = []
    send = Conn.send

    def checking(conn: Conn, msg: dict[str, Any] | str) -> None:
        if isinstance(msg, str) and msg.startswith('{"type":"state"'):
            seq, table_id = json.loads(msg)["seq"], conn.player_id
            assert table_id is not None
            stored = _stored_events(db_of[0], table_id)
            assert stored >= seq, (stored, seq)
            checked.append(seq)
        send(conn, msg)

    monkeypatch.setattr(Conn, "send", checking)

    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        db_of.append(lobby.store.db)
        table = lobby.factory.create(players[0], "bela2", {}, "random", None, seed=9)
        lobby.seating.fill_bots(table, players[0], None)
        for _ in range(2):  # spectators; their "player": the table's id, for the check
            await lobby.connect(table, Conn(_no_send, table.id, None))
        await lobby.start(table, players[0])
        for _ in range(3000):
            if table.seq >= 60 or (table.match is not None and table.match.is_over):
                break
            await asyncio.sleep(0.01)
        assert table.seq >= 60 or (table.match is not None and table.match.is_over)

    run_lobby(tmp_path, scenario)
    assert len(checked) >= 2 * 59


CHILD = textwrap.dedent("""
    import asyncio, json, os, signal, sys
    from bela.server.hub import Conn, Hub
    from bela.server.lobby import Lobby
    from bela.server.model import ServerConfig
    from bela.server.store import Store
    from bela.storage import Database

    async def main():
        db = Database(sys.argv[1])
        lobby = Lobby(Store(db), Hub(), ServerConfig(bot_delay=0, round_pause=0,
                                                     allow_seed=True))
        players = [{"id": db.players.create_player(n)[0], "name": n} for n in ("Ana", "Bo")]
        table = lobby.factory.create(players[0], "bela2", {}, "random", 0, seed=5)
        lobby.seating.sit(table, players[1], 1)
        await lobby.start(table, players[0])
        out = open(sys.argv[2], "a")

        async def sent(text):
            out.write(text + "\\n")
            out.flush()

        conns = [Conn(sent, players[s]["id"], s) for s in range(2)]
        for conn in conns:
            await lobby.connect(table, conn)
            asyncio.ensure_future(conn.run_sender())
        turn = table.match.round.turn
        assert await lobby.act(table, conns[turn], "pass", 1) is None
        await asyncio.sleep(0.2)  # the state of event 2 reaches both seats

        def killed(*_args):  # committed, not sent: the process dies here
            os.kill(os.getpid(), signal.SIGKILL)

        lobby.hub.broadcast_state = killed
        print(table.id, flush=True)
        await lobby.act(table, conns[1 - turn], "pass", 2)

    asyncio.run(main())
""")


def test_killed_between_the_commit_and_the_send_loses_nothing(tmp_path: Path) -> None:
    """The process is killed with SIGKILL after an action's commit, before its state is
    sent: the seats saw event 2 and not event 3, and the table rebuilt from the database
    holds event 3 (the action is not lost, and nothing a seat saw is missing)."""
    url, sent = f"sqlite:///{tmp_path / 'bela.db'}", tmp_path / "sent.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(sent)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    table_id = proc.stdout.split()[-1]
    seen = [json.loads(line) for line in sent.read_text().splitlines()]
    assert max(m["seq"] for m in seen if m["type"] == "state") == 2
    db = Database(url)
    try:
        row = db.tables.load_table(table_id, with_log=True)
        assert row is not None and row["seq"] == 3
        table = Store(db).rebuild(row)
        assert table.seq == 3 and table.last is not None and table.last[1] == "pass"
        assert table.match is not None and table.match.round is not None
        assert len(table.match.round.log) == 2
    finally:
        db.close()

"""A server open to the public, continued (docs/SECURITY.md): finished matches read from the
database without filling memory, who may read a private table's record, tokens that stay out
of the logs, expire and rotate, HTTP hygiene (chunked bodies, slow headers, a full disk,
syncs), and tables that survive a database that fails at a deal or at the end of a match."""

from __future__ import annotations

import json
import logging
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Reader, choose, guest, server, start, table_with

uvicorn = pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")

from sqlalchemy import select, update  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402

from bela.server.app import create_app  # noqa: E402
from bela.server.lobby import ENDED_CACHE  # noqa: E402
from bela.server.model import Seat, Table, TableStatus  # noqa: E402
from bela.server.run import header_timeout_protocol  # noqa: E402
from bela.server.store import Store  # noqa: E402
from bela.storage import Database  # noqa: E402
from bela.storage.models import players  # noqa: E402
from bela.storage.repos.tables import LogEntry  # noqa: E402


def disk_full(*_args: Any, **_kw: Any) -> Any:
    raise OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))


# -- a real uvicorn server in a thread of the test ---------------------------------------------
@contextmanager
def live(tmp_path: Path, header_timeout: float = 5.0, **config: Any) -> Iterator[tuple[str, Any]]:
    """The app served by uvicorn with ``bela serve``'s HTTP protocol: its ``host:port`` and
    the app (its lobby is this process's)."""
    config = {"bot_delay": 0, "round_pause": 0, "allow_seed": True, "max_rate": 100_000,
              **config}
    app = create_app(f"sqlite:///{tmp_path / 'bela.db'}", **config)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, http=header_timeout_protocol(header_timeout),
                                        ws="websockets-sansio", log_config=None,
                                        lifespan="on"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        srv.should_exit = True
        thread.join(15)


def api(base: str, method: str, path: str, token: str | None = None,
        body: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.request(method, f"http://{base}{path}", headers=headers, json=body, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def raw(base: str, data: bytes) -> bytes:
    """Send ``data`` on a new connection; everything the server answers until it closes."""
    host, port = base.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


class Player:
    """A real WebSocket client of one seat, reading with a timeout (a stuck table fails the
    test instead of hanging it)."""

    def __init__(self, base: str, tid: str, token: str) -> None:
        self.ws = ws_client.connect(f"ws://{base}/ws/tables/{tid}?token={token}")
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0
              ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if msg["type"] == "state":
                self.state = msg
            elif msg["type"] == "error":
                self.errors.append(msg)
            if pred(msg):
                return dict(msg)

    def at(self, seq: int, timeout: float = 10.0) -> dict[str, Any]:
        """The first state at ``seq`` or later (the newest one if already received)."""
        if self.state is not None and self.state["seq"] >= seq:
            return self.state
        return self.until(lambda m: m["type"] == "state" and m["seq"] >= seq, timeout)


def two_players(base: str, **options: Any) -> tuple[str, list[str], list[Player]]:
    """A started bela2 table of two WebSocket players: its id, their tokens, their
    connections (each at the first deal)."""
    tokens = [api(base, "POST", "/api/guests", body={"name": n})["token"]
              for n in ("Ana", "Bruno")]
    tid = api(base, "POST", "/api/tables", tokens[0],
              {"variant": "bela2", "seed": 3, "seat": 0, "options": options})["id"]
    api(base, "POST", f"/api/tables/{tid}/sit", tokens[1], {"seat": 1})
    seats = [Player(base, tid, t) for t in tokens]
    api(base, "POST", f"/api/tables/{tid}/start", tokens[0])
    for p in seats:
        p.at(1)
    return tid, tokens, seats


def play_until(seats: list[Player], done: Callable[[dict[str, Any]], bool],
               rng: random.Random) -> tuple[dict[str, Any], int]:
    """Random legal actions until ``done(state)`` after one: that state and the seat that
    acted.  A round that ends otherwise is followed to its next deal."""
    st = seats[0].at(1)
    for _ in range(5000):
        seat = st["view"]["turn"]
        own = seats[seat].at(st["seq"])
        assert own["seq"] == st["seq"]
        if own["view"]["legal"] != ["keep"]:  # a lone keep: the server answers it (R32)
            seats[seat].ws.send(json.dumps({"type": "act", "action": choose(own, rng),
                                            "seq": own["seq"]}))
        for p in seats:
            p.at(st["seq"] + 1)
        st = seats[0].at(st["seq"] + 1)
        if done(st):
            return st, seat
        if st["view"]["phase"] == "done":
            for p in seats:
                p.at(st["seq"] + 1)
            st = seats[0].at(st["seq"] + 1)
    raise AssertionError("the match did not get there")


# -- finished matches: from the database, memory bounded -----------------------------------
def _finished_rows(store: Store, owner: str, n: int) -> list[str]:
    """``n`` finished tables written straight to the database."""
    ids = []
    for i in range(n):
        table = Table(id=f"done{i}", variant="bela2", options={}, seed=i, bot="random",
                      status=TableStatus.OPEN, owner_id=owner,
                      seats=[Seat(player_id=owner, name="Ana"), Seat()], active_at=time.time())
        store.create(table)
        store.save_seat(table, 0)
        store.finish(table, {"totals": [1001, 0], "winner": 0},
                     {"variant": "bela2", "rounds": [], "table": table.id, "filler": "x" * 999})
        ids.append(table.id)
    return ids


def test_finished_tables_are_read_without_filling_memory(tmp_path: Path) -> None:
    """Records are read from the database and not kept; summaries and watchers of ended
    tables keep at most ``ENDED_CACHE`` of them in memory, however many are asked for."""
    with server(tmp_path) as client:
        lobby = client.app.state.lobby
        _, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        ids = _finished_rows(lobby.store, pid, 3 * ENDED_CACHE)
        for tid in ids:  # anyone reads a public table's record
            r = client.get(f"/api/tables/{tid}/record")
            assert r.status_code == 200 and r.json()["table"] == tid
        assert not lobby.tables and not lobby.ended
        for tid in ids:
            assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
            with client.websocket_connect(f"/ws/tables/{tid}") as ws:
                assert ws.receive_json()["type"] == "welcome"
            assert client.get(f"/api/tables/{tid}/record", headers=h).status_code == 200
            assert len(lobby.tables) + len(lobby.ended) <= ENDED_CACHE
        assert not lobby.tables and list(lobby.ended) == ids[-ENDED_CACHE:]


def test_a_private_tables_record_is_for_its_players(tmp_path: Path) -> None:
    """The record of a private table: its creator and its players (token), not a stranger
    (403 ``private_record``, with a token or without), before the end as after it, from
    the database and from memory."""
    with server(tmp_path, grace=0) as client:
        lobby = client.app.state.lobby
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        _, carla = guest(client, "Carla")
        r = client.post("/api/tables", json={"variant": "bela2", "bot": "random", "seat": 0,
                                             "private": True, "options": {"target": 101}},
                        headers=ana)
        tid, code = r.json()["id"], r.json()["invite_code"]
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1, "code": code},
                           headers=bruno).status_code == 200

        def read(who: dict[str, str] | None) -> tuple[int, str | None]:
            r = client.get(f"/api/tables/{tid}/record", headers=who)
            return r.status_code, r.json().get("error", {}).get("code")

        assert read(ana) == (409, "not_finished")
        assert read(carla) == (403, "private_record") and read(None) == (403, "private_record")
        start(client, tid, ana)  # nobody connects: after the grace period (0) bots play both
        deadline = time.monotonic() + 120
        while tid in lobby.tables:  # finished and nobody watches: dropped from memory
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.05)
        for _ in range(2):  # from the database, then from memory (the summary loads it)
            assert read(None) == (403, "private_record")
            assert read(carla) == (403, "private_record")
            assert read(ana) == (200, None) and read(bruno) == (200, None)
            assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
            assert tid in lobby.ended


# -- tokens --------------------------------------------------------------------------------
def _last_seen(db: Database, pid: str) -> datetime | None:
    with db.begin() as conn:
        value: datetime | None = conn.execute(
            select(players.c.last_seen_at).where(players.c.id == pid)).scalar_one()
    return value


def _set_last_seen(db: Database, pid: str, when: datetime | None) -> None:
    with db.begin() as conn:
        conn.execute(update(players).where(players.c.id == pid).values(last_seen_at=when))


def test_tokens_are_kept_out_of_the_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                         ) -> None:
    """uvicorn's access and WebSocket lines carry the URL with its query: the token and an
    invite code are replaced by ``***`` (a log record through the filter, then a real
    server at log level info)."""
    create_app(f"sqlite:///{tmp_path / 'filter.db'}")  # installs the filter
    access = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "GET", "/ws/tables/ab?token=SECRET1&code=SECRET2",
                                "1.1", 101), None)
    assert logging.getLogger("uvicorn.access").filter(access)
    assert access.getMessage() == ('127.0.0.1:5000 - "GET /ws/tables/ab?token=***&code=*** '
                                   'HTTP/1.1" 101')
    socket_line = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1,
                                    '%s - "WebSocket %s" [accepted]',
                                    ("127.0.0.1:5000", "/ws/tables/ab?code=SECRET3"), None)
    assert logging.getLogger("uvicorn.error").filter(socket_line)
    assert "SECRET" not in socket_line.getMessage()

    caplog.set_level(logging.INFO)
    with live(tmp_path) as (base, _app):
        token = api(base, "POST", "/api/guests", body={"name": "Ana"})["token"]
        tid = api(base, "POST", "/api/tables", token, {"variant": "bela2"})["id"]
        with ws_client.connect(f"ws://{base}/ws/tables/{tid}?token={token}&code=SECRET4") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        httpx.get(f"http://{base}/api/tables/{tid}?token={token}", timeout=10)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("uvicorn")]
    assert any(f"/ws/tables/{tid}?token=***&code=***" in line for line in lines), lines
    assert any(f"/api/tables/{tid}?token=***" in line for line in lines), lines
    assert not [line for line in lines if token in line or "SECRET4" in line]


def test_a_token_unused_for_its_ttl_expires(tmp_path: Path) -> None:
    """A token unused for ``token_ttl`` (30 days) gets 401 ``token_expired`` (a WebSocket:
    the same code, close 4401); one used within it works and its use is noted."""
    with server(tmp_path) as client:
        db = client.app.state.lobby.store.db
        token, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        now = datetime.now(UTC)
        _set_last_seen(db, pid, now - timedelta(days=29))
        assert client.get("/api/players/me", headers=h).status_code == 200
        seen = _last_seen(db, pid)
        assert seen is not None and seen.replace(tzinfo=UTC) > now - timedelta(minutes=1)
        _set_last_seen(db, pid, now - timedelta(days=31))
        r = client.get("/api/players/me", headers=h)
        assert r.status_code == 401 and r.json()["error"]["code"] == "token_expired"
        tid = client.post("/api/tables", json={"variant": "bela2"}, headers=guest(
            client, "Bruno")[1]).json()["id"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
            assert ws.receive_json()["code"] == "token_expired"
            assert ws.receive()["code"] == 4401


def test_a_tokens_use_is_written_at_most_once_an_hour(tmp_path: Path) -> None:
    """Requests within the hour write nothing; after an hour the use is noted.  A token
    made before uses were noted (no ``last_seen_at``) counts from its first use."""
    with server(tmp_path) as client:
        db = client.app.state.lobby.store.db
        _, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        made = _last_seen(db, pid)
        assert made is not None
        for _ in range(3):
            assert client.get("/api/players/me", headers=h).status_code == 200
        assert _last_seen(db, pid) == made
        for before in (datetime.now(UTC) - timedelta(hours=2), None):
            _set_last_seen(db, pid, before)
            assert client.get("/api/players/me", headers=h).status_code == 200
            seen = _last_seen(db, pid)
            assert seen is not None
            assert seen.replace(tzinfo=UTC) > datetime.now(UTC) - timedelta(minutes=1)


def test_a_rotated_token_replaces_the_old_one(tmp_path: Path) -> None:
    """``POST /api/players/me/token``: a new token for the same player; the old one gets
    ``bad_token`` over REST and WebSocket."""
    with server(tmp_path) as client:
        old, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        r = client.post("/api/players/me/token", headers=h)
        assert r.status_code == 200
        new = r.json()
        assert new["player_id"] == pid and new["name"] == "Ana" and new["token"] != old
        r = client.get("/api/players/me", headers=h)
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"
        fresh = {"Authorization": f"Bearer {new['token']}"}
        assert client.get("/api/players/me", headers=fresh).json()["player_id"] == pid
        tid = client.post("/api/tables", json={"variant": "bela2"}, headers=fresh).json()["id"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={old}") as ws:
            assert ws.receive_json()["code"] == "bad_token"
            assert ws.receive()["code"] == 4401
        with client.websocket_connect(f"/ws/tables/{tid}?token={new['token']}") as ws:
            welcome = ws.receive_json()
            assert welcome["type"] == "welcome" and welcome["seat"] == 0


# -- HTTP hygiene --------------------------------------------------------------------------
def _chunked(path: str, body: bytes) -> bytes:
    """A POST of ``body`` in chunks of 8 KiB, without a Content-Length."""
    parts = [f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()]
    for i in range(0, len(body), 8192):
        chunk = body[i:i + 8192]
        parts.append(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    parts.append(b"0\r\n\r\n")
    return b"".join(parts)


def test_chunked_bodies_over_the_limit_get_413(tmp_path: Path) -> None:
    """A body without a Content-Length is refused with 413 ``too_large`` once it passes
    64 KiB, and the connection is closed; a small chunked body is taken."""
    with live(tmp_path) as (base, _app):
        big = raw(base, _chunked("/api/guests", b'{"name": "' + b"a" * 70_000 + b'"}'))
        head, _, body = big.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413"), head
        assert json.loads(body)["error"]["code"] == "too_large"
        small = raw(base, _chunked("/api/guests", b'{"name": "Ana"}'))
        head, _, body = small.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), small
        assert json.loads(body)["name"] == "Ana"


def test_slow_headers_are_cut_off(tmp_path: Path) -> None:
    """A client that sends half a header line, or nothing, is disconnected after the header
    timeout; one that sends its request in time is answered."""
    with live(tmp_path, header_timeout=0.5) as (base, _app):
        host, port = base.split(":")
        for sent in (b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Ag", b""):
            with socket.create_connection((host, int(port)), timeout=10) as s:
                started = time.monotonic()
                s.sendall(sent)
                try:
                    assert s.recv(1024) == b""
                except ConnectionResetError:
                    pass
                assert 0.4 < time.monotonic() - started < 3.0
        r = raw(base, b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert r.startswith(b"HTTP/1.1 200")


def test_a_full_disk_is_a_json_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database refuses (SQLite's "database or disk is full", any other failure):
    503 with the error body (``storage_full``, ``storage``), never a plain-text 500; a
    table whose start cannot be stored stays open, and starts once the disk has room."""
    with server(tmp_path) as client:
        lobby = client.app.state.lobby
        _, h = guest(client, "Ana")
        with monkeypatch.context() as m:
            m.setattr(lobby.store.db.players, "create_player", disk_full)
            r = client.post("/api/guests", json={"name": "Bruno"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_full"

        def locked(*_args: Any) -> Any:
            raise OperationalError("SELECT ...", {}, sqlite3.OperationalError("database is locked"))

        with monkeypatch.context() as m:
            m.setattr(lobby.store.db.players, "player_by_token", locked)
            r = client.get("/api/players/me", headers=h)
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage"
        tid = table_with(client, "bela2", [h], bots=True)
        with monkeypatch.context() as m:
            m.setattr(lobby.store.db.tables, "set_status", disk_full)
            r = client.post(f"/api/tables/{tid}/start", headers=h)
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_full"
        assert client.get(f"/api/tables/{tid}").json()["status"] == "open"
        start(client, tid, h)


def test_syncs_are_answered_once_a_second(tmp_path: Path) -> None:
    """A burst of syncs gets one state; the others a small ``too_many`` error; a second
    later a sync is answered again."""
    with server(tmp_path) as client:
        ta, ha = guest(client, "Ana")
        _, hb = guest(client, "Bruno")
        tid = table_with(client, "bela2", [ha, hb])
        start(client, tid, ha)
        with client.websocket_connect(f"/ws/tables/{tid}?token={ta}") as ws:
            r = Reader(ws)
            r.until(lambda m: m["type"] == "state")
            for _ in range(5):
                r.send({"type": "sync"})
            r.send({"type": "ping"})
            got: list[dict[str, Any]] = []
            r.until(lambda m: got.append(m) or m["type"] == "pong")
            assert [m["type"] for m in got].count("state") == 1
            refused = [m for m in got if m["type"] == "error"]
            assert len(refused) == 4 and all(m["code"] == "too_many" for m in refused)
            time.sleep(1.05)
            r.send({"type": "sync"})
            assert r.until(lambda m: m["type"] in ("state", "error"))["type"] == "state"


# -- the database fails at a deal or at the end of a match ---------------------------------
def test_a_deal_refused_twice_is_dealt_by_itself(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The database refuses the second round's deal twice: the player whose action ended the
    round is told nothing false (no error: his action stands), everyone sees the finished
    round, and the deal arrives by itself two seconds later; the table goes on."""
    with live(tmp_path) as (base, app):
        db = app.state.lobby.store.db
        refusals: list[float] = []
        append = db.tables.append  # the group commit of the tables' log events

        def refuse_twice(entries: list[LogEntry]) -> list[bool]:
            if any(e.deal is not None and e.round == 1 for e in entries) and len(refusals) < 2:
                refusals.append(time.monotonic())
                disk_full()
            return append(entries)

        monkeypatch.setattr(db.tables, "append", refuse_twice)
        _tid, _tokens, seats = two_players(base)
        done, seat = play_until(seats, lambda st: st["view"]["phase"] == "done",
                                random.Random(1))
        assert done["status"] == "running" and done["last"]["seat"] == seat
        ended = time.monotonic()
        dealt = [p.at(done["seq"] + 1) for p in seats]
        assert time.monotonic() - ended > 1.5 and len(refusals) == 2
        assert all(d["view"]["phase"] != "done" and d["last"] is None for d in dealt)
        turn = dealt[0]["view"]["turn"]
        seats[turn].ws.send(json.dumps({"type": "act", "seq": dealt[0]["seq"],
                                        "action": choose(seats[turn].at(dealt[0]["seq"]),
                                                         random.Random(2))}))
        assert all(p.at(done["seq"] + 2)["seq"] == done["seq"] + 2 for p in seats)
        assert not [p.errors for p in seats if p.errors]


def test_a_refused_match_result_is_stored_by_itself(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The database refuses the match's result once: the last action (stored) is shown at
    once, still ``running``, with no error to anyone; a second later the result is stored,
    the final state and summary arrive, and the record is published."""
    with live(tmp_path) as (base, app):
        lobby = app.state.lobby
        db = lobby.store.db
        tries: list[float] = []
        finish_table = db.tables.finish_table

        def refuse_once(*args: Any) -> None:
            tries.append(time.monotonic())
            if len(tries) == 1:
                disk_full()
            finish_table(*args)

        monkeypatch.setattr(db.tables, "finish_table", refuse_once)
        tid, tokens, seats = two_players(base, target=101)
        table = lobby.tables[tid]
        last, seat = play_until(seats, lambda _st: table.match.is_over, random.Random(3))
        assert last["status"] == "running" and last["last"]["seat"] == seat
        for p in seats:
            final = p.until(lambda m: m["type"] == "state" and m["status"] == "finished")
            assert final["seq"] == last["seq"]
            summary = p.until(lambda m: m["type"] == "table")
            assert summary["table"]["status"] == "finished"
        assert len(tries) == 2 and tries[1] - tries[0] > 0.9
        assert not [p.errors for p in seats if p.errors]
        record = api(base, "GET", f"/api/tables/{tid}/record", tokens[1])
        assert record["players"] == ["Ana", "Bruno"] and record["rounds"]


# -- bela serve ------------------------------------------------------------------------------
def test_serve_passes_its_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bela serve``'s options reach the app; ``--no-rate-limits`` (hidden) turns every
    limit off (the load tool's servers run with it: tests/server/test_server_load.py)."""
    import typer
    from typer.testing import CliRunner

    from bela.server import app as app_module
    from bela.server.run import serve

    class Made(Exception):
        pass

    given: dict[str, Any] = {}

    def made(url: str, **options: Any) -> None:
        given.update(options)
        raise Made

    cli = typer.Typer()
    cli.command("serve")(serve)
    cli.command("other")(lambda: None)
    shown = CliRunner().invoke(cli, ["serve", "--help"], terminal_width=200).output
    for option in ("--rate-limit-storage", "--header-timeout", "--token-ttl",
                   "--shutdown-timeout"):
        assert option in shown
    assert "--no-rate-limits" not in shown
    monkeypatch.setattr(app_module, "create_app", made)
    out = CliRunner().invoke(cli, ["serve", "--db", "sqlite://", "--no-rate-limits",
                                   "--token-ttl", "7", "--rate-limit-storage", "memory://",
                                   "--shutdown-timeout", "3"])
    assert isinstance(out.exception, Made)
    assert given["token_ttl"] == 7 * 86400 and given["rate_limit_storage"] == "memory://"
    assert all(given[k] == "" for k in ("rate_requests", "rate_guests", "rate_tables",
                                        "rate_websockets"))
    assert given["shutdown_timeout"] == 3  # the workers' grace (the app's lifespan)

    # and uvicorn's graceful shutdown: the connections' and requests' time
    import uvicorn

    graceful: list[Any] = []

    def run(self: Any, sockets: Any = None) -> None:
        graceful.append(self.config.timeout_graceful_shutdown)
        raise Made

    monkeypatch.setattr(app_module, "create_app", lambda url, **options: object())
    monkeypatch.setattr(uvicorn.Server, "run", run)
    out = CliRunner().invoke(cli, ["serve", "--db", "sqlite://", "--port", "0",
                                   "--shutdown-timeout", "3"])
    import gc

    gc.unfreeze()  # serve froze what this test process holds
    assert isinstance(out.exception, Made) and graceful == [3]


def test_a_stopping_server_that_hangs_is_ended_with_its_stacks(
        capfd: pytest.CaptureFixture[str]) -> None:
    """``bela serve``'s stop is bounded: the first stop signal arms a watchdog that, if the
    process has not exited ``limit`` seconds later (a hung shutdown), writes every thread's
    stack and exits with 1; a second signal arms no second one."""
    import signal
    import threading

    import uvicorn

    from bela.server.run import bounded_server, stop_limit

    assert stop_limit(5) == 22 and stop_limit(1) == 14
    exited = threading.Event()
    codes: list[int] = []

    def exit_now(code: int) -> None:
        codes.append(code)
        exited.set()

    server = bounded_server(uvicorn.Config(lambda *_: None), 0.3, exit_now)
    server.handle_exit(signal.SIGTERM, None)
    first = server.watchdog
    server.handle_exit(signal.SIGTERM, None)
    assert server.watchdog is first and server.should_exit
    assert exited.wait(10) and codes == [1]
    err = capfd.readouterr().err
    assert "Thread 0x" in err and "test_server_hygiene.py" in err  # the stacks, this one's too


def test_a_hung_stop_shows_where_each_task_waits(capfd: pytest.CaptureFixture[str]) -> None:
    """A shutdown that hangs on an ``await`` leaves the threads idle in the event loop, so
    the watchdog also writes each task's chain of awaits (to the innermost coroutine and
    the future it waits on, through an ``async with`` as the app's lifespan); when the loop
    itself is blocked it says so."""
    import asyncio
    import contextlib
    import signal
    import threading
    import time
    from collections.abc import AsyncIterator

    import uvicorn

    from bela.server.run import bounded_server

    async def hung_inner() -> None:
        await asyncio.Event().wait()

    @contextlib.asynccontextmanager
    async def stopping() -> AsyncIterator[None]:  # as the app's lifespan: a shutdown that hangs
        yield
        await hung_inner()

    async def hung_outer() -> None:
        async with stopping():
            pass

    def watched(block: bool) -> str:
        exited = threading.Event()
        server = bounded_server(uvicorn.Config(lambda *_: None), 0.2,
                                lambda _code: exited.set())

        async def main() -> None:
            task = asyncio.create_task(hung_outer(), name="stuck stop")
            await asyncio.sleep(0)
            server.handle_exit(signal.SIGTERM, None)  # as the signal handler: in the loop
            if block:
                time.sleep(2.6)  # a loop that never runs again while the watchdog waits
            assert await asyncio.to_thread(exited.wait, 10)
            task.cancel()

        asyncio.run(main())
        return capfd.readouterr().err

    err = watched(block=False)
    stuck = err[err.index("Task 'stuck stop':"):]
    chain = [stuck.index(f"in {name}") for name in ("hung_outer", "stopping", "hung_inner",
                                                       "wait")]
    assert chain == sorted(chain) and chain[-1] < stuck.index("waits on <Future pending")
    assert "Thread 0x" in err  # the threads' stacks follow
    err = watched(block=True)
    assert "the event loop did not run for 2 s: it is blocked" in err
    assert "in watched" in err and "Task 'stuck stop':" not in err.split("blocked")[0]

"""A server open to the public: rate limits per address, tables per guest, idle tables
closed by the sweep, the paged and cached lobby list, creator-only seat management, closing,
and private tables (docs/SECURITY.md)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server, start
from starlette.testclient import TestClient, WebSocketDenialResponse

from bela.server import factory as factory_module
from bela.server import listing as listing_module
from bela.server import lobby as lobby_module
from bela.server import seating as seating_module
from bela.server import sweep as sweep_module
from bela.server.app import create_app
from bela.server.model import ServerConfig
from bela.server.ratelimit import RateLimits


def elsewhere(client: TestClient, host: str) -> TestClient:
    """A client of the same running app that comes from another address."""
    other = TestClient(client.app, client=(host, 40000))
    other.portal = client.portal  # the app's event loop, not a new one per request
    return other


class Clock:
    """The lobby's wall clock, moved by hand (its ``monotonic`` stays the real one)."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return time.monotonic()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    for module in (lobby_module, factory_module, listing_module, seating_module,
                   sweep_module):  # the lobby's parts
        monkeypatch.setattr(module, "time", c)
    return c


def sweep(client: TestClient, now: float) -> list[str]:
    closed: list[str] = client.portal.call(client.app.state.sweeper.sweep, now)
    return closed


def new_table(client: TestClient, h: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json={"variant": "bela2", **body}, headers=h)
    assert r.status_code == 200, r.text
    table: dict[str, Any] = r.json()
    return table


def bot_table(client: TestClient, h: dict[str, str], **body: Any) -> str:
    """A running bela4 table of bots only, created by ``h`` (who does not sit)."""
    tid = new_table(client, h, variant="bela4", seat=None, **body)["id"]
    assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
    start(client, tid, h)
    return tid


def assert_too_many(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert int(r.headers["Retry-After"]) >= 1
    assert r.json()["error"]["code"] == "rate_limited"


# -- rate limits ---------------------------------------------------------------------------
def test_a_flood_of_guests_and_tables_is_refused_per_address(tmp_path: Path) -> None:
    with server(tmp_path, rate_guests="5/minute", rate_tables="3/minute",
                tables_per_guest=100) as client:
        heads = [guest(client, f"G{i}")[1] for i in range(5)]
        assert_too_many(client.post("/api/guests", json={"name": "Flood"}))
        for _ in range(3):
            new_table(client, heads[0])
        assert_too_many(client.post("/api/tables", json={}, headers=heads[1]))
        # the refused requests are not counted; other requests from the address still go
        assert client.get("/api/tables").status_code == 200
        other = elsewhere(client, "203.0.113.7")
        _, h = guest(other, "Vesna")
        new_table(other, h)
        # an IPv6 address counts by its /64
        v6 = [elsewhere(client, f"2001:db8:0:1::{i}") for i in range(1, 7)]
        for c in v6[:5]:
            guest(c, "Six")
        assert_too_many(v6[5].post("/api/guests", json={"name": "Six"}))
        guest(elsewhere(client, "2001:db8:0:2::1"), "Seven")


def test_every_request_counts_against_the_address(tmp_path: Path) -> None:
    with server(tmp_path, rate_requests="6/minute") as client:
        for path in ("/api/variants", "/api/tables", "/", "/web/app.js", "/nowhere"):
            assert client.get(path).status_code in (200, 404)
        assert client.get("/api/tables").status_code == 200
        r = client.get("/web/app.js")
        assert_too_many(r)
        assert r.json()["error"]["message"].startswith("too many requests")
        assert elsewhere(client, "198.51.100.1").get("/api/tables").status_code == 200


def test_websocket_connections_are_limited_per_address(tmp_path: Path) -> None:
    with server(tmp_path, rate_websockets="2/minute") as client:
        _, h = guest(client, "Ana")
        tid = new_table(client, h)["id"]
        for _ in range(2):
            with client.websocket_connect(f"/ws/tables/{tid}") as ws:
                assert ws.receive_json()["type"] == "welcome"
        with pytest.raises(WebSocketDenialResponse) as denied:
            client.websocket_connect(f"/ws/tables/{tid}").__enter__()
        assert_too_many(denied.value)
        with elsewhere(client, "192.0.2.9").websocket_connect(f"/ws/tables/{tid}") as ws:
            assert ws.receive_json()["type"] == "welcome"
        assert client.get(f"/api/tables/{tid}").status_code == 200  # HTTP is apart


def test_limits_are_checked_when_the_app_is_made(tmp_path: Path) -> None:
    for bad in ({"rate_guests": "many"}, {"rate_limit_storage": "carrier-pigeon://"},
                {"rate_limit_storage": "async+memory://"}):
        with pytest.raises(ValueError):
            create_app(f"sqlite:///{tmp_path / 'x.db'}", **bad)
    assert not (tmp_path / "x.db").exists()  # refused before the database is made
    assert RateLimits(ServerConfig(rate_requests="")).items["requests"] == []  # no limit



def test_a_storage_that_cannot_be_reached_lets_requests_through(tmp_path: Path) -> None:
    """A Redis restart must not lock every player out, nor fail the health checks: the
    requests go through uncounted, and the server says so in its log."""
    with server(tmp_path, rate_limit_storage="redis://127.0.0.1:1/0",
                rate_requests="1/minute") as client:
        for _ in range(3):
            assert client.get("/healthz").status_code == 200
        _, h = guest(client, "Ana")
        tid = new_table(client, h)["id"]
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert ws.receive_json()["type"] == "welcome"

# -- tables per guest ----------------------------------------------------------------------
def test_a_guest_has_at_most_three_open_or_running_tables(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        bot_table(client, ana)  # running tables count too
        tids = [new_table(client, ana)["id"] for _ in range(2)]
        r = client.post("/api/tables", json={}, headers=ana)
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_tables"
        new_table(client, bruno)  # another guest is not concerned
        assert client.post(f"/api/tables/{tids[0]}/close", headers=ana).status_code == 200
        new_table(client, ana)
        r = client.post("/api/tables", json={}, headers=ana)
        assert r.status_code == 409


# -- the sweep -----------------------------------------------------------------------------
def test_idle_open_tables_are_closed_and_stay_closed(tmp_path: Path, clock: Clock) -> None:
    t0 = clock.now
    with server(tmp_path, open_table_ttl=60, sweep_every=3600) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        idle = new_table(client, ana)["id"]
        busy = new_table(client, ana)["id"]
        with client.websocket_connect(f"/ws/tables/{idle}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            assert sweep(client, t0 + 59) == []
            clock.now = t0 + 50
            assert client.post(f"/api/tables/{busy}/sit", json={"seat": 1},
                               headers=bruno).status_code == 200  # a seat change: activity
            assert sweep(client, t0 + 61) == [idle]
            told = ws.receive_json()
            assert told["type"] == "table" and told["table"]["status"] == "closed"
        assert client.get(f"/api/tables/{idle}").json()["status"] == "closed"
        r = client.post(f"/api/tables/{idle}/sit", json={"seat": 1}, headers=bruno)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"
        r = client.get(f"/api/tables/{idle}/record")
        assert r.status_code == 409 and r.json()["error"]["code"] == "closed"
        assert [t["id"] for t in client.get("/api/tables").json()] == [busy]
        assert sweep(client, t0 + 111) == [busy]
        assert client.get("/api/tables").json() == []
    with server(tmp_path) as client:  # restarted: still closed, nothing resumed
        assert client.get("/api/tables").json() == []
        for tid in (idle, busy):
            assert client.get(f"/api/tables/{tid}").json()["status"] == "closed"


def test_the_sweep_runs_by_itself(tmp_path: Path) -> None:
    with server(tmp_path, open_table_ttl=0.2, sweep_every=0.05) as client:
        _, ana = guest(client, "Ana")
        tid = new_table(client, ana)["id"]
        deadline = time.monotonic() + 10
        while client.get(f"/api/tables/{tid}").json()["status"] != "closed":
            assert time.monotonic() < deadline, "the sweep did not close the idle table"
            time.sleep(0.05)


def test_unwatched_bot_tables_stop_and_do_not_restart(tmp_path: Path, clock: Clock) -> None:
    config = {"unwatched_bot_table_ttl": 60, "sweep_every": 3600, "bot_delay": 0.02}
    with server(tmp_path, **config) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        bots = bot_table(client, ana)
        mixed = new_table(client, ana, variant="bela4", seat=None)["id"]
        assert client.post(f"/api/tables/{mixed}/sit", json={"seat": 0},
                           headers=bruno).status_code == 200
        assert client.post(f"/api/tables/{mixed}/bots", headers=ana).status_code == 200
        start(client, mixed, ana)  # a player (away) and bots: not stopped
        t0 = clock.now
        with client.websocket_connect(f"/ws/tables/{bots}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            assert sweep(client, t0 + 3600) == []  # watched
            clock.now = t0 + 100
        assert sweep(client, t0 + 159) == []
        assert sweep(client, t0 + 161) == [bots]
        stopped = client.get(f"/api/tables/{bots}").json()
        assert stopped["status"] == "closed"
        time.sleep(0.3)  # bots at 0.02 s a move would have moved on
        assert client.get(f"/api/tables/{bots}").json()["seq"] == stopped["seq"]
        assert client.get(f"/api/tables/{mixed}").json()["status"] == "running"
        assert bots not in client.app.state.lobby.actors
    with server(tmp_path, **config) as client:
        time.sleep(0.3)
        again = client.get(f"/api/tables/{bots}").json()
        assert again["status"] == "closed" and again["seq"] == stopped["seq"]
        assert bots not in client.app.state.lobby.actors


# -- the lobby list ------------------------------------------------------------------------
def test_the_lobby_list_is_paged_newest_first(tmp_path: Path) -> None:
    with server(tmp_path, tables_per_guest=100, listing_ttl=3600) as client:
        _, ana = guest(client, "Ana")
        tids = [new_table(client, ana)["id"] for _ in range(7)]
        new_table(client, ana, private=True)
        closed = new_table(client, ana)["id"]
        assert client.post(f"/api/tables/{closed}/close", headers=ana).status_code == 200
        newest = tids[::-1]
        r = client.get("/api/tables")
        assert [t["id"] for t in r.json()] == newest and r.headers["X-Total-Count"] == "7"
        assert "Link" not in r.headers
        r = client.get("/api/tables", params={"limit": 3})
        assert [t["id"] for t in r.json()] == newest[:3]
        assert r.headers["Link"] == '</api/tables?limit=3&offset=3>; rel="next"'
        r = client.get("/api/tables", params={"limit": 3, "offset": 3})
        assert [t["id"] for t in r.json()] == newest[3:6]
        assert 'offset=6>; rel="next"' in r.headers["Link"]
        assert 'offset=0>; rel="prev"' in r.headers["Link"]
        r = client.get("/api/tables", params={"limit": 3, "offset": 6})
        assert [t["id"] for t in r.json()] == newest[6:]
        assert "next" not in r.headers["Link"]
        assert client.get("/api/tables", params={"offset": 50}).json() == []
        for bad in ({"limit": 0}, {"limit": 201}, {"offset": -1}, {"limit": "x"}):
            r = client.get("/api/tables", params=bad)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request"
        assert len(client.get("/api/tables", params={"limit": 200}).json()) == 7


def test_the_lobby_list_is_rebuilt_only_after_a_change(tmp_path: Path) -> None:
    with server(tmp_path, listing_ttl=3600) as client:
        lobby = client.app.state.lobby
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = new_table(client, ana)["id"]
        first = client.get("/api/tables")
        builds = lobby.listed.builds
        for _ in range(5):
            again = client.get("/api/tables")
            assert again.content == first.content
        assert lobby.listed.builds == builds  # nothing changed: the cached answer
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1},
                           headers=bruno).status_code == 200
        seats = client.get("/api/tables").json()[0]["seats"]
        assert [s["name"] for s in seats] == ["Ana", "Bruno"]
        assert lobby.listed.builds == builds + 1
    with server(tmp_path, listing_ttl=0.2) as client:  # the running tables' changes
        lobby = client.app.state.lobby
        client.get("/api/tables")
        builds = lobby.listed.builds
        client.get("/api/tables")
        assert lobby.listed.builds == builds
        time.sleep(0.25)
        client.get("/api/tables")
        assert lobby.listed.builds == builds + 1


def test_finished_tables_leave_the_lobby_list(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        tid = bot_table(client, ana, bot="random", options={"target": 1})
        deadline = time.monotonic() + 30
        while client.get(f"/api/tables/{tid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' match did not end"
            time.sleep(0.05)
        time.sleep(1.1)  # the list's age limit (listing_ttl 1 s)
        assert client.get("/api/tables").json() == []


# -- who may do what -----------------------------------------------------------------------
def test_only_the_creator_manages_seats_starts_and_closes(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = new_table(client, ana, variant="bela4")["id"]
        for what in ("bots", "start", "close"):
            r = client.post(f"/api/tables/{tid}/{what}", headers=bruno)
            assert r.status_code == 403 and r.json()["error"]["code"] == "not_owner", what
        r = client.post(f"/api/tables/{tid}/leave", headers=bruno)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_seated"
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1},
                           headers=bruno).status_code == 200
        assert client.post(f"/api/tables/{tid}/leave", headers=bruno).status_code == 200
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 2},
                           headers=bruno).status_code == 200
        for what in ("bots", "start", "close"):  # seated is not enough
            assert client.post(f"/api/tables/{tid}/{what}", headers=bruno).status_code == 403
        t = client.post(f"/api/tables/{tid}/bots", headers=ana).json()
        assert [s["kind"] for s in t["seats"]] == ["human", "bot", "human", "bot"]
        assert client.post(f"/api/tables/{tid}/start", headers=bruno).status_code == 403
        start(client, tid, ana)
        r = client.post(f"/api/tables/{tid}/close", headers=ana)
        assert r.status_code == 409 and r.json()["error"]["code"] == "has_players"


def test_the_creator_closes_an_open_table_and_stops_a_bot_table(tmp_path: Path) -> None:
    with server(tmp_path, bot_delay=0.02) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = new_table(client, ana)["id"]
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            t = client.post(f"/api/tables/{tid}/close", headers=ana).json()
            assert t["status"] == "closed"
            assert ws.receive_json()["table"]["status"] == "closed"
        r = client.post(f"/api/tables/{tid}/close", headers=ana)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"
        bots = bot_table(client, ana)
        assert client.post(f"/api/tables/{bots}/close", headers=bruno).status_code == 403
        with client.websocket_connect(f"/ws/tables/{bots}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            assert client.post(f"/api/tables/{bots}/close", headers=ana).status_code == 200
            msg = ws.receive_json()
            while msg["type"] != "table" or msg["table"]["status"] != "closed":
                msg = ws.receive_json()
            ws.send_json({"type": "act", "action": "pass"})
            while msg["type"] != "error":
                msg = ws.receive_json()
            assert msg["code"] == "spectator"
        seq = client.get(f"/api/tables/{bots}").json()["seq"]
        time.sleep(0.3)  # bots at 0.02 s a move would have moved on
        t = client.get(f"/api/tables/{bots}").json()
        assert t["status"] == "closed" and t["seq"] == seq


# -- private tables ------------------------------------------------------------------------
def test_private_tables_need_their_invite_code(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        bruno_token, bruno = guest(client, "Bruno")
        _, cara = guest(client, "Cara")
        made = new_table(client, ana, variant="bela4", private=True)
        tid, code = made["id"], made["invite_code"]
        assert made["private"] is True and made["invite"] == f"/?table={tid}&code={code}"
        assert client.get("/api/tables").json() == []
        public = new_table(client, ana)
        assert public["private"] is False and "invite_code" not in public
        assert "invite_code" not in client.get(f"/api/tables/{tid}").json()
        assert "invite_code" not in client.get(f"/api/tables/{tid}", headers=bruno).json()
        assert client.get(f"/api/tables/{tid}", headers=ana).json()["invite_code"] == code
        for body in ({"seat": 1}, {"seat": 1, "code": "wrong"}, {"seat": 1, "code": ""}):
            r = client.post(f"/api/tables/{tid}/sit", json=body, headers=bruno)
            assert r.status_code == 403 and r.json()["error"]["code"] == "invite_required"
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # no code: not watched
            assert ws.receive_json()["code"] == "invite_required"
            assert ws.receive()["code"] == 4403
        with client.websocket_connect(f"/ws/tables/{tid}?code={code}") as ws:
            assert ws.receive_json()["type"] == "welcome"
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 1, "code": code}, headers=bruno)
        assert r.status_code == 200 and "invite_code" not in r.json()
        with client.websocket_connect(f"/ws/tables/{tid}?token={bruno_token}") as ws:
            assert ws.receive_json()["seat"] == 1  # seated: no code needed
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 2}, headers=cara)
        assert r.status_code == 403
    with server(tmp_path) as client:  # restarted: still private, the same code
        assert [t["id"] for t in client.get("/api/tables").json()] == [public["id"]]
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 2}, headers=cara)
        assert r.status_code == 403
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 2, "code": code}, headers=cara)
        assert r.status_code == 200


def test_a_database_of_the_first_schema_is_migrated(tmp_path: Path) -> None:
    """Tables stored before private tables and activity times: public, idle since their
    creation."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from bela.storage.db import alembic_config

    url = f"sqlite:///{tmp_path / 'bela.db'}"
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = alembic_config(url)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(text("INSERT INTO players VALUES ('p1', 'Ana', 'hash', "
                          "'2025-01-01 00:00:00.000000')"))
        conn.execute(text("INSERT INTO tables (id, variant, options, seed, bot, status, "
                          "owner_id, created_at) VALUES ('old1', 'bela2', '{}', 1, 'random', "
                          "'open', 'p1', '2025-01-01 00:00:00.000000')"))
        conn.execute(text("INSERT INTO seats VALUES ('old1', 0, 'p1', 0, 'Ana'), "
                          "('old1', 1, NULL, 0, '')"))
    engine.dispose()
    created = 1735689600.0  # 2025-01-01 00:00 UTC
    with server(tmp_path, open_table_ttl=60, sweep_every=3600) as client:
        [old] = client.get("/api/tables").json()
        assert old["id"] == "old1" and old["private"] is False
        assert sweep(client, created + 59) == []
        assert sweep(client, created + 61) == ["old1"]
    engine = create_engine(url)
    with engine.begin() as conn:  # and back
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
        assert "private" not in conn.execute(text("SELECT * FROM tables")).keys()
    engine.dispose()

"""Operations: ``/healthz``, ``/readyz``, the Prometheus metrics of ``/metrics`` (one
registry per app), and log lines that name their table (JSON logs)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Reader, guest, server, start, table_with

from bela.server.logs import JsonFormatter, TableLog

pytest.importorskip("prometheus_client")

from prometheus_client import CONTENT_TYPE_LATEST  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Any) -> Samples:
    """Every sample of ``GET /metrics``: (name, sorted labels) -> value."""
    r = client.get("/metrics")
    assert r.status_code == 200, r.text
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value (0 for a labelled series not counted yet)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def human_vs_bot(client: Any) -> tuple[str, str, dict[str, str]]:
    """A running bela2 table: Ana in seat 0, a bot in seat 1.  (table id, token, headers)"""
    token, h = guest(client, "Ana")
    tid = table_with(client, "bela2", [h], bots=True, seed=1)
    start(client, tid, h)
    return tid, token, h


def my_turn(r: Reader, seat: int, after: int) -> dict[str, Any]:
    """The next state later than ``after`` where ``seat`` is to act (nothing else moves the
    table then: the bot waits for him)."""
    def mine(m: dict[str, Any]) -> bool:
        return (m["type"] == "state" and m["seq"] > after and m["status"] == "running"
                and m["view"]["turn"] == seat and bool(m["view"]["legal"]))

    if r.state is not None and mine(r.state):  # the newest state received is the current one
        return r.state
    return r.until(mine)


def play_turns(r: Reader, seat: int, n: int) -> int:
    """Play ``n`` of ``seat``'s turns (the first legal action each time); the last state's
    seq acted on."""
    seq = 0
    for _ in range(n):
        st = my_turn(r, seat, seq)
        seq = st["seq"]
        r.send({"type": "act", "action": st["view"]["legal"][0], "seq": seq})
    r.until_seq(seq + 1)
    return seq


def test_healthz_names_the_instance(tmp_path: Path) -> None:
    with server(tmp_path, instance="t1") as client:
        r = client.get("/healthz")
        assert r.status_code == 200
        assert r.json() == {"status": "ok", "instance": "t1"}


def test_readyz_follows_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with server(tmp_path, instance="t1") as client:
        r = client.get("/readyz")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "ready" and body["instance"] == "t1"
        assert body["checks"] == {"started": True, "database": True, "cluster": True}

        def down() -> None:
            raise OperationalError("SELECT 1", {}, Exception("down"))

        monkeypatch.setattr(client.app.state.db, "ping", down)
        r = client.get("/readyz")
        assert r.status_code == 503, r.text
        body = r.json()
        assert body["status"] == "unavailable"
        assert body["checks"]["database"] is False and body["checks"]["started"] is True
        monkeypatch.undo()
        assert client.get("/readyz").status_code == 200


def test_metrics_count_a_match(tmp_path: Path) -> None:
    """After a few human and bot moves: actions by kind, their update and write times, the
    bots' thinking, the live table and the open connections."""
    with server(tmp_path) as client:
        r = client.get("/metrics")
        assert r.status_code == 200
        assert r.headers["content-type"] == CONTENT_TYPE_LATEST
        assert r.headers["content-type"].startswith("text/plain")
        before = scrape(client)
        assert value(before, "bela_live_tables") == 0
        assert value(before, "bela_connections") == 0
        assert value(before, "bela_actions_total", by="human") == 0

        tid, token, _h = human_vs_bot(client)
        with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as wp, \
                client.websocket_connect(f"/ws/tables/{tid}") as ws:
            player, spectator = Reader(wp), Reader(ws)
            spectator.until(lambda m: m["type"] == "welcome")
            last = play_turns(player, 0, 3)
            quiet = my_turn(player, 0, last)  # the bot waits for Ana: nothing moves now
            spectator.until_seq(quiet["seq"])
            m = scrape(client)
            humans, bots = (value(m, "bela_actions_total", by=by) for by in ("human", "bot"))
            assert humans == 3 and bots > 0
            assert value(m, "bela_action_update_seconds_count") == humans + bots
            assert value(m, "bela_store_write_seconds_count", what="action") == humans + bots
            assert value(m, "bela_bot_think_seconds_count") > 0
            assert value(m, "bela_live_tables") == 1
            assert value(m, "bela_open_tables") == 0
            assert value(m, "bela_connections") == 2
            table = client.app.state.lobby.tables[tid]
            assert humans + bots + len(table.match.rounds) == table.seq == quiet["seq"]
            assert value(m, "bela_store_write_seconds_count", what="deal") == len(
                table.match.rounds)


@pytest.mark.parametrize("host, public, status", [
    ("127.0.0.1", False, 200), ("10.0.3.7", False, 200), ("fd12::5", False, 200),
    ("203.0.113.7", False, 403), ("2001:db8::7", False, 403), ("203.0.113.7", True, 200)])
def test_metrics_are_for_private_networks_unless_public(tmp_path: Path, host: str,
                                                        public: bool, status: int) -> None:
    """The bots' think times would tell an outsider how long each bot move took: a public
    address is refused unless the server serves the metrics to all (docs/SECURITY.md)."""
    from starlette.testclient import TestClient

    with server(tmp_path, public_metrics=public) as client:
        r = TestClient(client.app, client=(host, 40000)).get("/metrics")
    assert r.status_code == status, r.text
    if status == 403:
        assert r.json()["error"]["code"] == "metrics_private"
        assert "bela_" not in r.text


def test_the_connection_gauge_falls_when_sockets_close(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gauge counts a socket out however its handler ends, cancelled included (a
    disconnect that takes a moment makes TestClient's cancellation land in it every time)."""
    with server(tmp_path) as client:
        lobby = client.app.state.lobby
        disconnect = lobby.disconnect

        async def slow_disconnect(table: Any, conn: Any) -> None:
            await disconnect(table, conn)
            await asyncio.sleep(0.05)

        monkeypatch.setattr(lobby, "disconnect", slow_disconnect)
        tid, token, _h = human_vs_bot(client)
        with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as wp:
            Reader(wp).until(lambda m: m["type"] == "welcome")
            assert value(scrape(client), "bela_connections") == 1
        deadline = time.monotonic() + 0.5  # the server's side ends a moment after the client's
        while value(scrape(client), "bela_connections") != 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert value(scrape(client), "bela_connections") == 0


def test_a_refused_write_counts_as_a_storage_error_and_logs_its_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The database refuses a player's action: ``bela_errors_total{kind="storage"}`` grows,
    and the actor's log line names the table (as an extra and in the JSON line)."""
    caplog.set_level(logging.WARNING, logger="bela.server")
    with server(tmp_path) as client:
        tid, token, _h = human_vs_bot(client)
        lobby = client.app.state.lobby
        with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as wp:
            player = Reader(wp)
            st = my_turn(player, 0, 0)
            before = scrape(client)

            def refuse(*_args: Any) -> None:
                raise OSError("the disk is full")

            monkeypatch.setattr(lobby.store.db.tables, "append", refuse)
            player.send({"type": "act", "action": st["view"]["legal"][0], "seq": st["seq"]})
            err = player.until(lambda m: m["type"] == "error")
            assert err["code"] == "storage", err
            after = scrape(client)
            assert value(after, "bela_errors_total", kind="storage") == value(
                before, "bela_errors_total", kind="storage") + 1
            assert value(after, "bela_actions_total", by="human") == value(
                before, "bela_actions_total", by="human")
            # the write was timed though it failed
            assert value(after, "bela_store_write_seconds_count", what="action") == value(
                before, "bela_store_write_seconds_count", what="action") + 1
            assert lobby.tables[tid].seq == st["seq"]
            monkeypatch.undo()
            player.send({"type": "act", "action": st["view"]["legal"][0], "seq": st["seq"]})
            player.until_seq(st["seq"] + 1)
    logged = [r for r in caplog.records if "could not store an action" in r.getMessage()]
    assert len(logged) == 1, [r.getMessage() for r in caplog.records]
    record = logged[0]
    assert record.levelno == logging.ERROR and record.table == tid  # type: ignore[attr-defined]
    line = json.loads(JsonFormatter("bela-a").format(record))
    assert line["table"] == tid and line["instance"] == "bela-a" and line["level"] == "error"
    assert "OSError" in line["error"] and "the disk is full" in line["error"]


def test_two_apps_do_not_share_counts(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with server(tmp_path / "a") as a, server(tmp_path / "b") as b:
        assert a.app.state.metrics.registry is not b.app.state.metrics.registry
        tid, token, _h = human_vs_bot(a)
        with a.websocket_connect(f"/ws/tables/{tid}?token={token}") as wp:
            play_turns(Reader(wp), 0, 1)
            ma, mb = scrape(a), scrape(b)
            assert value(ma, "bela_actions_total", by="human") == 1
            assert value(ma, "bela_connections") == 1 and value(ma, "bela_live_tables") == 1
            assert value(mb, "bela_actions_total", by="human") == 0
            assert value(mb, "bela_actions_total", by="bot") == 0
            assert value(mb, "bela_connections") == 0 and value(mb, "bela_live_tables") == 0
            assert value(mb, "bela_store_write_seconds_count", what="action") == 0


def test_table_log_lines_carry_the_table_in_json() -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("bela.test.observability")
    handler = Keep()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        TableLog(logger, "t-42").warning("table %s: taken over", "t-42")
        TableLog(logger, "t-42").info("with more", extra={"seat": 3})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        logger.propagate = True
    assert len(records) == 2
    first = json.loads(JsonFormatter("bela1").format(records[0]))
    assert first["table"] == "t-42" and first["instance"] == "bela1"
    assert first["message"] == "table t-42: taken over" and first["level"] == "warning"
    assert first["logger"] == "bela.test.observability" and "error" not in first
    second = json.loads(JsonFormatter("bela1").format(records[1]))
    assert second["table"] == "t-42" and second["seat"] == 3

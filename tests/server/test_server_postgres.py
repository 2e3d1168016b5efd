"""The server on a real PostgreSQL (optional): set BELA_TEST_POSTGRES_URL, e.g.
``postgresql+psycopg://bela:bela@127.0.0.1/bela_test`` (the database is emptied first), and
install a driver (``pip install 'bela[postgres]'``).  Migrations, a match, a restart that
rebuilds the table from the database, the history."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

URL = os.environ.get("BELA_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not URL, reason="BELA_TEST_POSTGRES_URL is not set")


def _empty(url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def test_postgres_match_restart_and_history(tmp_path: Any) -> None:
    from server_helpers import Reader, guest, play_out, server, start, table_with

    assert URL is not None
    if URL.startswith("postgresql"):
        _empty(URL)
    with server(tmp_path, URL) as client:
        players = [guest(client, n) for n in ("Ana", "Bruno")]
        tid = table_with(client, "bela2", [h for _, h in players], options={"target": 301})
        start(client, tid, players[0][1])
        with client.websocket_connect(f"/ws/tables/{tid}?token={players[0][0]}") as w0, \
                client.websocket_connect(f"/ws/tables/{tid}?token={players[1][0]}") as w1:
            readers = [Reader(w0), Reader(w1)]
            rng = random.Random(2)
            for _ in range(7):  # a few actions, then the server goes away
                st = readers[0].until(lambda m: m["type"] == "state")
                readers[1].until_seq(st["seq"])
                me = readers[st["view"]["turn"]]
                assert me.state is not None
                legal = me.state["view"]["legal"]
                me.send({"type": "act", "action": legal[rng.randrange(len(legal))],
                         "seq": st["seq"]})
            readers[0].until_seq(st["seq"] + 1)
            before = readers[0].state
    with server(tmp_path, URL) as client:  # a new process would do the same: rebuild
        assert client.get(f"/api/tables/{tid}").json()["seq"] == before["seq"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={players[0][0]}") as w0, \
                client.websocket_connect(f"/ws/tables/{tid}?token={players[1][0]}") as w1:
            readers = [Reader(w0), Reader(w1)]
            for r in readers:
                r.until(lambda m: m["type"] == "state")
            assert readers[0].state["view"] == before["view"]
            final = play_out(readers, dict(enumerate(readers)), random.Random(3))
        hist = client.get("/api/players/me/history", headers=players[1][1]).json()
        assert hist[0]["table"] == tid and hist[0]["totals"] == final["view"]["totals"]
        assert client.get(f"/api/tables/{tid}/record").json()["variant"] == "bela2"

"""The event loop stays free while heavy requests are served (docs/SECURITY.md "Heavy
requests"): the history as pages of summaries built off the loop, records written off the
loop, the pad listing without scoring and in threads of its own, so that logins and
``/readyz`` never queue behind it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server
from sqlalchemy import insert

from bela.storage.models import seats, tables


@contextmanager
def loop_lag(client: Any) -> Iterator[list[float]]:
    """The lags of a task ticking every 5 ms on the app's event loop while the block runs:
    how long a WebSocket ping at any table would have waited."""
    lags: list[float] = []
    stop = threading.Event()

    async def tick() -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            before = loop.time()
            await asyncio.sleep(0.005)
            lags.append(loop.time() - before - 0.005)

    done = client.portal.start_task_soon(tick)
    time.sleep(0.05)
    try:
        yield lags
    finally:
        stop.set()
        done.result(timeout=10)


def finished_tables(client: Any, player_id: str, count: int, rounds: int) -> list[str]:
    """``count`` finished bela2 tables of ``player_id`` with long records, written straight
    into the database (the record's size is what counts, not its play)."""
    record = {"format": "bela-record", "variant": "bela2", "players": ["Ana", "Bot"],
              "rounds": [{"dealer": i % 2, "hands": ["7H 8H 9H TH JH QH"] * 2,
                          "actions": ["pass", "H", "JH", "QH"] * 60} for i in range(rounds)]}
    ids, at = [], datetime(2026, 1, 1, tzinfo=UTC)
    with client.app.state.db.begin() as conn:
        for i in range(count):
            tid = f"hist{i:04d}"
            conn.execute(insert(tables).values(
                id=tid, variant="bela2", options={"target": 1001}, seed=i, bot="heuristic",
                status="finished", owner_id=player_id, created_at=at,
                finished_at=at + timedelta(minutes=i), record=record,
                result={"totals": [1001, i], "winner": 0}))
            conn.execute(insert(seats).values(table_id=tid, seat=0, player_id=player_id,
                                              is_bot=False, name="Ana"))
            conn.execute(insert(seats).values(table_id=tid, seat=1, player_id=None,
                                              is_bot=True, name="Bot"))
            ids.append(tid)
    return ids


def test_the_loop_stays_responsive_while_a_big_history_is_served(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        tok, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        finished_tables(client, pid, 60, 60)  # ~3.5 MB of records
        with loop_lag(client) as lags:
            for _ in range(3):
                r = client.get("/api/players/me/history?limit=100", headers=h)
                assert r.status_code == 200
        assert lags and max(lags) < 0.25, max(lags)  # before: every request > 1 s


def test_the_history_is_paged_summaries_with_a_link_to_each_record(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        tok, h = guest(client, "Ana")
        pid = client.get("/api/players/me", headers=h).json()["player_id"]
        ids = finished_tables(client, pid, 25, 2)
        r = client.get("/api/players/me/history", headers=h)
        page = r.json()
        assert r.headers["X-Total-Count"] == "25" and len(page) == 20
        assert [g["table"] for g in page] == ids[::-1][:20]  # newest first
        assert page[0] == {"table": ids[-1], "variant": "bela2", "options": {"target": 1001},
                           "seat": 0, "players": ["Ana", "Bot"], "totals": [1001, 24],
                           "winner": 0, "finished_at": page[0]["finished_at"],
                           "play_on": False, "record": f"/api/tables/{ids[-1]}/record"}
        assert 'rel="next"' in r.headers["Link"]
        rest = client.get("/api/players/me/history?offset=20", headers=h).json()
        assert [g["table"] for g in rest] == ids[::-1][20:]
        record = client.get(page[0]["record"]).json()
        assert record["variant"] == "bela2" and len(record["rounds"]) == 2
        assert client.get("/api/players/me/history?limit=101",
                          headers=h).status_code == 422


def test_a_guest_and_a_token_look_up_are_made_off_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database calls of a new guest and of every request's token are made in worker
    threads: a slow database does not stop the loop."""
    from bela.storage.repos import Accounts, Players, Repo

    def slowed(repo: type[Repo], name: str) -> Callable[..., Any]:
        original = getattr(repo, name)

        def slow(self: Repo, *args: Any) -> Any:
            time.sleep(0.3)
            return original(self, *args)
        return slow

    with server(tmp_path) as client:
        for repo, name in ((Players, "create_player"), (Players, "player_by_token"),
                           (Accounts, "name_taken")):
            monkeypatch.setattr(repo, name, slowed(repo, name))
        with loop_lag(client) as lags:
            tok, h = guest(client, "Ana")
            assert client.get("/api/players/me", headers=h).status_code == 200
        assert lags and max(lags) < 0.2, max(lags)

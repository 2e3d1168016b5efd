"""The server's bots: only bots that can run are offered, and a failing bot never stops a table
(issue 8: PIMC/ISMCTS on an install without numpy froze the table and logged every second)."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from server_helpers import guest, server

from bela.bots import BOTS
from bela.server import actor


def _missing(seed: int | None = None, **settings: Any) -> Any:
    raise ModuleNotFoundError("No module named 'numpy'")


def test_bots_that_cannot_run_are_not_offered(tmp_path: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "pimc", _missing)  # as on a `[server]` install without numpy
    monkeypatch.setitem(BOTS, "ismcts", _missing)
    with server(tmp_path) as client:
        bots = client.get("/api/variants").json()["bots"]
        assert "pimc" not in bots and "ismcts" not in bots
        assert {"random", "heuristic"} <= set(bots)
        _, h = guest(client, "Ana")
        r = client.post("/api/tables", json={"bot": "pimc"}, headers=h)
        assert r.status_code == 422, r.text
        err = r.json()["error"]
        assert err["code"] == "bot_unavailable" and "heuristic" in err["message"]
        assert client.post("/api/tables", json={"bot": "heuristic"},
                           headers=h).status_code == 200


def test_every_listed_bot_can_be_made(tmp_path: Any) -> None:
    from bela.bots import make_bot

    with server(tmp_path) as client:
        for name in client.get("/api/variants").json()["bots"]:
            assert make_bot(name, seed=1) is not None


class _Broken:
    def act(self, view: Any) -> Any:
        raise RuntimeError("the solver exploded")


class _Cheat:
    def act(self, view: Any) -> Any:
        from bela.engine.actions import parse_action

        return parse_action("claim 0") if view.phase == "play" else view.legal[0]


@pytest.mark.parametrize("bot", [_Broken, _Cheat])
def test_a_failing_bot_falls_back_and_the_table_goes_on(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        bot: type) -> None:
    """A bot that raises (or answers an illegal action) is replaced move by move by a legal
    fallback; the table finishes; the failure is logged once for the table."""
    caplog.set_level(logging.DEBUG, logger="bela.server")
    with server(tmp_path) as client:
        _, h = guest(client, "Ana")
        r = client.post("/api/tables", json={"variant": "bela4", "bot": "random", "seat": None,
                                             "seed": 5, "options": {"target": 1}}, headers=h)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
        monkeypatch.setattr(actor, "make_bot", lambda spec, seed=None: bot())
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # keeps it in memory
            assert ws.receive_json()["type"] == "welcome"
            assert client.post(f"/api/tables/{tid}/start", headers=h).status_code == 200
            deadline = time.monotonic() + 20
            while True:
                t = client.get(f"/api/tables/{tid}").json()
                if t["status"] == "finished":
                    break
                assert time.monotonic() < deadline, f"the table is stuck at event {t['seq']}"
                time.sleep(0.05)
            assert t["bot_fallback"] is True  # the table's players are told
        assert t["seq"] > 32  # a deal and at least its 32 cards
        record = client.get(f"/api/tables/{tid}/record").json()
        assert record["rounds"] and all(r["actions"] for r in record["rounds"])
    failed = [r for r in caplog.records if r.name == "bela.server"
              and r.levelno >= logging.WARNING and "failed" in r.getMessage()]
    assert len(failed) == 1, [r.getMessage() for r in failed]
    assert "random" in failed[0].getMessage()

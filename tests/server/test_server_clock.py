"""The turn clock: a table's ``turn_clock`` gives the player to act that many seconds; then
the table's bot plays that one turn for him and the table goes on.  Tests run with 1-second
clocks (``min_turn_clock=1``) over real WebSockets, and at the actor for the races."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Reader, guest, server, start, table_with

from bela.server.actor import ClockOver
from bela.server.hub import Conn, Hub
from bela.server.lobby import Lobby
from bela.server.model import ServerConfig, Table
from bela.server.store import Store
from bela.storage import Database

CLOCK = 1  # seconds: the tests' turn clock


def _my_turn(msg: dict[str, Any]) -> bool:
    """A state where seat 0 (Ana) is to act."""
    return (msg["type"] == "state" and msg["status"] == "running"
            and msg["view"]["turn"] == 0 and bool(msg["view"]["legal"]))


def _clock_table(client: Any, h: dict[str, str]) -> str:
    """A bela2 table of Ana (seat 0) and a bot, with the tests' clock."""
    return table_with(client, "bela2", [h], bots=True, turn_clock=CLOCK)


def test_a_player_who_does_not_act_has_his_turn_played_and_the_table_goes_on(
        tmp_path: Path) -> None:
    with server(tmp_path, min_turn_clock=CLOCK) as client:
        tok, h = guest(client, "Ana")
        tid = _clock_table(client, h)
        assert client.get(f"/api/tables/{tid}").json()["turn_clock"] == CLOCK
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            me = Reader(ws)
            assert me.recv()["table"]["turn_clock"] == CLOCK  # welcome
            start(client, tid, h)
            for _ in range(2):  # twice: the clock starts again for her next turn
                mine = me.until(_my_turn)
                asked = time.monotonic()
                assert mine["clock"]["seat"] == 0
                assert 0 < mine["clock"]["deadline_in"] <= CLOCK
                played = me.until_seq(mine["seq"] + 1)
                assert time.monotonic() - asked >= CLOCK / 2  # not at once (a loaded CI)
                # her own seat is told what was played for her
                assert played["last"]["seat"] == 0
                assert played["last"]["action"] in mine["view"]["legal"]
        summary = client.get(f"/api/tables/{tid}").json()
        assert summary["status"] == "running" and not summary["seats"][0]["autopilot"]


def test_a_table_without_a_clock_has_none(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        tok, h = guest(client, "Ana")
        tid = table_with(client, "bela2", [h], bots=True)
        assert client.get(f"/api/tables/{tid}").json()["turn_clock"] is None
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            me = Reader(ws)
            me.recv()
            start(client, tid, h)
            assert me.until(_my_turn)["clock"] is None


def test_a_player_acting_in_time_is_not_overridden(tmp_path: Path) -> None:
    """Ana acts late in her clock: her action applies, and her next turn has a whole clock
    of its own (the races with the old timer: below, at the actor)."""
    with server(tmp_path, min_turn_clock=CLOCK) as client:
        tok, h = guest(client, "Ana")
        tid = _clock_table(client, h)
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            me = Reader(ws)
            me.recv()
            start(client, tid, h)
            mine = me.until(_my_turn)
            time.sleep(CLOCK * 0.5)
            token = str(mine["view"]["legal"][-1])
            me.send({"type": "act", "action": token, "seq": mine["seq"]})
            after = me.until(lambda m: m["type"] == "state" and m["seq"] > mine["seq"])
            assert after["last"] == {"seat": 0, "action": token}
            mine = me.until(_my_turn)
            assert mine["clock"]["seat"] == 0 and mine["clock"]["deadline_in"] > CLOCK * 0.6


def test_the_clock_survives_a_restart(tmp_path: Path) -> None:
    with server(tmp_path, min_turn_clock=CLOCK) as client:
        tok, h = guest(client, "Ana")
        tid = _clock_table(client, h)
        start(client, tid, h)
    with server(tmp_path, min_turn_clock=CLOCK) as client:
        summary = client.get(f"/api/tables/{tid}").json()
        assert summary["status"] == "running" and summary["turn_clock"] == CLOCK
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
            me = Reader(ws)
            mine = me.until(_my_turn)
            assert mine["clock"]["seat"] == 0
            played = me.until(lambda m: m["type"] == "state" and m["seq"] > mine["seq"])
            assert played["last"]["seat"] == 0


def test_clocks_and_targets_out_of_range_are_refused(tmp_path: Path) -> None:
    with server(tmp_path, tables_per_guest=100) as client:
        ranges = client.get("/api/variants").json()["ranges"]
        assert ranges == {"target": [1, 5001], "turn_clock": [15, 600],
                          "quick_wait": [5, 300]}  # for the forms
        _, h = guest(client, "Ana")
        for body, code in (({"turn_clock": 14}, "bad_turn_clock"),
                           ({"turn_clock": 601}, "bad_turn_clock"),
                           ({"turn_clock": 0}, "bad_turn_clock"),
                           ({"turn_clock": -60}, "bad_turn_clock"),
                           ({"turn_clock": 10**30}, "bad_turn_clock"),
                           ({"turn_clock": "60"}, "bad_request"),
                           ({"turn_clock": 60.5}, "bad_request"),
                           ({"turn_clock": True}, "bad_request"),
                           ({"options": {"target": 0}}, "bad_options"),
                           ({"options": {"target": 5002}}, "bad_options"),
                           ({"options": {"target": 10**30}}, "bad_options")):
            r = client.post("/api/tables", json=body, headers=h)
            assert r.status_code == 422, (body, r.text)
            assert r.json()["error"]["code"] == code, (body, r.text)
        r = client.post("/api/tables", json={"options": {"target": 10**30}}, headers=h)
        assert "from 1 to 5001" in r.json()["error"]["message"]
        r = client.post("/api/tables", json={"turn_clock": 601}, headers=h)
        assert "15 to 600 seconds" in r.json()["error"]["message"]
        for clock in (15, 600, None):
            r = client.post("/api/tables", json={"turn_clock": clock,
                                                 "options": {"target": 5001}}, headers=h)
            assert r.status_code == 200, r.text
            assert r.json()["turn_clock"] == clock
        assert client.get("/api/tables").json()[0]["turn_clock"] is None


# -- races at the actor ----------------------------------------------------------------------
def _run_actor(tmp_path: Path, first: str) -> None:
    """Ana's action and her clock's message for the same state arrive together: whichever
    comes first, her action applies and the bot plays none of her turns."""
    async def main() -> None:
        db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
        lobby = Lobby(Store(db), Hub(), ServerConfig(bot_delay=0, round_pause=0,
                                                     allow_seed=True, min_turn_clock=CLOCK))
        pid, _token = db.players.create_player("Ana")
        ana = {"id": pid, "name": "Ana"}
        try:
            table = lobby.factory.create(ana, "bela2", {}, "heuristic", 0, seed=5, turn_clock=60)
            lobby.seating.fill_bots(table, ana, None)
            conn = Conn(_no_send, pid, 0)
            await lobby.connect(table, conn)
            await lobby.start(table, ana)
            await _ana_to_act(table)
            seq, actor = table.seq, lobby.actors[table.id]
            assert table.clock is not None and table.clock[0] == 0
            assert table.match is not None and table.match.round is not None
            token = table.match.round.legal_actions()[0].token()
            if first == "clock":
                actor.post(ClockOver(0, seq))
            acted = asyncio.ensure_future(lobby.act(table, conn, token, seq))
            await asyncio.sleep(0)  # both are queued now, in this order
            if first == "player":
                actor.post(ClockOver(0, seq))
            assert await acted is None
            await _ana_to_act(table)
            ours = table.seq
            await asyncio.sleep(0.3)  # no bot plays her new turn: its clock runs (60 s)
            assert table.seq == ours and table.clock is not None
            log = table.match.rounds[0].log
            assert log[seq - 1].token() == token  # her action, not the bot's
        finally:
            await lobby.shutdown()
            db.close()

    asyncio.run(main())


async def _no_send(_text: str) -> None:
    """The connection of these tests is read from its queue, never sent."""


async def _ana_to_act(table: Table) -> None:
    """Wait until seat 0 is to act (the bot in seat 1 plays at once)."""
    for _ in range(500):
        m = table.match
        if m is not None and m.round is not None and not m.round.is_over and m.round.turn == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("seat 0 was never to act")


@pytest.mark.parametrize("first", ["clock", "player"])
def test_a_clock_and_an_action_at_once(tmp_path: Path, first: str) -> None:
    _run_actor(tmp_path, first)

"""One actor per running table: changes that arrive at once are handled one at a time, in
order, checked against the table's sequence number (exactly one applies; the other gets the
usual ``stale`` error, or is dropped when it is a bot's move)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from server_helpers import run_lobby

from bela.bots.driver import Decision  # noqa: E402
from bela.engine import parse_action  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.server import actor as actor_module  # noqa: E402
from bela.server.actor import BotMove  # noqa: E402
from bela.server.hub import Conn  # noqa: E402
from bela.server.lobby import Lobby  # noqa: E402
from bela.server.model import Table  # noqa: E402
from bela.storage.repos.tables import LogEntry  # noqa: E402


async def _no_send(_text: str) -> None:
    """Connections of these tests are read from their queues, never sent."""


def _conn(player: dict[str, Any], seat: int | None) -> Conn:
    return Conn(_no_send, player["id"], seat)


def _run(tmp_path: Path, scenario: Callable[[Lobby, list[dict[str, Any]]], Awaitable[None]],
         **config: Any) -> None:
    """Run ``scenario(lobby, players)`` on a fresh lobby with two guests."""
    run_lobby(tmp_path, scenario, **config)


async def _started(lobby: Lobby, players: list[dict[str, Any]]) -> Table:
    table = lobby.factory.create(players[0], "bela2", {}, "heuristic", 0, seed=5)
    lobby.seating.sit(table, players[1], 1)
    await lobby.start(table, players[0])
    assert table.seq == 1 and table.match is not None and table.match.round is not None
    return table


def _stored_events(lobby: Lobby, table: Table) -> int:
    row = lobby.store.db.tables.load_table(table.id, with_log=True)
    assert row is not None
    return len(row["rounds"]) + len(row["actions"])


def test_two_tabs_acting_at_once_are_serialized(tmp_path: Path) -> None:
    """Two connections of the seat to act send different actions on the same state at
    once: the first applies, the second is stale; the table and its log agree."""
    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        table = await _started(lobby, players)
        assert table.match is not None and table.match.round is not None
        turn = table.match.round.turn
        tabs = [_conn(players[turn], turn) for _ in range(2)]
        for tab in tabs:
            await lobby.connect(table, tab)
        legal = [a.token() for a in seat_view(table.match, turn).legal]
        assert len(legal) >= 2
        replies = await asyncio.gather(lobby.act(table, tabs[0], legal[0], 1),
                                       lobby.act(table, tabs[1], legal[1], 1))
        assert replies[0] is None
        stale = replies[1]
        assert stale is not None and stale["code"] == "stale" and stale["seq"] == 2
        assert table.seq == 2 and table.last == (turn, legal[0])
        assert _stored_events(lobby, table) == 2
        log = table.match.rounds[-1].log
        assert [a.token() for a in log] == [legal[0]]

    _run(tmp_path, scenario)


@pytest.mark.parametrize("first", ["bot", "player"])
def test_a_returning_player_races_the_autopilot_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    """An absent player's seat is on autopilot; the bot's move and the player's return with
    an action arrive together.  Whichever the actor takes first applies; the other is
    dropped (the bot's, once its player is back) or refused as stale (the player's)."""
    release = threading.Event()

    class Waiting:  # the table's own bot thinks until the test ends
        def act(self, view: Any) -> Any:
            release.wait(10)
            return view.legal[0]

    monkeypatch.setattr(actor_module, "make_bot", lambda spec, seed=None: Waiting())

    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        try:
            table = await _started(lobby, players)
            assert table.match is not None and table.match.round is not None
            turn = table.match.round.turn
            while not table.seats[turn].autopilot:  # grace 0: the bot takes over at once
                await asyncio.sleep(0.01)
            # both pass: the second pass would be legal for the next seat too, so only the
            # sequence number check keeps it from applying
            assert "pass" in [a.token() for a in seat_view(table.match, turn).legal]
            actor = lobby.actors[table.id]
            tab = _conn(players[turn], turn)
            bot_move = BotMove(turn, 1, Decision(parse_action("pass")))
            if first == "bot":
                actor.post(bot_move)
            joined = asyncio.ensure_future(lobby.connect(table, tab))
            acted = asyncio.ensure_future(lobby.act(table, tab, "pass", 1))
            await asyncio.sleep(0)  # both are queued now, in this order
            if first == "player":
                actor.post(bot_move)
            await joined
            reply = await acted
            watcher = _conn(players[0], None)  # its refused action: all before it is handled
            barrier = await lobby.act(table, watcher, "pass", None)
            assert barrier is not None and barrier["code"] == "spectator"
            assert table.seq == 2 and _stored_events(lobby, table) == 2
            assert not table.seats[turn].autopilot  # the player is back
            assert table.last == (turn, "pass")
            if first == "bot":
                assert reply is not None and reply["code"] == "stale" and reply["seq"] == 2
            else:
                assert reply is None
        finally:
            release.set()

    _run(tmp_path, scenario, grace=0)


def test_a_refused_action_changes_nothing(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The database refuses a player's action: ``storage``, and the table stays as it was."""
    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        table = await _started(lobby, players)
        assert table.match is not None and table.match.round is not None
        turn = table.match.round.turn
        tab = _conn(players[turn], turn)
        await lobby.connect(table, tab)
        with monkeypatch.context() as m:
            m.setattr(lobby.store.db.tables, "append", _refuse)
            reply = await lobby.act(table, tab, "pass", 1)
        assert reply is not None and reply["code"] == "storage"
        assert table.seq == 1 and not table.match.round.log and _stored_events(lobby, table) == 1
        assert await lobby.act(table, tab, "pass", 1) is None and table.seq == 2

    _run(tmp_path, scenario)


def test_a_refused_bot_move_is_tried_again_every_second(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The database refuses a bot's move twice: nothing applies, the move is made a second
    after each refusal, and the refusal is logged once."""
    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        refusals = []
        append = lobby.store.db.tables.append  # the group commit of the log events

        def refuse_twice(entries: list[LogEntry]) -> list[bool]:
            if any(e.deal is None for e in entries) and len(refusals) < 2:
                refusals.append(time.monotonic())
                _refuse()
            return append(entries)

        monkeypatch.setattr(lobby.store.db.tables, "append", refuse_twice)
        table = lobby.factory.create(players[0], "bela2", {}, "random", None, seed=5)
        lobby.seating.fill_bots(table, players[0], None)
        await lobby.start(table, players[0])
        while table.seq < 2:
            await asyncio.sleep(0.02)
        done = asyncio.get_running_loop().time()
        assert len(refusals) == 2 and refusals[1] - refusals[0] >= 0.9
        assert done - refusals[1] >= 0.9 and _stored_events(lobby, table) >= 2

    _run(tmp_path, scenario)
    logged = [r for r in caplog.records if "could not be stored" in r.getMessage()
              and r.levelname == "ERROR"]
    assert len(logged) == 1, [r.getMessage() for r in logged]


def _refuse(*_args: Any) -> None:
    raise OSError("the disk is full")

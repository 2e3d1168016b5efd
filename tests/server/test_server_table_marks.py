"""What a table tells its watchers beyond the states (issue 38): a bot that thinks longer
than the bot delay is marked at that moment only (``thinking``), an absent player's seat
says when its bot takes over (``autopilot_in``), and a rated match's summary gives each
seat's rating change once it is over (``ratings``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from bela.bots import RandomBot  # noqa: E402
from bela.server import actor as actor_module  # noqa: E402
from bela.server.hub import Conn, Hub  # noqa: E402
from bela.server.lobby import Lobby  # noqa: E402
from bela.server.model import ServerConfig, TableStatus  # noqa: E402
from bela.server.store import Store  # noqa: E402
from bela.storage import Database  # noqa: E402


async def _no_send(_text: str) -> None:
    """Connections of these tests are read from their queues, never sent."""


def _run(tmp_path: Path, scenario: Callable[[Lobby, dict[str, Any]], Awaitable[None]],
         **config: Any) -> None:
    async def main() -> None:
        db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
        lobby = Lobby(Store(db), Hub(), ServerConfig(**{"bot_delay": 0, "round_pause": 0,
                                                        "allow_seed": True, **config}))
        pid, _token = db.players.create_player("Ana")
        try:
            await scenario(lobby, {"id": pid, "name": "Ana"})
        finally:
            await lobby.shutdown()
            db.close()

    asyncio.run(main())


def _messages(conn: Conn) -> list[dict[str, Any]]:
    out = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        if text is not None:
            out.append(json.loads(text))
    return out


class Slow:
    """A random bot that takes ``pause`` seconds over every decision."""

    pause = 0.0

    def __init__(self, seed: int | None = None) -> None:
        self.random = RandomBot(seed)

    def act(self, view: Any) -> Any:
        time.sleep(self.pause)
        return self.random.act(view)


@pytest.mark.parametrize("pause,marked", [(0.35, True), (0.0, False)])
def test_a_slow_bot_is_marked_thinking_at_the_bot_delay_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pause: float, marked: bool) -> None:
    """Bots that decide after the bot delay are marked ``thinking`` (seat, seq) once, before
    their move, on every connection; bots within the delay never are; the mark ends with
    the move."""
    monkeypatch.setattr(Slow, "pause", pause)
    monkeypatch.setattr(actor_module, "make_bot", lambda spec, seed=None: Slow(seed))

    async def scenario(lobby: Lobby, ana: dict[str, Any]) -> None:
        table = lobby.factory.create(ana, "bela2", {}, "random", None, seed=5)
        lobby.seating.fill_bots(table, ana, None)
        watcher = Conn(_no_send, ana["id"], None)
        await lobby.start(table, ana)
        await lobby.connect(table, watcher)
        while table.seq < 4:
            await asyncio.sleep(0.02)
        msgs = [m for m in _messages(watcher) if m["type"] in ("state", "thinking")]
        thinking = [m for m in msgs if m["type"] == "thinking"]
        if not marked:
            assert not thinking, thinking
            return
        assert len(thinking) >= 2, msgs
        seen_seq = None
        for m in msgs:  # each mark names the state it came at and the seat to act there
            if m["type"] == "state":
                seen_seq, turn = m["seq"], m["view"]["turn"]
            else:
                assert m["seq"] == seen_seq and m["seat"] == turn, (m, seen_seq, turn)
        seqs = [m["seq"] for m in thinking]
        assert len(seqs) == len(set(seqs))  # once a turn
        assert table.thinking is None or table.thinking == table.match.round.turn

    _run(tmp_path, scenario, bot_delay=0.1)


def test_an_absent_players_seat_says_when_its_bot_takes_over(tmp_path: Path) -> None:
    """While the grace period runs, the summary's seat carries ``autopilot_in`` (seconds
    left); it is gone once the player is back."""
    async def scenario(lobby: Lobby, ana: dict[str, Any]) -> None:
        table = lobby.factory.create(ana, "bela2", {}, "random", 0, seed=5)
        lobby.seating.fill_bots(table, ana, None)
        await lobby.start(table, ana)
        await asyncio.sleep(0.05)
        seats = lobby.hub.summary(table)["seats"]
        assert 29 <= seats[0]["autopilot_in"] <= 30 and not seats[0]["autopilot"], seats
        assert seats[1]["autopilot_in"] is None  # a bot's seat has no grace
        await lobby.connect(table, Conn(_no_send, ana["id"], 0))
        await asyncio.sleep(0.05)
        assert lobby.hub.summary(table)["seats"][0]["autopilot_in"] is None

    _run(tmp_path, scenario, grace=30)


def test_a_rated_finish_gives_each_seats_rating_change(tmp_path: Path) -> None:
    """A rated match played out (the absent player's autopilot and the bot): the finished
    table's summary lists each seat's rating before and after, as stored."""
    async def scenario(lobby: Lobby, ana: dict[str, Any]) -> None:
        table = lobby.factory.create(ana, "bela2", {"target": 1}, "random", 0, rated=True)
        lobby.seating.fill_bots(table, ana, None)
        assert lobby.hub.summary(table)["ratings"] is None
        await lobby.start(table, ana)
        for _ in range(500):
            if table.status == TableStatus.FINISHED:
                break
            await asyncio.sleep(0.02)
        assert table.status == TableStatus.FINISHED
        got = lobby.hub.summary(table)["ratings"]
        assert [r["seat"] for r in got] == [0, 1], got
        stored = lobby.store.db.ratings.ratings([ana["id"], "bot-random"], "bela2")
        from bela.server.ratings import shown
        mine = stored[ana["id"]]
        assert got[0]["before"] == 1000 and got[0]["after"] == shown(mine["mu"], mine["sigma"])
        assert got[0]["after"] != got[0]["before"]
        # a server that loads the finished table from the database says the same
        row = lobby.store.db.tables.load_table(table.id, with_log=True)
        assert row is not None and lobby.store.rebuild(row).ratings == got

    _run(tmp_path, scenario, grace=0, rated_min_target=1)  # a one-point match, still rated

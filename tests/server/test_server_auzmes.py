"""Auzmeš at the server (R24, ``enforce = off``, issue 38 item 1): the seat of an absent
player (autopilot) and a bot's seat claim as soon as their views prove an opponent's
revoke, before the next card; at a rated table no bot revokes on purpose."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from server_helpers import run_lobby

from bela.bots.driver import bot_view  # noqa: E402
from bela.engine import Play  # noqa: E402
from bela.engine.enums import Outcome  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.server import actor as actor_module  # noqa: E402
from bela.server.hub import Conn  # noqa: E402
from bela.server.lobby import Lobby  # noqa: E402
from bela.server.model import TableStatus  # noqa: E402

OFF = {"enforce": "off"}


async def _no_send(_text: str) -> None:
    """Connections of these tests are read from their queues, never sent."""


def _run(tmp_path: Path, scenario: Callable[[Lobby, list[dict[str, Any]]], Awaitable[None]],
         **config: Any) -> None:
    """Run ``scenario(lobby, players)`` on a fresh lobby with three guests."""
    run_lobby(tmp_path, scenario, ("Ana", "Bruno", "Cila"), **config)


async def _until(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "the table did not get there"
        await asyncio.sleep(0.005)


def test_the_autopilot_claims_a_proven_revoke_before_the_next_card(tmp_path: Path) -> None:
    """Ana (seat 0) is away: a bot plays her seat.  Bruno (seat 1) revokes at his first
    chance; Cila (seat 2, a person) and the bot at seat 3 play by the duties.  As soon as
    Bruno's own card proves the revoke, Ana's autopilot claims (Cila is a person and seat 3
    is Bruno's partner), before anybody plays on, and is right."""
    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        table = lobby.factory.create(players[0], "bela4", OFF, "heuristic", 0, seed=3)
        lobby.seating.sit(table, players[1], 1)
        lobby.seating.sit(table, players[2], 2)
        lobby.seating.fill_bots(table, players[0], None)
        conns = {s: Conn(_no_send, players[s]["id"], s) for s in (1, 2)}
        for conn in conns.values():
            await lobby.connect(table, conn)
        await lobby.start(table, players[0])
        m = table.match
        assert m is not None
        await _until(lambda: table.seats[0].autopilot)
        actor = lobby.actors[table.id]
        claims = 0
        for _ in range(4):  # a few rounds: each has a revoke that gets proven
            rnd = m.round
            assert rnd is not None
            revoked = False
            while True:
                await _until(lambda r=rnd: r.is_over or (  # type: ignore[misc]
                    r.turn in conns and actor.bots.turn() is None))
                if rnd.is_over:
                    break
                assert not any(r.seat == 1 for r in seat_view(m, 0, rnd).revokes_shown), \
                    "a proven revoke, and the autopilot did not claim before the next card"
                seat = rnd.turn
                view = seat_view(m, seat)
                if seat == 1 and not revoked and view.refusals:
                    token = str(view.refusals[0].card)
                    revoked = True
                else:
                    token = bot_view(view).legal[0].token()
                assert await lobby.act(table, conns[seat], token, table.seq) is None
            res = rnd.result
            assert res is not None
            if any(r.seat == 1 for r in seat_view(m, 0, rnd).revokes_shown):
                assert res.outcome == Outcome.CLAIM, "proven, yet not claimed"
                assert res.extra == {"claimant": 0, "valid": True, "offender": 1,
                                     "card": str(rnd.revoked[1])}
                assert rnd.log[-1].token() == "claim 0" and rnd.actors[-1] == 0
                claims += 1
            else:
                assert res.outcome != Outcome.CLAIM  # never a claim it cannot prove
            if m.is_over:
                break
            await _until(lambda r=rnd: m.round is not r)  # type: ignore[misc]
        assert claims >= 2

    _run(tmp_path, scenario, grace=0)


class _Revoker:
    """A bot that breaks a duty at every chance it is given (``refusals`` of its view)."""

    def act(self, view: Any) -> Any:
        if view.refusals:
            return Play(view.refusals[0].card)
        return view.legal[0]


@pytest.mark.parametrize("rated", [False, True])
def test_no_bot_revokes_at_a_rated_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         rated: bool) -> None:
    """A level's deliberate revokes are offered to it only at unrated tables: a bot that
    takes every one revokes at once there, and the other side claims; at a rated table
    it plays by the duties."""
    monkeypatch.setattr(actor_module, "make_bot", lambda spec, seed=None: _Revoker())

    async def scenario(lobby: Lobby, players: list[dict[str, Any]]) -> None:
        table = lobby.factory.create(players[0], "bela4", {**OFF, "target": 1}, "heuristic", None,
                             seed=4)
        table.rated = rated  # a given seed makes a table unrated: set as a rated one
        lobby.seating.fill_bots(table, players[0], None)
        await lobby.start(table, players[0])
        await _until(lambda: table.status == TableStatus.FINISHED)
        assert table.match is not None
        rounds = table.match.rounds
        assert all(s.is_bot for s in table.seats) and table.bot_failures == 0
        if rated:
            assert all(r.revoked == [None] * 4 for r in rounds)
            assert all(r.result is not None and r.result.outcome != Outcome.CLAIM
                       for r in rounds)
        else:
            assert any(s is not None for s in rounds[0].revoked)
            res = rounds[0].result
            assert res is not None and res.outcome == Outcome.CLAIM and res.extra["valid"]

    _run(tmp_path, scenario)

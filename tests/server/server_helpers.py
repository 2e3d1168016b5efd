"""Helpers of the server tests: an app on a temporary database, guests, WebSocket reading."""

from __future__ import annotations

import json
import random
import re
import shutil
import socket
import subprocess
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from bela.server.app import create_app  # noqa: E402

# A card code standing alone (not inside an id or a word).
CARD_RE = re.compile(r"(?<![A-Za-z0-9_\-])([789TJQKA][HDSC])(?![A-Za-z0-9_\-])")


@contextmanager
def server(tmp_path: Path, url: str | None = None, **config: Any) -> Iterator[TestClient]:
    config.setdefault("bot_delay", 0)
    config.setdefault("round_pause", 0)
    config.setdefault("allow_seed", True)
    config.setdefault("max_rate", 100_000)
    config.setdefault("bot_workers", 0)  # the bots think in threads (test_server_botpool: not)
    for kind in ("bid", "exchange", "discard", "card"):  # strong bots move when decided
        config.setdefault(f"bot_answer_{kind}", 0)  # (test_server_fairbots: at their times)
    app = create_app(url or f"sqlite:///{tmp_path / 'bela.db'}", **config)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:  # as from this machine
        yield client


@contextmanager
def from_address(client: TestClient, host: str) -> Iterator[TestClient]:
    """The client's requests in this block come from ``host`` (the fair shares and the
    rating rules count by the client address)."""
    transport: Any = client._transport
    before = transport.client
    transport.client = (host, 50000)
    try:
        yield client
    finally:
        transport.client = before


def guest(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    r = client.post("/api/guests", json={"name": name})
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    return token, {"Authorization": f"Bearer {token}"}


def table_with(client: TestClient, variant: str, players: list[dict[str, str]],
               bots: bool = False, seed: int = 1, **body: Any) -> str:
    """A table created by the first player; player i sits in seat i; bots fill the rest;
    started when every seat is taken."""
    r = client.post("/api/tables", json={"variant": variant, "seed": seed, "seat": 0, **body},
                    headers=players[0])
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    for seat, h in enumerate(players[1:], start=1):
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": seat}, headers=h)
        assert r.status_code == 200, r.text
    if bots:
        assert client.post(f"/api/tables/{tid}/bots", headers=players[0]).status_code == 200
    return tid


def start(client: TestClient, tid: str, h: dict[str, str]) -> None:
    r = client.post(f"/api/tables/{tid}/start", headers=h)
    assert r.status_code == 200, r.text


RECV_TIMEOUT = 60.0  # seconds a Reader waits for a message


async def _receive_within(rx: Any, seconds: float) -> Any:
    with anyio.fail_after(seconds):
        return await rx.receive()


class Reader:
    """A WebSocket session that keeps every message it receives (raw text too)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None

    def recv(self) -> dict[str, Any]:
        """The next message; a test fails (rather than waits for ever) when none comes
        within :data:`RECV_TIMEOUT` seconds."""
        try:
            message = self.ws.portal.call(_receive_within, self.ws._send_rx, RECV_TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"no message within {RECV_TIMEOUT} s; the last ones: "
                                 f"{self.raw[-3:]}") from None
        self.ws._raise_on_close(message)
        text = str(message["text"])
        self.raw.append(text)
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] == "state":
            self.state = msg
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            msg = self.recv()
            if pred(msg):
                return msg

    def joined(self) -> dict[str, Any]:
        """The connection's welcome: from then on it is among the table's connections (it
        is accepted before that, so a line another seat sends sooner can miss it)."""
        return self.until(lambda m: m["type"] == "welcome")

    def until_seq(self, seq: int) -> dict[str, Any]:
        """The first state at ``seq`` or later (the newest one if already received)."""
        if self.state is not None and self.state["seq"] >= seq:
            return self.state
        return self.until(lambda m: m["type"] == "state" and m["seq"] >= seq)

    def send(self, msg: Any) -> None:
        self.ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))


def choose(state: dict[str, Any], rng: random.Random) -> str:
    """A legal action of a state's view, chosen with ``rng`` (claims never)."""
    legal = state["view"]["legal"]
    return str(legal[rng.randrange(len(legal))])


def settle(readers: list[Reader], seq: int) -> dict[str, Any]:
    """Read every connection up to state ``seq``; follow a finished round to its next deal.
    Returns the newest state (as the first reader got it)."""
    while True:
        for r in readers:
            r.until_seq(seq)
        st = readers[0].state
        assert st is not None
        if st["view"]["phase"] == "done" and st["status"] == "running":
            seq += 1  # the next deal follows at once (round_pause 0)
            continue
        return st


def play_out(readers: list[Reader], by_seat: dict[int, Reader], rng: random.Random,
             max_actions: int = 5000) -> dict[str, Any]:
    """Play the match to its end: the seat to act picks a random legal action."""
    st = settle(readers, readers[0].state["seq"] if readers[0].state else 1)
    for _ in range(max_actions):
        if st["status"] == "finished":
            return st
        me = by_seat[st["view"]["turn"]]  # public in every phase
        own = me.state
        assert own is not None and own["seq"] == st["seq"]
        if own["view"]["legal"] != ["keep"]:  # a lone keep: the server answers it (R32)
            me.send({"type": "act", "action": choose(own, rng), "seq": own["seq"]})
        st = settle(readers, st["seq"] + 1)
    raise AssertionError("the match did not end")


@contextmanager
def redis_server(folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A throwaway redis-server on a free port: its URL and its process."""
    redis = shutil.which("redis-server")
    assert redis is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([redis, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        proc.kill()
        proc.wait()


def run_lobby(tmp_path: Path,
              scenario: Callable[[Any, list[dict[str, Any]]], Awaitable[None]],
              names: Sequence[str] = ("Ana", "Bruno"), **config: Any) -> None:
    """Run ``scenario(lobby, players)`` on a fresh lobby (no bot delay, no round pause,
    seeds allowed, then ``config``) with a guest for each of ``names``."""
    import asyncio

    from bela.server.hub import Hub
    from bela.server.lobby import Lobby
    from bela.server.model import ServerConfig
    from bela.server.store import Store
    from bela.storage import Database

    async def main() -> None:
        db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
        lobby = Lobby(Store(db), Hub(), ServerConfig(**{"bot_delay": 0, "round_pause": 0,
                                                        "allow_seed": True, **config}))
        players = []
        for name in names:
            pid, _token = db.players.create_player(name)
            players.append({"id": pid, "name": name})
        try:
            await scenario(lobby, players)
        finally:
            await lobby.shutdown()
            db.close()

    asyncio.run(main())


def until(check: Callable[[], Any], what: str, limit: float = 240.0) -> Any:
    """Poll ``check`` until it answers something true, failing with ``what`` after
    ``limit`` seconds (a deadline, never a fixed sleep)."""
    deadline = time.monotonic() + limit
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)

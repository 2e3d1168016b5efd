"""Connections that cost the server (docs/SECURITY.md "Connections"): a request body that
trickles in is cut off at its deadline, an address keeps a bounded number of WebSockets and
requests open at once, and the spectators that come and go make at most one table summary a
second for the others."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server

from bela.server.app import BodyLimit, OpenLimit


def _http(client: tuple[str, int] = ("10.0.0.1", 5000)) -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": "/api/x", "client": client,
            "headers": [(b"content-length", b"100")]}


def test_a_body_that_trickles_in_is_cut_off_at_its_deadline() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover
        raise AssertionError("the app never sees the request")

    async def run() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:  # one byte, then nothing more
            if not sent and not getattr(receive, "once", False):
                receive.once = True  # type: ignore[attr-defined]
                return {"type": "http.request", "body": b"{", "more_body": True}
            await asyncio.sleep(3600)
            raise AssertionError

        async def send(msg: dict[str, Any]) -> None:
            sent.append(msg)

        await asyncio.wait_for(BodyLimit(app, timeout=0.3)(_http(), receive, send), 5)
        return sent

    began = time.monotonic()
    sent = asyncio.run(run())
    assert time.monotonic() - began < 2
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["error"]["code"] == "slow_body"


def test_requests_in_flight_are_capped_per_address() -> None:
    release = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def run() -> list[int]:
        limit = OpenLimit(app, sockets=2, requests=2)
        statuses: list[int] = []

        async def one(client: tuple[str, int]) -> None:
            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": b""}

            async def send(msg: dict[str, Any]) -> None:
                if msg["type"] == "http.response.start":
                    statuses.append(msg["status"])

            await limit(_http(client), receive, send)

        held = [asyncio.create_task(one(("10.0.0.1", p))) for p in (1, 2)]
        await asyncio.sleep(0.05)
        await one(("10.0.0.1", 3))  # a third from the address: refused at once
        other = asyncio.create_task(one(("10.0.0.2", 1)))  # another address: let in
        release.set()
        await asyncio.gather(*held, other)
        await one(("10.0.0.1", 4))  # the first two are done: room again
        return statuses

    assert asyncio.run(run()) == [429, 200, 200, 200, 200]


def test_websockets_open_at_once_are_capped_per_address(tmp_path: Path) -> None:
    with server(tmp_path, sockets_per_address=2) as client:
        _, h = guest(client, "Ana")
        tid = client.post("/api/tables", json={"variant": "bela2", "seat": 0},
                          headers=h).json()["id"]
        with client.websocket_connect(f"/ws/tables/{tid}") as one, \
                client.websocket_connect(f"/ws/tables/{tid}") as two:
            assert one.receive_json()["type"] == two.receive_json()["type"] == "welcome"
            with pytest.raises(Exception) as denied:  # noqa: PT011 - the denial's class varies
                with client.websocket_connect(f"/ws/tables/{tid}") as three:
                    three.receive_json()
            assert "429" in repr(denied.value) or getattr(denied.value, "status_code",
                                                          None) == 429, repr(denied.value)
        with client.websocket_connect(f"/ws/tables/{tid}") as again:  # closed: room again
            assert again.receive_json()["type"] == "welcome"


def test_spectators_coming_and_going_make_one_summary_a_second(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        tok, h = guest(client, "Ana")
        tid = client.post("/api/tables", json={"variant": "bela2", "seat": 0},
                          headers=h).json()["id"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as seat:
            assert seat.receive_json()["type"] == "welcome"
            began = time.monotonic()
            for _ in range(20):
                with client.websocket_connect(f"/ws/tables/{tid}") as watcher:
                    assert watcher.receive_json()["type"] == "welcome"
            spent = time.monotonic() - began
            time.sleep(1.2)  # the last one's summary is on its way
            seat.send_json({"type": "ping"})
            summaries = []
            while (msg := seat.receive_json())["type"] != "pong":
                assert msg["type"] == "table"
                summaries.append(msg["table"])
        assert 1 <= len(summaries) <= spent + 3, (len(summaries), spent)  # before: 40
        assert summaries[-1]["spectators"] == 0  # the last one tells how it ended


def test_a_connection_that_does_not_read_is_dropped() -> None:
    """A client that never reads its WebSocket: once MAX_QUEUE messages wait for it, the
    connection is closed and its queue grows no further (the server's memory is not held
    by one slow reader); a reading one keeps every message."""
    from bela.server import hub

    async def run() -> None:
        slow = hub.Conn(lambda text: None, None, None)
        for i in range(hub.MAX_QUEUE + 50):
            slow.send({"type": "pong", "i": i})
        assert slow.closed and slow.queue.qsize() == hub.MAX_QUEUE + 2  # and the end mark
        fast = hub.Conn(lambda text: None, None, None)
        for i in range(hub.MAX_QUEUE + 50):
            fast.send({"type": "pong", "i": i})
            fast.queue.get_nowait()  # its sender took it
        assert not fast.closed

    assert hub.MAX_QUEUE == 2000
    asyncio.run(run())


def test_an_eager_connection_sends_at_once_and_queues_behind_a_waiting_send() -> None:
    """An eager connection (the server's WebSockets) sends a message in the call that
    hands it over while the socket takes it without waiting; once a send has to wait (the
    client's buffer is full: uvicorn's send waits for the socket to be writable), it is
    finished by the sender task and the messages after it wait behind it, in order.  A
    send that fails closes the connection."""
    from bela.server import hub

    async def run() -> None:
        writable = asyncio.Event()
        writable.set()
        wire: list[str] = []

        async def send_text(text: str) -> None:  # as uvicorn's: waits while paused
            await writable.wait()
            wire.append(text)

        conn = hub.Conn(send_text, None, 0, eager=True)
        sender = asyncio.create_task(conn.run_sender())
        conn.send("a")
        conn.send({"n": 1})
        assert wire == ["a", '{"n":1}'] and conn.queue.empty()  # sent in the call
        writable.clear()
        for text in ("b", "c", "d"):
            conn.send(text)
        assert wire == ["a", '{"n":1}'] and conn.queue.qsize() == 3  # "b" begun, waiting
        await asyncio.sleep(0.01)
        conn.send("e")
        assert wire == ["a", '{"n":1}']
        writable.set()
        for _ in range(50):
            if len(wire) == 6:
                break
            await asyncio.sleep(0.01)
        assert wire == ["a", '{"n":1}', "b", "c", "d", "e"]
        conn.send("f")  # nothing waits any more: at once again
        assert wire[-1] == "f" and conn.queue.empty()
        conn.close()
        await asyncio.wait_for(sender, 1)

        async def broken(text: str) -> None:
            raise RuntimeError("Cannot call send once a close message has been sent")

        gone = hub.Conn(broken, None, 0, eager=True)
        gone.send("x")
        assert gone.closed
        gone.send("y")  # nothing more is tried
        assert gone.queue.qsize() == 1  # the end mark only

    asyncio.run(run())

"""tools/wsclient.py, the load tools' WebSocket client, against a server written here byte
by byte (RFC 6455): the handshake, text messages however the bytes are cut, fragments,
pings, both closing handshakes and the protocol errors.  The load script's own tests
(test_server_load.py) play it against bela's server."""

from __future__ import annotations

import asyncio
import re
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import wsclient  # tools/wsclient.py
from hypothesis import given, settings
from hypothesis import strategies as st

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def server_frame(opcode: int, payload: bytes, fin: bool = True, mask: bytes = b"") -> bytes:
    """A frame as a server sends it (unmasked unless ``mask``)."""
    n = len(payload)
    b0 = (0x80 if fin else 0) | opcode
    bit = 0x80 if mask else 0
    if n < 126:
        head = struct.pack("!BB", b0, bit | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", b0, bit | 126, n)
    else:
        head = struct.pack("!BBQ", b0, bit | 127, n)
    body = wsclient._unmask(mask, payload) if mask else payload
    return head + mask + body


async def client_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the client sent: its opcode and unmasked payload (it must be masked
    and final); a client that sends nothing within 5 s fails the test."""
    return await asyncio.wait_for(_client_frame(reader), 5)


async def _client_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await reader.readexactly(2)
    assert b0 & 0x80 and b1 & 0x80, "a client's frames are final and masked"
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(await reader.readexactly(2), "big")
    elif n == 127:
        n = int.from_bytes(await reader.readexactly(8), "big")
    mask = await reader.readexactly(4)
    return b0 & 0x0F, wsclient._unmask(mask, await reader.readexactly(n))


def answer(key: str, status: str = "101 Switching Protocols", accept: str | None = None
           ) -> bytes:
    accept = wsclient.accept_key(key) if accept is None else accept
    return (f"HTTP/1.1 {status}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode()


class Heard:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.closed: list[str | None] = []

    def text(self, t: str) -> None:
        self.texts.append(t)

    def close(self, why: str | None) -> None:
        self.closed.append(why)


async def with_server(script: Script, heard: Heard, *, status: str = "101 Switching Protocols",
                      accept: str | None = None, max_size: int = 2 ** 20
                      ) -> tuple[wsclient.WebSocket, list[str], asyncio.Task[Any]]:
    """A server that answers the handshake (``status``, ``accept``) then runs ``script``;
    the client connected to it, the request lines the server read, the script's task."""
    requests: list[str] = []
    scripts: list[asyncio.Task[Any]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        requests.append(head)
        key = re.search(r"Sec-WebSocket-Key: (\S+)", head)
        assert key is not None
        writer.write(answer(key.group(1), status, accept))
        await writer.drain()
        await script(reader, writer)
        writer.close()

    server = await asyncio.start_server(
        lambda r, w: scripts.append(asyncio.ensure_future(handle(r, w))), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        ws = await wsclient.connect(f"ws://127.0.0.1:{port}/ws/tables/t1?token=abc",
                                    heard.text, heard.close, max_size=max_size, timeout=10)
    finally:
        server.close()
    await asyncio.sleep(0)
    return ws, requests, scripts[0]


def test_the_rfcs_accept_key_and_a_masked_frame() -> None:
    assert wsclient.accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    frame = wsclient._frame(wsclient.OP_TEXT, b"Hello", bytes.fromhex("37fa213d"))
    assert frame == bytes.fromhex("818537fa213d7f9f4d5158")  # RFC 6455 5.7


def test_messages_both_ways_fragments_pings_and_the_clients_close() -> None:
    heard = Heard()
    got: list[tuple[int, bytes]] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await client_frame(reader))  # the client's first message
        writer.write(server_frame(1, '{"seq":1,"name":"Šime"}'.encode()))
        writer.write(server_frame(1, b"in ", fin=False))
        writer.write(server_frame(9, b"are you there"))  # a ping amid a message's fragments
        writer.write(server_frame(0, b"three ", fin=False))
        writer.write(server_frame(0, b"parts"))
        writer.write(server_frame(1, b"x" * 70_000))  # a 64-bit length
        writer.write(server_frame(1, b"y" * 300))  # a 16-bit length
        await writer.drain()
        got.append(await client_frame(reader))  # the pong
        got.append(await client_frame(reader))  # the client's close
        writer.write(server_frame(8, (1000).to_bytes(2, "big")))
        await writer.drain()

    async def main() -> list[str]:
        ws, requests, task = await with_server(script, heard)
        ws.send('{"type":"act","action":"7♠"}')
        for _ in range(200):
            if len(heard.texts) == 4:
                break
            await asyncio.sleep(0.01)
        await ws.close(timeout=5)
        await task
        with pytest.raises(ConnectionError):
            ws.send("too late")
        return requests

    requests = asyncio.run(main())
    assert requests[0].startswith("GET /ws/tables/t1?token=abc HTTP/1.1\r\n")
    assert "Sec-WebSocket-Version: 13" in requests[0] and "Upgrade: websocket" in requests[0]
    assert heard.texts == ['{"seq":1,"name":"Šime"}', "in three parts", "x" * 70_000, "y" * 300]
    assert got == [(1, '{"type":"act","action":"7♠"}'.encode()), (10, b"are you there"),
                   (8, (1000).to_bytes(2, "big"))]
    assert heard.closed == [None]  # it began the closing handshake: no error


def test_the_servers_close_is_answered_and_told() -> None:
    heard = Heard()
    got: list[tuple[int, bytes]] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(server_frame(8, (1011).to_bytes(2, "big") + b"going away"))
        await writer.drain()
        got.append(await client_frame(reader))
        assert await reader.read() == b""  # then it closes its side

    async def main() -> None:
        ws, _, task = await with_server(script, heard)
        await task
        await asyncio.wait_for(ws.lost, 5)

    asyncio.run(main())
    assert got == [(8, (1011).to_bytes(2, "big"))]
    assert heard.closed == ["the server closed the connection (code 1011: going away)"]


def test_a_lost_connection_is_told() -> None:
    heard = Heard()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(server_frame(1, b"one"))
        await writer.drain()

    async def main() -> None:
        ws, _, task = await with_server(script, heard)
        await task
        await asyncio.wait_for(ws.lost, 5)

    asyncio.run(main())
    assert heard.texts == ["one"]
    assert len(heard.closed) == 1 and (heard.closed[0] or "").startswith(
        "the connection was lost")


@pytest.mark.parametrize(("frames", "code", "why"), [
    ([server_frame(1, b"x" * 101)], 1009, "a frame of 101 bytes (the limit: 100)"),
    ([server_frame(1, b"x" * 60, fin=False), server_frame(0, b"x" * 60)], 1009,
     "a message over 100 bytes"),
    ([server_frame(1, b"hi", mask=b"abcd")], 1002, "a masked frame or reserved bits"),
    ([server_frame(0, b"hi")], 1002, "a fragment out of order"),
    ([server_frame(1, b"a", fin=False), server_frame(1, b"b")], 1002,
     "a fragment out of order"),
    ([server_frame(2, b"\x00\x01")], 1003, "a frame of opcode 2"),
    ([server_frame(1, b"\xff\xfe")], 1007, "not UTF-8"),
])
def test_protocol_errors_close_with_their_code(frames: list[bytes], code: int,
                                               why: str) -> None:
    heard = Heard()
    got: list[tuple[int, bytes]] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"".join(frames))
        await writer.drain()
        got.append(await client_frame(reader))

    async def main() -> None:
        ws, _, task = await with_server(script, heard, max_size=100)
        await task
        await asyncio.wait_for(ws.lost, 5)

    asyncio.run(main())
    assert heard.texts == []
    assert got == [(8, code.to_bytes(2, "big"))]
    assert len(heard.closed) == 1 and why in (heard.closed[0] or "")


@pytest.mark.parametrize(("status", "accept", "why"), [
    ("403 Forbidden", None, "the server answered 'HTTP/1.1 403 Forbidden'"),
    ("101 Switching Protocols", "bm90IHRoZSBrZXk=", "a wrong Sec-WebSocket-Accept"),
])
def test_a_refused_handshake_raises(status: str, accept: str | None, why: str) -> None:
    heard = Heard()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    async def main() -> None:
        with pytest.raises(wsclient.HandshakeError, match=re.escape(why)):
            await with_server(script, heard, status=status, accept=accept)

    asyncio.run(main())
    assert heard.closed == []  # never opened: nothing to tell


class FakeTransport:
    def __init__(self) -> None:
        self.out = bytearray()
        self.closing = False

    def write(self, data: bytes) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True


MESSAGES = ["a", "", "č" * 200, "x" * 70_000, '{"type":"state","seq":7}']


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=75_000), max_size=12))
def test_any_cut_of_the_bytes_gives_the_same_messages(cuts: list[int]) -> None:
    """The server's answer and frames (with a ping and a fragmented message among them),
    cut anywhere into pieces: the same messages in the same order, the pong sent."""
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    stream = answer(key) + b"".join(server_frame(1, m.encode()) for m in MESSAGES) + \
        server_frame(9, b"p") + server_frame(1, b"fr", fin=False) + server_frame(0, b"ag")
    points = sorted({c % len(stream) for c in cuts} | {0, len(stream)})

    async def main() -> tuple[list[str], bytes]:
        heard = Heard()
        ws = wsclient.WebSocket(b"GET / HTTP/1.1\r\n\r\n", key, heard.text, heard.close,
                                2 ** 20)
        transport = FakeTransport()
        ws.connection_made(transport)  # type: ignore[arg-type]
        for a, b in zip(points, points[1:]):
            ws.data_received(stream[a:b])
        assert ws.opened.done() and ws.opened.exception() is None
        return heard.texts, bytes(transport.out)

    texts, out = asyncio.run(main())
    assert texts == [*MESSAGES, "frag"]
    pong = out[len(b"GET / HTTP/1.1\r\n\r\n"):]
    assert pong[:2] == b"\x8a\x81" and wsclient._unmask(pong[2:6], pong[6:]) == b"p"

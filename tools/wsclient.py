"""A lean WebSocket client (RFC 6455) for the load tools: text messages, one callback each.

The load script plays thousands of seats from a few processes on the box it measures, so
its own CPU is taken from the servers'.  With the ``websockets`` library's asyncio client a
load process spent about 0.5 ms of CPU an action (four state messages in, one action out),
more than a third of it in the library: a task and a queue per connection, a generator per
frame.  Here a connection is one :class:`asyncio.Protocol` whose :meth:`data_received`
cuts the server's frames out of the bytes itself and hands each text message to
``on_text`` at once (docs/CAPACITY.md has the figures).

What a load needs of the protocol, and no more: the opening handshake (its accept key
checked), text messages (fragmented ones joined), a pong for every ping (the server closes
a connection that does not answer), the closing handshake either way, and the limit on a
message's size.  No extensions (the server offers no compression), no subprotocols, no TLS
(the load tools speak to loopback addresses only).

The frames a client sends are masked (RFC 6455 5.3) with keys from :mod:`random`, not a
cryptographic source: the masking keeps a page's script from steering a proxy's cache, and
these connections carry a load tool's actions to its own servers.

>>> frame = _frame(OP_TEXT, b"hi", b"abcd")
>>> frame[:2], _unmask(frame[2:6], frame[6:])
(b'\\x81\\x82', b'hi')
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import random
import struct
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 1.3
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_HEAD = 16 * 1024  # bytes of the server's handshake answer, at most


class HandshakeError(ConnectionError):
    """The server did not open the WebSocket (its status and first line say why)."""


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` a server answers to ``key`` (RFC 6455 4.2.2).

    >>> accept_key("dGhlIHNhbXBsZSBub25jZQ==")  # the RFC's example
    's3pPLMBiTxaQ9kYGzzhZRbK+xOo='
    """
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()  # noqa: S324


def _unmask(mask: bytes, data: bytes) -> bytes:
    n = len(data)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


def _frame(opcode: int, payload: bytes, mask: bytes) -> bytes:
    """One final, masked frame (a client's)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + mask + _unmask(mask, payload)


class WebSocket(asyncio.Protocol):
    """One client connection; made by :func:`connect`.  ``on_text`` gets every text message
    in order; ``on_closed`` once, with ``None`` after a closing handshake this side began
    (:meth:`close`), else what ended it (the server's close frame and code, a lost
    connection, a protocol error)."""

    def __init__(self, request: bytes, key: str, on_text: Callable[[str], None],
                 on_closed: Callable[[str | None], None], max_size: int) -> None:
        self._request = request
        self._accept = accept_key(key).encode()
        self._on_text = on_text
        self._on_closed = on_closed
        self._max_size = max_size
        self._buf = bytearray()
        self._parts: list[bytes] = []  # a fragmented message's frames so far
        self._transport: asyncio.Transport | None = None
        self._closing = False  # a close frame sent: nothing more goes out
        self._ended: str | None = None  # why it ended, told to on_closed at connection_lost
        self._told = False
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.lost: asyncio.Future[None] = loop.create_future()

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are no subclass of asyncio.Transport, but have its methods)
        self._transport = cast(asyncio.Transport, transport)
        self._transport.write(self._request)

    def data_received(self, data: bytes) -> None:
        self._buf += data
        if not self.opened.done():
            if not self._handshake():
                return
        self._frames()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(HandshakeError(
                f"the connection closed before the handshake: {exc or 'no answer'}"))
        if not self.lost.done():
            self.lost.set_result(None)
        if not self._told and self.opened.exception() is None:
            self._told = True
            if self._ended is None and not self._closing:
                self._ended = f"the connection was lost: {exc or 'closed by the server'}"
            self._on_closed(self._ended)

    # -- the handshake and the frames

    def _handshake(self) -> bool:
        """The server's answer read (True) or still coming (False); a refusal fails
        :attr:`opened` and drops the connection."""
        end = self._buf.find(b"\r\n\r\n")
        if end < 0:
            if len(self._buf) > MAX_HEAD:
                self._refuse("an answer without an end to its headers")
            return False
        head, self._buf = bytes(self._buf[:end]), self._buf[end + 4:]
        status, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if status.split(" ", 2)[1:2] != ["101"]:
            self._refuse(f"the server answered {status!r}")
            return False
        if headers.get("sec-websocket-accept", "").encode() != self._accept:
            self._refuse("a wrong Sec-WebSocket-Accept")
            return False
        self.opened.set_result(None)
        return True

    def _refuse(self, why: str) -> None:
        self.opened.set_exception(HandshakeError(why))
        assert self._transport is not None
        self._transport.abort()

    def _frames(self) -> None:
        buf = self._buf
        while len(buf) >= 2 and self._transport is not None:
            b0, b1 = buf[0], buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if b1 & 0x80 or b0 & 0x70:
                self._fail(1002, "a masked frame or reserved bits from the server")
                return
            if n > self._max_size:
                self._fail(1009, f"a frame of {n} bytes (the limit: {self._max_size})")
                return
            if len(buf) < at + n:
                return
            payload = bytes(buf[at:at + n])
            del buf[:at + n]
            self._frame(b0 & 0x80, b0 & 0x0F, payload)

    def _frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode == OP_TEXT or opcode == OP_CONT:
            if opcode == OP_TEXT and self._parts or opcode == OP_CONT and not self._parts:
                self._fail(1002, "a fragment out of order")
                return
            if self._parts or not fin:  # a fragment (a whole message: one final frame)
                if sum(map(len, self._parts)) + len(payload) > self._max_size:
                    self._fail(1009, f"a message over {self._max_size} bytes")
                    return
                if not fin:
                    self._parts.append(payload)
                    return
                payload, self._parts = b"".join((*self._parts, payload)), []
            try:
                text = payload.decode()
            except UnicodeDecodeError:
                self._fail(1007, "a text message that is not UTF-8")
                return
            if not self._closing:
                self._on_text(text)
        elif opcode == OP_PING:
            self._send(OP_PONG, payload)
        elif opcode == OP_PONG:
            pass
        elif opcode == OP_CLOSE:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            if not self._closing:  # the server began it: answer, then the connection ends
                reason = payload[2:].decode(errors="replace")
                self._ended = (f"the server closed the connection (code {code}"
                               f"{': ' + reason if reason else ''})")
                self._send(OP_CLOSE, payload[:2])
                self._closing = True
            assert self._transport is not None
            self._transport.close()
        else:
            self._fail(1003, f"a frame of opcode {opcode} (text only)")

    def _fail(self, code: int, why: str) -> None:
        if self._ended is None:
            self._ended = f"protocol error: {why}"
        if not self._closing:
            self._send(OP_CLOSE, code.to_bytes(2, "big"))
            self._closing = True
        assert self._transport is not None
        self._transport.close()

    def _send(self, opcode: int, payload: bytes) -> None:
        assert self._transport is not None
        self._transport.write(_frame(opcode, payload, random.randbytes(4)))

    # -- the client's side

    def send(self, text: str) -> None:
        """Send one text message (buffered by the transport, so no waiting); raises
        :class:`ConnectionError` once the connection is closing."""
        if self._closing or self._transport is None or self._transport.is_closing():
            raise ConnectionError(self._ended or "the connection is closed")
        self._send(OP_TEXT, text.encode())

    async def close(self, timeout: float = 5.0) -> None:
        """Begin the closing handshake (code 1000) and wait for the connection's end, at
        most ``timeout`` seconds (then drop it)."""
        if self._transport is not None and not self._closing and \
                not self._transport.is_closing():
            self._closing = True
            self._send(OP_CLOSE, (1000).to_bytes(2, "big"))
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), timeout)
        except TimeoutError:
            if self._transport is not None:
                self._transport.abort()


async def connect(url: str, on_text: Callable[[str], None],
                  on_closed: Callable[[str | None], None], *, max_size: int = 2 ** 20,
                  timeout: float = 30.0) -> WebSocket:
    """Open a WebSocket to ``url`` (``ws://host:port/path?query``) within ``timeout``
    seconds; raises :class:`HandshakeError` when the server refuses it."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or not parts.hostname:
        raise ValueError(f"not a ws:// address: {url!r}")
    host, port = parts.hostname, parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    key = base64.b64encode(os.urandom(16)).decode()
    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    request = (f"GET {target} HTTP/1.1\r\nHost: {netloc}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\n\r\n").encode()
    loop = asyncio.get_running_loop()

    async def opening() -> WebSocket:
        _, ws = await loop.create_connection(
            lambda: WebSocket(request, key, on_text, on_closed, max_size), host, port)
        try:
            await ws.opened
        except BaseException:
            if ws._transport is not None:
                ws._transport.abort()
            raise
        return ws

    return await asyncio.wait_for(opening(), timeout)

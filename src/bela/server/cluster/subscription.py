"""The inbox's subscription, read straight off its own socket.

Every call, answer and relayed message between the instances of a site arrives through the
inbox's subscription.  redis-py's ``PubSub`` spent about 40 µs of CPU on each message (a
coroutine for each line of the reply, a timeout for each wait, then a dict), and 22 µs
through a bare connection's ``read_response``; :class:`Subscription`, an
:class:`asyncio.Protocol` that cuts the replies out of what arrives, spends 4-5
(docs/CAPACITY.md).  A subscribed connection does nothing else, so it needs only what
:func:`subscribe` sends: ``AUTH`` where the URL has a password, and ``SUBSCRIBE``.

It connects where the site's client of Redis does, as that client's connections would
(``--redis``: ``redis://``, ``rediss://`` with its TLS settings, or ``unix://``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable, Sequence
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import AuthenticationError, ConnectionError, ResponseError

log = logging.getLogger("bela.server.cluster")

Reply = bytes | int | None | ResponseError | list["Reply"]

_INCOMPLETE = object()  # what _one returns where the buffer ends inside the reply


def _one(buf: bytes, pos: int) -> tuple[Any, int]:
    """The reply starting at ``pos`` and where the next begins; ``_INCOMPLETE`` where
    ``buf`` ends before it does."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return _INCOMPLETE, pos
    kind = buf[pos]
    if kind == 36:  # $: a bulk string of that length (-1: none)
        size = int(buf[pos + 1:end])
        if size < 0:
            return None, end + 2
        stop = end + 2 + size
        if len(buf) < stop + 2:
            return _INCOMPLETE, pos
        return buf[end + 2:stop], stop + 2
    if kind == 42:  # *: an array of that many replies (-1: none)
        count = int(buf[pos + 1:end])
        if count < 0:
            return None, end + 2
        items: list[Any] = []
        at = end + 2
        for _ in range(count):
            item, at = _one(buf, at)
            if item is _INCOMPLETE:
                return _INCOMPLETE, pos
            items.append(item)
        return items, at
    if kind == 58:  # :, an integer
        return int(buf[pos + 1:end]), end + 2
    if kind == 43:  # +, a simple string
        return buf[pos + 1:end], end + 2
    if kind == 45:  # -, an error
        return ResponseError(buf[pos + 1:end].decode("utf-8", "replace")), end + 2
    raise ConnectionError(f"not a Redis reply: {buf[pos:pos + 20]!r}")


def replies(buf: bytes) -> tuple[list[Reply], int]:
    """The whole replies (RESP2) at the start of ``buf``, and how many bytes they take: the
    rest begins a reply still on its way.

    >>> replies(b"*3\\r\\n$7\\r\\nmessage\\r\\n$2\\r\\nch\\r\\n$2\\r\\nhi\\r\\n+OK\\r\\n*3\\r\\n$7")
    ([[b'message', b'ch', b'hi'], b'OK'], 38)
    >>> replies(b":3\\r\\n$-1\\r\\n-ERR no\\r\\n")
    ([3, None, ResponseError('ERR no')], 18)
    >>> replies(b"$5\\r\\nhel")
    ([], 0)
    """
    out: list[Reply] = []
    pos = 0
    while pos < len(buf):
        reply, pos = _one(buf, pos)
        if reply is _INCOMPLETE:
            break
        out.append(reply)
    return out, pos


def command(*words: str) -> bytes:
    """A command as Redis reads it.

    >>> command("SUBSCRIBE", "bela:everyone")
    b'*2\\r\\n$9\\r\\nSUBSCRIBE\\r\\n$13\\r\\nbela:everyone\\r\\n'
    """
    parts = [b"*%d\r\n" % len(words)]
    for word in words:
        data = word.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class Subscription(asyncio.Protocol):
    """A subscribed connection: each message's data handed to ``deliver`` as it arrives
    (bytes, in the order Redis sent them); the other replies (those of ``AUTH`` and
    ``SUBSCRIBE``) to :meth:`reply`.  ``lost`` is done once the connection is gone."""

    def __init__(self, deliver: Callable[[bytes], None]) -> None:
        self._deliver = deliver
        self._buf = b""
        self._transport: asyncio.Transport | None = None
        self._replies: collections.deque[Reply] = collections.deque()
        self._loop = asyncio.get_running_loop()
        self._more: asyncio.Future[None] | None = None  # a reply() waits for the next
        self.lost: asyncio.Future[None] = self._loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        try:
            got, used = replies(buf)
        except (ConnectionError, ValueError) as exc:  # not Redis: nothing more is read
            self._buf = b""
            self._fail(ConnectionError(f"the subscription read a broken reply ({exc})"))
            return
        self._buf = buf[used:]
        for reply in got:
            if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
                try:
                    self._deliver(reply[2])  # type: ignore[arg-type]
                except Exception:  # that message is lost, not the subscription
                    log.exception("a message of the inbox could not be read")
            else:
                self._replies.append(reply)
                if self._more is not None and not self._more.done():
                    self._more.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_exception(ConnectionError(
                f"the subscription's connection to Redis was lost ({exc or 'closed'})"))
            self.lost.exception()  # retrieved: a stop that nobody awaits is not an error

    def _fail(self, exc: ConnectionError) -> None:
        if not self.lost.done():
            self.lost.set_exception(exc)
            self.lost.exception()
        self.close()

    def send(self, data: bytes) -> None:
        if self._transport is None or self._transport.is_closing():
            raise ConnectionError("the subscription's connection to Redis is closed")
        self._transport.write(data)

    async def reply(self) -> Reply:
        """The next reply that is not a message (the connection lost: its error)."""
        while not self._replies:
            if self.lost.done():
                self.lost.result()  # raises the loss
            self._more = self._loop.create_future()
            await asyncio.wait({self._more, self.lost}, return_when=asyncio.FIRST_COMPLETED)
        return self._replies.popleft()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


async def subscribe(redis: Redis, channels: Sequence[str], deliver: Callable[[bytes], None],
                    timeout: float) -> Subscription:
    """A connection to ``redis``'s server subscribed to ``channels``, within ``timeout``
    seconds: where and how to connect (TCP, TLS or a Unix socket, and the credentials) as
    that client's connections would (raises :class:`redis.exceptions.ConnectionError`,
    :class:`~redis.exceptions.AuthenticationError` where Redis refuses the password, and
    ``OSError`` where it cannot be reached)."""
    pool = redis.connection_pool
    settings = pool.connection_class(**pool.connection_kwargs)  # not connected: its settings
    loop = asyncio.get_running_loop()
    link: Subscription | None = None
    try:
        async with asyncio.timeout(timeout):
            if isinstance(settings, UnixDomainSocketConnection):
                _, link = await loop.create_unix_connection(
                    lambda: Subscription(deliver), settings.path)
            elif isinstance(settings, Connection):  # TCP, and TLS over it
                tls = settings.ssl_context.get() if isinstance(settings, SSLConnection) else None
                _, link = await loop.create_connection(
                    lambda: Subscription(deliver), settings.host, settings.port, ssl=tls)
            else:
                raise ConnectionError(f"cannot subscribe through {type(settings).__name__}")
            if settings.password is not None:
                user = settings.username
                link.send(command("AUTH", *([user] if user else []), settings.password))
                answer = await link.reply()
                if isinstance(answer, ResponseError):
                    raise AuthenticationError(f"Redis refused the password: {answer}")
            link.send(command("SUBSCRIBE", *channels))
            for _ in channels:
                answer = await link.reply()
                if not (isinstance(answer, list) and answer and answer[0] == b"subscribe"):
                    raise ConnectionError(f"Redis did not subscribe: {answer!r}")
    except BaseException:
        if link is not None:
            link.close()
        raise
    return link

"""The inbox's subscription reads Redis's replies off its socket itself
(:mod:`bela.server.cluster.subscription`): whatever way the bytes are cut into reads, every
message arrives whole and in order, and the other replies go to ``reply()``; against a real
``redis-server`` (Debian's package, as tests/server/test_server_cluster.py): the password,
a refused password, a Unix socket, TLS, large messages, and a lost connection."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("redis")

from redis.asyncio import Redis  # noqa: E402
from redis.exceptions import AuthenticationError, ConnectionError, ResponseError  # noqa: E402
from test_server_cluster import REDIS, _free_port  # noqa: E402

from bela.server.cluster.subscription import Subscription, subscribe  # noqa: E402


def _bulk(data: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(data), data)


def _encode(reply: Any) -> bytes:
    if isinstance(reply, ResponseError):
        return b"-%s\r\n" % str(reply).encode()
    if isinstance(reply, int):
        return b":%d\r\n" % reply
    if reply is None:
        return b"$-1\r\n"
    if isinstance(reply, bytes):
        return _bulk(reply)
    return b"*%d\r\n" % len(reply) + b"".join(_encode(r) for r in reply)


scalars = st.one_of(st.integers(-(2**40), 2**40), st.none(), st.binary(max_size=40),
                    st.text("ab ", max_size=8).map(lambda t: ResponseError("ERR " + t)))
other_replies = st.one_of(scalars, st.lists(scalars, max_size=4).filter(
    lambda r: not (len(r) == 3 and r[0] == b"message")))
messages = st.tuples(st.binary(min_size=1, max_size=12), st.binary(max_size=300))
events = st.lists(st.one_of(messages.map(lambda m: ("message", m)),
                            other_replies.map(lambda r: ("reply", r))), max_size=12)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, ResponseError):
        return isinstance(b, ResponseError) and str(a) == str(b)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _read(wire: bytes, points: list[int]) -> tuple[list[bytes], list[Any]]:
    """What a subscription makes of ``wire`` read in the pieces between ``points``."""
    async def main() -> tuple[list[bytes], list[Any]]:
        delivered: list[bytes] = []
        link = Subscription(delivered.append)
        for a, b in zip(points, points[1:]):
            link.data_received(wire[a:b])
        assert not link.lost.done()
        replies = []
        while link._replies:
            replies.append(await link.reply())
        return delivered, replies

    return asyncio.run(main())


@settings(max_examples=200, deadline=None)
@given(events=events, data=st.data())
def test_replies_arrive_whole_however_the_bytes_are_cut(
        events: list[tuple[str, Any]], data: st.DataObject) -> None:
    wire = b"".join(_encode([b"message", *r] if kind == "message" else r)
                    for kind, r in events)
    cuts = data.draw(st.lists(st.integers(0, len(wire)), max_size=10))
    every_byte = list(range(len(wire) + 1))
    for points in (sorted({0, len(wire), *cuts}), every_byte):
        delivered, replies = _read(wire, points)
        assert delivered == [r[1] for kind, r in events if kind == "message"]
        expected = [r for kind, r in events if kind == "reply"]
        assert len(replies) == len(expected)
        assert all(map(_same, replies, expected))


def test_a_message_that_fails_is_lost_alone(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> list[bytes]:
        delivered: list[bytes] = []

        def deliver(data: bytes) -> None:
            if data == b"bad":
                raise ValueError("not JSON")
            delivered.append(data)

        link = Subscription(deliver)
        link.data_received(b"".join(_encode([b"message", b"c", d])
                                    for d in (b"one", b"bad", b"two")))
        assert not link.lost.done()
        return delivered

    assert asyncio.run(main()) == [b"one", b"two"]
    assert "could not be read" in caplog.text


def test_what_is_not_redis_ends_the_subscription() -> None:
    async def main() -> None:
        link = Subscription(lambda data: None)
        link.data_received(b"HTTP/1.1 200 OK\r\n")
        with pytest.raises(ConnectionError):
            await link.reply()

    asyncio.run(main())


@contextlib.contextmanager
def _redis_server(folder: Path, *args: str, reach: Callable[[], socket.socket]
                  ) -> Iterator[None]:
    """A throwaway redis-server with ``args``, once ``reach()`` connects to it."""
    if REDIS is None:
        pytest.skip("redis-server is not installed")
    proc = subprocess.Popen([REDIS, "--save", "", "--appendonly", "no", "--dir", str(folder),
                             *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                reach().close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield
    finally:
        proc.kill()
        proc.wait()


async def _two_messages(url: str) -> None:
    """Subscribe through ``url``, hear two messages (one large), then lose the link."""
    big = b"\r\n".join(b"%d" % i for i in range(60_000))  # ~400 KB: many reads
    client = Redis.from_url(url)
    got: list[bytes] = []
    link = await subscribe(client, ["a", "b"], got.append, 5.0)
    try:
        assert await client.publish("a", b"one") == 1
        assert await client.publish("b", big) == 1
        assert await client.publish("c", b"nobody") == 0
        deadline = time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert got == [b"one", big]
        assert not link.lost.done()
        await client.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(link.lost, 5.0)
    finally:
        link.close()
        await client.aclose()


def test_a_real_redis_with_a_password(tmp_path: Path) -> None:
    port = _free_port()
    with _redis_server(tmp_path, "--port", str(port), "--bind", "127.0.0.1",
                       "--requirepass", "s3cret",
                       reach=lambda: socket.create_connection(("127.0.0.1", port), 0.2)):
        async def refused() -> None:
            client = Redis.from_url(f"redis://:wrong@127.0.0.1:{port}/0")
            with pytest.raises(AuthenticationError):
                await subscribe(client, ["a"], print, 5.0)
            await client.aclose()

        asyncio.run(refused())
        asyncio.run(_two_messages(f"redis://:s3cret@127.0.0.1:{port}/0"))


def test_a_real_redis_over_a_unix_socket(tmp_path: Path) -> None:
    path = tmp_path / "redis.sock"

    def reach() -> socket.socket:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(str(path))
        except OSError:
            s.close()
            raise
        return s

    with _redis_server(tmp_path, "--port", "0", "--unixsocket", str(path), reach=reach):
        asyncio.run(_two_messages(f"unix://{path}"))


def test_a_real_redis_over_tls(tmp_path: Path) -> None:
    """``rediss://`` with the URL's own TLS settings (its CA here), as redis-py reads them."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    port = _free_port()
    with _redis_server(tmp_path, "--port", "0", "--bind", "127.0.0.1", "--tls-port",
                       str(port), "--tls-cert-file", str(cert), "--tls-key-file", str(key),
                       "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no",
                       reach=lambda: socket.create_connection(("127.0.0.1", port), 0.2)):
        asyncio.run(_two_messages(f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={cert}"))

        async def untrusted() -> None:  # without the CA, the server's certificate is refused
            client = Redis.from_url(f"rediss://127.0.0.1:{port}/0")
            with pytest.raises(ssl.SSLError):
                await subscribe(client, ["a"], print, 5.0)
            await client.aclose()

        asyncio.run(untrusted())

"""The inbox's subscription reads Redis's replies off its socket itself
(:mod:`bela.server.cluster.subscription`): whatever way the bytes are cut into reads, every
message arrives whole and in order, and the other replies go to ``reply()``; against a real
``redis-server`` (Debian's package, as tests/server/test_server_cluster.py): the password,
a refused password, large messages, and a lost connection."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("redis")

from redis.asyncio import Redis  # noqa: E402
from redis.exceptions import AuthenticationError, ConnectionError, ResponseError  # noqa: E402

from bela.server.cluster.subscription import Subscription, subscribe  # noqa: E402

REDIS = shutil.which("redis-server")


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_with_password(tmp_path: Path) -> Iterator[int]:
    if REDIS is None:
        pytest.skip("redis-server is not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no", "--dir", str(tmp_path), "--requirepass", "s3cret"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64):
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        proc.kill()
        proc.wait()


def test_a_real_redis_with_a_password(redis_with_password: int) -> None:
    port = redis_with_password
    url = f"redis://:s3cret@127.0.0.1:{port}/0"
    big = b"\r\n".join(b"%d" % i for i in range(60_000))  # ~400 KB: many reads

    async def main() -> None:
        with pytest.raises(AuthenticationError):
            await subscribe(f"redis://:wrong@127.0.0.1:{port}/0", ["a"], print, 5.0)
        got: list[bytes] = []
        link = await subscribe(url, ["a", "b"], got.append, 5.0)
        client = Redis.from_url(url)
        try:
            assert await client.publish("a", b"one") == 1
            assert await client.publish("b", big) == 1
            assert await client.publish("c", b"nobody") == 0
            assert await client.publish("a", "două") == 1
            deadline = time.monotonic() + 5
            while len(got) < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert got == [b"one", big, "două".encode()]
            assert not link.lost.done()
            await client.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
            with pytest.raises(ConnectionError):
                await asyncio.wait_for(link.lost, 5.0)
        finally:
            link.close()
            await client.aclose()

    asyncio.run(main())

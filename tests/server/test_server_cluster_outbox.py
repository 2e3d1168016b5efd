"""The outbox of a cluster instance publishes on its own Redis connection: a flush that
fails or times out mid-way drops that connection, so a late answer is never read by the
next flush (which would then take another instance's listener count for its own).  No
Redis needed: a small fake server answers ``PUBLISH``."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

pytest.importorskip("redis")

from bela.server.cluster import connect, inbox  # noqa: E402


def commands(buf: bytes) -> tuple[list[bytes], bytes]:
    """The names of the whole RESP commands at the start of ``buf``, and the rest."""
    names = []
    while buf.startswith(b"*") and b"\r\n" in buf:
        head, rest = buf.split(b"\r\n", 1)
        args = []
        for _ in range(int(head[1:])):
            if b"\r\n" not in rest:
                return names, buf
            size, rest = rest.split(b"\r\n", 1)
            if len(rest) < int(size[1:]) + 2:
                return names, buf
            args.append(rest[:int(size[1:])])
            rest = rest[int(size[1:]) + 2:]
        names.append(args[0].upper())
        buf = rest
    return names, buf


def test_a_timed_out_flush_drops_its_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox, "CALL_TIMEOUT", 0.3)

    async def main() -> None:
        opened = 0

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal opened
            n, opened = opened, opened + 1
            buf = b""
            while data := await reader.read(65536):
                names, buf = commands(buf + data)
                for name in names:
                    if name != b"PUBLISH":  # the client's greeting (CLIENT SETINFO)
                        writer.write(b"+OK\r\n")
                    elif n == 0:  # the first connection answers late, with a count of 0
                        await asyncio.sleep(0.5)
                        writer.write(b":0\r\n")
                    else:
                        writer.write(f":{n}\r\n".encode())
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        cluster = SimpleNamespace(redis=connect(f"redis://127.0.0.1:{port}/0"), id="a",
                                  lobby=None, metrics=None, ttl_ms=5000)
        box = inbox.Inbox(cluster, None)  # type: ignore[arg-type]
        try:
            with pytest.raises(TimeoutError):
                await box._publish([("PUBLISH", "bela:inbox:b", "x")])
            await asyncio.sleep(0.4)  # the first connection's late answer is sent now
            assert await box._publish([("PUBLISH", "bela:inbox:b", "y"),
                                       ("PUBLISH", "bela:inbox:c", "z")]) == [1, 1]
            assert await box._publish([("PUBLISH", "bela:inbox:b", "w")]) == [1]
            assert opened == 2
        finally:
            await box.close()
            await cluster.redis.aclose()
            server.close()

    asyncio.run(main())

"""An instance's part of the site's lobby list in Redis: at each tick only the summaries
that changed are written again, the others' lives are renewed in one call, and what Redis
lost (a restart) is written again at once (docs/CAPACITY.md: writing every summary at
every tick was 3 % of an instance's event loop).  Needs ``redis-server`` (Debian's package,
as test_server_cluster.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("redis")

from test_server_cluster import REDIS, RedisServer  # noqa: E402

from bela.server.cluster import LISTED, connect, listing, summary_key  # noqa: E402
from bela.server.lobby import ACTIVE  # noqa: E402


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    if REDIS is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server.url
    finally:
        server.kill()


class FakeLobby:
    def __init__(self) -> None:
        self.tables: dict[str, Any] = {}
        self.moves: dict[str, int] = {}

    def add(self, tid: str, private: bool = False) -> None:
        self.tables[tid] = SimpleNamespace(id=tid, status=next(iter(ACTIVE)),
                                           private=private, created_at=len(self.tables))
        self.moves[tid] = 0

    def summary(self, table: Any) -> dict[str, Any]:
        return {"id": table.id, "moves": self.moves[table.id]}


def test_only_changed_summaries_are_written_again(redis_url: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        lobby = FakeLobby()
        lobby.add("t1")
        lobby.add("t2")
        lobby.add("p3", private=True)
        redis = connect(redis_url)
        cluster = SimpleNamespace(redis=redis, id="a", lobby=lobby, metrics=None,
                                  ttl_ms=5000)
        listed = listing.LobbyList(cluster)  # type: ignore[arg-type]
        writes: list[str] = []
        write = listed._summary_into

        def recorded(pipe: Any, table: Any, text: str | None) -> None:
            writes.append(table.id)
            write(pipe, table, text)

        monkeypatch.setattr(listed, "_summary_into", recorded)

        async def state() -> tuple[list[str], dict[str, str | None]]:
            ids = await redis.zrange(LISTED, 0, -1)
            texts = await redis.mget([summary_key(t) for t in ("t1", "t2", "p3")])
            return ids, dict(zip(("t1", "t2", "p3"), texts))

        await listed.refresh()  # the first tick writes every table (p3: off the list)
        assert sorted(writes) == ["p3", "t1", "t2"]
        assert await state() == (["t1", "t2"], {"t1": '{"id":"t1","moves":0}',
                                                "t2": '{"id":"t2","moves":0}',
                                                "p3": None})
        await redis.pexpire(summary_key("t1"), 1000)
        writes.clear()
        await listed.refresh()  # nothing changed: lives renewed, nothing written
        assert writes == []
        assert await redis.pttl(summary_key("t1")) > 4000
        lobby.moves["t2"] = 1
        await listed.refresh()  # a live field changed: that summary alone
        assert writes == ["t2"]
        assert (await state())[1]["t2"] == '{"id":"t2","moves":1}'
        writes.clear()
        await redis.flushall()  # Redis restarted: everything listed is written again
        await listed.refresh()
        assert sorted(writes) == ["t1", "t2"]
        assert await state() == (["t1", "t2"], {"t1": '{"id":"t1","moves":0}',
                                                "t2": '{"id":"t2","moves":1}',
                                                "p3": None})
        del lobby.tables["t1"]  # gone from here (finished, or moved): forgotten
        await listed.refresh()
        assert set(listed._written) == {"t2", "p3"}
        await redis.aclose()

    asyncio.run(main())

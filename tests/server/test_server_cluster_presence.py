"""A cluster instance renews its players' presence marks in Redis once a third of their life
has passed, not at every tick (docs/CAPACITY.md: the renewals cost a twentieth of an
instance's CPU at 800 connections).  No Redis needed: the marking itself is recorded."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

pytest.importorskip("redis")

from bela.server.cluster import connect, presence  # noqa: E402


def test_presence_marks_are_renewed_once_a_third_of_their_life_is_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(presence, "time", SimpleNamespace(monotonic=lambda: clock[0],
                                                          time=time.time))
    marked: list[dict[str, str]] = []
    failing = [False]

    async def mark(places: dict[str, str]) -> None:
        if failing[0]:
            raise OSError("Redis is down")
        marked.append(places)

    async def main() -> None:
        cluster = SimpleNamespace(redis=connect("redis://127.0.0.1:1/0"), id="a",
                                  lobby=None, metrics=None, ttl_ms=5000)
        shared = presence.SharedPresence(cluster)  # type: ignore[arg-type]
        assert shared.live_ms == 10_000
        monkeypatch.setattr(shared, "_mark", mark)
        monkeypatch.setattr(shared, "here", lambda: {"p1": "t1"})
        await shared.refresh()  # the first tick renews
        assert marked == [{"p1": "t1"}]
        for at in (101.0, 103.3):  # ticks within a third of the marks' 10 s: nothing
            clock[0] = at
            await shared.refresh()
        assert len(marked) == 1
        clock[0] = 103.4
        failing[0] = True  # a renewal that fails is tried again at the next tick
        with pytest.raises(OSError):
            await shared.refresh()
        failing[0] = False
        clock[0] = 104.9
        await shared.refresh()
        assert len(marked) == 2
        clock[0] = 108.0  # 3.1 s after the last renewal
        await shared.refresh()
        assert len(marked) == 2
        await cluster.redis.aclose()

    asyncio.run(main())

"""The cluster's outbox (:mod:`bela.server.cluster.inbox`) under load gathers what comes
within :data:`~bela.server.cluster.inbox.GATHER` of a big flush into the next one; a quiet
site's messages go out at once.  Redis is a stand-in that records each round trip."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

from bela.server.cluster.inbox import Inbox
from bela.server.metrics import Metrics


class _Pipeline:
    def __init__(self, trips: list[list[tuple[str, Any]]]) -> None:
        self._trips = trips
        self._sent: list[tuple[str, Any]] = []

    async def __aenter__(self) -> _Pipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def publish(self, channel: str, data: str) -> None:
        self._sent.append((channel, json.loads(data)))

    async def execute(self) -> list[int]:
        self._trips.append(self._sent)
        return [1] * len(self._sent)  # one listener on every channel


class _Redis:
    def __init__(self) -> None:
        self.trips: list[list[tuple[str, Any]]] = []

    def pipeline(self, transaction: bool = True) -> _Pipeline:
        return _Pipeline(self.trips)


def _texts(trip: list[tuple[str, Any]]) -> list[str]:
    """The relayed texts of one round trip, in order."""
    out = []
    for _channel, msg in trip:
        for one in msg["msgs"] if msg["k"] == "batch" else [msg]:
            out += [item["t"] for item in one["items"]]
    return out


def test_under_load_the_next_flush_gathers_for_a_while() -> None:
    """After a flush of ``gather_from`` messages or more, the next waits until ``gather``
    seconds after it: two messages 0.1 s apart go in one round trip.  After a smaller one
    (a quiet site), a message goes at once: the same two go in two."""
    redis = _Redis()

    async def main() -> None:
        cluster = SimpleNamespace(redis=redis, id="a", lobby=None, metrics=Metrics(),
                                  ttl_ms=5000, jobs=set())
        inbox = Inbox(cluster, serve=None)  # type: ignore[arg-type]
        closed = asyncio.Event()
        sender = asyncio.ensure_future(inbox.send_outbox(closed, gather=1.0, gather_from=2))

        async def two_apart(first: str, second: str) -> None:
            inbox.forward("b", {"c": "c1", "t": first})
            await asyncio.sleep(0.1)
            inbox.forward("b", {"c": "c1", "t": second})
            await asyncio.sleep(0.05)

        await two_apart("q1", "q2")  # quiet: each at once
        inbox.forward("b", {"c": "c1", "t": "l1"})  # two in one turn: a flush of two
        inbox.forward("c", {"c": "c2", "t": "l2"})
        await asyncio.sleep(0.05)
        await two_apart("g1", "g2")  # under load: gathered
        for _ in range(200):
            if len(redis.trips) == 4:
                break
            await asyncio.sleep(0.01)
        closed.set()
        inbox._outbox_ready.set()
        await sender

    asyncio.run(main())
    assert [_texts(t) for t in redis.trips] == [["q1"], ["q2"], ["l1", "l2"], ["g1", "g2"]]
    assert [[c for c, _ in t] for t in redis.trips[2:]] == [
        ["bela:inbox:b", "bela:inbox:c"], ["bela:inbox:b"]]

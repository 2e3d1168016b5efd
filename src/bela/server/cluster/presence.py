"""Presence and invitations for every instance of a site, in Redis (the questions of
:class:`~bela.server.talk.presence.Presence`, answered for the whole site):

- ``bela:online``: a sorted set of the players online, each scored by the time (Redis's
  clock, ms) until which he is; an instance marks a player when he connects, and renews
  the marks of its connected players for ``2 * lease_ttl`` at the first tick after a third
  of that has passed (a killed instance's players drop off within ``2 * lease_ttl``), and a
  player whose page asks for :data:`~bela.server.talk.presence.SEEN_TTL`.
- ``bela:where:<player>``: the table of his newest connection, set by the instance that
  holds it, with the same time to live.
- ``bela:invites:<player>``: a hash of the invitations waiting for him (one per sender and
  table), gone :data:`~bela.server.talk.presence.INVITE_TTL` after the last.

Redis out of reach: this instance's own book answers (its players only); an invitation
cannot be sent (503 ``cluster``)."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from ..talk.presence import INVITE_TTL, MAX_INVITES, SEEN_TTL, Presence, invitation
from .common import Part, log

if TYPE_CHECKING:
    from . import Cluster

ONLINE = "bela:online"

# Mark players (ARGV[2..]) online for ARGV[1] ms from Redis's own clock (never shortened).
MARK = """
local t = redis.call('TIME')
local upto = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'GT', upto, ARGV[i]) end
return 1
"""
# How many are online (the expired dropped), and which of ARGV are (1) or not (0).
COUNT = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local out = {redis.call('ZCARD', KEYS[1])}
for i = 1, #ARGV do out[i + 1] = redis.call('ZSCORE', KEYS[1], ARGV[i]) and 1 or 0 end
return out
"""
# Forget where a player is if it is still ARGV[1] (another instance may have set it since).
FORGET = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def where_key(player_id: str) -> str:
    return f"bela:where:{player_id}"


def invites_key(player_id: str) -> str:
    return f"bela:invites:{player_id}"


class SharedPresence(Presence, Part):
    """This instance's book (:class:`Presence`: its own connections), shared in Redis."""

    def __init__(self, cluster: Cluster) -> None:
        Presence.__init__(self)
        Part.__init__(self, cluster)
        self.live_ms = 2 * self.ttl_ms  # how long a connected player stays marked
        self._renewed = -math.inf  # when the marks were last renewed (time.monotonic())
        self._marks = self.redis.register_script(MARK)
        self._count = self.redis.register_script(COUNT)
        self._forget = self.redis.register_script(FORGET)

    async def _mark(self, places: dict[str, str]) -> None:
        """Mark the players of ``places`` online, each at his table."""
        if not places:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            await self._marks(keys=[ONLINE], args=[self.live_ms, *places], client=pipe)
            for player, table in places.items():
                pipe.set(where_key(player), table, px=self.live_ms)
            await pipe.execute()

    def _soon(self, work: Any) -> None:
        async def guarded() -> None:
            try:
                await work
            except (RedisError, OSError) as exc:
                self.metrics.errors.labels(kind="cluster").inc()
                log.debug("presence not shared: %s", exc)

        self._job(guarded())

    def enter(self, player_id: str, table_id: str) -> None:
        super().enter(player_id, table_id)
        self._soon(self._mark({player_id: table_id}))

    def leave(self, player_id: str, table_id: str) -> None:
        super().leave(player_id, table_id)
        latest = self._latest.get(player_id)
        if latest is not None:
            self._soon(self._mark({player_id: latest}))
        else:  # online until his mark expires (his other instances renew it)
            self._soon(self._forget(keys=[where_key(player_id)], args=[table_id]))

    async def refresh(self) -> None:
        """Renew the marks of this instance's connected players, at the first cluster tick
        once a third of their life has passed (renewing them at every tick cost a twentieth of
        an instance's CPU at 800 connections: docs/CAPACITY.md)."""
        now = time.monotonic()
        if now - self._renewed < self.live_ms / 3000:
            return
        await self._mark(self.here())
        self._renewed = now

    async def seen(self, player_id: str) -> None:
        await super().seen(player_id)
        try:
            await self._marks(keys=[ONLINE], args=[int(SEEN_TTL * 1000), player_id])
        except (RedisError, OSError) as exc:
            self.metrics.errors.labels(kind="cluster").inc()
            log.debug("presence not shared: %s", exc)

    async def online(self) -> int:
        try:
            counted: list[int] = await self._count(keys=[ONLINE])
        except (RedisError, OSError):
            self.metrics.errors.labels(kind="cluster").inc()
            return await super().online()
        return int(counted[0])

    async def find(self, player_ids: Sequence[str]) -> dict[str, tuple[bool, str | None]]:
        ids = list(player_ids)
        if not ids:
            return {}
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                await self._count(keys=[ONLINE], args=ids, client=pipe)
                for p in ids:
                    pipe.get(where_key(p))
                got = await pipe.execute()
        except (RedisError, OSError):
            self.metrics.errors.labels(kind="cluster").inc()
            return await super().find(ids)
        flags, tables = got[0][1:], got[1:]
        return {p: (bool(flags[i]) or tables[i] is not None, tables[i])
                for i, p in enumerate(ids)}

    async def invite(self, player_id: str, sender: dict[str, Any], table_id: str) -> None:
        key = invites_key(player_id)
        item = invitation(sender, table_id, time.time())
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(key, f"{sender['id']} {table_id}", json.dumps(item))
                pipe.pexpire(key, int(INVITE_TTL * 1000))
                await pipe.execute()
            await self.invites(player_id)  # the oldest beyond MAX_INVITES dropped
        except (RedisError, OSError) as exc:
            raise self._unavailable(exc) from exc

    async def invites(self, player_id: str) -> list[dict[str, Any]]:
        key = invites_key(player_id)
        try:
            held: dict[str, str] = await self.redis.hgetall(key)  # type: ignore[misc]
            now = time.time()
            items = sorted(((f, json.loads(v)) for f, v in held.items()),
                           key=lambda fi: float(fi[1]["at"]))
            gone = [f for f, i in items if now - i["at"] >= INVITE_TTL]
            kept = [(f, i) for f, i in items if now - i["at"] < INVITE_TTL]
            gone += [f for f, _ in kept[:-MAX_INVITES]]
            if gone:
                await self.redis.hdel(key, *gone)  # type: ignore[misc]
        except (RedisError, OSError):
            self.metrics.errors.labels(kind="cluster").inc()
            return []
        return [i for _, i in kept[-MAX_INVITES:]]

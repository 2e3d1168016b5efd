"""What the parts of a cluster share: Redis's keys and scripts, the refusals that travel
between instances, the client of Redis, and :class:`Part` (a part's view of its
:class:`~bela.server.cluster.Cluster`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from ..errors import REFUSALS, Refused, Unavailable

if TYPE_CHECKING:
    from . import Cluster

log = logging.getLogger("bela.server.cluster")

CALL_TIMEOUT = 5.0  # seconds an instance waits for the answer of another


# Renew the caller's leases (KEYS), taking back those that expired meanwhile (Redis
# restarted, or this instance stalled) unless another instance took them: 1 kept, 0 lost.
RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

LISTED = "bela:listed"
EVERYONE = "bela:everyone"  # the channel every instance hears


def lease_key(table_id: str) -> str:
    return f"bela:lease:{table_id}"


def summary_key(table_id: str) -> str:
    return f"bela:summary:{table_id}"


def inbox(instance: str) -> str:
    return f"bela:inbox:{instance}"


def instance_key(instance: str) -> str:
    return f"bela:instance:{instance}"



class Moved(Exception):
    """The instance asked does not run the table (any more): look its owner up again."""


def refusal_json(exc: Refused) -> dict[str, Any]:
    """A refusal as it travels between instances."""
    return {"kind": type(exc).__name__, "code": exc.code, "message": exc.message,
            "retry_after": getattr(exc, "retry_after", None)}


def refusal_from_json(data: dict[str, Any]) -> Refused:
    """The refusal an instance sent, as the same kind of error here.

    >>> from ..errors import Conflict
    >>> exc = refusal_from_json(refusal_json(Conflict("seat_taken", "seat 2 is taken")))
    >>> type(exc).__name__, exc.code, exc.message
    ('Conflict', 'seat_taken', 'seat 2 is taken')
    """
    kind = REFUSALS.get(data.get("kind", ""), Refused)
    if data.get("retry_after") is not None:
        return kind(data["code"], data["message"], data["retry_after"])  # type: ignore[call-arg]
    return kind(data["code"], data["message"])


def connect(url: str) -> Redis:
    """A client of the site's Redis: no retries (a caller fails at once and knows what to
    do), five seconds to connect and ten to answer.  (A new connection is opened when
    many calls are under way at once, i.e. under load, when the event loop runs late: one
    second, timed on that loop, failed relays at 2,000 tables; docs/CAPACITY.md.)"""
    client: Redis = Redis.from_url(url, decode_responses=True, retry=Retry(NoBackoff(), 0),
                                   socket_connect_timeout=5.0, socket_timeout=10.0)
    return client


class Part:
    """One concern of the instance's part of a site, on its cluster's Redis (``redis``),
    instance id (``id``), lobby, metrics and lease time (``ttl_ms``); its siblings are
    reached through ``cluster``."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.redis = cluster.redis
        self.id = cluster.id
        self.lobby = cluster.lobby
        self.metrics = cluster.metrics
        self.ttl_ms = cluster.ttl_ms

    def _job(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            await work

        task = asyncio.get_running_loop().create_task(run())
        self.cluster.jobs.add(task)
        task.add_done_callback(self.cluster.jobs.discard)

    def _unavailable(self, exc: BaseException) -> Unavailable:
        self.metrics.errors.labels(kind="cluster").inc()
        return Unavailable("cluster", f"the server processes cannot reach each other "
                           f"({type(exc).__name__}): try again in a few seconds")

"""Quick play: a queue per variant matched by rating; bots fill the seats after a wait.

A player joins a variant's queue (``POST /api/quick``) with the seconds he will wait for
other players.  Every :data:`TICK` seconds the matcher looks at each queue, sorted by
rating (the rating shown, :func:`~bela.server.ratings.shown`):

- never two players who joined from one client address at a table (:func:`apart`);
- a table's worth of players whose ratings spread within the window of the longest waiting
  of them (:func:`window`: 150 points, 10 more for each second waited) is seated together;
- a player whose wait is over is seated with the queued players nearest his rating that
  keep the table within that window, and bots fill the other seats: the level for people
  (:mod:`bela.bots.levels`: beginner, club, expert, master) whose rating in the variant is
  nearest the players' mean; a level not rated yet counts as a new entry plus its measured
  Elo over the beginner (:func:`level_ratings`).  A server that runs no level picks among
  its other bots.

The table is made rated, public and started (:meth:`~bela.server.router.Router.create_match`)
and each of its players finds it with ``GET /api/quick`` for :data:`ANSWER_TTL` seconds,
or until it has finished.
A player seated at a running table may not join (he finishes his match first), and one who
sits at one while queued leaves the queue.  A group is taken out of its queue before its
table is made, all of it or none, and only as it was read: a player who left, joined again
or was seated by another instance meanwhile is never seated (again); a table that cannot be
made puts its players back.

The matching itself is pure (:func:`match`, :func:`nearest_bot`); the queues live in this
process (:class:`MemoryQueue`), or in Redis when several instances share the players
(:class:`RedisQueue`: the players at every instance meet, and one instance at a time matches
a variant).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from ..bots.levels import LEVELS, level_elo
from ..engine.variants import DEFAULT_VARIANT, VARIANTS
from .answers import QuickStatus
from .auth import Player
from .cluster import RELEASE
from .errors import Conflict, InvalidInput, Refused, Unavailable
from .lobby import ENDED
from .ratings import MU, SIGMA, bot_entry, shown
from .stopping import ended

log = logging.getLogger("bela.server.quickplay")

TICK = 0.5  # seconds between two rounds of matching
BASE_WINDOW = 150.0  # rating points a table may spread over at once ...
WIDEN = 10.0  # ... and more for each second its longest waiting player waited
ANSWER_TTL = 120.0  # seconds a matched player's answer (his table) is kept
STALE = 15.0  # seconds without asking his status after which a queued player is dropped
LOCK_TTL = 10.0  # seconds an instance may match a variant before another may
TAKEN_TTL = 30.0  # seconds a group taken out of its queue to be seated is kept (Redis)
DEFAULT_BOTS = ("club", "heuristic")  # the bots chosen among equally near ones, first first

Answer = dict[str, Any]


# -- matching (pure) -------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """A player in a variant's queue: his rating there when he joined, the seconds he
    waits for players, when he joined and when he last asked for his status
    (``time.time()``; 0: when he joined)."""

    player_id: str
    name: str
    variant: str
    rating: int
    wait: int
    since: float
    seen: float = 0.0
    address: str = ""  # the client address he joined from: one address is never seated twice

    def gone(self, now: float) -> bool:
        """Whether he stopped asking (his page was closed): he leaves the queue rather
        than be seated at a table he would not play."""
        return now - max(self.seen, self.since) > STALE

    def waited(self, now: float) -> float:
        return max(0.0, now - self.since)


def window(waited: float) -> float:
    """The rating points a table may spread over when its longest waiting player waited
    ``waited`` seconds.

    >>> window(0), window(30)
    (150.0, 450.0)
    """
    return BASE_WINDOW + WIDEN * max(0.0, waited)


def fits(group: Sequence[Entry], now: float) -> bool:
    """Whether the ratings of ``group`` spread within its window."""
    ratings = [e.rating for e in group]
    return max(ratings) - min(ratings) <= window(max(e.waited(now) for e in group))


def match(entries: Sequence[Entry], seats: int, now: float) -> list[list[Entry]]:
    """The tables to make now from a variant's queue (``seats`` a table): each a list of
    1 to ``seats`` players in the order of their seats, the seats after them for bots.

    Full tables first: of the runs of ``seats`` players next to each other by rating that
    fit their window, the one with the longest waiting player (then the closest) is
    seated, until none fits.  Then each player whose wait is over, longest waiting first,
    is seated with the others nearest his rating as long as the table fits its window.
    A full table of four sits its lowest and highest rated players as partners (seats 0
    and 2 against 1 and 3)."""
    left = sorted(entries, key=lambda e: (e.rating, e.since, e.player_id))
    tables: list[list[Entry]] = []
    while len(left) >= seats:
        best: tuple[tuple[float, int], int] | None = None
        for i in range(len(left) - seats + 1):
            run = left[i:i + seats]
            if fits(run, now) and apart(run):
                key = (min(e.since for e in run), run[-1].rating - run[0].rating)
                if best is None or key < best[0]:
                    best = (key, i)
        if best is None:
            break
        i = best[1]
        tables.append(_seated(left[i:i + seats]))
        del left[i:i + seats]
    for entry in sorted(left, key=lambda e: (e.since, e.player_id)):
        if entry not in left or entry.waited(now) < entry.wait:
            continue
        group = [entry]
        nearest = sorted((e for e in left if e is not entry),
                         key=lambda e: (abs(e.rating - entry.rating), e.since, e.player_id))
        for other in nearest:
            if len(group) == seats:
                break
            if fits([*group, other], now) and apart([*group, other]):
                group.append(other)
        tables.append(_seated(group) if len(group) == seats else group)
        left = [e for e in left if e not in group]
    return tables


def apart(group: Sequence[Entry]) -> bool:
    """Whether no two players of ``group`` joined from one address (rating farming)."""
    known = [e.address for e in group if e.address]
    return len(known) == len(set(known))


def _seated(group: list[Entry]) -> list[Entry]:
    """A full table in seat order: by rating; four players paired lowest with highest."""
    ordered = sorted(group, key=lambda e: (e.rating, e.since, e.player_id))
    if len(ordered) == 4:
        low, second, third, high = ordered
        return [low, second, high, third]
    return ordered


def nearest_bot(bots: Sequence[str], ratings: Mapping[str, int], target: float) -> str:
    """The bot whose rating is nearest ``target`` (a bot without one counts as a new
    entry); of equally near ones the first of :data:`DEFAULT_BOTS`, else the first listed.

    >>> nearest_bot(["random", "heuristic", "pimc"], {"random": 700, "pimc": 1300}, 1200)
    'pimc'
    >>> nearest_bot(["random", "heuristic"], {}, 900), nearest_bot(["beginner", "club"], {}, 900)
    ('heuristic', 'club')
    """
    new = shown(MU, SIGMA)
    default = {b: i for i, b in enumerate(DEFAULT_BOTS)}
    return min(bots, key=lambda b: (abs(ratings.get(b, new) - target),
                                    default.get(b, len(default)), bots.index(b)))


def level_ratings(levels: Sequence[str], variant: str,
                  stored: Mapping[str, int]) -> dict[str, int]:
    """The rating of each level in ``variant``: its stored one, else a new entry's plus the
    level's measured Elo over the beginner there (:func:`~bela.bots.levels.level_elo`;
    nothing added where the variant was not measured).

    >>> level_ratings(["beginner", "club", "expert"], "bela4", {"expert": 1500})
    {'beginner': 1000, 'club': 1083, 'expert': 1500}
    """
    new, elo = shown(MU, SIGMA), level_elo(variant)
    return {b: stored.get(b, new + elo.get(b, 0)) for b in levels}


# -- the queues' storage ---------------------------------------------------------------------
class QueueStore(Protocol):
    """Where the queues and the matched answers are kept."""

    async def join(self, entry: Entry) -> None:
        """Queue ``entry``, replacing the player's entry and answer."""

    async def leave(self, player_id: str) -> None:
        """Forget the player's entry and answer."""

    async def find(self, player_id: str) -> tuple[Entry | None, int, Answer | None]:
        """The player's entry (taken out to be seated too), the number of players in its
        queue (him counted), his matched answer."""

    async def queues(self) -> dict[str, list[Entry]]:
        """Every variant's queue."""

    async def queue(self, variant: str) -> list[Entry]:
        """A variant's queue."""

    async def lock(self, variant: str) -> bool:
        """Whether this process may match ``variant`` now (then :meth:`unlock` it)."""

    async def unlock(self, variant: str) -> None:
        """Let the other processes match ``variant``."""

    async def take(self, group: Sequence[Entry]) -> bool:
        """Take ``group`` out of its queue to seat it, all of it or none: only if each
        entry is queued as read (the same ``since`` and ``wait``).  A taken player still
        finds himself waiting until :meth:`matched` or :meth:`put_back`."""

    async def put_back(self, group: Sequence[Entry]) -> None:
        """Queue the taken ``group`` again (its table could not be made): not a player who
        joined or left since."""

    async def matched(self, players: Sequence[Entry], answer: Answer) -> None:
        """Take the players out of every queue and give them ``answer``."""

    async def touch(self, entry: Entry, now: float) -> None:
        """Note that the player of ``entry`` asked for his status (if still queued with
        that entry: never one he joined with since)."""

    async def drop(self, entries: Sequence[Entry]) -> None:
        """Take these entries out of their queue (each if still queued as read)."""


class MemoryQueue:
    """The queues of a server of one process."""

    def __init__(self) -> None:
        self._queues: dict[str, dict[str, Entry]] = {v: {} for v in VARIANTS}
        self._taken: dict[str, Entry] = {}  # player -> his entry, while his table is made
        self._answers: dict[str, tuple[float, Answer]] = {}  # player -> (expiry, answer)

    def _forget(self, player_id: str) -> None:
        for q in self._queues.values():
            q.pop(player_id, None)
        self._taken.pop(player_id, None)
        self._answers.pop(player_id, None)

    async def join(self, entry: Entry) -> None:
        self._forget(entry.player_id)
        self._queues[entry.variant][entry.player_id] = entry

    async def leave(self, player_id: str) -> None:
        self._forget(player_id)

    async def find(self, player_id: str) -> tuple[Entry | None, int, Answer | None]:
        found = self._answers.get(player_id)
        if found is not None and found[0] <= time.monotonic():
            del self._answers[player_id]
            found = None
        for q in self._queues.values():
            if player_id in q:
                return q[player_id], len(q), None
        taken = self._taken.get(player_id)
        if taken is not None:
            return taken, len(self._queues[taken.variant]) + 1, None
        return None, 0, None if found is None else found[1]

    async def queues(self) -> dict[str, list[Entry]]:
        return {v: list(q.values()) for v, q in self._queues.items()}

    async def queue(self, variant: str) -> list[Entry]:
        return list(self._queues[variant].values())

    async def lock(self, variant: str) -> bool:
        return True

    async def unlock(self, variant: str) -> None:
        return None

    async def touch(self, entry: Entry, now: float) -> None:
        queue = self._queues[entry.variant]
        stored = queue.get(entry.player_id)
        if stored is not None and stored.since == entry.since:
            queue[entry.player_id] = replace(stored, seen=now)

    async def drop(self, entries: Sequence[Entry]) -> None:
        for e in entries:
            stored = self._queues[e.variant].get(e.player_id)
            if stored is not None and stored.since == e.since:
                del self._queues[e.variant][e.player_id]

    async def take(self, group: Sequence[Entry]) -> bool:
        if not all(_same(self._queues[e.variant].get(e.player_id), e) for e in group):
            return False
        for e in group:
            self._taken[e.player_id] = self._queues[e.variant].pop(e.player_id)
        return True

    async def put_back(self, group: Sequence[Entry]) -> None:
        for e in group:
            taken = self._taken.get(e.player_id)
            if taken is not None and taken.since == e.since:
                del self._taken[e.player_id]
                self._queues[taken.variant][e.player_id] = taken

    async def matched(self, players: Sequence[Entry], answer: Answer) -> None:
        now = time.monotonic()
        for pid in [p for p, (expiry, _) in self._answers.items() if expiry <= now]:
            del self._answers[pid]
        for p in players:
            self._forget(p.player_id)
            self._answers[p.player_id] = (now + ANSWER_TTL, answer)


def _same(stored: Entry | None, read: Entry) -> bool:
    """Whether a stored entry is still the one read (``seen`` aside: asking rewrites it)."""
    return stored is not None and (stored.since, stored.wait) == (read.since, read.wait)


# The scripts below compare stored entries (JSON) on their fields, not on their text: asking
# for his status rewrites an entry's `seen`.  They write the texts Python made, never one
# cjson encodes (it keeps 14 digits of a number: `since` would change).

# KEYS[1]: a queue; ARGV: a player, his entry's since, his new entry.  Replace the entry
# only if it is still the one with that since (not one he joined with again since).
TOUCH = """
local text = redis.call('HGET', KEYS[1], ARGV[1])
if text and cjson.decode(text).since == tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""

# KEYS[i]: the queue of the i-th entry; ARGV: each entry's player and since.  Drop each
# entry still queued with that since: the number dropped.
DROP = """
local dropped = 0
for i = 1, #KEYS do
  local text = redis.call('HGET', KEYS[i], ARGV[2 * i - 1])
  if text and cjson.decode(text).since == tonumber(ARGV[2 * i]) then
    redis.call('HDEL', KEYS[i], ARGV[2 * i - 1])
    dropped = dropped + 1
  end
end
return dropped
"""

# KEYS[1]: a queue; KEYS[1 + i]: the taken key of the group's i-th player; ARGV[1]: the
# taken keys' life (ms), then each player, since and wait.  Only if every player is queued
# with that since and wait: move each entry to his taken key, return 1; else 0, untouched.
TAKE = """
local texts = {}
for i = 1, #KEYS - 1 do
  local text = redis.call('HGET', KEYS[1], ARGV[3 * i - 1])
  if not text then return 0 end
  local e = cjson.decode(text)
  if e.since ~= tonumber(ARGV[3 * i]) or e.wait ~= tonumber(ARGV[3 * i + 1]) then
    return 0
  end
  texts[i] = text
end
for i = 1, #KEYS - 1 do
  redis.call('HDEL', KEYS[1], ARGV[3 * i - 1])
  redis.call('SET', KEYS[1 + i], texts[i], 'PX', ARGV[1])
end
return 1
"""

# KEYS[1]: a queue; KEYS[1 + i]: the taken key of the i-th player; ARGV: each player and
# since.  Queue again each entry still taken with that since (joining or leaving deletes
# it): the number put back.
PUT_BACK = """
local back = 0
for i = 1, #KEYS - 1 do
  local text = redis.call('GET', KEYS[1 + i])
  if text and cjson.decode(text).since == tonumber(ARGV[2 * i]) then
    redis.call('DEL', KEYS[1 + i])
    redis.call('HSET', KEYS[1], ARGV[2 * i - 1], text)
    back = back + 1
  end
end
return back
"""


def queue_key(variant: str) -> str:
    return f"bela:quick:queue:{variant}"


def answer_key(player_id: str) -> str:
    return f"bela:quick:matched:{player_id}"


def lock_key(variant: str) -> str:
    return f"bela:quick:lock:{variant}"


def taken_key(player_id: str) -> str:
    return f"bela:quick:taken:{player_id}"


class RedisQueue:
    """The queues of several instances, in Redis: each variant's entries in a hash by
    player (``bela:quick:queue:<variant>``), each entry taken out to be seated in a key
    that expires (``bela:quick:taken:<player>``, :data:`TAKEN_TTL`: an instance that stops
    meanwhile leaves its players idle), each matched answer in one
    (``bela:quick:matched:<player>``), and a lock per variant
    (``bela:quick:lock:<variant>``, ``SET NX PX``) held by the instance matching it.
    Redis unreachable: :class:`~bela.server.errors.Unavailable` (no retries)."""

    def __init__(self, redis: Redis, instance: str) -> None:
        self.redis = redis
        self.token = f"{instance}:{secrets.token_hex(6)}"  # this process's locks
        self._release = redis.register_script(RELEASE)
        self._touch = redis.register_script(TOUCH)
        self._drop = redis.register_script(DROP)
        self._take = redis.register_script(TAKE)
        self._put_back = redis.register_script(PUT_BACK)

    @contextlib.asynccontextmanager
    async def _link(self) -> AsyncIterator[None]:
        try:
            yield
        except (RedisError, OSError) as exc:
            raise Unavailable("cluster", f"quick play cannot reach its queue "
                              f"({type(exc).__name__}): try again in a few seconds") from None

    async def _replace(self, player_id: str, entry: Entry | None,
                       answer: Answer | None) -> None:
        """The player out of every queue, then in ``entry``'s, with ``answer``: at once."""
        async with self._link(), self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(answer_key(player_id), taken_key(player_id))
            for v in VARIANTS:
                pipe.hdel(queue_key(v), player_id)
            if entry is not None:
                pipe.hset(queue_key(entry.variant), player_id, json.dumps(asdict(entry)))
            if answer is not None:
                pipe.set(answer_key(player_id), json.dumps(answer),
                         px=int(ANSWER_TTL * 1000))
            await pipe.execute()

    async def join(self, entry: Entry) -> None:
        await self._replace(entry.player_id, entry, None)

    async def leave(self, player_id: str) -> None:
        await self._replace(player_id, None, None)

    async def find(self, player_id: str) -> tuple[Entry | None, int, Answer | None]:
        async with self._link(), self.redis.pipeline(transaction=False) as pipe:
            pipe.get(answer_key(player_id))
            pipe.get(taken_key(player_id))
            for v in VARIANTS:
                pipe.hget(queue_key(v), player_id)
                pipe.hlen(queue_key(v))
            answer, taken, *rest = await pipe.execute()
        counts = dict(zip(VARIANTS, rest[1::2]))
        for text, count in zip(rest[::2], rest[1::2]):
            entry = _entry(text)
            if entry is not None:
                return entry, count, None
        entry = _entry(taken)
        if entry is not None:
            return entry, counts[entry.variant] + 1, None
        return None, 0, None if answer is None else json.loads(answer)

    async def queues(self) -> dict[str, list[Entry]]:
        async with self._link(), self.redis.pipeline(transaction=False) as pipe:
            for v in VARIANTS:
                pipe.hvals(queue_key(v))
            found = await pipe.execute()
        return {v: _entries(texts) for v, texts in zip(VARIANTS, found)}

    async def queue(self, variant: str) -> list[Entry]:
        async with self._link(), self.redis.pipeline(transaction=False) as pipe:
            pipe.hvals(queue_key(variant))  # (a pipeline: redis-py types a plain HVALS oddly)
            (texts,) = await pipe.execute()
        return _entries(texts)

    async def lock(self, variant: str) -> bool:
        async with self._link():
            got = await self.redis.set(lock_key(variant), self.token, nx=True,
                                       px=int(LOCK_TTL * 1000))
        return bool(got)

    async def unlock(self, variant: str) -> None:
        async with self._link():
            await self._release(keys=[lock_key(variant)], args=[self.token])

    async def touch(self, entry: Entry, now: float) -> None:
        text = json.dumps(asdict(replace(entry, seen=now)))
        async with self._link():  # only while queued: never back into a queue it left
            await self._touch(keys=[queue_key(entry.variant)],
                              args=[entry.player_id, repr(entry.since), text])

    async def drop(self, entries: Sequence[Entry]) -> None:
        if not entries:
            return
        async with self._link():
            await self._drop(keys=[queue_key(e.variant) for e in entries],
                             args=[a for e in entries for a in (e.player_id, repr(e.since))])

    async def take(self, group: Sequence[Entry]) -> bool:
        if not group:
            return True
        args: list[str | int] = [int(TAKEN_TTL * 1000)]
        for e in group:
            args += [e.player_id, repr(e.since), e.wait]
        async with self._link():
            took = await self._take(keys=[queue_key(group[0].variant),
                                          *(taken_key(e.player_id) for e in group)], args=args)
        return bool(took)

    async def put_back(self, group: Sequence[Entry]) -> None:
        if not group:
            return
        async with self._link():
            await self._put_back(keys=[queue_key(group[0].variant),
                                       *(taken_key(e.player_id) for e in group)],
                                 args=[a for e in group for a in (e.player_id, repr(e.since))])

    async def matched(self, players: Sequence[Entry], answer: Answer) -> None:
        async with self._link(), self.redis.pipeline(transaction=True) as pipe:
            for p in players:
                pipe.delete(taken_key(p.player_id))
                for v in VARIANTS:
                    pipe.hdel(queue_key(v), p.player_id)
                pipe.set(answer_key(p.player_id), json.dumps(answer),
                         px=int(ANSWER_TTL * 1000))
            await pipe.execute()


def _entry(text: str | None) -> Entry | None:
    return None if text is None else Entry(**json.loads(text))


def _entries(texts: Sequence[str]) -> list[Entry]:
    return [Entry(**json.loads(t)) for t in texts]


# -- the service -----------------------------------------------------------------------------
class QuickPlay:
    """The quick-play queues of a server (see the module): ``router`` makes the tables
    (:class:`~bela.server.router.Router`), ``config`` is the server's
    :class:`~bela.server.model.ServerConfig`."""

    def __init__(self, router: Any, config: Any) -> None:
        self.router = router
        self.config = config
        cluster = router.cluster
        self.store: QueueStore = (MemoryQueue() if cluster is None
                                  else RedisQueue(cluster.redis, cluster.id))
        self._task: asyncio.Task[None] | None = None
        self._stopped: asyncio.Event | None = None  # this run's: a lost cancel ends it too
        self._failing: set[str] = set()  # what failed at its last try (logged once)

    async def start(self) -> None:
        """Begin matching (the server's start)."""
        self._stopped = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(self._stopped),
                                                            name="bela quick play")

    async def stop(self) -> None:
        """Stop matching (the server's end)."""
        if self._stopped is not None:
            self._stopped.set()
        if self._task is not None:
            await ended(self._task)
            self._task = None

    # -- players ---------------------------------------------------------------------------
    async def join(self, player: dict[str, Any], variant: str, wait: int | None) -> Answer:
        """Queue ``player`` for ``variant`` (instead of any queue or table found before):
        his status.  Refused while he is seated at a running table."""
        if variant not in VARIANTS:
            raise InvalidInput("bad_variant", f"unknown variant {variant!r} "
                               f"(known: {', '.join(VARIANTS)})")
        low, high = self.config.min_quick_wait, self.config.max_quick_wait
        wait = self.config.quick_wait if wait is None else wait
        if not low <= wait <= high:
            raise InvalidInput("bad_wait", f"wait is {low} to {high} seconds")
        if self.router.lobby.store.db.tables.running_seats(player["id"]) > 0:
            raise Conflict("already_playing", "you are seated at a running table: finish "
                           "your match first")
        stored = self.router.lobby.store.db.ratings.ratings([player["id"]], variant)
        skill = stored.get(player["id"], {"mu": MU, "sigma": SIGMA})
        await self.store.join(Entry(player["id"], player["name"], variant,
                                    shown(skill["mu"], skill["sigma"]), wait, time.time(),
                                    address=player.get("address") or ""))
        return await self.status(player["id"])

    async def status(self, player_id: str) -> Answer:
        """``idle``, ``waiting`` (in a queue) or ``matched`` (seated at a table)."""
        entry, count, answer = await self.store.find(player_id)
        if entry is not None:
            await self.store.touch(entry, time.time())
            return {"status": "waiting", "variant": entry.variant, "wait": entry.wait,
                    "waited": int(entry.waited(time.time())), "waiting": count,
                    "others": max(0, count - 1), "rating": entry.rating}
        if answer is None or self._ended(answer):
            return {"status": "idle"}
        return answer

    def _ended(self, answer: Answer) -> bool:
        """Whether the table of a matched ``answer`` has finished (or was closed): nothing
        to go back to.  A table running at another instance is not found here: not ended."""
        table = self.router.lobby.get(str(answer.get("table")))
        return table is not None and table.status in ENDED

    async def leave(self, player_id: str) -> Answer:
        await self.store.leave(player_id)
        return {"status": "idle"}

    # -- matching --------------------------------------------------------------------------
    async def _run(self, stopped: asyncio.Event) -> None:
        while not stopped.is_set():
            await asyncio.sleep(TICK)
            try:
                await self.tick()
            except Exception as exc:
                self._failed("tick", exc)
            else:
                self._recovered("tick")

    async def tick(self, now: float | None = None) -> None:
        """One round of matching: the tables each queue makes now are made (a variant
        another instance is matching is left to it)."""
        now = time.time() if now is None else now
        for variant, queued in (await self.store.queues()).items():
            gone = [e for e in queued if e.gone(now)]
            if gone:
                await self.store.drop(gone)
            entries = [e for e in queued if not e.gone(now)]
            seats = VARIANTS[variant].seats
            if not match(entries, seats, now) or not await self.store.lock(variant):
                continue
            try:
                fresh = [e for e in await self.store.queue(variant) if not e.gone(now)]
                for group in match(fresh, seats, now):
                    await self._seat(variant, group)
            finally:
                with contextlib.suppress(Refused):
                    await self.store.unlock(variant)

    async def _seat(self, variant: str, group: list[Entry]) -> None:
        """Make the table of ``group``: taken out of its queue first, as it was read (else
        left to the next round), and put back when the table cannot be made.  A player
        seated at a running table meanwhile leaves the queue instead (the group waits for
        the next round)."""
        tables = self.router.lobby.store.db.tables
        playing = [e for e in group if tables.running_seats(e.player_id) > 0]
        if playing:
            await self.store.drop(playing)
            return
        if not await self.store.take(group):
            return
        try:
            table_id = await self._make(variant, group)
        except Exception as exc:
            self._failed("table", exc)
            await self.store.put_back(group)
            return
        self._recovered("table")
        await self.store.matched(group, {"status": "matched", "table": table_id,
                                         "variant": variant})

    async def _make(self, variant: str, group: list[Entry]) -> str:
        """The table of ``group`` with the level (else the bot) nearest its rating: its
        id."""
        bots = self.router.lobby.catalog.available_bots()
        levels = [b for b in LEVELS if b in bots]
        stored = self.router.lobby.store.db.ratings.ratings([bot_entry(b) for b in bots], variant)
        ratings = {b: shown(stored[bot_entry(b)]["mu"], stored[bot_entry(b)]["sigma"])
                   for b in bots if bot_entry(b) in stored}
        if levels:
            bots, ratings = levels, level_ratings(levels, variant, ratings)
        bot = nearest_bot(bots, ratings, sum(e.rating for e in group) / len(group))
        players = [{"id": e.player_id, "name": e.name, "address": e.address or None}
                   for e in group]
        table_id: str = await self.router.create_match(variant, players, bot)
        log.info("quick play: table %s of %s for %d players and %d bots (%s)", table_id,
                 variant, len(group), VARIANTS[variant].seats - len(group), bot,
                 extra={"table": table_id})
        return table_id

    def _failed(self, what: str, exc: BaseException) -> None:
        """Count a failure; log it when it is the first of a row."""
        cluster = isinstance(exc, (RedisError, OSError)) or (
            isinstance(exc, Unavailable) and exc.code == "cluster")
        storage = isinstance(exc, (SQLAlchemyError, Unavailable))
        kind = "cluster" if cluster else "storage" if storage else "internal"
        self.router.lobby.metrics.errors.labels(kind=kind).inc()
        if what in self._failing:
            return
        self._failing.add(what)
        doing = "match players" if what == "tick" else "make a table"
        if kind == "internal":
            log.error("quick play could not %s: trying again", doing, exc_info=exc)
        else:
            log.warning("quick play could not %s (%s: %s): trying again", doing,
                        type(exc).__name__, exc)

    def _recovered(self, what: str) -> None:
        if what in self._failing:
            self._failing.discard(what)
            log.warning("quick play works again")


# -- the routes ------------------------------------------------------------------------------


class QuickIn(BaseModel):
    """``POST /api/quick``: the variant, and the seconds to wait for players before bots
    fill the empty seats (null: the server's default)."""

    model_config = ConfigDict(extra="forbid")
    variant: StrictStr = Field(default=DEFAULT_VARIANT, max_length=32)
    wait: StrictInt | None = None


router = APIRouter()


# the routes answering a quick-play status
QUICK: dict[str, Any] = {"response_model": QuickStatus}


def _quick(request: Request) -> QuickPlay:
    quick: QuickPlay = request.app.state.quick
    return quick


@router.post("/api/quick", **QUICK)
async def join_quick(body: QuickIn, p: Player, request: Request) -> Answer:
    """Join a variant's queue (again: instead of the queue or table before)."""
    return await _quick(request).join(p, body.variant, body.wait)


@router.get("/api/quick", **QUICK)
async def quick_status(p: Player, request: Request) -> Answer:
    """The player's quick play: ``idle``, ``waiting`` or ``matched`` (for two minutes)."""
    return await _quick(request).status(p["id"])


@router.delete("/api/quick", **QUICK)
async def leave_quick(p: Player, request: Request) -> Answer:
    """Leave the queue."""
    return await _quick(request).leave(p["id"])

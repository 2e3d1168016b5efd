"""Who is online, where, and the table invitations between friends: this process's book.

A player is online while one of his WebSockets is open at this server process, or for
:data:`SEEN_TTL` seconds after his page last asked for the presence or his friends (the
lobby asks every few seconds); where he is: the table of his newest connection.
Invitations wait here for their player for :data:`INVITE_TTL` seconds, at most
:data:`MAX_INVITES` each, the newest kept.  With several instances the same book is kept
in Redis for all of them (:class:`bela.server.cluster.SharedPresence`); the questions are
``async`` so that both answer them alike.

>>> import asyncio
>>> from concurrent.futures import ThreadPoolExecutor
>>> def answer(question):  # a coroutine, answered on an event loop of its own
...     with ThreadPoolExecutor(1) as pool:
...         return pool.submit(asyncio.run, question).result()
>>> p = Presence()
>>> p.enter("ana", "t1"); p.enter("ana", "t2"); p.leave("ana", "t2")
>>> answer(p.online()), answer(p.find(["ana", "bruno"]))
(1, {'ana': (True, 't1'), 'bruno': (False, None)})
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

SEEN_TTL = 60.0
INVITE_TTL = 600.0
MAX_INVITES = 10


def invitation(sender: dict[str, Any], table_id: str, at: float) -> dict[str, Any]:
    """An invitation to ``table_id`` from ``sender`` (``id``, ``name``) made at ``at``."""
    return {"from_id": sender["id"], "from_name": sender["name"], "table": table_id,
            "at": at}


class Presence:
    """The players connected to this process, and the invitations waiting for players."""

    def __init__(self) -> None:
        self._tables: dict[str, Counter[str]] = {}  # player -> table -> connections
        self._latest: dict[str, str] = {}
        self._invites: dict[str, list[dict[str, Any]]] = {}
        self._seen: dict[str, float] = {}  # player -> time.monotonic() of his last ask

    def enter(self, player_id: str, table_id: str) -> None:
        """A connection of the player opened at ``table_id``."""
        self._tables.setdefault(player_id, Counter())[table_id] += 1
        self._latest[player_id] = table_id

    def leave(self, player_id: str, table_id: str) -> None:
        """A connection of the player at ``table_id`` closed."""
        tables = self._tables.get(player_id)
        if tables is None:
            return
        tables[table_id] -= 1
        if tables[table_id] <= 0:
            del tables[table_id]
        if not tables:
            del self._tables[player_id]
            self._latest.pop(player_id, None)
        elif self._latest.get(player_id) not in tables:
            self._latest[player_id] = next(iter(tables))

    def here(self) -> dict[str, str]:
        """The players connected to this process: the table of each one's newest
        connection."""
        return dict(self._latest)

    async def seen(self, player_id: str) -> None:
        """The player's page asked: he is online for :data:`SEEN_TTL` seconds."""
        self._seen[player_id] = time.monotonic()

    def _recent(self) -> set[str]:
        now = time.monotonic()
        gone = [p for p, at in self._seen.items() if now - at >= SEEN_TTL]
        for p in gone:
            del self._seen[p]
        return set(self._seen)

    async def online(self) -> int:
        """How many players are online."""
        return len(self._recent() | set(self._tables))

    async def find(self, player_ids: Sequence[str]) -> dict[str, tuple[bool, str | None]]:
        """Each player's (online, table of his newest connection or None)."""
        recent = self._recent()
        return {p: (p in self._tables or p in recent, self._latest.get(p))
                for p in player_ids}

    async def invite(self, player_id: str, sender: dict[str, Any], table_id: str) -> None:
        """Invite ``player_id`` to ``table_id`` from ``sender`` (``id``, ``name``)."""
        waiting = [i for i in await self.invites(player_id)
                   if not (i["from_id"] == sender["id"] and i["table"] == table_id)]
        waiting.append(invitation(sender, table_id, time.time()))
        self._invites[player_id] = waiting[-MAX_INVITES:]

    async def invites(self, player_id: str) -> list[dict[str, Any]]:
        """The invitations waiting for ``player_id``, oldest first."""
        now = time.time()
        kept = [i for i in self._invites.get(player_id, ()) if now - i["at"] < INVITE_TTL]
        if kept:
            self._invites[player_id] = kept
        else:
            self._invites.pop(player_id, None)
        return list(kept)

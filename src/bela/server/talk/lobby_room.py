"""The lobby's room: free text for everyone in the lobby, with the table talk's rules (no
deal runs there): accounts write, guests and watchers read; lines are cleaned and
filtered, reported lines stored, a line never sent to those who block its writer.  With
several instances each line is told to the others (``publish``) and they tell their own
connections (:meth:`LobbyRoom.heard`)."""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ...storage.repos import Blocks
from ..hub import Conn, dumps
from ..protocol import error
from .room import CONTEXT, KEEP, deliver
from .text import TalkRules, clean

Reply = dict[str, Any] | None
BACKLOG = 20  # lines a new connection is sent


class LobbyRoom:
    """The lobby's connections and its last lines (this instance's copy)."""

    def __init__(self, rules: TalkRules, store_report: Callable[[dict[str, Any]], object],
                 blocks: Blocks,
                 publish: Callable[[dict[str, Any]], Awaitable[None]] | None = None) -> None:
        self.rules = rules
        self.store_report = store_report
        self.blocks = blocks
        self.publish = publish
        self.conns: set[Conn] = set()
        self.lines: deque[dict[str, Any]] = deque(maxlen=KEEP)
        self._sending = asyncio.Lock()  # lines go out in the order they were heard
        self._tasks: set[asyncio.Task[None]] = set()

    async def join(self, conn: Conn) -> None:
        """A new connection: sent the last lines (but those of players it blocks)."""
        refused = (await asyncio.to_thread(self.blocks.blocked_ids, conn.player_id)
                   if conn.player_id is not None else set())
        self.conns.add(conn)
        for line in list(self.lines)[-BACKLOG:]:
            if line["player_id"] not in refused:
                conn.send(dumps(line))

    def leave(self, conn: Conn) -> None:
        self.conns.discard(conn)

    def heard(self, line: dict[str, Any]) -> None:
        """A line said here or at another instance: kept, and sent to every connection but
        those of players who block its writer."""
        self.lines.append(line)

        async def send() -> None:
            async with self._sending:
                await deliver(line, list(self.conns), self.blocks.blockers)

        task = asyncio.get_running_loop().create_task(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def say(self, phrase: str) -> Reply:
        return error("no_phrases_here", "the lobby takes lines of text, not phrases")

    async def chat(self, conn: Conn, name: str, text: str) -> Reply:
        cleaned = clean(text, self.rules)
        if cleaned is None:
            return error("empty_text", "there is nothing to send")
        # ids are random: the instances need not agree on a counter
        line = {"type": "chat", "id": secrets.randbits(48), "seat": None,
                "player_id": conn.player_id, "name": name, "text": cleaned}
        self.heard(line)
        if self.publish is not None:
            await self.publish(line)
        return None

    async def report(self, conn: Conn, line_id: int) -> Reply:
        lines = list(self.lines)
        at = next((i for i, line in enumerate(lines) if line["id"] == line_id), None)
        if at is None:
            return error("unknown_line", "that line is no longer kept here")
        line = lines[at]
        if line["player_id"] == conn.player_id:
            return error("own_line", "you cannot report your own line")
        await asyncio.to_thread(self.store_report, {
            "table_id": "lobby", "reporter_id": conn.player_id,
            "reported_id": line["player_id"], "text": line["text"],
            "context": [{k: c[k] for k in ("player_id", "name", "text")}
                        for c in lines[max(0, at - CONTEXT):at + 1]]})
        return {"type": "reported", "id": line_id}


class LobbySession:
    """One connection's talk in the lobby (:class:`~bela.server.talk.TalkSession`)."""

    def __init__(self, room: LobbyRoom, conn: Conn) -> None:
        self.room, self.conn = room, conn

    async def say(self, phrase: str) -> Reply:
        return await self.room.say(phrase)

    async def chat(self, name: str, text: str) -> Reply:
        return await self.room.chat(self.conn, name, text)

    async def report(self, line_id: int) -> Reply:
        return await self.room.report(self.conn, line_id)

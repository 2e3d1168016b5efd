"""The lobby's room: free text for everyone in the lobby, with the table talk's rules (no
deal runs there): accounts write, guests and watchers read; lines are cleaned and
filtered, reported lines stored.  With several instances each line is told to the others
(``publish``) and they tell their own connections (:meth:`LobbyRoom.heard`)."""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ..hub import Conn, dumps
from ..protocol import error
from .room import CONTEXT, KEEP
from .text import TalkRules, clean

Reply = dict[str, Any] | None
BACKLOG = 20  # lines a new connection is sent


class LobbyRoom:
    """The lobby's connections and its last lines (this instance's copy)."""

    def __init__(self, rules: TalkRules, store_report: Callable[[dict[str, Any]], object],
                 publish: Callable[[dict[str, Any]], Awaitable[None]] | None = None) -> None:
        self.rules = rules
        self.store_report = store_report
        self.publish = publish
        self.conns: set[Conn] = set()
        self.lines: deque[dict[str, Any]] = deque(maxlen=KEEP)

    def join(self, conn: Conn) -> None:
        """A new connection: sent the last lines."""
        self.conns.add(conn)
        for line in list(self.lines)[-BACKLOG:]:
            conn.send(line)

    def leave(self, conn: Conn) -> None:
        self.conns.discard(conn)

    def heard(self, line: dict[str, Any]) -> None:
        """A line said here or at another instance: kept, and sent to every connection."""
        self.lines.append(line)
        text = dumps(line)
        for conn in list(self.conns):
            conn.send(text)

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

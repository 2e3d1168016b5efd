"""A connection's talk as its own instance takes it: who may say what, counted against the
rate limits, before it travels to the instance that runs the table.

Guests (players without an account) say phrases only: free text and reports need an account,
so that names made by the dozen cannot flood a table (docs/SECURITY.md, Talk).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import TooMany
from ..protocol import ChatMessage, ReportMessage, SayMessage, error
from ..ratelimit import RateLimits

Reply = dict[str, Any] | None


class TalkSession(Protocol):
    """The link to the table that carries a connection's talk (local or relayed)."""

    async def say(self, phrase: str) -> Reply: ...
    async def chat(self, name: str, text: str) -> Reply: ...
    async def report(self, line_id: int) -> Reply: ...


class Speaker:
    """One connection's talk: ``player`` (``id``, ``name``, ``account``; ``None``: a watcher
    without a token) from ``address``."""

    def __init__(self, player: dict[str, Any] | None, address: str,
                 limits: RateLimits) -> None:
        self.player = player
        self.address = address
        self.limits = limits

    async def handle(self, msg: SayMessage | ChatMessage | ReportMessage,
                     session: TalkSession) -> Reply:
        """Check and count ``msg``, then hand it to the table: the reply to send."""
        if self.player is None:
            return error("no_player", "connect with a player token to talk")
        if not isinstance(msg, SayMessage) and not self.player.get("account"):
            return error("guest_phrases_only", "guests say the phrases only: make an "
                         "account to write or report")
        try:
            await self.limits.hit("talk", self.player["id"])
            await self.limits.hit("talk_address", self.address)
        except TooMany as exc:
            return error(exc.code, exc.message)
        if isinstance(msg, SayMessage):
            return await session.say(msg.phrase)
        if isinstance(msg, ChatMessage):
            return await session.chat(str(self.player["name"]), msg.text)
        return await session.report(msg.id)

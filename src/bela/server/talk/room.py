"""What is said at the tables this process runs: phrases, free text and its reports.

Every message said at a table goes to all of its connections as one identical text (seats,
spectators, connections relayed from other instances alike), at once, on the path the
table's other messages take: nothing about it depends on the cards.  The one exception is
the receiver's own choice: a line of free text (said only between deals) is not sent to
the connections of accounts that block its writer (:func:`deliver`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Collection
from typing import Any

from ..hub import Conn, dumps
from ..model import Table, TableStatus
from ..protocol import error
from .phrases import PHRASES
from .text import TalkRules, clean

Reply = dict[str, Any] | None
KEEP = 50  # lines of free text kept a table, for reports
CONTEXT = 10  # lines before a reported one stored with it
TABLES = 2000  # tables whose lines are kept (the least recently talked-at are dropped)


Blockers = Callable[[str, Collection[str]], set[str]]  # who of those block a writer


async def deliver(line: dict[str, Any], conns: list[Conn], blockers: Blockers) -> None:
    """Send a line of free text to ``conns``, except those of players who block its
    writer (``blockers``, asked in a worker thread)."""
    ids = {c.player_id for c in conns if c.player_id is not None}
    ids.discard(line["player_id"])
    refused = await asyncio.to_thread(blockers, line["player_id"], ids) if ids else set()
    text = dumps(line)
    for conn in conns:
        if conn.player_id not in refused:
            conn.send(text)


def deal_running(table: Table) -> bool:
    """Whether a deal is being played at ``table``: from the deal to its last card (the
    pause after a round, an open table and a finished match are not).  Only phrases are
    said then."""
    m = table.match
    return (table.status == TableStatus.RUNNING and m is not None and m.round is not None
            and not m.round.is_over)


class TableTalk:
    """Phrases and free text at the tables run here; ``store_report`` writes a report and
    ``blockers`` says who blocks a writer (both called in a worker thread)."""

    def __init__(self, conns: Callable[[Table], list[Conn]], rules: TalkRules,
                 store_report: Callable[[dict[str, Any]], object],
                 blockers: Blockers) -> None:
        self.conns = conns
        self.rules = rules
        self.store_report = store_report
        self.blockers = blockers
        self._lines: OrderedDict[str, deque[dict[str, Any]]] = OrderedDict()
        self._ids = itertools.count(1)

    def _tell(self, table: Table, msg: dict[str, Any]) -> None:
        text = dumps(msg)
        for conn in self.conns(table):
            conn.send(text)

    def say(self, table: Table, seat: int | None, phrase: str) -> Reply:
        """A seat's phrase to everyone at the table, in any state of the deal."""
        if phrase not in PHRASES:
            return error("bad_phrase", f"no phrase {phrase!r}; the phrases: "
                         + ", ".join(PHRASES))
        if seat is None:
            return error("spectator", "only a seated player says a phrase")
        self._tell(table, {"type": "said", "seat": seat, "phrase": phrase})
        return None

    async def chat(self, table: Table, conn: Conn, name: str, text: str) -> Reply:
        """A line of free text, only while no deal runs at the table."""
        if conn.player_id is None:
            return error("no_player", "connect with a player token to talk")
        if deal_running(table):
            return error("deal_running", "while a deal is played only the phrases can be "
                         "said; write between the deals")
        cleaned = clean(text, self.rules)
        if cleaned is None:
            return error("empty_text", "there is nothing to send")
        line = {"type": "chat", "id": next(self._ids), "seat": conn.seat,
                "player_id": conn.player_id, "name": name, "text": cleaned}
        lines = self._lines.pop(table.id, None) or deque(maxlen=KEEP)
        lines.append(line)
        self._lines[table.id] = lines
        while len(self._lines) > TABLES:
            self._lines.popitem(last=False)
        await deliver(line, self.conns(table), self.blockers)
        return None

    async def report(self, table: Table, conn: Conn, line_id: int) -> Reply:
        """Store line ``line_id`` with the lines before it for the operator."""
        if conn.player_id is None:
            return error("no_player", "connect with a player token to report")
        lines = list(self._lines.get(table.id, ()))
        at = next((i for i, line in enumerate(lines) if line["id"] == line_id), None)
        if at is None:
            return error("unknown_line", "that line is no longer kept here")
        line = lines[at]
        if line["player_id"] == conn.player_id:
            return error("own_line", "you cannot report your own line")
        await asyncio.to_thread(self.store_report, {
            "table_id": table.id, "reporter_id": conn.player_id,
            "reported_id": line["player_id"], "text": line["text"],
            "context": [{k: c[k] for k in ("player_id", "name", "text")}
                        for c in lines[max(0, at - CONTEXT):at + 1]]})
        return {"type": "reported", "id": line_id}

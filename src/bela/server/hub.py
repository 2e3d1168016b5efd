"""The connection hub: who is connected to which table, and the messages they are sent.

Each connection receives the view of its own seat (spectators: the public view), built by
:func:`bela.engine.views.seat_view` and nothing else, and the events of the action that made
the state as :func:`bela.engine.events.seen_by` gives them to that seat.  The hub only keeps
and tells; it never changes a table.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable
from typing import Any

import orjson

from ..engine.actions import CALLS
from ..engine.events import Event, seen_by
from ..engine.variants import get_variant
from ..engine.variants.base import Variant
from ..engine.views import seat_views
from .model import Table
from .protocol import event_json, own_view_json, public_token, view_json

log = logging.getLogger("bela.server")

MAX_QUEUE = 2000  # outgoing messages waiting for one slow connection before it is dropped
RECONNECT = 1012  # WebSocket close code "service restart": the client connects again
SUMMARY_EVERY = 1.0  # seconds: a table's summary for connections that come or go, at most


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # one, not one a call
_ORJSON = orjson.OPT_NON_STR_KEYS  # keys as json writes them (a seat's number as "0")


def dumps(msg: Any) -> str:
    """A message's (or a member's) compact JSON text, as ``json`` writes it with compact
    separators and UTF-8 left as it is, written by orjson (a state message in a tenth of
    the time: docs/CAPACITY.md); first without its option for keys that are not strings
    (which costs a third of a state message's time, and no state message needs), then
    with it; what orjson refuses even so (an integer past 64 bits) by ``json``.

    >>> dumps({"seat": 0, 1: [True, None]})
    '{"seat":0,"1":[true,null]}'
    >>> dumps({"type": "state", "seq": 3, "hand": ["10H", "AŽ"], 0: None, "big": 2 ** 70})
    '{"type":"state","seq":3,"hand":["10H","AŽ"],"0":null,"big":1180591620717411303424}'
    """
    try:
        return orjson.dumps(msg).decode()
    except orjson.JSONEncodeError:
        pass  # a key that is not a string (an integer, a seat's number), or a big integer
    try:
        return orjson.dumps(msg, option=_ORJSON).decode()
    except orjson.JSONEncodeError:
        return _ENCODER.encode(msg)


def loads(text: str | bytes) -> Any:
    """A JSON text this server (or another instance of its site) wrote, read back."""
    return orjson.loads(text)



def variant_facts(v: Variant) -> dict[str, Any]:
    """What a client needs to know of a variant, from the engine (docs/PROTOCOL.md,
    ``GET /api/variants``): clients never tell variants apart by their names."""
    return _facts(v.name)


@functools.cache
def _facts(name: str) -> dict[str, Any]:
    v = get_variant(name)
    seats = range(v.seats)
    side_of = [v.side_of(s) for s in seats]
    faced = "turned" in v.public_keys
    contracts = [*range(4), *v.extra_contracts]
    cases = [v.exchange_possible(c, turned, raspas) for c in contracts
             for turned in ([*range(32)] if faced else [None])
             for raspas in ((False, True) if v.raspas else (False,))]
    return {
        "seats": v.seats, "sides": v.sides, "side_of": side_of,
        "partners": [next((o for o in seats if o != s and side_of[o] == side_of[s]), None)
                     for s in seats],
        "face_up": v.face_up_name if faced else None,
        "exchange": {"actions": list(v.exchange_actions),
                     "asked": "every_round" if all(cases) else "when_possible"}
        if any(cases) else None,
        "mus": v.mus, "raspas": v.raspas, "discards": v.discards,
        "extra_contracts": [CALLS[c].token() for c in v.extra_contracts],
    }

class Conn:
    """One WebSocket connection: who it is and its queue of outgoing messages;
    ``close_socket(code)`` closes the socket when the server ends the connection with a
    close code.

    ``eager``: a message is sent at once when nothing waits before it (the socket's send
    completes without waiting, as long as the client reads): no task switch a message.  A
    send that has to wait (the client's buffer is full) is finished by :meth:`run_sender`,
    the messages after it queued behind it, in order.  Without ``eager`` every message
    goes through the queue (tests read it)."""

    def __init__(self, send_text: Callable[[str], Any], player_id: str | None,
                 seat: int | None,
                 close_socket: Callable[[int], Awaitable[None]] | None = None,
                 eager: bool = False) -> None:
        self.send_text = send_text
        self.close_socket = close_socket
        self.player_id = player_id
        self.seat = seat
        self.queue: asyncio.Queue[str | _Unfinished | None] = asyncio.Queue()
        self.closed = False
        self.close_code: int | None = None
        self.eager = eager
        self._sending = False  # run_sender holds a message it is sending

    def send(self, msg: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > MAX_QUEUE:  # a client that does not read: drop it
            self.close()
            return
        text = msg if isinstance(msg, str) else dumps(msg)
        if self.eager and not self._sending and self.queue.empty():
            self._send_now(text)
        else:
            self.queue.put_nowait(text)

    def _send_now(self, text: str) -> None:
        """Run the socket's send of ``text`` until it completes or has to wait; one that
        waits goes to :meth:`run_sender` to finish, ahead of any message after it."""
        coro = self.send_text(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except Exception as exc:  # the socket is gone: as when run_sender's send fails
            log.debug("a send to a WebSocket failed: %s", exc)
            self.close()
            return
        self.queue.put_nowait(_Unfinished(coro, waiting))

    def close(self, code: int | None = None) -> None:
        """No more messages; with a ``code`` the socket is closed with it once the queued
        messages are sent (:data:`RECONNECT`: the client should connect again)."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.queue.put_nowait(None)

    async def run_sender(self) -> None:
        """Send the queued messages in order until the connection closes."""
        while True:
            item = await self.queue.get()
            if item is None:
                if self.close_code is not None and self.close_socket is not None:
                    await self.close_socket(self.close_code)
                return
            self._sending = True
            try:
                await (item if isinstance(item, _Unfinished) else self.send_text(item))
            finally:
                self._sending = False


class _Unfinished:
    """A send begun by :meth:`Conn._send_now` that had to wait (it gave ``waiting``, the
    future it waits for): awaiting this finishes it, as ``await`` would have."""

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting

    def __await__(self) -> Generator[Any, Any, Any]:
        waiting = self.waiting
        while True:  # what ``yield from coro`` does after the coroutine's first step
            try:
                sent = yield waiting
            except BaseException as exc:
                try:
                    waiting = self.coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    waiting = self.coro.send(sent)
                except StopIteration as stop:
                    return stop.value


class Hub:
    """The connections of every table (used from the server's event loop only)."""

    def __init__(self) -> None:
        self._conns: dict[str, set[Conn]] = {}
        # the summaries of comings and goings (announce): when each table's last summary
        # went out (time.monotonic()), and the one waiting to go
        self._announced: dict[str, float] = {}
        self._waiting: dict[str, asyncio.TimerHandle] = {}
        # told of every state sent, with its events, once every connection has it (the
        # bots' phrases of bela.server.talk): None, nobody
        self.after_state: Callable[[Table, tuple[Event, ...]], None] | None = None

    # -- membership --------------------------------------------------------------------------
    def add(self, table: Table, conn: Conn) -> None:
        self._conns.setdefault(table.id, set()).add(conn)

    def remove(self, table: Table, conn: Conn) -> None:
        conns = self._conns.get(table.id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._conns[table.id]

    def conns(self, table: Table) -> list[Conn]:
        return list(self._conns.get(table.id, ()))

    def seat_connected(self, table: Table, seat: int) -> bool:
        return any(c.seat == seat and not c.closed for c in self._conns.get(table.id, ()))

    def close_all(self) -> None:
        """Close every connection, asking the clients to connect again (server shutdown)."""
        for conns in self._conns.values():
            for conn in conns:
                conn.close(RECONNECT)

    def close_player(self, player_id: str, code: int) -> int:
        """Close every connection of ``player_id`` with ``code`` (his tokens were revoked:
        4401, the client must log in again); how many there were."""
        closed = 0
        for conns in self._conns.values():
            for conn in conns:
                if conn.player_id == player_id and not conn.closed:
                    conn.close(code)
                    closed += 1
        return closed

    def send_player(self, player_id: str, msg: dict[str, Any]) -> int:
        """Send ``msg`` on every open connection of ``player_id`` (at any table: a
        tournament's next table, docs/TOURNAMENTS.md); how many there were."""
        sent = 0
        for conns in self._conns.values():
            for conn in conns:
                if conn.player_id == player_id and not conn.closed:
                    conn.send(msg)
                    sent += 1
        return sent

    def forget(self, table: Table, code: int | None = RECONNECT) -> None:
        """Close the table's connections (``code``: :data:`RECONNECT`, they connect again,
        to whichever process runs the table then) and forget them."""
        for conn in self._conns.pop(table.id, ()):
            conn.close(code)
        self._announced.pop(table.id, None)
        waiting = self._waiting.pop(table.id, None)
        if waiting is not None:
            waiting.cancel()

    # -- messages ----------------------------------------------------------------------------
    def summary(self, table: Table) -> dict[str, Any]:
        """The table summary of docs/PROTOCOL.md."""
        v = get_variant(table.variant)
        conns = [c for c in self._conns.get(table.id, ()) if not c.closed]
        return {
            "id": table.id, "variant": table.variant,
            "options": v.make_options(table.options).as_dict(), "bot": table.bot,
            "status": table.status, "owner": table.owner_id, "seq": table.seq,
            "seats": [{"seat": i, "name": s.name or None,
                       "kind": "bot" if s.is_bot else "human" if s.player_id else None,
                       "bot": table.bot_of(i) if s.is_bot else None,  # its level, per seat
                       "player_id": s.player_id,
                       "connected": any(c.seat == i for c in conns),
                       "autopilot": s.autopilot,
                       "autopilot_in": None if s.away_until is None else
                       round(max(0.0, s.away_until - time.monotonic()), 1)}
                      for i, s in enumerate(table.seats)],
            "spectators": sum(1 for c in conns if c.seat is None),
            "private": table.private,  # never its invite code: that is the creator's
            "invite": f"/?table={table.id}",
            "totals": list(table.match.totals) if table.match else None,
            "winner": table.match.winner if table.match else None,
            "bot_fallback": table.bot_failures > 0,
            "turn_clock": table.turn_clock,
            "rated": table.rated,
            "ratings": table.ratings,
            "facts": variant_facts(v),
        }

    def state_text(self, table: Table, seat: int | None, events: tuple[Event, ...] = ()) -> str:
        """The state message for ``seat`` (``None``: a spectator); ``events``: those of the
        action that made the state, secrets included (none for a deal or a resent state)."""
        return self.state_texts(table, (seat,), events)[seat]

    def state_texts(self, table: Table, seats: Iterable[int | None],
                    events: tuple[Event, ...] = ()) -> dict[int | None, str]:
        """The state message of each of ``seats`` (``None``: a spectator): the public part
        of the view (:func:`~bela.engine.views.seat_views`) is built and turned into JSON
        once for all of them, each seat's own members put in their places; each message is
        then encoded in one pass, once per seat whatever its number of connections."""
        m = table.match
        assert m is not None
        wanted = set(seats)
        views = seat_views(m, wanted | {None})
        public = view_json(views[None])
        clock = None
        if table.clock is not None:
            turn, deadline = table.clock
            clock = {"seat": turn,
                     "deadline_in": round(max(0.0, deadline - time.monotonic()), 1)}
        texts: dict[int | None, str] = {}
        # each event's JSON as it is, once: a seat that sees them all so (seen_by gives
        # back the very tuple) shares the list; an event seen_by made for a seat is another
        # object, alive with these, so its id is none of theirs
        variant = m.variant
        as_is = {id(e): event_json(e, variant) for e in events}
        everyone = [as_is[id(e)] for e in events]
        # the last action as its actor and as the others see it
        last: dict[bool, dict[str, Any] | None] = {True: None, False: None}
        actor = None
        if table.last is not None:
            actor, token = table.last
            for own in (True, False):
                shown = public_token(token, own)
                last[own] = None if shown is None else {"seat": actor, "action": shown}
        secrets = seen_by(events, None) is not events  # a spectator sees the least
        for seat in wanted:
            # the public members shared, the seat's own put in their places (the order kept)
            view = public if seat is None else public | own_view_json(
                views[seat], views[None], public)
            seen = seen_by(events, seat) if secrets else events
            texts[seat] = dumps({
                "type": "state", "seq": table.seq, "status": table.status,
                "last": last[seat == actor], "clock": clock,
                "events": everyone if seen is events else [
                    as_is.get(id(e)) or event_json(e, variant) for e in seen],
                "view": view})
        return texts

    def welcome(self, table: Table, conn: Conn) -> None:
        """A new connection's first messages: welcome, the state (once a round exists); the
        others hear of it (table)."""
        conn.send({"type": "welcome", "seat": conn.seat, "player_id": conn.player_id,
                   "table": self.summary(table)})
        self.send_state(table, conn)
        if table.thinking is not None:
            conn.send(self.thinking_message(table))
        self.announce(table, skip=conn)

    def send_state(self, table: Table, conn: Conn) -> None:
        """The current state to one connection, once a round exists."""
        if table.match is not None and table.match.round is not None:
            conn.send(self.state_text(table, conn.seat))

    def broadcast_state(self, table: Table, events: tuple[Event, ...] = ()) -> None:
        """The new state to every connection, each its own seat's view and its part of the
        ``events`` that made it."""
        conns = self.conns(table)
        if not conns:
            return
        texts = self.state_texts(table, {conn.seat for conn in conns}, events)
        for conn in conns:
            conn.send(texts[conn.seat])
        if self.after_state is not None and events:
            self.after_state(table, events)

    def thinking_message(self, table: Table) -> dict[str, Any]:
        """The public mark of a bot that thinks longer than the bot delay (docs/PROTOCOL.md,
        thinking): its seat, at the state ``seq``."""
        return {"type": "thinking", "seat": table.thinking, "seq": table.seq}

    def broadcast_thinking(self, table: Table) -> None:
        """The thinking mark to every connection."""
        text = dumps(self.thinking_message(table))
        for conn in self.conns(table):
            conn.send(text)

    def announce(self, table: Table, skip: Conn | None = None) -> None:
        """A connection came or went: the summary to the others (but ``skip``), at most
        once every :data:`SUMMARY_EVERY` seconds a table; those in between wait for the
        next, which tells them all (a crowd of spectators coming and going costs each
        connection one summary a second)."""
        if table.id in self._waiting:
            return
        wait = self._announced.get(table.id, -SUMMARY_EVERY) + SUMMARY_EVERY - time.monotonic()
        if wait <= 0:
            self.broadcast_table(table, skip)
            return
        self._waiting[table.id] = asyncio.get_running_loop().call_later(
            wait, self._announce_now, table)

    def _announce_now(self, table: Table) -> None:
        self._waiting.pop(table.id, None)
        self.broadcast_table(table)

    def broadcast_table(self, table: Table, skip: Conn | None = None) -> None:
        """The table summary to every connection (but ``skip``), at once (an announcement
        waiting is sent with it)."""
        waiting = self._waiting.pop(table.id, None)
        if waiting is not None:
            waiting.cancel()
        conns = self.conns(table)
        if not conns:
            self._announced.pop(table.id, None)
            return
        self._announced[table.id] = time.monotonic()
        text = dumps({"type": "table", "table": self.summary(table)})
        for conn in conns:
            if conn is not skip:
                conn.send(text)

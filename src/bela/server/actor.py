"""One actor per live table: the only code that changes a running table's match.

Every change of a running table (a client's action, a bot's move, the next deal, a grace
period ending, a player coming or going) is a message on the table's queue, handled by the
actor's task one at a time, in order.  An action goes through :meth:`Match.check` (which
refuses an illegal one and changes nothing), is written to the database (off the event
loop, group-committed with other tables' events: :mod:`bela.server.writer`; the actor
waits for its commit) and only then applied and broadcast; when the database refuses,
nothing is applied.

A bot thinks off the event loop on an immutable snapshot of its seat's view (a cheap bot
in a worker thread, a strong one in the server's bot worker processes,
:mod:`bela.server.botpool`), and its move comes back as a message, dropped if the table
moved on meanwhile (its ``seq`` changed, or the absent player came back).  The bot decides
with a seed made of the table seed and the event number, so its play is the same whether or
not the server restarted; a bot that fails (or whose worker process died) is replaced for
that move by :func:`bela.bots.driver.decide`'s fallback.

With ``enforce = off`` (R24) a seat a bot plays (a bot's, an absent player's) claims
auzmeš as soon as its view proves an opponent's revoke (:func:`bela.bots.claims.claim_for`),
before the next move and paced as a bot's move; at a rated table no bot revokes on purpose
(``decide``'s ``revokes``), so nobody can farm a rating on the beginner's revokes.

A write the database fences off (:class:`~bela.storage.LogConflict`: another process
appended to the table's log, believing it ran the table) stops the actor: ``on_conflict``
hands the table back to the lobby, which reloads it from the database or lets the process
that holds its lease run it.

A table with a turn clock gives the player to act ``turn_clock`` seconds: a timer posts
:class:`ClockOver` for that state, and when it arrives with the table still there, the bot
plays that one turn for him as it does for an absent player (his own action still counts
until the bot's move arrives).  A timer of a state the table left is ignored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..bots import make_bot
from ..bots.claims import claim_for
from ..bots.driver import Decision, decide
from ..engine import BelaError, IllegalAction, parse_action
from ..engine.actions import DECLINE, Action, ActionParseError, Claim
from ..engine.events import Event
from ..engine.record import score, to_record
from ..engine.views import SeatView, seat_view
from ..storage import LogConflict, RateFn
from . import botpool, ratings
from .hub import Conn, Hub
from .logs import TableLog
from .metrics import Metrics
from .model import ServerConfig, Table, TableStatus, bot_seed, round_deal
from .protocol import error
from .stopping import ended
from .store import Store

FALLBACK_BOT = "heuristic"  # moves for a strong bot that cannot answer in time (microseconds)
MARGIN = 0.2  # seconds of a strong bot's answer time kept for sending its move, at most a third


def answer_time(config: ServerConfig, view: SeatView) -> float | None:
    """The seconds after its turn began at which a strong bot's move for ``view`` is sent:
    ``max(bot_delay, the setting of the decision's kind)`` (a bid, the exchange, the
    discard, a card or anything else in play); ``None`` where that setting is 0 (tests: the
    move comes when decided, at ``bot_delay`` at the soonest)."""
    kind = {"bidding": config.bot_answer_bid, "exchange": config.bot_answer_exchange,
            "discard": config.bot_answer_discard}.get(str(view.phase), config.bot_answer_card)
    return max(config.bot_delay, kind) if kind > 0 else None


log = logging.getLogger("bela.server")

RETRY = 1.0  # seconds between tries of a step the database refused

Reply = dict[str, Any] | None  # the error message for a refused client action, else None


# -- messages ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Begin:
    """Take the table over, just started or resumed after a restart: absent players get
    their grace period; the first round is dealt at once, a round that is over is followed
    by the next deal after the round pause."""


@dataclass(frozen=True)
class Act:
    """A client's action token; ``seq``: the state it was chosen on."""

    conn: Conn
    token: str
    seq: int | None


@dataclass(frozen=True)
class BotMove:
    """The move a bot chose for ``seat`` at state ``seq``."""

    seat: int
    seq: int
    decision: Decision


@dataclass(frozen=True)
class Thinking:
    """The bot of ``seat`` has not decided ``bot_delay`` after its turn at state ``seq``
    began: every connection is told (a mark on its plate, until the move)."""

    seat: int
    seq: int


@dataclass(frozen=True)
class BotRetry:
    """Think again about the bot move at (``seat``, ``seq``) that the database refused."""

    seat: int
    seq: int


@dataclass(frozen=True)
class NextDeal:
    """Deal the next round (the round pause is over, or the database refused the deal)."""


@dataclass(frozen=True)
class Finish:
    """Store the result of the match that is over (the database refused it before)."""


@dataclass(frozen=True)
class GraceOver:
    """The grace period number ``serial`` of an absent player's seat ended."""

    seat: int
    serial: int


@dataclass(frozen=True)
class ClockOver:
    """The turn clock of ``seat`` at state ``seq`` ran out."""

    seat: int
    seq: int


@dataclass(frozen=True)
class Join:
    """A connection opened to the table."""

    conn: Conn


@dataclass(frozen=True)
class Leave:
    """A connection to the table closed."""

    conn: Conn


Message = (Begin | Act | BotMove | BotRetry | NextDeal | Finish | GraceOver | ClockOver | Join
           | Leave | Thinking)


def inactive_refusal(table: Table, conn: Conn) -> Reply:
    """The refusal of any action by ``conn`` that does not depend on the match: a
    spectator's, or one at a table that is not running."""
    if conn.seat is None:
        return error("spectator", "spectators cannot act; sit at an open table to play")
    if table.status != TableStatus.RUNNING or table.match is None:
        return error("not_running", "the match has not started"
                     if table.status == TableStatus.OPEN else "the match is over")
    return None


class TableActor:
    """The owner of one table's match from its start until it is over and nobody watches:
    its task handles the table's messages one at a time.  ``on_idle(table)`` is called
    when the table is finished and has no connection left, ``on_conflict(table)`` when the
    database fenced off a write (the actor has stopped then).  ``bots``: the pool where
    its strong bot thinks (:class:`bela.server.botpool.BotPool`, the lobby's; none: in
    threads)."""

    def __init__(self, table: Table, store: Store, hub: Hub, config: ServerConfig,
                 on_idle: Callable[[Table], None], on_conflict: Callable[[Table], None],
                 metrics: Metrics, bots: botpool.BotPool | None = None) -> None:
        self.table = table
        self.store = store
        self.hub = hub
        self.config = config
        self.on_idle = on_idle
        self.on_conflict = on_conflict
        self.metrics = metrics
        self.log = TableLog(log, table.id)
        # each message with the time.perf_counter() it was queued, and its reply's future
        self._queue: asyncio.Queue[tuple[Message, asyncio.Future[Reply] | None, float]] = (
            asyncio.Queue())
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False
        self.clock = TableClock(table, hub, config, self._loop, self.post)  # grace, turns
        self.bots = TableBots(table, hub, config, bots, metrics, self.log, self.clock,
                              self._loop, self.post)  # the bots playing the seats
        self._deal_timer: asyncio.TimerHandle | None = None
        self._retry_timer: asyncio.TimerHandle | None = None
        self._refusals = 0  # consecutive steps of the table the database refused
        self._moved_away = False  # stopped because another process wrote to the table

    # -- the mailbox ---------------------------------------------------------------------------
    def start(self) -> None:
        self._task = self._loop.create_task(self._run(), name=f"table {self.table.id}")

    def post(self, msg: Message) -> None:
        """Queue a message without waiting for it."""
        if not self._stopped:
            self._queue.put_nowait((msg, None, time.perf_counter()))

    async def ask(self, msg: Message) -> Reply:
        """Queue a message and wait until it is handled: its reply."""
        if self._stopped:
            return gone_reply(self.table, msg, self._moved_away)
        reply: asyncio.Future[Reply] = self._loop.create_future()
        self._queue.put_nowait((msg, reply, time.perf_counter()))
        return await reply

    async def stop(self) -> None:
        """Stop at once (server shutdown): timers and a thinking bot are cancelled, queued
        messages answered as at a stopped table."""
        self._halt()
        await ended(self._task)  # not when the actor stops itself (ended skips the caller)

    async def _run(self) -> None:
        while not self._stopped:
            msg, reply, queued = await self._queue.get()
            seq = self.table.seq
            try:
                answer = await self._handle(msg)
                self.clock.arm()  # after every message: the turn clock follows the table,
                self.bots.kick()  # and a bot starts thinking when one is to act
            except LogConflict:  # another process wrote to the table: it is not ours
                self.metrics.errors.labels(kind="log_conflict").inc()
                self.log.warning("table %s: another process wrote to its log; handing it "
                                 "back", self.table.id)
                if reply is not None and not reply.done():
                    reply.set_result(error("table_moving", "the table moved to another "
                                           "server process: connect again"))
                self._moved_away = True
                self._halt()
                self.on_conflict(self.table)
                return
            except Exception as exc:  # a bug: the table goes on; the asker (or the log) hears
                self.metrics.errors.labels(kind="internal").inc()
                if reply is None:
                    self.log.exception("table %s: %s could not be handled", self.table.id,
                                       type(msg).__name__)
                elif not reply.done():
                    reply.set_exception(exc)
            else:
                if reply is not None and not reply.done():
                    reply.set_result(answer)
            if self.table.seq != seq and isinstance(msg, (Act, BotMove)):  # an update went out
                self.metrics.action_update.observe(time.perf_counter() - queued)
            if (self.table.status == TableStatus.FINISHED and not self.hub.conns(self.table)
                    and self._queue.empty()):
                self._halt()
                self.on_idle(self.table)

    def _halt(self) -> None:
        self._stopped = True
        self.clock.stop()
        for timer in (self._deal_timer, self._retry_timer):
            if timer is not None:
                timer.cancel()
        self.bots.stop()
        while not self._queue.empty():
            msg, reply, _queued = self._queue.get_nowait()
            if reply is not None and not reply.done():
                reply.set_result(gone_reply(self.table, msg, self._moved_away))

    async def _handle(self, msg: Message) -> Reply:
        match msg:
            case Act(conn, token, seq):
                return await self._act(conn, token, seq)
            case BotMove(seat, seq, decision):
                await self._bot_move(seat, seq, decision)
            case Thinking(seat, seq):
                self.bots.thinking(seat, seq)
            case BotRetry(seat, seq):
                self.bots.retry(seat, seq)
            case NextDeal():
                self._deal_timer = None
                await self._deal()
            case Finish():
                self._finish()
            case GraceOver(seat, serial):
                self.clock.grace_over(seat, serial)
            case ClockOver(seat, seq):
                self.clock.clock_over(seat, seq)
            case Join(conn):
                self._join(conn)
            case Leave(conn):
                self._leave(conn)
            case Begin():
                await self._begin()
        return None

    # -- people --------------------------------------------------------------------------------
    async def _begin(self) -> None:
        m = self.table.match
        assert m is not None
        if self.table.played_out:  # killed between the last action and the finish row
            self._finish()
            return
        for i, seat in enumerate(self.table.seats):
            if not seat.is_bot and not self.hub.seat_connected(self.table, i):
                self.clock.start_grace(i)
        if m.round is None:
            await self._deal()
        elif m.round.is_over:
            self._schedule_deal()

    def _join(self, conn: Conn) -> None:
        self.hub.add(self.table, conn)
        if conn.seat is not None:
            self.clock.cancel_grace(conn.seat)
            self.table.seats[conn.seat].autopilot = False  # the player is back: no more bot
            self.clock.arm()  # at his turn, his clock starts
        self.hub.welcome(self.table, conn)

    def _leave(self, conn: Conn) -> None:
        self.hub.remove(self.table, conn)
        seat = conn.seat
        if (seat is not None and self.table.status == TableStatus.RUNNING
                and not self.table.seats[seat].is_bot
                and not self.hub.seat_connected(self.table, seat)):
            self.clock.start_grace(seat)
        self.hub.announce(self.table)

    async def _act(self, conn: Conn, token: str, seq: int | None) -> Reply:
        table = self.table
        action = checked_action(table, conn, token, seq)
        if isinstance(action, dict):  # refused
            return action
        assert conn.seat is not None
        try:
            events = await self._commit(conn.seat, action, "human")
        except IllegalAction as exc:
            return error("illegal", exc.reason, exc.rule, list(exc.legal))
        except BelaError as exc:
            return error("illegal", str(exc))
        except LogConflict:
            raise
        except Exception as exc:  # the database refused: nothing was applied
            self.metrics.errors.labels(kind="storage").inc()
            self.log.exception("table %s: could not store an action", table.id)
            return error("storage", f"the action could not be stored ({type(exc).__name__}); "
                         "nothing was changed")
        self._moved(events)
        return None

    # -- the match -----------------------------------------------------------------------------
    async def _commit(self, seat: int, action: Action, by: str) -> tuple[Event, ...]:
        """Store and apply an action of a ``by`` ("human" or "bot") (raises, changing
        nothing, when the engine or the database refuses it); the events it caused.  The
        engine checks it first (refusing an illegal one, :meth:`Match.check`), then it is
        written (off the loop): nothing reads the table meanwhile (a resent state, the
        lobby's summary) sees a state whose action is not stored yet."""
        m = self.table.match
        assert m is not None
        m.check(action)
        await self.store.add_action(self.table, seat, action)
        events = m.apply(action)
        self._refusals = 0
        self.table.seq += 1
        self.table.last = (seat, action.token())
        self.metrics.actions.labels(by=by).inc()
        return events

    def _moved(self, events: tuple[Event, ...]) -> None:
        """After an action that caused ``events``: the match's end, or the new state and
        (after a round) the next deal."""
        m = self.table.match
        assert m is not None and m.round is not None
        if self.table.played_out:
            self._finish(events)
            return
        self._broadcast_state(events)
        if m.round.is_over:
            self._schedule_deal()

    def _schedule_deal(self) -> None:
        if self._deal_timer is not None:
            return
        if self.config.round_pause <= 0:
            self.post(NextDeal())
            return
        self._deal_timer = self._loop.call_later(self.config.round_pause, self.post,
                                                 NextDeal())

    async def _deal(self) -> None:
        table, m = self.table, self.table.match
        assert m is not None
        if (table.status != TableStatus.RUNNING or table.played_out
                or (m.round is not None and not m.round.is_over)):
            return
        idx, dealer = len(m.rounds), m.next_dealer()
        deal = (table.board_deal(idx) if table.boards
                else round_deal(table.variant, table.seed, idx, dealer))
        try:
            await self.store.add_deal(table, idx, dealer, deal)
        except LogConflict:
            raise
        except Exception:
            self._refused("a deal", NextDeal())
            return
        self._refusals = 0
        m.deal(deal.hands, deal.extra, dealer=dealer)
        table.seq += 1
        table.last = None
        self._broadcast_state()

    def _finish(self, events: tuple[Event, ...] = ()) -> None:
        """Store the match's result (:func:`store_result`) and send its last state (with
        ``events``, those of the action that ended it).  When the database refuses, the
        state of that action (stored already) goes out at once, still ``running``, and the
        result is tried again."""
        table = self.table
        assert table.match is not None
        if table.status == TableStatus.FINISHED:
            return
        try:
            store_result(table, self.store, self.log)
        except Exception:
            if events:
                self.hub.broadcast_state(table, events)
            self._refused("the match's result", Finish())
            return
        self._refusals = 0
        self.clock.cancel_grace()
        self._broadcast_state(events)
        self.hub.broadcast_table(table)

    def _broadcast_state(self, events: tuple[Event, ...] = ()) -> None:
        """The new state to every connection, with the turn clock it starts."""
        self.clock.arm()
        self.hub.broadcast_state(self.table, events)

    def _refused(self, what: str, retry: Message) -> None:
        """The database refused a step of the table: nothing changed; ``retry`` comes back
        in a second.  Logged once, not every second while it lasts."""
        self._refusals += 1
        self.metrics.errors.labels(kind="storage").inc()
        if self._refusals == 1:
            self.log.exception("table %s: %s could not be stored; retrying every second",
                               self.table.id, what)
        else:
            self.log.debug("table %s: %s could not be stored again (%d times)", self.table.id,
                      what, self._refusals, exc_info=True)
        self._retry_timer = self._loop.call_later(RETRY, self.post, retry)

    # -- bots ----------------------------------------------------------------------------------
    async def _bot_move(self, seat: int, seq: int, decision: Decision) -> None:
        if self.table.seq != seq or self.bots.turn() != seat:
            return  # stale: the table moved on, or the player came back
        if decision.failure is not None:
            self.bots.failed(seat, decision.failure)
        try:
            events = await self._commit(seat, decision.action, "bot")
        except LogConflict:
            raise
        except Exception:
            self._refused("a bot's move", BotRetry(seat, seq))
            return
        self._moved(events)


class TableClock:
    """The timers of a table's seats: each absent player's grace period (:class:`GraceOver`
    when it ends) and the turn clock of the player to act (:class:`ClockOver` when it runs
    out), each posted to the actor with ``post``."""

    def __init__(self, table: Table, hub: Hub, config: ServerConfig,
                 loop: asyncio.AbstractEventLoop, post: Callable[[Message], None]) -> None:
        self.table = table
        self.hub = hub
        self.config = config
        self._loop = loop
        self.post = post
        self._grace: dict[int, tuple[int, asyncio.TimerHandle]] = {}  # seat -> serial, timer
        self._grace_serial = 0
        self.key: tuple[int, int] | None = None  # (seat, seq) the turn clock runs for
        self._timer: asyncio.TimerHandle | None = None
        self.overdue: tuple[int, int] | None = None  # (seat, seq) whose clock ran out

    def stop(self) -> None:
        """Every timer cancelled (the actor stops)."""
        self.cancel_grace()
        if self._timer is not None:
            self._timer.cancel()
        self.table.clock = None

    # -- grace periods -------------------------------------------------------------------------
    def start_grace(self, seat: int) -> None:
        self.cancel_grace(seat)
        self._grace_serial += 1
        msg = GraceOver(seat, self._grace_serial)
        self._grace[seat] = (msg.serial,
                             self._loop.call_later(self.config.grace, self.post, msg))
        self.table.seats[seat].away_until = time.monotonic() + self.config.grace

    def cancel_grace(self, seat: int | None = None) -> None:
        """Cancel the grace period of ``seat`` (``None``: of every seat)."""
        for s in list(self._grace) if seat is None else [seat]:
            entry = self._grace.pop(s, None)
            if entry is not None:
                entry[1].cancel()
                self.table.seats[s].away_until = None

    def grace_over(self, seat: int, serial: int) -> None:
        entry = self._grace.get(seat)
        if entry is None or entry[0] != serial:
            return  # a grace period cancelled after it ended: the player came back
        del self._grace[seat]
        s = self.table.seats[seat]
        s.away_until = None
        if (self.hub.seat_connected(self.table, seat) or s.is_bot
                or self.table.status != TableStatus.RUNNING):
            return
        s.autopilot = True
        self.hub.broadcast_table(self.table)

    # -- the turn clock ------------------------------------------------------------------------
    def clock_over(self, seat: int, seq: int) -> None:
        if self.key == (seat, seq):  # else stale: the table moved on
            self.overdue = (seat, seq)  # the bots' kick starts the bot for this turn

    def arm(self) -> None:
        """Keep the turn clock on the player to act: it starts (``turn_clock`` seconds) for
        each new state or returning player with a turn, and stops when nobody is to act or a
        bot plays the seat (a bot's seat, an absent player's autopilot)."""
        table, m = self.table, self.table.match
        clock = table.turn_clock
        key = None
        if (clock is not None and table.status == TableStatus.RUNNING and m is not None
                and m.round is not None and not m.round.is_over
                and not table.seats[m.round.turn].bot_controlled):
            key = (m.round.turn, table.seq)
        if key == self.key:
            return
        if self._timer is not None:
            self._timer.cancel()
        self.key, self._timer, table.clock = key, None, None
        if key is not None and clock is not None:
            self._timer = self._loop.call_later(clock, self.post, ClockOver(*key))
            table.clock = (key[0], time.monotonic() + clock)


class TableBots:
    """The bots that play a table's seats (a bot's seat, an absent player's, a player's
    whose turn clock ran out) and the moves the server answers for a player: at most one
    thinks at a time, off the event loop, and its move is posted to the actor as a
    :class:`BotMove`.  ``pool``: where a strong bot thinks (none: in threads)."""

    def __init__(self, table: Table, hub: Hub, config: ServerConfig,
                 pool: botpool.BotPool | None, metrics: Metrics, log: TableLog,
                 clock: TableClock, loop: asyncio.AbstractEventLoop,
                 post: Callable[[Message], None]) -> None:
        self.table = table
        self.hub = hub
        self.config = config
        self.pool = pool
        self.metrics = metrics
        self.log = log
        self.clock = clock
        self._loop = loop
        self.post = post
        self.key: tuple[int, int] | None = None  # (seat, seq) of the bot move under way
        self._thinker: asyncio.Task[None] | None = None

    def stop(self) -> None:
        """A thinking bot is cancelled (the actor stops)."""
        if self._thinker is not None:
            self._thinker.cancel()

    def thinking(self, seat: int, seq: int) -> None:
        """The bot of ``seat`` at ``seq`` has not decided yet: every connection hears."""
        if self.key == (seat, seq) and self.table.seq == seq:  # else moved on
            self.table.thinking = seat
            self.hub.broadcast_thinking(self.table)

    def retry(self, seat: int, seq: int) -> None:
        """The database refused the bot's move at (``seat``, ``seq``): it thinks again."""
        if self.key == (seat, seq):
            self.key = None  # kick starts the bot again

    def turn(self) -> int | None:
        """The seat a bot acts for now: a seat a bot plays whose view proves an opponent's
        revoke, to claim it (R24, the first from the seat to act on); else the seat to act
        if a bot plays it now (a bot's seat, an absent player's, or a player's whose turn
        clock ran out), or if the server answers for its player (a keep in the exchange that
        is his only choice, R32, R35: after the bot's delay, so that the stream is the same
        whatever his cards)."""
        m = self.table.match
        if (self.table.status != TableStatus.RUNNING or m is None or m.round is None
                or m.round.is_over):
            return None
        seat = m.round.turn
        if m.round.claim_allowed():
            n = len(self.table.seats)
            for s in ((seat + k) % n for k in range(n)):
                if (self.table.seats[s].bot_controlled
                        and claim_for(seat_view(m, s)) is not None):
                    return s
        if (self.table.seats[seat].bot_controlled or self.clock.overdue == (seat, self.table.seq)
                or m.round.lone_keep):
            return seat
        return None

    def kick(self) -> None:
        """After every message (and the turn clock's): a bot starts thinking when one is to
        act and is not yet (a thinking bot whose state is gone stops)."""
        seat = self.turn()
        key = None if seat is None else (seat, self.table.seq)
        if key == self.key:
            return
        if self._thinker is not None:
            self._thinker.cancel()
        self.key, self._thinker = key, None
        self.table.thinking = None  # a new turn, or the move came: the mark goes
        if seat is not None and self.table.match is not None:
            view = seat_view(self.table.match, seat)  # immutable: the bot thinks off the loop
            self._thinker = self._loop.create_task(self._think(seat, self.table.seq, view))

    async def _think(self, seat: int, seq: int, view: SeatView) -> None:
        """The bot decides and its move is sent at a moment its cards do not choose.  A
        strong bot (:func:`bela.server.botpool.strong`) playing a seat answers at its
        :func:`answer_time` for the decision's kind, exactly: decided sooner, the move waits;
        not decided then, its search has stopped in time with the deals it had (the
        deadline travels to it), and only when even that was late (its job waited in a
        loaded pool) is the heuristic's move sent at that moment.  Any other move (a cheap
        bot's, a person's lone keep) is decided at once and sent ``bot_delay`` after the
        turn began (docs/SECURITY.md, Timing)."""
        started = self._loop.time()  # time.monotonic(), the clock the deadline is read on
        spec = self.table.bot_of(seat)
        answer = None
        if (self.pool is not None and botpool.strong(spec)
                and (self.table.seats[seat].bot_controlled or self.clock.overdue == (seat, seq))):
            answer = answer_time(self.config, view)
        due = self.config.bot_delay if answer is None else answer
        # the thinking mark at bot_delay: with an answer time past it always (a fixed
        # moment that tells nothing), else only when not decided by then, which tells
        # nothing the late move would not (docs/PROTOCOL.md, thinking)
        late = (self._loop.call_later(self.config.bot_delay, self.post, Thinking(seat, seq))
                if self.config.bot_delay > 0 and (answer is None or self.config.bot_delay < due)
                else None)
        try:
            decision = await self._decide(seat, seq, view,
                                          None if answer is None else started + answer)
            if answer is None and late is not None:
                late.cancel()  # decided before bot_delay: no mark
            self.metrics.bot_think.observe(self._loop.time() - started)
            await asyncio.sleep(max(0.0, started + due - self._loop.time()))
            self.post(BotMove(seat, seq, decision))
        finally:
            if late is not None:
                late.cancel()

    def _fair_key(self) -> str:
        """Whose turn in the bot pool's fair queue this table's decisions wait for: its
        creator's address (else the creator, else the table), so that one address's many
        tables take one turn together."""
        t = self.table
        return t.owner_address or t.owner_id or t.id

    async def _decide(self, seat: int, seq: int, view: SeatView,
                      due: float | None = None) -> Decision:
        """What the bot playing ``seat`` decides for ``view``, off the event loop: an auzmeš
        its view proves (R24), a lone keep in the exchange (no bot asked), else the table's
        bot (a strong one from the pool, in turn with the other tables, by ``due``, the
        ``loop.time()`` its move is sent at: at ``due``, or when the pool fails, the
        fallback's move), else the table's bot in a thread."""
        spec, seed = self.table.bot_of(seat), bot_seed(self.table.seed, seq, seat)
        revokes = not self.table.rated  # no deliberate revoke where ratings move
        claim = claim_for(view)
        if claim is not None:
            return Decision(claim)
        if view.legal == (DECLINE,):
            return Decision(DECLINE)
        if self.pool is None or not botpool.strong(spec):
            return await asyncio.to_thread(
                decide, lambda v: make_bot(spec, seed=seed).act(v), view, seed, revokes)
        key = self._fair_key()
        if due is None:
            return await self.pool.decide(spec, seed, view, revokes, key=key)
        # its search ends a margin before the move is due (the answer's way back)
        margin = min(MARGIN, (due - self._loop.time()) / 3)
        job = asyncio.ensure_future(
            self.pool.decide(spec, seed, view, revokes, deadline=due - margin, key=key))
        fallback = asyncio.ensure_future(asyncio.to_thread(  # ready before it is due
            decide, lambda v: make_bot(FALLBACK_BOT, seed=seed).act(v), view, seed, revokes))
        try:
            return await asyncio.wait_for(asyncio.shield(job),
                                          max(0.0, due - self._loop.time()))
        except Exception as exc:  # not decided when due (TimeoutError), or the pool failed
            decision = await fallback
            if isinstance(exc, TimeoutError):
                return decision
            return Decision(decision.action, exc)  # a failure: reported, the table goes on
        finally:
            job.cancel()  # late, or the table moved on: nothing to decide
            fallback.cancel()

    def failed(self, seat: int, failure: BaseException) -> None:
        """The table's bot could not move: a fallback moved instead.  Logged once a table."""
        table = self.table
        table.bot_failures += 1
        self.metrics.errors.labels(kind="bot").inc()
        if table.bot_failures == 1:
            self.log.error("table %s: the bot %r failed at seat %d (%s: %s); the heuristic bot "
                      "plays its moves instead", table.id, table.bot, seat,
                      type(failure).__name__, failure,
                      exc_info=(type(failure), failure, failure.__traceback__))
            self.hub.broadcast_table(table)  # the summary says so (bot_fallback)
        else:
            self.log.debug("table %s: the bot %r failed again (%d moves)", table.id, table.bot,
                      table.bot_failures)



def checked_action(table: Table, conn: Conn, token: str, seq: int | None
                   ) -> Action | dict[str, Any]:
    """The action ``token`` of ``conn`` at state ``seq`` if the table takes it now (its
    legality aside: :meth:`Match.apply` decides), else the error message refusing it."""
    refusal = inactive_refusal(table, conn)
    if refusal is not None:
        return refusal
    assert table.match is not None and conn.seat is not None
    if seq is not None and seq != table.seq:
        return error("stale", f"you acted on state {seq}, but the table is at state "
                     f"{table.seq}; nothing was changed", seq=table.seq)
    try:
        action = parse_action(token)
    except (ActionParseError, ValueError) as exc:
        return error("bad_action", str(exc))
    rnd = table.match.round
    if rnd is None or rnd.is_over:
        return error("not_your_turn", "the round is over; wait for the next deal")
    if isinstance(action, Claim):
        if action.seat != conn.seat:
            return error("wrong_seat", f"you sit in seat {conn.seat}: claim {conn.seat} "
                         "is the claim you can make", "R24")
    elif rnd.turn != conn.seat:  # public in every phase (the exchange asks all, R32, R35)
        return error("not_your_turn", f"it is seat {rnd.turn}'s turn, not yours "
                     f"(seat {conn.seat})")
    return action


def gone_reply(table: Table, msg: Message, moved_away: bool) -> Reply:
    """The reply of a stopped actor to ``msg`` (``moved_away``: another process runs the
    table now)."""
    if isinstance(msg, Act) and moved_away:
        return error("table_moving", "the table moved to another server process: "
                     "connect again")
    if isinstance(msg, Act):
        return inactive_refusal(table, msg.conn) or error("not_running", "the table is closed")
    return None


def store_result(table: Table, store: Store, log: TableLog) -> None:
    """Store the result of ``table``'s match that is over, with each seat's line and the
    ratings it moves (one transaction, :mod:`bela.server.ratings`), and keep it in
    ``table`` (``finished``, its result, record and rating changes); raises, changing
    nothing, when the database refuses."""
    m = table.match
    assert m is not None
    record = to_record(m, players=table.names)
    record["table"] = table.id
    record["seed"] = table.seed
    result = score(m)
    # a play-on's log starts with rounds played elsewhere: no player's line
    lines = [] if table.origin else ratings.lines(table, result)
    moved: dict[str, dict[str, Any]] = {}
    try:
        rate, moved = _kept(ratings.rate_fn(table, lines, store.meetings(table, lines)))
        store.finish(table, result, record, lines, rate)
    except ratings.RatingFailed as exc:  # a bug must not keep the match unfinished
        log.error("table %s: its ratings could not be worked out (%s): stored unrated",
                  table.id, exc)
        store.finish(table, result, record, lines, None)
    table.status = TableStatus.FINISHED
    table.result, table.record = result, record
    if moved:  # the summary shows each seat's rating change (a rated match)
        table.ratings = [{"seat": int(ln["seat"]), "before": moved[ln["entry"]]["before"],
                          "after": moved[ln["entry"]]["after"]}
                         for ln in lines if ln["entry"] in moved]


def _kept(rate: RateFn | None
          ) -> tuple[RateFn | None, dict[str, dict[str, Any]]]:
    """``rate`` and the ratings it moved once called (entry -> before, after, ...)."""
    moved: dict[str, dict[str, Any]] = {}
    if rate is None:
        return None, moved
    inner = rate

    def keep(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        out = inner(current)
        moved.clear()
        moved.update(out)
        return out

    return keep, moved

"""The table manager: one engine :class:`~bela.engine.Match` per table, run by the server.

Server authority: every action goes through :meth:`Match.apply` (which refuses an illegal one
and changes nothing), is written to the database, and only then broadcast.  Each connection
receives the view of its own seat (spectators: the public view), built by
:func:`bela.engine.views.seat_view` and nothing else.

Durability: a table is its deals and its action log (``rounds`` and ``actions`` rows, one per
event, numbered by ``seq``).  On start the manager replays every open or running table from
the database through the engine, so a server killed at any point resumes exactly where the
last committed event left it.  Deals come from the table seed and the round index
(:func:`round_deal`) and are stored too; bots decide with a seed made of the table seed and
the event number, so their play is the same whether or not the server restarted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bots import BOTS, HeuristicBot, make_bot
from ..engine import BelaError, IllegalAction, Match, parse_action
from ..engine.actions import ActionParseError, Claim
from ..engine.cards import format_cards
from ..engine.record import score, to_record
from ..engine.variants import VARIANTS, Deal, get_variant
from ..engine.views import seat_view
from ..storage import Database
from .protocol import error, public_token, view_json

log = logging.getLogger("bela.server")

MAX_QUEUE = 2000  # outgoing messages waiting for one slow connection before it is dropped


@dataclass
class ServerConfig:
    """Timing and limits of a server (seconds)."""

    grace: float = 60.0  # a disconnected player's seat is played by a bot after this
    bot_delay: float = 0.6  # a bot waits this long before it acts (0 in tests)
    round_pause: float = 2.0  # time to look at a finished round before the next deal
    allow_seed: bool = False  # tables may be created with a given seed (tests, tournaments)
    max_message: int = 64 * 1024  # bytes of one client WebSocket message
    max_rate: int = 50  # client messages per second and connection; more are refused


class ApiError(Exception):
    """A refused request: ``code`` is stable, ``message`` is for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def round_deal(variant: str, seed: int, idx: int, dealer: int) -> Deal:
    """The deal of round ``idx`` of a table with ``seed`` (the same on every run)."""
    return get_variant(variant).shuffle(random.Random(f"bela:{seed}:{idx}"), dealer)


def bot_seed(seed: int, seq: int, seat: int) -> int:
    return (seed * 1_000_003 + seq) * 8 + seat


def dumps(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Conn:
    """One WebSocket connection: who it is and its queue of outgoing messages."""

    def __init__(self, send_text: Callable[[str], Any], player_id: str | None,
                 seat: int | None) -> None:
        self.send_text = send_text
        self.player_id = player_id
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    def send(self, msg: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > MAX_QUEUE:  # a client that does not read: drop it
            self.close()
            return
        self.queue.put_nowait(msg if isinstance(msg, str) else dumps(msg))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    async def run_sender(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await self.send_text(text)


@dataclass
class Seat:
    player_id: str | None = None
    name: str = ""
    is_bot: bool = False
    conns: set[Conn] = field(default_factory=set)
    autopilot: bool = False  # a bot plays for an absent player (after the grace period)
    timer: asyncio.TimerHandle | None = None

    @property
    def free(self) -> bool:
        return self.player_id is None and not self.is_bot

    @property
    def bot_controlled(self) -> bool:
        return self.is_bot or self.autopilot


@dataclass
class Table:
    id: str
    variant: str
    options: dict[str, Any]
    seed: int
    bot: str
    status: str
    owner_id: str | None
    seats: list[Seat]
    match: Match | None = None
    seq: int = 0
    conns: set[Conn] = field(default_factory=set)
    last: tuple[int, str] | None = None  # (seat, token) of the last action
    driver: asyncio.Task[None] | None = None
    pending_deal: asyncio.TimerHandle | None = None
    result: dict[str, Any] | None = None
    record: dict[str, Any] | None = None
    bot_failures: int = 0  # moves the table's bot could not make (a fallback made them)
    drive_failures: int = 0  # consecutive failures to store a bot's move

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s.player_id == player_id:
                return i
        return None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]


class TableManager:
    """All tables of one server process (used from its event loop only)."""

    def __init__(self, db: Database, config: ServerConfig | None = None) -> None:
        self.db = db
        self.config = config or ServerConfig()
        self.tables: dict[str, Table] = {}
        self.broken: dict[str, str] = {}  # tables whose log no longer replays: id -> reason
        self._loop: asyncio.AbstractEventLoop | None = None
        self._bots: list[str] | None = None

    # -- bots that can run -----------------------------------------------------------------
    def available_bots(self) -> list[str]:
        """The bots this installation can run: those that can be made (their modules import;
        the strong bots need numpy).  Checked once per server."""
        if self._bots is None:
            found = []
            for name in BOTS:
                try:
                    make_bot(name, seed=0)
                except Exception as exc:  # ImportError above all: an optional dependency
                    log.warning("bot %r is not available on this server: %s: %s", name,
                                type(exc).__name__, exc)
                    continue
                found.append(name)
            self._bots = found
        return list(self._bots)

    # -- start and stop --------------------------------------------------------------------
    async def resume_all(self) -> None:
        """Rebuild every open or running table from the database and resume it."""
        self._loop = asyncio.get_running_loop()
        for row in self.db.load_active():
            try:
                table = self._rebuild(row)
            except (BelaError, KeyError, ValueError) as exc:
                log.error("table %s cannot be replayed: %s", row["id"], exc)
                self.broken[row["id"]] = str(exc)
                continue
            self.tables[table.id] = table
            if table.status == "running":
                self._resume(table)

    async def shutdown(self) -> None:
        for table in self.tables.values():
            if table.driver is not None:
                table.driver.cancel()
            if table.pending_deal is not None:
                table.pending_deal.cancel()
            for seat in table.seats:
                if seat.timer is not None:
                    seat.timer.cancel()
            for conn in list(table.conns):
                conn.close()

    def _rebuild(self, row: dict[str, Any]) -> Table:
        seats = [Seat(player_id=s["player_id"], name=s["name"], is_bot=bool(s["is_bot"]))
                 for s in row["seats"]]
        table = Table(id=row["id"], variant=row["variant"], options=dict(row["options"]),
                      seed=int(row["seed"]), bot=row["bot"], status=row["status"],
                      owner_id=row["owner_id"], seats=seats,
                      result=row.get("result"), record=row.get("record"))
        if table.status == "open":
            return table
        m = Match(table.variant, table.options, seed=table.seed)
        events: list[tuple[int, str, dict[str, Any]]] = (
            [(r["seq"], "deal", r) for r in row.get("rounds", [])]
            + [(a["seq"], "act", a) for a in row.get("actions", [])])
        events.sort(key=lambda e: e[0])
        for expected, (seq, kind, ev) in enumerate(events, start=1):
            if seq != expected:
                raise ValueError(f"event {expected} is missing from the log")
            if kind == "deal":
                deal = ev["deal"]
                m.deal([_codes(h) for h in deal["hands"]],
                       {k: _codes(v) for k, v in deal.get("extra", {}).items()},
                       dealer=ev["dealer"])
            else:
                rnd = m.round
                if rnd is None:
                    raise ValueError("an action before the first deal")
                action = parse_action(ev["token"])
                actor = action.seat if isinstance(action, Claim) else rnd.turn
                if actor != ev["seat"]:
                    raise ValueError(f"event {seq} was made by seat {ev['seat']}, "
                                     f"not by the seat to act ({actor})")
                m.apply(action)
                table.last = (ev["seat"], action.token())
        table.match = m
        table.seq = len(events)
        return table

    def _resume(self, table: Table) -> None:
        """After a restart: absent players get their grace period, bots go on, a finished
        round is followed by the next deal."""
        m = table.match
        if m is None:
            return
        if m.is_over:  # killed between the last action and the finish row
            self._finish(table)
            return
        for i, seat in enumerate(table.seats):
            if not seat.is_bot:
                self._start_grace(table, i)
        if m.round is None or m.round.is_over:
            self._schedule_deal(table)
        self._kick(table)

    # -- lookups ---------------------------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """A table in memory, or a finished one loaded from the database."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not isinstance(table_id, str) or len(table_id) > 32 or table_id in self.broken:
            return None
        row = self.db.load_table(table_id, with_log=True)
        if row is None or row["status"] != "finished":
            return None
        try:
            table = self._rebuild(row)
        except (BelaError, KeyError, ValueError) as exc:
            self.broken[table_id] = str(exc)
            return None
        self.tables[table.id] = table
        return table

    def require(self, table_id: str) -> Table:
        table = self.get(table_id)
        if table is None:
            raise ApiError(404, "unknown_table", f"there is no table {table_id!r}")
        return table

    def summary(self, table: Table) -> dict[str, Any]:
        v = get_variant(table.variant)
        return {
            "id": table.id, "variant": table.variant,
            "options": v.make_options(table.options).as_dict(), "bot": table.bot,
            "status": table.status, "owner": table.owner_id, "seq": table.seq,
            "seats": [{"seat": i, "name": s.name or None,
                       "kind": "bot" if s.is_bot else "human" if s.player_id else None,
                       "player_id": s.player_id, "connected": bool(s.conns),
                       "autopilot": s.autopilot} for i, s in enumerate(table.seats)],
            "spectators": sum(1 for c in table.conns if c.seat is None),
            "invite": f"/?table={table.id}",
            "totals": list(table.match.totals) if table.match else None,
            "winner": table.match.winner if table.match else None,
            "bot_fallback": table.bot_failures > 0,
        }

    def listing(self) -> list[dict[str, Any]]:
        return [self.summary(t) for t in self.tables.values()
                if t.status in ("open", "running")]

    # -- lobby -----------------------------------------------------------------------------
    def create(self, player: dict[str, Any], variant: str, options: dict[str, Any], bot: str,
               seat: int | None, seed: int | None = None) -> Table:
        if variant not in VARIANTS:
            raise ApiError(422, "bad_variant", f"unknown variant {variant!r} "
                           f"(known: {', '.join(VARIANTS)})")
        v = VARIANTS[variant]
        try:
            opts = v.make_options(options)
        except BelaError as exc:
            raise ApiError(422, "bad_options", str(exc)) from None
        if bot not in BOTS:
            raise ApiError(422, "bad_bot", f"unknown bot {bot!r} (known: {', '.join(BOTS)})")
        if bot not in self.available_bots():
            raise ApiError(422, "bot_unavailable", f"the bot {bot!r} cannot run on this server "
                           "(its dependencies are not installed); available: "
                           f"{', '.join(self.available_bots())}")
        if seat is not None and not 0 <= seat < v.seats:
            raise ApiError(422, "bad_seat", f"{variant} has seats 0..{v.seats - 1}")
        if seed is not None:
            if not self.config.allow_seed:
                raise ApiError(403, "seed_not_allowed",
                               "this server does not take a seed for a table")
            if not 0 <= seed < 2 ** 62:
                raise ApiError(422, "bad_seed", "seed must be 0 .. 2**62 - 1")
        else:
            seed = secrets.randbits(62)
        opt_dict = {k: val for k, val in opts.as_dict().items() if k in v.options}
        table_id = secrets.token_urlsafe(6)
        while table_id in self.tables or self.db.load_table(table_id) is not None:
            table_id = secrets.token_urlsafe(6)
        self.db.create_table(table_id, variant, opt_dict, seed, bot, player["id"], v.seats)
        table = Table(id=table_id, variant=variant, options=opt_dict, seed=seed, bot=bot,
                      status="open", owner_id=player["id"], seats=[Seat() for _ in range(v.seats)])
        self.tables[table_id] = table
        if seat is not None:
            self.sit(table, player, seat)
        return table

    def _require_open(self, table: Table) -> None:
        if table.status != "open":
            raise ApiError(409, "not_open", f"table {table.id} has already started"
                           if table.status == "running" else f"table {table.id} is over")

    def sit(self, table: Table, player: dict[str, Any], seat: int) -> None:
        self._require_open(table)
        if not 0 <= seat < len(table.seats):
            raise ApiError(422, "bad_seat", f"this table has seats 0..{len(table.seats) - 1}")
        current = table.seat_of(player["id"])
        if current == seat:
            return
        if not table.seats[seat].free:
            raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        if current is not None:
            self._clear_seat(table, current)
        s = table.seats[seat]
        s.player_id, s.name, s.is_bot = player["id"], player["name"], False
        self.db.set_seat(table.id, seat, player["id"], False, player["name"])
        for conn in table.conns:  # a watching connection of this player takes the seat
            if conn.player_id == player["id"]:
                conn.seat = seat
                s.conns.add(conn)
        self._broadcast_table(table)

    def _clear_seat(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        for conn in s.conns:
            conn.seat = None
        table.seats[seat] = Seat()
        self.db.set_seat(table.id, seat, None, False, "")

    def leave(self, table: Table, player: dict[str, Any]) -> None:
        self._require_open(table)
        seat = table.seat_of(player["id"])
        if seat is None:
            raise ApiError(409, "not_seated", "you are not seated at this table")
        self._clear_seat(table, seat)
        self._broadcast_table(table)

    def fill_bots(self, table: Table, player: dict[str, Any], which: list[int] | None) -> None:
        self._require_open(table)
        self._require_member(table, player)
        targets = range(len(table.seats)) if which is None else which
        for seat in targets:
            if not 0 <= seat < len(table.seats):
                raise ApiError(422, "bad_seat", f"this table has seats 0..{len(table.seats) - 1}")
            if which is not None and not table.seats[seat].free:
                raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        for seat in targets:
            s = table.seats[seat]
            if s.free:
                s.is_bot, s.name = True, f"Bot {seat + 1}"
                self.db.set_seat(table.id, seat, None, True, s.name)
        self._broadcast_table(table)

    def _require_member(self, table: Table, player: dict[str, Any]) -> None:
        if player["id"] != table.owner_id and table.seat_of(player["id"]) is None:
            raise ApiError(403, "not_at_table", "only the table's creator or a seated player "
                           "may do that")

    def start(self, table: Table, player: dict[str, Any]) -> None:
        self._require_open(table)
        self._require_member(table, player)
        free = [i for i, s in enumerate(table.seats) if s.free]
        if free:
            raise ApiError(409, "seats_free", f"seats {', '.join(map(str, free))} are empty: "
                           "wait for players or fill them with bots")
        table.status = "running"
        self.db.set_status(table.id, "running")
        table.match = Match(table.variant, table.options, seed=table.seed)
        for i, s in enumerate(table.seats):
            if not s.is_bot and not s.conns:
                self._start_grace(table, i)
        self._broadcast_table(table)
        self._deal(table)
        self._kick(table)

    # -- connections -----------------------------------------------------------------------
    def connect(self, table: Table, conn: Conn) -> None:
        table.conns.add(conn)
        if conn.seat is not None:
            s = table.seats[conn.seat]
            s.conns.add(conn)
            if s.timer is not None:
                s.timer.cancel()
                s.timer = None
            s.autopilot = False  # the player is back: the bot stops at once
        conn.send({"type": "welcome", "seat": conn.seat, "player_id": conn.player_id,
                   "table": self.summary(table)})
        if table.match is not None and table.match.round is not None:
            conn.send(self.state_text(table, conn.seat))
        self._broadcast_table(table, skip=conn)

    def disconnect(self, table: Table, conn: Conn) -> None:
        conn.close()
        table.conns.discard(conn)
        if conn.seat is not None:
            s = table.seats[conn.seat]
            s.conns.discard(conn)
            if not s.conns and table.status == "running" and not s.is_bot:
                self._start_grace(table, conn.seat)
        if table.status == "finished" and not table.conns:
            self.tables.pop(table.id, None)  # it is in the database; load again on demand
            return
        self._broadcast_table(table)

    def _start_grace(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        if s.timer is not None:
            s.timer.cancel()
        loop = self._loop or asyncio.get_running_loop()
        s.timer = loop.call_later(self.config.grace, self._grace_over, table, seat)

    def _grace_over(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        s.timer = None
        if s.conns or table.status != "running" or s.is_bot:
            return
        s.autopilot = True
        self._broadcast_table(table)
        self._kick(table)

    # -- acting ----------------------------------------------------------------------------
    def act(self, table: Table, conn: Conn, token: str, seq: int | None) -> dict[str, Any] | None:
        """A client's action: ``None`` when applied, else the error message for it."""
        if conn.seat is None:
            return error("spectator", "spectators cannot act; sit at an open table to play")
        if table.status != "running" or table.match is None:
            return error("not_running", "the match has not started" if table.status == "open"
                         else "the match is over")
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
        elif rnd.turn != conn.seat:
            if rnd.phase == "exchange":  # who may swap or redeal stays secret (R32, R35)
                return error("not_your_turn", "another seat is deciding on a swap or redeal")
            return error("not_your_turn", f"it is seat {rnd.turn}'s turn, not yours "
                         f"(seat {conn.seat})")
        try:
            self._commit(table, conn.seat, action)
        except IllegalAction as exc:
            return error("illegal", exc.reason, exc.rule, list(exc.legal))
        except BelaError as exc:
            return error("illegal", str(exc))
        except Exception as exc:  # the database refused: nothing was applied
            log.exception("table %s: could not store an action", table.id)
            return error("storage", f"the action could not be stored ({type(exc).__name__}); "
                         "nothing was changed")
        return None

    def _commit(self, table: Table, seat: int, action: Any) -> None:
        """Apply, store, broadcast (the one place where a table changes during play)."""
        m = table.match
        assert m is not None
        rnd = m.round
        assert rnd is not None
        m.apply(action)  # raises IllegalAction and changes nothing
        try:
            self.db.add_action(table.id, table.seq + 1, len(m.rounds) - 1, seat, action.token())
        except Exception:
            m.undo()
            raise
        table.seq += 1
        table.last = (seat, action.token())
        if m.is_over:
            self._finish(table)  # stores the result, then broadcasts
            return
        self._broadcast_state(table)
        if rnd.is_over:
            self._schedule_deal(table)
        self._kick(table)

    def _schedule_deal(self, table: Table) -> None:
        if table.pending_deal is not None:
            return
        if self.config.round_pause <= 0:
            self._deal(table)
            return
        loop = self._loop or asyncio.get_running_loop()

        def later() -> None:
            table.pending_deal = None
            if table.status == "running":
                self._deal(table)
                self._kick(table)

        table.pending_deal = loop.call_later(self.config.round_pause, later)

    def _deal(self, table: Table) -> None:
        m = table.match
        assert m is not None
        if m.is_over or (m.round is not None and not m.round.is_over):
            return
        idx = len(m.rounds)
        dealer = m.next_dealer()
        d = round_deal(table.variant, table.seed, idx, dealer)
        stored = {"hands": [format_cards(h) for h in d.hands],
                  "extra": {k: format_cards(v) for k, v in d.extra.items()}}
        self.db.add_round(table.id, idx, table.seq + 1, dealer, stored)
        m.deal(d.hands, d.extra, dealer=dealer)
        table.seq += 1
        table.last = None
        self._broadcast_state(table)

    def _finish(self, table: Table) -> None:
        m = table.match
        assert m is not None
        record = to_record(m, players=table.names)
        record["table"] = table.id
        record["seed"] = table.seed
        result = score(m)
        self.db.finish_table(table.id, result, record)
        table.status = "finished"
        table.result, table.record = result, record
        for s in table.seats:
            if s.timer is not None:
                s.timer.cancel()
                s.timer = None
        self._broadcast_state(table)
        self._broadcast_table(table)
        if not table.conns:
            self.tables.pop(table.id, None)  # in the database; loaded again on demand

    # -- bots ------------------------------------------------------------------------------
    def _bot_turn(self, table: Table) -> int | None:
        m = table.match
        if table.status != "running" or m is None or m.round is None or m.round.is_over:
            return None
        seat = m.round.turn
        return seat if table.seats[seat].bot_controlled else None

    def _kick(self, table: Table) -> None:
        if self._bot_turn(table) is None:
            return
        if table.driver is None or table.driver.done():
            table.driver = asyncio.get_running_loop().create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        try:
            while True:
                seat = self._bot_turn(table)
                if seat is None:
                    return
                seq = table.seq
                await asyncio.sleep(self.config.bot_delay)
                if self._bot_turn(table) != seat or table.seq != seq:
                    continue  # someone came back or the state moved on
                m = table.match
                assert m is not None
                view = seat_view(m, seat)  # an immutable snapshot: the bot thinks off the loop
                action, failure = await asyncio.to_thread(
                    _bot_move, table.bot, bot_seed(table.seed, seq, seat), view)
                if self._bot_turn(table) != seat or table.seq != seq:
                    continue  # the player came back and acted meanwhile
                if failure is not None:
                    self._bot_failed(table, seat, failure)
                self._commit(table, seat, action)
                table.drive_failures = 0
        except asyncio.CancelledError:
            raise
        except Exception:  # e.g. the database refused the move: nothing changed, try again
            table.drive_failures += 1
            if table.drive_failures == 1:  # once, not every second while it lasts
                log.exception("table %s: a bot's move could not be made; retrying every "
                              "second", table.id)
            else:
                log.debug("table %s: a bot's move failed again (%d times)", table.id,
                          table.drive_failures, exc_info=True)
            loop = self._loop or asyncio.get_running_loop()
            loop.call_later(1.0, self._kick, table)

    def _bot_failed(self, table: Table, seat: int, failure: BaseException) -> None:
        """The table's bot could not move: a fallback moved instead.  Logged once a table."""
        table.bot_failures += 1
        if table.bot_failures == 1:
            log.error("table %s: the bot %r failed at seat %d (%s: %s); the heuristic bot "
                      "plays its moves instead", table.id, table.bot, seat,
                      type(failure).__name__, failure,
                      exc_info=(type(failure), failure, failure.__traceback__))
            self._broadcast_table(table)  # the summary says so (bot_fallback)
        else:
            log.debug("table %s: the bot %r failed again (%d moves)", table.id, table.bot,
                      table.bot_failures)

    # -- broadcasting ----------------------------------------------------------------------
    def state_text(self, table: Table, seat: int | None) -> str:
        m = table.match
        assert m is not None
        last = None
        if table.last is not None:
            actor, token = table.last
            last = {"seat": actor, "action": public_token(token, actor == seat)}
        return dumps({"type": "state", "seq": table.seq, "status": table.status,
                      "last": last, "view": view_json(seat_view(m, seat))})

    def _broadcast_state(self, table: Table) -> None:
        if not table.conns:
            return
        texts: dict[int | None, str] = {}
        for conn in list(table.conns):
            if conn.seat not in texts:
                texts[conn.seat] = self.state_text(table, conn.seat)
            conn.send(texts[conn.seat])

    def _broadcast_table(self, table: Table, skip: Conn | None = None) -> None:
        if not table.conns:
            return
        text = dumps({"type": "table", "table": self.summary(table)})
        for conn in list(table.conns):
            if conn is not skip:
                conn.send(text)

    # -- history and records ---------------------------------------------------------------
    def record(self, table_id: str) -> dict[str, Any]:
        table = self.tables.get(table_id)
        if table is None:
            row = self.db.load_table(table_id)
            if row is None:
                raise ApiError(404, "unknown_table", f"there is no table {table_id!r}")
            status, record = row["status"], row["record"]
        else:
            status, record = table.status, table.record
        if status != "finished" or record is None:
            raise ApiError(409, "not_finished", "the record is published when the match is "
                           "over (it holds every hand)")
        return dict(record)

    def history(self, player: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for row in self.db.history(player["id"]):
            seat = next(s["seat"] for s in row["seats"] if s["player_id"] == player["id"])
            result = row["result"] or {}
            out.append({
                "table": row["id"], "variant": row["variant"], "options": row["options"],
                "seat": seat, "players": [s["name"] for s in row["seats"]],
                "totals": result.get("totals"), "winner": result.get("winner"),
                "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
                "record": row["record"],
            })
        return out


def _bot_move(spec: str, seed: int, view: Any) -> tuple[Any, BaseException | None]:
    """The bot's legal action for ``view`` (run in a worker thread) and, when the bot failed
    (raised, or chose an illegal action), the failure: then the heuristic bot chose, or the
    first legal action, so the table always goes on."""
    legal = {a.token() for a in view.legal}
    failure: BaseException | None = None
    try:
        action = make_bot(spec, seed=seed).act(view)
        if action.token() in legal:
            return action, None
        failure = ValueError(f"the bot chose {action.token()!r}, which is not legal")
    except Exception as exc:
        failure = exc
    try:
        action = HeuristicBot(seed).act(view)
        if action.token() in legal:
            return action, failure
    except Exception:
        pass
    return view.legal[0], failure


def _codes(text: str) -> list[int]:
    from ..engine.cards import Card

    return [int(c) for c in Card.parse(text)]

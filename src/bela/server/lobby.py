"""The lobby: the server's tables, from creation to the end of their match.

It lists tables, creates them, seats players and bots while a table is open, starts it
(from then on the table's :class:`~bela.server.actor.TableActor` owns the match and the
lobby routes every change to it), and answers the lookups of summaries, records and
history.  Refusals are the domain errors of :mod:`bela.server.errors`.

A single server process rebuilds every open or running table from the database on start
(:meth:`Store.rebuild`, :meth:`Lobby.resume_all`) and resumes the running ones, so a server
killed at any point goes on where the last committed event left it.  Several processes on
one Redis (:mod:`bela.server.cluster`) each keep the tables whose lease they hold: a table
is taken over with :meth:`Lobby.adopt` and let go with :meth:`Lobby.evict`; the hooks
``on_change``, ``on_drop`` and ``on_conflict`` tell the cluster what the lobby did.

Only a table's creator fills its seats with bots, starts it and closes it; a private table's
seats are taken with its invite code.  A periodic :meth:`Lobby.sweep` closes the open tables
nobody sat at or left for ``open_table_ttl`` and the running all-bot tables nobody watched
for ``unwatched_bot_table_ttl``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..bots import BOTS, make_bot
from ..bots.levels import LEVELS, level_elo
from ..engine import BelaError, Match, parse_action
from ..engine.cards import Card
from ..engine.variants import VARIANTS
from .actor import Act, Begin, Join, Leave, Reply, TableActor, inactive_refusal
from .botpool import BotPool
from .errors import Conflict, Forbidden, InvalidInput, NotFound
from .hub import Conn, Hub
from .logs import TableLog
from .metrics import Metrics
from .model import Seat, ServerConfig, Table, TableStatus
from .offload import Offload, json_bytes
from .stopping import STEP_LIMIT, within
from .store import BrokenLog, Store

log = logging.getLogger("bela.server")

ACTIVE = (TableStatus.OPEN, TableStatus.RUNNING)
ENDED = (TableStatus.FINISHED, TableStatus.CLOSED)
MAX_PAGES = 64  # cached pages of the lobby list between two rebuilds
ENDED_CACHE = 16  # finished or closed tables kept in memory after a lookup (most recent)
PLAY_ON_BOT = "heuristic"  # the bots of a table that goes on from a record's position


class Lobby:
    """All tables of one server process (used from its event loop only)."""

    def __init__(self, store: Store, hub: Hub, config: ServerConfig,
                 bots: BotPool | None = None) -> None:
        self.store = store
        self.hub = hub
        self.config = config
        self.bots = bots  # where strong bots think (None: in threads)
        self.metrics: Metrics = store.metrics
        self.metrics.watch(lambda: len(self.actors), lambda: sum(
            1 for t in self.tables.values() if t.status == TableStatus.OPEN))
        # what the lobby did, for the cluster: a table's summary changed, a table left
        # memory, a table's log was written by another process (no-ops for one process)
        self.on_change: Callable[[Table], None] = lambda table: None
        self.on_drop: Callable[[Table], None] = lambda table: None
        self.on_conflict: Callable[[Table], None] = self._reload
        self.tables: dict[str, Table] = {}
        self.actors: dict[str, TableActor] = {}  # of tables started and still in memory
        self.broken: dict[str, str] = {}  # tables whose log no longer replays: id -> reason
        # ended tables loaded from the database for a lookup, least recently used first
        self.ended: OrderedDict[str, Table] = OrderedDict()
        self._bots: list[str] | None = None
        self._listed: list[Table] | None = None  # the lobby list, newest first (None: stale)
        self._listed_at = 0.0  # time.monotonic() of its last rebuild
        self._pages: dict[tuple[int, int], bytes] = {}  # (offset, limit) -> its JSON
        self.listing_builds = 0  # rebuilds of the lobby list so far
        self._tasks: set[asyncio.Task[None]] = set()  # reloads under way

    # -- bots that can run -------------------------------------------------------------------
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

    def available_levels(self) -> list[dict[str, Any]]:
        """The levels for people (:mod:`bela.bots.levels`) this server can run, weakest
        first: each one's ``name``, bot ``spec`` and measured ``elo`` over ``beginner`` per
        variant (only the variants measured: ``{}`` until the arena has)."""
        bots = self.available_bots()
        measured = {v: level_elo(v) for v in VARIANTS}
        return [{"name": name, "spec": spec,
                 "elo": {v: elo[name] for v, elo in measured.items() if name in elo}}
                for name, spec in LEVELS.items() if name in bots]

    # -- start and stop ----------------------------------------------------------------------
    async def resume_all(self) -> None:
        """Rebuild every open or running table from the database and resume it (a single
        server process, at its start)."""
        for row in self.store.db.tables.load_active():
            self.adopt(row)

    def adopt(self, row: dict[str, Any]) -> Table | None:
        """Keep and run the table of a stored row from its last stored event: an open table
        waits for its players, a running one's actor resumes it.  ``None`` (noted in
        ``broken``) when its log does not replay."""
        try:
            table = self.store.rebuild(row)
        except BrokenLog as exc:
            TableLog(log, row["id"]).error("table %s cannot be replayed: %s", row["id"], exc)
            self.broken[row["id"]] = str(exc)
            return None
        self.tables[table.id] = table
        self._listed = None
        if table.status == TableStatus.RUNNING:
            table.watched_at = time.time()
            self._spawn(table).post(Begin())
        return table

    async def evict(self, table_id: str) -> None:
        """Let a table go without changing it (another process runs it now, or it is
        reloaded): its actor stops, its connections are closed with
        :data:`~bela.server.hub.RECONNECT` (their clients connect again, to whichever
        process runs it)."""
        table = self.tables.pop(table_id, None)
        actor = self.actors.pop(table_id, None)
        if actor is not None:
            await actor.stop()
        if table is not None:
            self.hub.forget(table)
        self._listed = None

    def _reload(self, table: Table) -> None:
        """A single process's answer to a log written by another process on its database:
        the table is read again from the database (the log is the truth)."""
        async def reload() -> None:
            await self.evict(table.id)
            row = self.store.db.tables.load_table(table.id, with_log=True)
            if row is not None and row["status"] in ACTIVE:
                self.adopt(row)

        task = asyncio.get_running_loop().create_task(reload())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def shutdown(self) -> None:
        """Stop every table here (at most :data:`~.stopping.STEP_LIMIT` seconds, all
        together) and close the connections."""
        stops = [actor.stop() for actor in self.actors.values()]
        if stops:
            await within(asyncio.gather(*stops), STEP_LIMIT, "the tables' actors")
        self.hub.close_all()

    def _spawn(self, table: Table) -> TableActor:
        actor = TableActor(table, self.store, self.hub, self.config, on_idle=self._drop,
                           on_conflict=lambda t: self.on_conflict(t), metrics=self.metrics,
                           bots=self.bots)
        self.actors[table.id] = actor
        actor.start()
        return actor

    def _drop(self, table: Table) -> None:
        """Forget a finished or closed table nobody watches (it is in the database: loaded
        again on demand)."""
        self.tables.pop(table.id, None)
        self.actors.pop(table.id, None)
        self.on_drop(table)

    # -- lookups -----------------------------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """A table in memory, or an ended one loaded from the database; of those only the
        ``ENDED_CACHE`` used last stay in memory."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        table = self.ended.get(table_id)
        if table is not None:
            self.ended.move_to_end(table_id)
            return table
        if not isinstance(table_id, str) or len(table_id) > 32 or table_id in self.broken:
            return None
        row = self.store.db.tables.load_table(table_id, with_log=True)
        if row is None or row["status"] not in ENDED:
            return None
        try:
            table = self.store.rebuild(row)
        except BrokenLog as exc:
            self.broken[table_id] = str(exc)
            return None
        self.ended[table.id] = table
        if len(self.ended) > ENDED_CACHE:
            self.ended.popitem(last=False)
        return table

    def require(self, table_id: str) -> Table:
        table = self.get(table_id)
        if table is None:
            raise NotFound("unknown_table", f"there is no table {table_id!r}")
        return table

    def summary(self, table: Table, viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        """The table summary, with ``private``; for the creator of a private table also its
        ``invite_code`` and an ``invite`` link that carries it."""
        out = self.hub.summary(table)
        out["private"] = table.private
        if table.private and viewer is not None and viewer["id"] == table.owner_id:
            out["invite_code"] = table.invite_code
            out["invite"] = f"/?table={table.id}&code={table.invite_code}"
        return out

    def listing(self, offset: int, limit: int) -> tuple[bytes, int]:
        """A page of the lobby list as JSON (the summaries of the open and running tables
        that are not private, newest first) and the length of the whole list.

        The list is rebuilt when the lobby changed it or after ``listing_ttl`` seconds (the
        running tables' moves and spectators); a page is serialized once per rebuild, so a
        poll that finds nothing new costs a lookup."""
        now = time.monotonic()
        if self._listed is None or now - self._listed_at >= self.config.listing_ttl:
            self._listed = [t for t in reversed(self.tables.values())  # in creation order
                            if t.status in ACTIVE and not t.private]
            self._listed_at = now
            self._pages.clear()
            self.listing_builds += 1
        page = self._pages.get((offset, limit))
        if page is None:
            if len(self._pages) >= MAX_PAGES:
                self._pages.clear()
            page = json.dumps([self.summary(t) for t in self._listed[offset:offset + limit]],
                              separators=(",", ":"), ensure_ascii=False).encode()
            self._pages[(offset, limit)] = page
        return page, len(self._listed)

    def _changed(self, table: Table) -> None:
        """A change the lobby made to a table: its clients hear of it, the lobby list is
        rebuilt at the next poll."""
        self.hub.broadcast_table(table)
        self._listed = None
        self.on_change(table)

    def record(self, table_id: str, viewer: dict[str, Any] | None = None) -> dict[str, Any]:
        """The record of a finished match (it holds every hand: not before the end), read
        from the database when the table is not in memory (and not kept there).  A private
        table's record is for its creator and its players only."""
        table = self.tables.get(table_id) or self.ended.get(table_id)
        row = (self.store.db.tables.load_table(table_id)
               if table is None and len(table_id) <= 32 else None)
        return self._published(table_id, viewer, table, row)

    async def record_json(self, table_id: str, viewer: dict[str, Any] | None,
                          offload: Offload) -> bytes:
        """:meth:`record` as its JSON, read and written in ``offload``'s threads (a long
        match's record is megabytes: not on the event loop)."""
        table = self.tables.get(table_id) or self.ended.get(table_id)
        row = (await offload.run(self.store.db.tables.load_table, table_id)
               if table is None and len(table_id) <= 32 else None)
        return await offload.run(json_bytes, self._published(table_id, viewer, table, row))

    def _published(self, table_id: str, viewer: dict[str, Any] | None, table: Table | None,
                   row: dict[str, Any] | None) -> dict[str, Any]:
        """The record of the table in memory or of its stored row, if ``viewer`` may have
        it."""
        if table is not None:
            status, record, private = table.status, table.record, table.private
            players = {table.owner_id, *(s.player_id for s in table.seats)}
        else:
            if row is None:
                raise NotFound("unknown_table", f"there is no table {table_id!r}")
            status, record, private = row["status"], row["record"], bool(row["private"])
            players = {row["owner_id"], *(s["player_id"] for s in row["seats"])}
        if private and (viewer is None or viewer["id"] not in players):
            raise Forbidden("private_record", "the table is private: its record is for its "
                            "players (send the token of one)")
        if status == TableStatus.CLOSED:
            raise Conflict("closed", "the table was closed before its match was over: "
                           "it has no record")
        if status != TableStatus.FINISHED or record is None:
            raise Conflict("not_finished", "the record is published when the match is over "
                           "(it holds every hand)")
        return dict(record)

    def history(self, player: dict[str, Any], limit: int = 100, offset: int = 0
                ) -> tuple[list[dict[str, Any]], int]:
        """A page of the player's finished matches, newest first, as summaries whose
        ``record`` is the address of the match's record, and how many there are in all
        (database reads only: it may run off the event loop)."""
        rows, total = self.store.db.tables.history(player["id"], limit, offset)
        out = []
        for row in rows:
            result = row["result"] or {}
            out.append({
                "table": row["id"], "variant": row["variant"], "options": row["options"],
                "seat": row["seat"], "players": row["players"],
                "totals": result.get("totals"), "winner": result.get("winner"),
                "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
                "play_on": row["origin"] == "analysis",
                "record": f"/api/tables/{row['id']}/record",
            })
        return out, total

    # -- open tables -------------------------------------------------------------------------
    def create(self, player: dict[str, Any], variant: str, options: dict[str, Any], bot: str,
               seat: int | None, seed: int | None = None, private: bool = False,
               turn_clock: int | None = None, rated: bool = False) -> Table:
        """A new open table of ``player``, who sits in ``seat`` (``None``: nowhere); a
        ``private`` one gets an invite code; ``turn_clock``: the seconds a player has per
        turn (``None``: no clock); a ``rated`` one's result moves ratings (not with a given
        ``seed``: its deals are known; a private one or one with a target below
        ``rated_min_target``, by default the variant's, is made unrated: its summary's
        ``rated`` is false).  A guest has at most ``tables_per_guest`` open or
        running tables he created."""
        if variant not in VARIANTS:
            raise InvalidInput("bad_variant", f"unknown variant {variant!r} "
                               f"(known: {', '.join(VARIANTS)})")
        v = VARIANTS[variant]
        try:
            opts = v.make_options(options)
        except BelaError as exc:
            raise InvalidInput("bad_options", str(exc)) from None
        if bot not in BOTS:
            raise InvalidInput("bad_bot", f"unknown bot {bot!r} (known: {', '.join(BOTS)})")
        if bot not in self.available_bots():
            raise InvalidInput("bot_unavailable", f"the bot {bot!r} cannot run on this server "
                               "(its dependencies are not installed); available: "
                               f"{', '.join(self.available_bots())}")
        if seat is not None and not 0 <= seat < v.seats:
            raise InvalidInput("bad_seat", f"{variant} has seats 0..{v.seats - 1}")
        low, high = self.config.min_turn_clock, self.config.max_turn_clock
        if turn_clock is not None and not low <= turn_clock <= high:
            raise InvalidInput("bad_turn_clock", f"turn_clock is {low} to {high} seconds a "
                               "turn, or null for no clock")
        if seed is not None:
            if not self.config.allow_seed:
                raise Forbidden("seed_not_allowed",
                                "this server does not take a seed for a table")
            if not 0 <= seed < 2 ** 62:
                raise InvalidInput("bad_seed", "seed must be 0 .. 2**62 - 1")
            rated = False  # deals known in advance move no rating
        else:
            seed = secrets.randbits(62)
        # only public tables to the variant's target are rated (rating farming: SECURITY.md)
        shortest = self.config.rated_min_target or v.default_target
        rated = rated and not private and opts.target >= shortest
        limit = self.config.tables_per_guest
        if self.store.db.tables.count_active_tables(player["id"]) >= limit:
            raise Conflict("too_many_tables", f"you have {limit} open or running tables: "
                           "start, finish or close one first")
        table = self._new_table(variant, {k: val for k, val in opts.as_dict().items()
                                          if k in v.options}, seed, bot, player["id"],
                                private=private, turn_clock=turn_clock, rated=rated)
        table.owner_address = player.get("address")
        if seat is not None:
            self.sit(table, player, seat)
        return table

    def _new_table(self, variant: str, options: dict[str, Any], seed: int, bot: str,
                   owner_id: str | None, *, private: bool, turn_clock: int | None,
                   rated: bool, origin: str | None = None) -> Table:
        """A new open table with empty seats, stored and listed."""
        table_id = secrets.token_urlsafe(6)
        while table_id in self.tables or self.store.db.tables.load_table(table_id) is not None:
            table_id = secrets.token_urlsafe(6)
        table = Table(id=table_id, variant=variant, options=options, seed=seed, bot=bot,
                      status=TableStatus.OPEN, owner_id=owner_id,
                      seats=[Seat() for _ in range(VARIANTS[variant].seats)], private=private,
                      invite_code=secrets.token_urlsafe(9) if private else None,
                      created_at=time.time(), active_at=time.time(), turn_clock=turn_clock,
                      rated=rated, origin=origin)
        self.store.create(table)
        self.tables[table_id] = table
        self._listed = None
        self.on_change(table)
        return table

    async def create_match(self, variant: str, players: list[dict[str, Any]],
                           bot: str) -> Table:
        """A rated public table of ``variant`` with the variant's default options, started
        at once (quick play): ``players`` in the first seats, in order, bots of spec ``bot``
        in the others; nobody owns it.  Seats left empty by a refusal of the database
        close the table again."""
        v = VARIANTS[variant]
        if not 0 < len(players) <= v.seats:
            raise InvalidInput("bad_players", f"{variant} seats 1 to {v.seats} players")
        table = self._new_table(variant, {k: val for k, val in v.make_options({}).as_dict()
                                          .items() if k in v.options},
                                secrets.randbits(62), bot, None, private=False,
                                turn_clock=self.config.quick_turn_clock, rated=True)
        try:
            for seat, player in enumerate(players):
                self._set_seat(table, seat, Seat(player_id=player["id"], name=player["name"],
                                                 address=player.get("address")))
            for seat in range(len(players), v.seats):
                self._set_seat(table, seat, Seat(name=f"Bot {seat + 1}", is_bot=True))
            await self._start(table)
        except Exception:
            if table.status == TableStatus.OPEN:
                await self._close(table)
            raise
        return table

    async def play_on(self, player: dict[str, Any], log: dict[str, Any], seat: int) -> Table:
        """A table that goes on from a position of a record (the analysis board's play-on):
        private, unrated, without a turn clock, owned by ``player`` who sits in ``seat``,
        heuristic bots in the other seats.  ``log`` is the position's match log
        (:func:`bela.server.analysis_work.log_at`): its deals and actions are written as the
        table's log, then the stored table is adopted (:meth:`adopt`) and its actor resumes
        it as after a restart.  A refusal of the database closes the table again."""
        variant = log["variant"]
        v = VARIANTS[variant]
        if not 0 <= seat < v.seats:
            raise InvalidInput("bad_seat", f"{variant} has seats 0..{v.seats - 1}")
        if log["first_dealer"] != v.seats - 1:  # a table's first dealer (Store.rebuild)
            raise InvalidInput("bad_record", f"round 0: a table's first round is dealt by "
                               f"seat {v.seats - 1}, not {log['first_dealer']}: this record "
                               "cannot go on at a table")
        limit = self.config.tables_per_guest
        if self.store.db.tables.count_active_tables(player["id"]) >= limit:
            raise Conflict("too_many_tables", f"you have {limit} open or running tables: "
                           "start, finish or close one first")
        table = self._new_table(variant, dict(log["options"]), secrets.randbits(62),
                                PLAY_ON_BOT, player["id"], private=True, turn_clock=None,
                                rated=False, origin="analysis")
        try:
            for s in range(v.seats):
                self._set_seat(table, s, Seat(player_id=player["id"], name=player["name"])
                               if s == seat else Seat(name=f"Bot {s + 1}", is_bot=True))
            self._write_log(table, log)
            table.status = TableStatus.RUNNING
            self.store.save_status(table)
        except Exception:
            table.status = TableStatus.OPEN
            await self._close(table)
            raise
        row = self.store.db.tables.load_table(table.id, with_log=True)
        assert row is not None
        adopted = self.adopt(row)
        if adopted is None:  # cannot be: the log was applied as it was written
            raise Conflict("bad_log", f"table {table.id} could not be resumed from its log")
        self._changed(adopted)
        return adopted

    def _write_log(self, table: Table, log: dict[str, Any]) -> None:
        """Write a match log's deals and actions as the events of a new table, in one
        transaction, each applied to the table's match first (an illegal one is refused
        before anything is written)."""
        m = table.match = Match(table.variant, table.options, seed=table.seed)
        seats = []
        for rd in log["rounds"]:
            hands = [Card.parse(h) for h in rd["hands"]]
            extra = {k: Card.parse(c) for k, c in rd["extra"].items()}
            m.deal(hands, extra, dealer=rd["dealer"])
            for _seat, token in rd["actions"]:
                m.apply(parse_action(token))
            seats.append([seat for seat, _token in rd["actions"]])
        self.store.add_log(table, m, seats)
        table.seq += sum(1 + len(rd["actions"]) for rd in log["rounds"])

    def sit(self, table: Table, player: dict[str, Any], seat: int,
            code: str | None = None) -> None:
        """Seat ``player`` (moving from another seat frees that one); at a private table a
        newcomer gives the invite ``code``."""
        self._require_open(table)
        if not 0 <= seat < len(table.seats):
            raise InvalidInput("bad_seat", f"this table has seats 0..{len(table.seats) - 1}")
        current = table.seat_of(player["id"])
        if current is None and not self.admits(table, player["id"], code):
            raise Forbidden("invite_required", "this table is private: sit with the invite "
                            "code its creator shares")
        if current == seat:
            return
        if not table.seats[seat].free:
            raise Conflict("seat_taken", f"seat {seat} is taken")
        table.active_at = time.time()
        if current is not None:
            self._clear_seat(table, current)
        self._set_seat(table, seat, Seat(player_id=player["id"], name=player["name"],
                                         address=player.get("address")))
        for conn in self.hub.conns(table):  # a watching connection of this player takes it
            if conn.player_id == player["id"]:
                conn.seat = seat
        self._changed(table)

    def leave(self, table: Table, player: dict[str, Any]) -> None:
        self._require_open(table)
        seat = table.seat_of(player["id"])
        if seat is None:
            raise Conflict("not_seated", "you are not seated at this table")
        table.active_at = time.time()
        self._clear_seat(table, seat)
        self._changed(table)

    def fill_bots(self, table: Table, player: dict[str, Any], which: list[int] | None) -> None:
        """Bots in the seats ``which`` (``None``: every free seat); the creator's call."""
        self._require_open(table)
        self._require_owner(table, player)
        targets = range(len(table.seats)) if which is None else which
        for seat in targets:
            if not 0 <= seat < len(table.seats):
                raise InvalidInput("bad_seat",
                                   f"this table has seats 0..{len(table.seats) - 1}")
            if which is not None and not table.seats[seat].free:
                raise Conflict("seat_taken", f"seat {seat} is taken")
        table.active_at = time.time()
        try:
            for seat in targets:
                if table.seats[seat].free:
                    self._set_seat(table, seat, Seat(name=f"Bot {seat + 1}", is_bot=True))
        finally:  # the seats stored before a refusal of the database stay
            self._changed(table)

    async def start(self, table: Table, player: dict[str, Any]) -> None:
        """Start the match (the creator's call): its actor takes the table over and deals
        the first round."""
        self._require_open(table)
        self._require_owner(table, player)
        self._require_strong_quota(table, player)
        await self._start(table)

    def strong(self, table: Table) -> bool:
        """Does a bot of ``table`` think in the bot pool (a strong bot, shared by all)?"""
        return (self.bots is not None and self.bots.pooled(table.bot)
                and any(s.is_bot for s in table.seats))

    def _require_strong_quota(self, table: Table, player: dict[str, Any]) -> None:
        """At most ``strong_bot_tables`` running tables with strong bots per player and per
        address (the bot pool is shared: SECURITY.md, "Fair shares and ratings")."""
        limit = self.config.strong_bot_tables
        if not limit or not self.strong(table):
            return
        address = player.get("address")
        mine = [t for t in self.tables.values()
                if t.status == TableStatus.RUNNING and t is not table and self.strong(t)
                and (t.owner_id == player["id"] or (address is not None and (
                    t.owner_address == address
                    or any(s.address == address for s in t.seats))))]
        if len(mine) >= limit:
            raise Conflict("too_many_bot_tables", f"you (or your address) run {limit} tables "
                           f"with strong bots: finish or close one first, or play the "
                           f"heuristic bot")

    async def _start(self, table: Table) -> None:
        free = [i for i, s in enumerate(table.seats) if s.free]
        if free:
            raise Conflict("seats_free", f"seats {', '.join(map(str, free))} are empty: "
                           "wait for players or fill them with bots")
        table.status = TableStatus.RUNNING
        try:
            self.store.save_status(table)
        except Exception:  # the database refused: the table stays open
            table.status = TableStatus.OPEN
            raise
        table.match = Match(table.variant, table.options, seed=table.seed)
        table.watched_at = time.time()
        actor = self._spawn(table)
        self._changed(table)
        await actor.ask(Begin())

    async def close(self, table: Table, player: dict[str, Any]) -> None:
        """The creator closes his open table, or stops his running table of bots only."""
        self._require_owner(table, player)
        if table.status not in ACTIVE:
            raise Conflict("not_open", f"table {table.id} is over")
        if table.status == TableStatus.RUNNING and not all(s.is_bot for s in table.seats):
            raise Conflict("has_players", "a running table with players ends with its match")
        await self._close(table)

    async def _close(self, table: Table) -> None:
        """Status ``closed``, stored first (raises, changing nothing, when the database
        refuses); a running table's actor stops; the table's clients are told."""
        status, table.status = table.status, TableStatus.CLOSED
        try:
            self.store.save_status(table)
        except Exception:
            table.status = status
            raise
        actor = self.actors.pop(table.id, None)
        if actor is not None:
            await actor.stop()
            for conn in self.hub.conns(table):  # gone, but the actor stopped before it heard
                if conn.closed:
                    self.hub.remove(table, conn)
        self._changed(table)
        if not self.hub.conns(table):
            self._drop(table)

    # -- the sweep ---------------------------------------------------------------------------
    def _stale(self, table: Table, now: float) -> bool:
        """Whether the sweep closes ``table`` at ``now``: open and idle, or running with bots
        only and nobody watching."""
        if table.status == TableStatus.OPEN:
            return now - table.active_at >= self.config.open_table_ttl
        return (table.status == TableStatus.RUNNING and all(s.is_bot for s in table.seats)
                and all(c.closed for c in self.hub.conns(table))
                and now - table.watched_at >= self.config.unwatched_bot_table_ttl)

    async def sweep(self, now: float | None = None) -> list[str]:
        """Close the idle open tables and the unwatched all-bot tables (at ``now``, default
        the current ``time.time()``): the ids of the tables closed."""
        at = time.time() if now is None else now
        closed = []
        for table in [t for t in self.tables.values() if self._stale(t, at)]:
            try:
                await self._close(table)
            except Exception:  # the database refused: the next sweep tries again
                log.exception("table %s could not be closed", table.id)
                continue
            closed.append(table.id)
        if closed:
            log.info("closed %d idle tables", len(closed))
        return closed

    async def run_sweeps(self) -> None:
        """Sweep every ``sweep_every`` seconds (the server's lifetime)."""
        while True:
            await asyncio.sleep(self.config.sweep_every)
            await self.sweep()

    def _require_open(self, table: Table) -> None:
        if table.status != TableStatus.OPEN:
            raise Conflict("not_open", f"table {table.id} has already started"
                           if table.status == TableStatus.RUNNING else f"table {table.id} is over")

    def _require_owner(self, table: Table, player: dict[str, Any]) -> None:
        if player["id"] != table.owner_id:
            raise Forbidden("not_owner", "only the table's creator may do that")

    def admit(self, table: Table, conn: Conn, code: str | None) -> None:
        """Let ``conn`` (its ``player_id`` set) watch ``table``, in its player's seat if he
        has one; raises :class:`Forbidden` at a private table without the invite code."""
        if not self.admits(table, conn.player_id, code):
            raise Forbidden("invite_required", "this table is private: watch it with its "
                            "invite code")
        conn.seat = table.seat_of(conn.player_id)

    def admits(self, table: Table, player_id: str | None, code: str | None) -> bool:
        """Whether ``table`` lets this player (``None``: anonymous) with this invite ``code``
        watch it and take a seat: anyone at a public table; at a private one its creator,
        its seated players and whoever has the code."""
        if not table.private or (player_id is not None and (
                player_id == table.owner_id or table.seat_of(player_id) is not None)):
            return True
        return (code is not None and table.invite_code is not None
                and secrets.compare_digest(code.encode(), table.invite_code.encode()))

    def _clear_seat(self, table: Table, seat: int) -> None:
        self._set_seat(table, seat, Seat())
        for conn in self.hub.conns(table):
            if conn.seat == seat:
                conn.seat = None

    def _set_seat(self, table: Table, seat: int, new: Seat) -> None:
        """Put ``new`` in ``seat``, stored first (raises, changing nothing, when the database
        refuses)."""
        old, table.seats[seat] = table.seats[seat], new
        try:
            self.store.save_seat(table, seat)
        except Exception:
            table.seats[seat] = old
            raise

    # -- connections -------------------------------------------------------------------------
    async def connect(self, table: Table, conn: Conn) -> None:
        """A connection opens: it is welcomed (a player's return stops the bot playing for
        him)."""
        table.watched_at = time.time()
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Join(conn))
            return
        self.hub.add(table, conn)
        self.hub.welcome(table, conn)

    async def disconnect(self, table: Table, conn: Conn) -> None:
        """A connection closes (an absent player's grace period begins)."""
        conn.close()
        table.watched_at = time.time()
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Leave(conn))
            return
        self.hub.remove(table, conn)
        if table.status in ENDED and not self.hub.conns(table):
            self._drop(table)
            return
        self.hub.announce(table)

    async def act(self, table: Table, conn: Conn, token: str, seq: int | None) -> Reply:
        """A client's action: ``None`` when applied, else the error message for it."""
        actor = self.actors.get(table.id)
        if actor is not None:
            return await actor.ask(Act(conn, token, seq))
        return inactive_refusal(table, conn)

    def sync(self, table: Table, conn: Conn) -> None:
        """The current state and summary to one connection again."""
        self.hub.send_state(table, conn)
        conn.send({"type": "table", "table": self.summary(table)})

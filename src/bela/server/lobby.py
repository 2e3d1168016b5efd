"""The lobby: the server's tables, from creation to the end of their match.

It lists tables, creates them, seats players and bots while a table is open, starts it
(from then on the table's :class:`~bela.server.actor.TableActor` owns the match and the
lobby routes every change to it), and answers the lookups of summaries, records and
history.  Refusals are the domain errors of :mod:`bela.server.errors`.

On start the lobby rebuilds every open or running table from the database
(:meth:`Store.rebuild`) and resumes the running ones, so a server killed at any point goes
on where the last committed event left it.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from ..bots import BOTS, make_bot
from ..engine import BelaError, Match
from ..engine.variants import VARIANTS
from .actor import Act, Begin, Join, Leave, Reply, TableActor, inactive_refusal
from .errors import Conflict, Forbidden, InvalidInput, NotFound
from .hub import Conn, Hub
from .model import Seat, ServerConfig, Table, TableStatus
from .store import BrokenLog, Store

log = logging.getLogger("bela.server")


class Lobby:
    """All tables of one server process (used from its event loop only)."""

    def __init__(self, store: Store, hub: Hub, config: ServerConfig) -> None:
        self.store = store
        self.hub = hub
        self.config = config
        self.tables: dict[str, Table] = {}
        self.actors: dict[str, TableActor] = {}  # of tables started and still in memory
        self.broken: dict[str, str] = {}  # tables whose log no longer replays: id -> reason
        self._bots: list[str] | None = None

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

    # -- start and stop ----------------------------------------------------------------------
    async def resume_all(self) -> None:
        """Rebuild every open or running table from the database and resume it."""
        for row in self.store.active_rows():
            try:
                table = self.store.rebuild(row)
            except BrokenLog as exc:
                log.error("table %s cannot be replayed: %s", row["id"], exc)
                self.broken[row["id"]] = str(exc)
                continue
            self.tables[table.id] = table
            if table.status == TableStatus.RUNNING:
                self._spawn(table).post(Begin())

    async def shutdown(self) -> None:
        for actor in list(self.actors.values()):
            await actor.stop()
        self.hub.close_all()

    def _spawn(self, table: Table) -> TableActor:
        actor = TableActor(table, self.store, self.hub, self.config, on_idle=self._drop)
        self.actors[table.id] = actor
        actor.start()
        return actor

    def _drop(self, table: Table) -> None:
        """Forget a finished table nobody watches (it is in the database: loaded again on
        demand)."""
        self.tables.pop(table.id, None)
        self.actors.pop(table.id, None)

    # -- lookups -----------------------------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """A table in memory, or a finished one loaded from the database."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not isinstance(table_id, str) or len(table_id) > 32 or table_id in self.broken:
            return None
        row = self.store.load_row(table_id, with_log=True)
        if row is None or row["status"] != TableStatus.FINISHED:
            return None
        try:
            table = self.store.rebuild(row)
        except BrokenLog as exc:
            self.broken[table_id] = str(exc)
            return None
        self.tables[table.id] = table
        return table

    def require(self, table_id: str) -> Table:
        table = self.get(table_id)
        if table is None:
            raise NotFound("unknown_table", f"there is no table {table_id!r}")
        return table

    def summary(self, table: Table) -> dict[str, Any]:
        return self.hub.summary(table)

    def listing(self) -> list[dict[str, Any]]:
        """The summaries of the open and running tables."""
        return [self.summary(t) for t in self.tables.values()
                if t.status in (TableStatus.OPEN, TableStatus.RUNNING)]

    def record(self, table_id: str) -> dict[str, Any]:
        """The record of a finished match (it holds every hand: not before the end)."""
        table = self.tables.get(table_id)
        if table is None:
            row = self.store.load_row(table_id)
            if row is None:
                raise NotFound("unknown_table", f"there is no table {table_id!r}")
            status, record = row["status"], row["record"]
        else:
            status, record = table.status, table.record
        if status != TableStatus.FINISHED or record is None:
            raise Conflict("not_finished", "the record is published when the match is over "
                           "(it holds every hand)")
        return dict(record)

    def history(self, player: dict[str, Any]) -> list[dict[str, Any]]:
        """The player's finished matches, newest first."""
        out = []
        for row in self.store.history(player["id"]):
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

    # -- open tables -------------------------------------------------------------------------
    def create(self, player: dict[str, Any], variant: str, options: dict[str, Any], bot: str,
               seat: int | None, seed: int | None = None) -> Table:
        """A new open table of ``player``, who sits in ``seat`` (``None``: nowhere)."""
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
        if seed is not None:
            if not self.config.allow_seed:
                raise Forbidden("seed_not_allowed",
                                "this server does not take a seed for a table")
            if not 0 <= seed < 2 ** 62:
                raise InvalidInput("bad_seed", "seed must be 0 .. 2**62 - 1")
        else:
            seed = secrets.randbits(62)
        table_id = secrets.token_urlsafe(6)
        while table_id in self.tables or self.store.exists(table_id):
            table_id = secrets.token_urlsafe(6)
        table = Table(id=table_id, variant=variant,
                      options={k: val for k, val in opts.as_dict().items() if k in v.options},
                      seed=seed, bot=bot, status=TableStatus.OPEN, owner_id=player["id"],
                      seats=[Seat() for _ in range(v.seats)])
        self.store.create(table)
        self.tables[table_id] = table
        if seat is not None:
            self.sit(table, player, seat)
        return table

    def sit(self, table: Table, player: dict[str, Any], seat: int) -> None:
        """Seat ``player`` (moving from another seat frees that one)."""
        self._require_open(table)
        if not 0 <= seat < len(table.seats):
            raise InvalidInput("bad_seat", f"this table has seats 0..{len(table.seats) - 1}")
        current = table.seat_of(player["id"])
        if current == seat:
            return
        if not table.seats[seat].free:
            raise Conflict("seat_taken", f"seat {seat} is taken")
        if current is not None:
            self._clear_seat(table, current)
        table.seats[seat] = Seat(player_id=player["id"], name=player["name"])
        self.store.save_seat(table, seat)
        for conn in self.hub.conns(table):  # a watching connection of this player takes it
            if conn.player_id == player["id"]:
                conn.seat = seat
        self.hub.broadcast_table(table)

    def leave(self, table: Table, player: dict[str, Any]) -> None:
        self._require_open(table)
        seat = table.seat_of(player["id"])
        if seat is None:
            raise Conflict("not_seated", "you are not seated at this table")
        self._clear_seat(table, seat)
        self.hub.broadcast_table(table)

    def fill_bots(self, table: Table, player: dict[str, Any], which: list[int] | None) -> None:
        """Bots in the seats ``which`` (``None``: every free seat)."""
        self._require_open(table)
        self._require_member(table, player)
        targets = range(len(table.seats)) if which is None else which
        for seat in targets:
            if not 0 <= seat < len(table.seats):
                raise InvalidInput("bad_seat",
                                   f"this table has seats 0..{len(table.seats) - 1}")
            if which is not None and not table.seats[seat].free:
                raise Conflict("seat_taken", f"seat {seat} is taken")
        for seat in targets:
            if table.seats[seat].free:
                table.seats[seat] = Seat(name=f"Bot {seat + 1}", is_bot=True)
                self.store.save_seat(table, seat)
        self.hub.broadcast_table(table)

    async def start(self, table: Table, player: dict[str, Any]) -> None:
        """Start the match: its actor takes the table over and deals the first round."""
        self._require_open(table)
        self._require_member(table, player)
        free = [i for i, s in enumerate(table.seats) if s.free]
        if free:
            raise Conflict("seats_free", f"seats {', '.join(map(str, free))} are empty: "
                           "wait for players or fill them with bots")
        table.status = TableStatus.RUNNING
        self.store.save_status(table)
        table.match = Match(table.variant, table.options, seed=table.seed)
        actor = self._spawn(table)
        self.hub.broadcast_table(table)
        await actor.ask(Begin())

    def _require_open(self, table: Table) -> None:
        if table.status != TableStatus.OPEN:
            raise Conflict("not_open", f"table {table.id} has already started"
                           if table.status == TableStatus.RUNNING else f"table {table.id} is over")

    def _require_member(self, table: Table, player: dict[str, Any]) -> None:
        if player["id"] != table.owner_id and table.seat_of(player["id"]) is None:
            raise Forbidden("not_at_table", "only the table's creator or a seated player "
                            "may do that")

    def _clear_seat(self, table: Table, seat: int) -> None:
        for conn in self.hub.conns(table):
            if conn.seat == seat:
                conn.seat = None
        table.seats[seat] = Seat()
        self.store.save_seat(table, seat)

    # -- connections -------------------------------------------------------------------------
    async def connect(self, table: Table, conn: Conn) -> None:
        """A connection opens: it is welcomed (a player's return stops the bot playing for
        him)."""
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Join(conn))
            return
        self.hub.add(table, conn)
        self.hub.welcome(table, conn)

    async def disconnect(self, table: Table, conn: Conn) -> None:
        """A connection closes (an absent player's grace period begins)."""
        conn.close()
        actor = self.actors.get(table.id)
        if actor is not None:
            await actor.ask(Leave(conn))
            return
        self.hub.remove(table, conn)
        if table.status == TableStatus.FINISHED and not self.hub.conns(table):
            self._drop(table)
            return
        self.hub.broadcast_table(table)

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

"""New tables: a player's open table, a quick-play match started at once, a table that
goes on from a record's position (the analysis board's play-on)."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from ..bots import BOTS
from ..engine import BelaError, Match, parse_action
from ..engine.cards import Card
from ..engine.variants import VARIANTS
from .errors import Conflict, Forbidden, InvalidInput
from .model import Seat, Table, TableStatus
from .seating import Seating

if TYPE_CHECKING:
    from .lobby import Lobby

PLAY_ON_BOT = "heuristic"  # the bots of a table that goes on from a record's position


class TableFactory:
    """Make the ``lobby``'s new tables, stored and listed; ``seating`` seats their players."""

    def __init__(self, lobby: Lobby, seating: Seating) -> None:
        self.lobby = lobby
        self.seating = seating

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
        if bot not in self.lobby.catalog.available_bots():
            raise InvalidInput("bot_unavailable", f"the bot {bot!r} cannot run on this server "
                               "(its dependencies are not installed); available: "
                               f"{', '.join(self.lobby.catalog.available_bots())}")
        if seat is not None and not 0 <= seat < v.seats:
            raise InvalidInput("bad_seat", f"{variant} has seats 0..{v.seats - 1}")
        low, high = self.lobby.config.min_turn_clock, self.lobby.config.max_turn_clock
        if turn_clock is not None and not low <= turn_clock <= high:
            raise InvalidInput("bad_turn_clock", f"turn_clock is {low} to {high} seconds a "
                               "turn, or null for no clock")
        if seed is not None:
            if not self.lobby.config.allow_seed:
                raise Forbidden("seed_not_allowed",
                                "this server does not take a seed for a table")
            if not 0 <= seed < 2 ** 62:
                raise InvalidInput("bad_seed", "seed must be 0 .. 2**62 - 1")
            rated = False  # deals known in advance move no rating
        else:
            seed = secrets.randbits(62)
        # only public tables to the variant's target are rated (rating farming: SECURITY.md)
        shortest = self.lobby.config.rated_min_target or v.default_target
        rated = rated and not private and opts.target >= shortest
        limit = self.lobby.config.tables_per_guest
        if self.lobby.store.db.tables.count_active_tables(player["id"]) >= limit:
            raise Conflict("too_many_tables", f"you have {limit} open or running tables: "
                           "start, finish or close one first")
        table = self._new_table(variant, {k: val for k, val in opts.as_dict().items()
                                          if k in v.options}, seed, bot, player["id"],
                                private=private, turn_clock=turn_clock, rated=rated)
        table.owner_address = player.get("address")
        if seat is not None:
            self.seating.sit(table, player, seat)
        return table

    def _new_table(self, variant: str, options: dict[str, Any], seed: int, bot: str,
                   owner_id: str | None, *, private: bool, turn_clock: int | None,
                   rated: bool, origin: str | None = None, table_id: str | None = None,
                   boards: tuple[int, ...] = ()) -> Table:
        """A new open table with empty seats, stored and listed (``table_id``: its id, else
        a new one)."""
        rows = self.lobby.store.db.tables
        if table_id is None:
            table_id = secrets.token_urlsafe(6)
            while table_id in self.lobby.tables or rows.load_table(table_id) is not None:
                table_id = secrets.token_urlsafe(6)
        table = Table(id=table_id, variant=variant, options=options, seed=seed, bot=bot,
                      status=TableStatus.OPEN, owner_id=owner_id,
                      seats=[Seat() for _ in range(VARIANTS[variant].seats)], private=private,
                      invite_code=secrets.token_urlsafe(9) if private else None,
                      created_at=time.time(), active_at=time.time(), turn_clock=turn_clock,
                      rated=rated, origin=origin, boards=boards)
        self.lobby.store.create(table)
        self.lobby.tables[table_id] = table
        self.lobby.listed.stale()
        self.lobby.on_change(table)
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
        seats = [Seat(player_id=p["id"], name=p["name"], address=p.get("address"))
                 for p in players]
        seats += [Seat(name=f"Bot {seat + 1}", is_bot=True)
                  for seat in range(len(players), v.seats)]
        return await self.create_seated(
            variant, {}, seats, bot, seed=secrets.randbits(62),
            turn_clock=self.lobby.config.quick_turn_clock, rated=True)

    async def create_seated(self, variant: str, options: dict[str, Any], seats: list[Seat],
                            bot: str, *, seed: int, turn_clock: int | None, rated: bool,
                            table_id: str | None = None, boards: tuple[int, ...] = ()
                            ) -> Table:
        """A public table of ``variant`` with ``options`` (checked by the variant), its
        ``seats`` given (bots of spec ``bot`` where ``is_bot``), started at once; nobody
        owns it (quick play, a tournament's game: ``table_id`` its id, ``boards`` the
        duplicate boards it deals).  Seats left empty by a refusal of the database close
        the table again."""
        v = VARIANTS[variant]
        opts = {k: val for k, val in v.make_options(options).as_dict().items()
                if k in v.options}
        table = self._new_table(variant, opts, seed, bot, None, private=False,
                                turn_clock=turn_clock, rated=rated, table_id=table_id,
                                boards=boards)
        try:
            for i, seat in enumerate(seats):
                self.seating.set_seat(table, i, seat)
            await self.lobby.start_match(table)
        except Exception:
            if table.status == TableStatus.OPEN:
                await self.lobby.close_table(table)
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
        limit = self.lobby.config.tables_per_guest
        if self.lobby.store.db.tables.count_active_tables(player["id"]) >= limit:
            raise Conflict("too_many_tables", f"you have {limit} open or running tables: "
                           "start, finish or close one first")
        table = self._new_table(variant, dict(log["options"]), secrets.randbits(62),
                                PLAY_ON_BOT, player["id"], private=True, turn_clock=None,
                                rated=False, origin="analysis")
        try:
            for s in range(v.seats):
                self.seating.set_seat(table, s, Seat(player_id=player["id"], name=player["name"])
                               if s == seat else Seat(name=f"Bot {s + 1}", is_bot=True))
            self._write_log(table, log)
            table.status = TableStatus.RUNNING
            self.lobby.store.save_status(table)
        except Exception:
            table.status = TableStatus.OPEN
            await self.lobby.close_table(table)
            raise
        row = self.lobby.store.db.tables.load_table(table.id, with_log=True)
        assert row is not None
        adopted = self.lobby.adopt(row)
        if adopted is None:  # cannot be: the log was applied as it was written
            raise Conflict("bad_log", f"table {table.id} could not be resumed from its log")
        self.lobby.changed(adopted)
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
        self.lobby.store.add_log(table, m, seats)
        table.seq += sum(1 + len(rd["actions"]) for rd in log["rounds"])

"""A tournament's life before and around its rounds: creation, registration (pairs invite
and accept, players seeking a partner), the director's changes to the entries, and the
status changes (close, open, start, pause, resume, end).  Every refusal is a domain error
of :mod:`bela.server.errors` with a code of docs/TOURNAMENTS.md, raised before anything is
written; every status change is a compare-and-set on the status it expects, so two racing
requests change it once.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ...bots.levels import LEVELS
from ...engine import BelaError
from ...engine.variants import VARIANTS
from ...storage import Database
from ...storage.repos import Tournaments
from ...tournament import Format, TournamentError, plan_round
from ..catalog import BotCatalog
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..model import ServerConfig
from ..quickplay import level_ratings
from ..ratings import MU, SIGMA, bot_entry, shown
from .bodies import TournamentIn
from .scorers import real_cards
from .stored import entries_of, settings_of

Row = dict[str, Any]
Player = dict[str, Any]

OPEN = ("registering", "closed")  # before the start
MAX_ENTRIES = 128  # live entries of a tournament
MAX_BOT_ENTRIES = 32  # bot entries of a tournament (their bots think on the server)
ACTIVE = 3  # tournaments a director has that are not over
LIVE = ("invited", "seeking", "registered")  # the entries that hold their players
ENDED = ("finished", "cancelled")


class Director:
    """Creation, registration and the director's actions over the tournaments in ``db``
    (``catalog``: the bots this server runs, whose levels may be entries)."""

    def __init__(self, db: Database, config: ServerConfig, catalog: BotCatalog) -> None:
        self.db = db
        self.rows = db.tournaments
        self.config = config
        self.catalog = catalog

    @property
    def levels(self) -> list[str]:
        """The bot levels this server runs, weakest first."""
        bots = self.catalog.available_bots()
        return [b for b in LEVELS if b in bots]

    # -- lookups ---------------------------------------------------------------------------
    def load(self, tournament_id: str, viewer: Player | None = None,
             code: str | None = None) -> Row:
        """A tournament the viewer may see: a private one with its invite code, or for its
        director and its entries' players (else, as for an unknown one, 404)."""
        row = self.rows.get(tournament_id) if len(tournament_id) <= 32 else None
        if row is not None and row["private"] and not (
                (code is not None and secrets.compare_digest(code, row["invite_code"] or ""))
                or (viewer is not None and (viewer["id"] == row["director_id"]
                                            or self._entry_of(row["id"], viewer["id"])))):
            row = None
        if row is None:
            raise NotFound("unknown_tournament", f"there is no tournament {tournament_id!r}")
        return row

    def directed(self, tournament_id: str, player: Player) -> Row:
        """A tournament its director asks for (403 ``not_director`` for anyone else)."""
        row = self.load(tournament_id, player)
        if row["director_id"] != player["id"]:
            raise Forbidden("not_director", "only the tournament's director may do that")
        return row

    def _entry_of(self, tournament_id: str, player_id: str) -> Row | None:
        """The player's live entry (invited, seeking or registered) in the tournament."""
        for e in self.rows.entries(tournament_id):
            if e["status"] in LIVE and player_id in (e["player_id"], e["partner_id"]):
                return e
        return None

    # -- creation --------------------------------------------------------------------------
    def create(self, player: Player, body: TournamentIn) -> str:
        """A new tournament directed by ``player``: its id."""
        name = " ".join(body.name.split())
        if not name or not name.isprintable():
            raise InvalidInput("bad_name", "a tournament's name is 1 to 80 printable "
                               "characters")
        if body.variant not in VARIANTS:
            raise InvalidInput("bad_variant", f"unknown variant {body.variant!r} "
                               f"(known: {', '.join(VARIANTS)})")
        if body.format not in list(Format):
            raise InvalidInput("bad_format", f"unknown format {body.format!r} "
                               f"(known: {', '.join(Format)})")
        try:
            options = VARIANTS[body.variant].make_options(body.options).as_dict()
        except BelaError as exc:
            raise InvalidInput("bad_options", str(exc)) from None
        low, high = self.config.min_turn_clock, self.config.max_turn_clock
        if body.turn_clock is not None and not low <= body.turn_clock <= high:
            raise InvalidInput("bad_turn_clock", f"turn_clock is {low} to {high} seconds a "
                               "turn, or null for no clock")
        duplicate = body.format == Format.DUPLICATE
        if body.real_cards and duplicate:
            raise InvalidInput("bad_settings", "a duplicate deals its boards on the "
                               "server's tables: not with real cards")
        if body.seed is not None and not self.config.allow_seed:
            raise Forbidden("seed_not_allowed", "this server does not take a seed")
        settings: dict[str, Any] = {
            "rounds": body.rounds, "options": {k: v for k, v in options.items()
                                               if k in VARIANTS[body.variant].options},
            "boards": body.boards, "best_of": body.best_of, "groups": body.groups,
            "knockout_after": body.knockout_after, "turn_clock": body.turn_clock,
            # deals known in advance (a seed) move no rating, nor a duplicate's tables (nor
            # a club night's pads: no table plays)
            "rated": body.rated and not duplicate and not body.private and
            body.seed is None and not body.real_cards, "real_cards": body.real_cards,
            "private": body.private, "checkin": body.checkin, "no_show": body.no_show,
            "no_show_bot": body.no_show_bot, "round_break": body.round_break,
            "seed": secrets.randbits(62) if body.seed is None else body.seed}
        try:
            settings_of({"variant": body.variant, "format": body.format,
                         "settings": settings})
        except TournamentError as exc:
            raise InvalidInput("bad_settings", str(exc)) from None
        if self.rows.count_active(player["id"]) >= ACTIVE:
            raise Conflict("too_many_tournaments", f"you direct {ACTIVE} tournaments that "
                           "are not over: end one first")
        tournament_id = secrets.token_urlsafe(6)
        starts_at = body.starts_at
        if starts_at is not None and starts_at.tzinfo is None:
            starts_at = starts_at.replace(tzinfo=UTC)
        self.rows.create(tournament_id, name, player["id"],
                         body.variant, body.format, settings, private=body.private,
                         invite_code=secrets.token_urlsafe(9) if body.private else None,
                         starts_at=starts_at)
        return tournament_id

    # -- registration ----------------------------------------------------------------------
    def _registering(self, row: Row, player: Player) -> None:
        if row["status"] != "registering":
            raise Conflict("not_registering", "registration is closed")
        if self._entry_of(row["id"], player["id"]) is not None:
            raise Conflict("already_entered", "you are entered in this tournament already")
        require_room(self.rows.entries(row["id"]))

    def register(self, tournament_id: str, player: Player, partner: str | None,
                 seeking: bool, code: str | None) -> None:
        """The player registers: alone, with a ``partner`` he invites (bela4), or asking
        to be paired (``seeking``, bela4)."""
        row = self.load(tournament_id, player, code)  # private: with its invite code
        self._registering(row, player)
        pairs = VARIANTS[row["variant"]].partners
        if not pairs:
            if partner is not None or seeking:
                raise InvalidInput("no_pairs", f"{row['variant']} is played alone: no "
                                   "partner")
            self.rows.add_entry(row["id"], player["name"], "registered",
                                player_id=player["id"])
            return
        if partner is None and not seeking:
            raise InvalidInput("odd_pair", f"{row['variant']} is played in pairs: name your "
                               "partner, or ask to be paired (seeking)")
        if partner is not None and seeking:
            raise InvalidInput("odd_pair", "either a partner or seeking, not both")
        if partner is None:
            self.rows.add_entry(row["id"], player["name"], "seeking", player_id=player["id"])
            return
        mate = player_row(self.db, partner)
        if mate["id"] == player["id"]:
            raise InvalidInput("odd_pair", "your partner is another player")
        if self._entry_of(row["id"], mate["id"]) is not None:
            raise Conflict("already_entered", f"{mate['name']} is entered already")
        self.rows.add_entry(row["id"], f"{player['name']} & {mate['name']}", "invited",
                            player_id=player["id"], partner_id=mate["id"])

    def accept(self, tournament_id: str, player: Player, entry_id: int) -> None:
        """The invited partner accepts: the pair is registered."""
        row = self.load(tournament_id, player)
        if row["status"] != "registering":
            raise Conflict("not_registering", "registration is closed")
        entry = self._entry(row, entry_id)
        if entry["partner_id"] != player["id"] or entry["status"] != "invited":
            raise Conflict("not_invited", "you have no invitation to this entry")
        if not self.rows.update_entry(entry_id, ["invited"], status="registered"):
            raise Conflict("not_invited", "the invitation was withdrawn")

    def withdraw(self, tournament_id: str, player: Player) -> None:
        """The player's entry (or the invitation he declines) is withdrawn."""
        row = self.load(tournament_id, player)
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started: ask its director")
        entry = self._entry_of(row["id"], player["id"])
        if entry is None:
            raise NotFound("unknown_entry", "you are not entered in this tournament")
        self.rows.update_entry(entry["id"], LIVE, status="withdrawn")

    def checkin(self, tournament_id: str, player: Player) -> None:
        row = self.load(tournament_id, player)
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started")
        entry = self._entry_of(row["id"], player["id"])
        if entry is None:
            raise NotFound("unknown_entry", "you are not entered in this tournament")
        if player["id"] not in entry["checked_in"]:
            self.rows.update_entry(entry["id"], None,
                                   checked_in=[*entry["checked_in"], player["id"]])

    # -- the director's changes to the entries ---------------------------------------------
    def _entry(self, row: Row, entry_id: int) -> Row:
        for e in self.rows.entries(row["id"]):
            if e["id"] == entry_id:
                return e
        raise NotFound("unknown_entry", f"there is no entry {entry_id} in this tournament")

    def add_entry(self, tournament_id: str, player: Player, bot: str | None,
                  players: list[str] | None, name: str | None = None) -> None:
        """A bot entry of a level, or an entry of one or two players (those seeking a
        partner among them leave their entries), or (real cards) an entry by name."""
        row = self.directed(tournament_id, player)
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started")
        if name is not None:
            named_entry(self.rows, row, bot, players, name)
            return
        if (bot is None) == (players is None):
            raise InvalidInput("bad_entry", "give either a bot level or players")
        require_room(self.rows.entries(row["id"]), bot is not None)
        if bot is not None:
            if bot not in LEVELS or bot not in self.levels:
                raise InvalidInput("bad_level", f"unknown level {bot!r} (levels: "
                                   f"{', '.join(self.levels)})")
            count = sum(1 for e in self.rows.entries(row["id"]) if e["bot"] is not None)
            self.rows.add_entry(row["id"], f"Bot {bot} {count + 1}", "registered", bot=bot)
            return
        assert players is not None
        size = 2 if VARIANTS[row["variant"]].partners else 1
        if len(players) != size or len(set(players)) != size:
            raise InvalidInput("odd_pair", f"an entry of {row['variant']} has {size} "
                               f"player{'s' if size > 1 else ''}")
        found = [player_row(self.db, p) for p in players]
        held = [self._entry_of(row["id"], p["id"]) for p in found]
        if any(e is not None and e["status"] != "seeking" for e in held):
            raise Conflict("already_entered", "a player is entered already")
        for e in held:
            if e is not None:
                self.rows.update_entry(e["id"], ["seeking"], status="withdrawn")
        self.rows.add_entry(row["id"], " & ".join(p["name"] for p in found), "registered",
                            player_id=found[0]["id"],
                            partner_id=found[1]["id"] if size == 2 else None)

    def remove_entry(self, tournament_id: str, player: Player, entry_id: int) -> None:
        row = self.directed(tournament_id, player)
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started")
        entry = self._entry(row, entry_id)
        if not self.rows.update_entry(entry["id"], LIVE, status="removed"):
            raise Conflict("not_entered", f"entry {entry_id} is not entered any more")

    def pair(self, tournament_id: str, player: Player, entry_ids: list[int]) -> None:
        """Two seeking entries become one registered pair (the first keeps its id)."""
        row = self.directed(tournament_id, player)
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started")
        first, second = (self._entry(row, e) for e in entry_ids)
        if first["id"] == second["id"] or not (
                first["status"] == second["status"] == "seeking"):
            raise Conflict("not_seeking", "pair two different entries that seek a partner")
        self.rows.set_entries({
            first["id"]: {"partner_id": second["player_id"], "status": "registered",
                          "name": f"{first['name']} & {second['name']}",
                          "checked_in": [*first["checked_in"], *second["checked_in"]]},
            second["id"]: {"status": "withdrawn"}})

    # -- status ----------------------------------------------------------------------------
    def set_registration(self, tournament_id: str, player: Player, open_: bool) -> None:
        row = self.directed(tournament_id, player)
        want, was = ("registering", "closed") if open_ else ("closed", "registering")
        if not self.rows.set_status(row["id"], [was, want], want):
            raise Conflict("already_started", "the tournament has started")

    def start(self, tournament_id: str, player: Player) -> None:
        """The director starts his tournament (:meth:`begin`)."""
        self.begin(self.directed(tournament_id, player))

    def begin(self, row: Row) -> None:
        """``running``: seekers paired by rating, invitations not accepted and (with
        check-in) entries not checked in withdrawn, ratings fixed (:func:`start_changes`);
        refused, changing nothing, when the core cannot plan a first round of its entries
        (the director's start, or its ``starts_at`` come)."""
        if row["status"] not in OPEN:
            raise Conflict("already_started", "the tournament has started")
        changes = start_changes(self.db, row, self.levels)
        entries = [{**e, **changes.get(e["id"], {})} for e in self.rows.entries(row["id"])]
        core = entries_of(entries)
        need = VARIANTS[row["variant"]].sides
        if len(core) < need:
            raise Conflict("too_few_entries", f"{len(core)} entries: at least {need} play")
        try:
            plan_round(settings_of(row), core, [])
        except TournamentError as exc:
            raise Conflict("too_few_entries", str(exc)) from None
        if not self.rows.start(row["id"], OPEN, changes, datetime.now(UTC)):
            raise Conflict("already_started", "the tournament has started")

    def set_paused(self, tournament_id: str, player: Player, paused: bool) -> None:
        row = self.directed(tournament_id, player)
        want, was = ("paused", "running") if paused else ("running", "paused")
        if not self.rows.set_status(row["id"], [was], want):
            raise Conflict("not_running" if paused else "not_paused",
                           "the tournament is not running" if paused
                           else "the tournament is not paused")

    def end(self, tournament_id: str, player: Player) -> list[str]:
        """``cancelled`` before the start, else ``finished``: the ids of the tables of its
        unfinished games (their games void), which the caller closes."""
        row = self.directed(tournament_id, player)
        if row["status"] in ENDED:
            raise Conflict("tournament_over", "the tournament is over")
        if row["status"] in OPEN:
            if not self.rows.set_status(row["id"], OPEN, "cancelled",
                                        finished_at=datetime.now(UTC)):
                raise Conflict("already_started", "the tournament has started: end it again")
            return []
        if not self.rows.set_status(row["id"], ["running", "paused"], "finished",
                                    finished_at=datetime.now(UTC)):
            raise Conflict("tournament_over", "the tournament is over")
        return self.rows.void_unfinished(row["id"])


def named_entry(rows: Tournaments, row: Row, bot: str | None, players: list[str] | None,
                name: str) -> None:
    """An entry known by its name only: the people at a table of a club night with real
    cards (no seat online to fill)."""
    shown_name = " ".join(name.split())
    if bot is not None or players is not None or not shown_name or \
            not shown_name.isprintable() or \
            not real_cards(row):
        raise InvalidInput("bad_entry", "an entry by name alone (no bot, no players) is "
                           "for a tournament with real cards")
    require_room(rows.entries(row["id"]))
    rows.add_entry(row["id"], shown_name, "registered")


def player_row(db: Database, player_id: str) -> Row:
    """A player by id (404 ``unknown_player``)."""
    found = db.players.player(player_id) if len(player_id) <= 32 else None
    if found is None:
        raise NotFound("unknown_player", f"there is no player {player_id!r}")
    return found


def require_room(entries: Sequence[Row], bot: bool = False) -> None:
    """Refuse an entry past :data:`MAX_ENTRIES` (a bot past :data:`MAX_BOT_ENTRIES`)."""
    live = [e for e in entries if e["status"] in LIVE]
    if len(live) >= MAX_ENTRIES:
        raise Conflict("tournament_full", f"a tournament takes {MAX_ENTRIES} entries")
    if bot and sum(1 for e in live if e["bot"] is not None) >= MAX_BOT_ENTRIES:
        raise Conflict("tournament_full", f"a tournament takes {MAX_BOT_ENTRIES} bot entries")


def start_changes(db: Database, row: Row, levels_run: Sequence[str]
                  ) -> dict[int, dict[str, Any]]:
    """The entries' changes at the start of ``row``'s tournament: seekers paired by rating
    (the two nearest, in order; an odd one left withdrawn), invitations not accepted and (with
    check-in) entries not checked in withdrawn, and the others' ratings fixed (a pair's: the
    mean of its players' shown ratings; a bot's: its level's, :func:`level_ratings`)."""
    variant = row["variant"]
    entries = [e for e in db.tournaments.entries(row["id"]) if e["status"] in LIVE]
    humans = {p for e in entries for p in (e["player_id"], e["partner_id"]) if p}
    stored = db.ratings.ratings(sorted(humans), variant)
    rating = {p: float(shown(stored[p]["mu"], stored[p]["sigma"]) if p in stored
                       else shown(MU, SIGMA)) for p in humans}
    bots = db.ratings.ratings([bot_entry(b) for b in levels_run], variant)
    levels = level_ratings(levels_run, variant, {
        b: shown(bots[bot_entry(b)]["mu"], bots[bot_entry(b)]["sigma"])
        for b in levels_run if bot_entry(b) in bots})
    changes: dict[int, dict[str, Any]] = {}
    seekers = sorted((e for e in entries if e["status"] == "seeking"),
                     key=lambda e: (rating[e["player_id"]], e["id"]))
    for first, second in zip(seekers[::2], seekers[1::2]):
        changes[first["id"]] = {"partner_id": second["player_id"], "status": "registered",
                                "name": f"{first['name']} & {second['name']}",
                                "checked_in": [*first["checked_in"],
                                               *second["checked_in"]]}
        changes[second["id"]] = {"status": "withdrawn"}
    if len(seekers) % 2:
        changes[seekers[-1]["id"]] = {"status": "withdrawn"}
    for e in entries:
        if e["status"] == "invited":
            changes[e["id"]] = {"status": "withdrawn"}
    for e in entries:
        now = {**e, **changes.get(e["id"], {})}
        if now["status"] != "registered":
            continue
        players = [p for p in (now["player_id"], now["partner_id"]) if p]
        if row["settings"].get("checkin") and now["bot"] is None and not all(
                p in now["checked_in"] for p in players):
            changes[e["id"]] = {**changes.get(e["id"], {}), "status": "withdrawn"}
            continue
        value = (levels[now["bot"]] if now["bot"] is not None
                 else sum(rating[p] for p in players) / len(players) if players
                 else shown(MU, SIGMA))  # an entry by name (real cards): a new player's
        changes[e["id"]] = {**changes.get(e["id"], {}), "rating": float(value)}
    return changes

"""The server's database access: players, and tables stored as their deals and actions.

A table is its settings, seats and event log (``rounds`` and ``actions`` rows, one per
event, numbered by ``seq``).  :meth:`Store.rebuild` replays a stored table through the
engine, so a server killed at any point comes back where its last committed event left it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ..engine import BelaError, Match, parse_action
from ..engine.actions import Action, Claim, Decline, Redeal, Swap
from ..engine.cards import Card, format_cards
from ..engine.enums import Phase
from ..engine.record import skip_declined_exchanges
from ..engine.variants import VARIANTS, Deal
from ..storage import Database, PadQuota, RateFn
from .errors import Unauthenticated, Unavailable
from .metrics import Metrics
from .model import Seat, Table, TableStatus
from .ratings import PAIR_WINDOW, bot_of

log = logging.getLogger("bela.server")

SEEN_EVERY = 3600.0  # seconds: a token's use is written at most this often


def storage_refusal(exc: SQLAlchemyError) -> Unavailable:
    """The refusal of a request the database failed: ``storage_full`` for a full disk
    (SQLite's "database or disk is full", PostgreSQL's ``disk_full``), else ``storage``."""
    cause = exc.orig if isinstance(exc, DBAPIError) else exc
    text = str(cause).lower()
    if ("disk is full" in text or "no space left" in text
            or getattr(cause, "sqlstate", None) == "53100"):
        return Unavailable("storage_full", "the server's storage is full: try again later")
    return Unavailable("storage", f"the database failed ({type(cause).__name__}): "
                       "try again later")


class BrokenLog(Exception):
    """A stored table whose log no longer replays through the engine."""


class Store:
    """Reads and writes of the server's rows (one :class:`Database`); the writes of a
    table's log are timed in ``metrics``."""

    def __init__(self, db: Database, metrics: Metrics | None = None) -> None:
        self.db = db
        self.metrics = metrics or Metrics()

    # -- players -----------------------------------------------------------------------------
    def create_player(self, name: str) -> tuple[str, str]:
        """A new guest: (player id, secret token)."""
        return self.db.players.create_player(name)

    def player_by_token(self, token: str, ttl: float) -> dict[str, Any]:
        """The player (``id``, ``name``, ``account``) whose token this is: raises
        :class:`Unauthenticated` for an unknown token (``bad_token``) or one unused for
        ``ttl`` seconds (``token_expired``).  A use is written at most once an hour (a
        token made before uses were noted counts from its first use)."""
        found = self.db.players.player_by_token(token)
        if found is None:
            raise Unauthenticated("bad_token", "unknown token: log in, or make a new guest")
        now, seen = time.time(), found["last_seen_at"]
        idle = 0.0 if seen is None else now - _timestamp(seen)
        if idle > ttl:
            raise Unauthenticated("token_expired", "this token was not used for too long: "
                                  "log in, or make a new guest")
        if seen is None or idle >= min(SEEN_EVERY, ttl / 2):
            try:
                self.db.players.token_seen(token, _datetime(now))
            except SQLAlchemyError:  # a full disk must not lock players out
                log.debug("the use of a token could not be noted", exc_info=True)
        return {"id": found["id"], "name": found["name"], "account": found["account"]}

    def rotate_token(self, token: str) -> str:
        """A new token in place of ``token`` (which stops working; the player's other
        tokens do not)."""
        fresh = self.db.players.rotate_token(token)
        if fresh is None:
            raise Unauthenticated("bad_token", "unknown token: log in, or make a new guest")
        return fresh

    def history(self, player_id: str, limit: int, offset: int
                ) -> tuple[list[dict[str, Any]], int]:
        """A page of the player's finished tables, newest first (rows with his seat, the
        seats' names and the result, not the record), and their number."""
        return self.db.tables.history(player_id, limit, offset)

    # -- accounts ----------------------------------------------------------------------------
    def name_taken(self, name_key: str) -> bool:
        """Whether an account holds the name of this key
        (:func:`bela.server.accounts.name_key`)."""
        return self.db.accounts.name_taken(name_key)

    def claim(self, player_id: str, name: str, name_key: str, password_hash: str) -> bool:
        """Make the guest an account (``False``: he already was one); raises
        :class:`~bela.storage.NameTaken` when another account got the name first."""
        return self.db.accounts.claim(player_id, name, name_key, password_hash)

    def account(self, name_key: str) -> dict[str, Any] | None:
        """The account holding a name's key: ``id``, ``name``, ``password_hash``."""
        return self.db.accounts.account(name_key)

    def password_hash(self, player_id: str) -> str | None:
        return self.db.accounts.password_hash(player_id)

    def set_password(self, player_id: str, password_hash: str) -> None:
        self.db.accounts.set_password(player_id, password_hash)

    def change_password(self, player_id: str, password_hash: str) -> str:
        """The new password; every token of the player stops working, and the new one
        returned is his (one transaction)."""
        return self.db.accounts.change_password(player_id, password_hash)

    def add_session(self, player_id: str) -> str:
        """A new token of a login; the player's other tokens keep working."""
        return self.db.accounts.add_session(player_id)

    def add_device(self, player_id: str) -> str:
        """A new device secret of a browser that logged in to the player's account."""
        return self.db.accounts.add_device(player_id)

    def known_device(self, player_id: str, secret: str) -> bool:
        """Whether a browser that logged in to the player's account sent ``secret``."""
        return self.db.accounts.known_device(player_id, secret)

    def drop_token(self, token: str) -> None:
        """This token stops working."""
        self.db.accounts.drop_token(token)

    def drop_tokens(self, player_id: str) -> None:
        """Every token of the player stops working (logins, and a guest's first token)."""
        self.db.accounts.drop_tokens(player_id)

    # -- ratings and profiles ---------------------------------------------------------------
    def player(self, player_id: str) -> dict[str, Any] | None:
        """A player's public facts (``id``, ``name``, ``account``, ``created_at``)."""
        return self.db.players.player(player_id)

    def ratings(self, entries: Iterable[str], variant: str) -> dict[str, dict[str, Any]]:
        """The stored ratings (``mu``, ``sigma``, ``games``, ``wins``) of these entries
        (players or bots, :mod:`bela.server.ratings`) in ``variant``; unrated ones are
        missing."""
        return self.db.ratings.ratings(entries, variant)

    def ratings_of(self, entry: str) -> list[dict[str, Any]]:
        """An entry's rating in each variant it was rated in."""
        return self.db.ratings.ratings_of(entry)

    def leaderboard(self, variant: str, limit: int, offset: int, min_opponents: int = 0
                    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the rated accounts and bots of ``variant``, best first, and the length
        of the whole list; an account only once it met ``min_opponents`` distinct
        opponents (players or bots on another side) in rated matches."""
        sides = VARIANTS[variant].sides if variant in VARIANTS else 1
        return self.db.ratings.leaderboard(variant, limit, offset, min_opponents, sides)

    def meetings(self, table: Table, lines: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """Per human entry of a finishing match's ``lines``, his rated matches with the
        same human players in the last :data:`~bela.server.ratings.PAIR_WINDOW`."""
        if not table.rated:
            return {}
        humans = [str(ln["entry"]) for ln in lines if bot_of(str(ln["entry"])) is None]
        return self.db.ratings.meetings(humans, table.variant, _datetime(time.time() - PAIR_WINDOW))

    def lines(self, entry: str, limit: int) -> list[dict[str, Any]]:
        """An entry's newest ``limit`` lines of finished matches, each with its table's
        ``private``, ``options`` and ``result``."""
        return self.db.ratings.lines(entry, limit=limit)

    def line_stats(self, entry: str, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` lines of an entry's finished matches, without the tables'
        results: ``table_id``, ``seat``, ``variant``, ``finished_at``, ``won``, ``rated``,
        ``contracts``, ``rating_after`` and the table's ``private``."""
        return self.db.ratings.line_stats(entry, limit)

    def line_totals(self, entry: str) -> dict[str, dict[str, int]]:
        """An entry's ``games``, ``wins``, ``points`` and ``deals`` per variant."""
        return self.db.ratings.line_totals(entry)

    # -- score pads --------------------------------------------------------------------------
    def pads(self, player_id: str, limit: int | None = None, offset: int = 0
             ) -> tuple[list[dict[str, Any]], int]:
        """A page of the pads an account keeps, newest first (``id``, ``variant``,
        ``summary``, ``updated_at``: no record), and how many he keeps."""
        return self.db.pads.pads(player_id, limit, offset)

    def set_pad_summary(self, player_id: str, pad_id: str, summary: dict[str, Any]) -> None:
        self.db.pads.set_pad_summary(player_id, pad_id, summary)

    def pad(self, player_id: str, pad_id: str) -> dict[str, Any] | None:
        return self.db.pads.pad(player_id, pad_id)

    def save_pad(self, player_id: str, pad_id: str, variant: str, record: dict[str, Any],
                 summary: dict[str, Any], size: int, address: str,
                 quota: PadQuota) -> datetime:
        """Write a pad: when it was written (raises :class:`~bela.storage.PadRefused` past
        the ``quota``)."""
        return self.db.pads.save_pad(player_id, pad_id, variant, record, summary, size, address,
                                quota)

    def delete_pad(self, player_id: str, pad_id: str) -> bool:
        return self.db.pads.delete_pad(player_id, pad_id)

    # -- tables ------------------------------------------------------------------------------
    def exists(self, table_id: str) -> bool:
        return self.db.tables.load_table(table_id) is not None

    def load_row(self, table_id: str, with_log: bool = False) -> dict[str, Any] | None:
        return self.db.tables.load_table(table_id, with_log=with_log)

    def active_rows(self) -> list[dict[str, Any]]:
        """Every open or running table, with its log."""
        return self.db.tables.load_active()

    def active_ids(self) -> list[str]:
        """The ids of every open or running table."""
        return self.db.tables.active_table_ids()

    def running_seats(self, player_id: str) -> int:
        """At how many running tables the player sits (on every server process)."""
        return self.db.tables.running_seats(player_id)

    def count_active(self, owner_id: str) -> int:
        """The open or running tables ``owner_id`` created (on every server process)."""
        return self.db.tables.count_active_tables(owner_id)

    def create(self, table: Table) -> None:
        self.db.tables.create_table(table.id, table.variant, table.options, table.seed, table.bot,
                             table.owner_id, len(table.seats), private=table.private,
                             invite_code=table.invite_code, active_at=_datetime(table.active_at),
                             turn_clock=table.turn_clock, rated=table.rated,
                             origin=table.origin)

    def save_seat(self, table: Table, seat: int) -> None:
        """A seat and the table's ``active_at``."""
        s = table.seats[seat]
        self.db.tables.set_seat(table.id, seat, s.player_id, s.is_bot, s.name,
                         _datetime(table.active_at))

    def save_status(self, table: Table) -> None:
        if table.status == TableStatus.CLOSED:
            self.db.tables.close_table(table.id)
        else:
            self.db.tables.set_status(table.id, table.status)

    def add_deal(self, table: Table, idx: int, dealer: int, deal: Deal) -> None:
        """The deal of round ``idx`` as the table's next event."""
        with self.metrics.writing("deal"):
            self.db.tables.add_round(table.id, idx, table.seq + 1, dealer, _stored_deal(deal))

    def add_log(self, table: Table, match: Match, seats: Sequence[Sequence[int]]) -> None:
        """Every event of ``match`` (a log played elsewhere) as the table's first events,
        in one transaction: its deals and, per round, the seat of each action
        (``seats``)."""
        deals, acts, seq = [], [], table.seq
        for idx, rnd in enumerate(match.rounds):
            seq += 1
            deals.append({"idx": idx, "seq": seq, "dealer": rnd.dealer,
                          "deal": _stored_deal(rnd.deal)})
            for action, seat in zip(rnd.log, seats[idx]):
                seq += 1
                acts.append({"seq": seq, "round": idx, "seat": seat, "token": action.token()})
        self.db.tables.add_log(table.id, deals, acts)

    def add_action(self, table: Table, seat: int, action: Action) -> None:
        """An action of the round being played as the table's next event."""
        assert table.match is not None
        with self.metrics.writing("action"):
            self.db.tables.add_action(table.id, table.seq + 1, len(table.match.rounds) - 1, seat,
                               action.token())

    def finish(self, table: Table, result: dict[str, Any], record: dict[str, Any],
               lines: Sequence[Mapping[str, Any]] = (), rate: RateFn | None = None) -> None:
        """The match's result and record, with its seats' ``lines`` and (``rate``, see
        :func:`bela.server.ratings.rate_fn`) the ratings it moves, in one transaction."""
        with self.metrics.writing("result"):
            self.db.tables.finish_table(table.id, result, record, lines, table.variant, rate)

    def seat_names(self, table_ids: Iterable[str]) -> dict[str, list[str]]:
        """The names in the seats of these tables."""
        return self.db.tables.seat_names(table_ids)

    # -- replay ------------------------------------------------------------------------------
    def rebuild(self, row: dict[str, Any]) -> Table:
        """The table of a stored row, its match replayed from the log (raises
        :class:`BrokenLog` when the log does not replay)."""
        try:
            return _rebuild(row)
        except (BelaError, KeyError, ValueError) as exc:
            raise BrokenLog(str(exc)) from exc


def _rebuild(row: dict[str, Any]) -> Table:
    seats = [Seat(player_id=s["player_id"], name=s["name"], is_bot=bool(s["is_bot"]))
             for s in row["seats"]]
    table = Table(id=row["id"], variant=row["variant"], options=dict(row["options"]),
                  seed=int(row["seed"]), bot=row["bot"], status=TableStatus(row["status"]),
                  owner_id=row["owner_id"], seats=seats,
                  result=row.get("result"), record=row.get("record"),
                  private=bool(row.get("private")), invite_code=row.get("invite_code"),
                  active_at=_timestamp(row.get("active_at") or row["created_at"]),
                  created_at=_timestamp(row["created_at"]),
                  turn_clock=row.get("turn_clock"), rated=bool(row.get("rated")),
                  origin=row.get("origin"), ratings=row.get("ratings"))
    events: list[tuple[int, str, dict[str, Any]]] = (
        [(r["seq"], "deal", r) for r in row.get("rounds", [])]
        + [(a["seq"], "act", a) for a in row.get("actions", [])])
    if table.status == TableStatus.OPEN or (table.status == TableStatus.CLOSED and not events):
        return table  # no match (a closed table that never started)
    m = Match(table.variant, table.options, seed=table.seed)
    events.sort(key=lambda e: e[0])
    for expected, (seq, kind, ev) in enumerate(events, start=1):
        if seq != expected:
            raise ValueError(f"event {expected} is missing from the log")
        if kind == "deal":
            deal = ev["deal"]
            m.deal([_codes(h) for h in deal["hands"]],
                   {k: _codes(v) for k, v in deal.get("extra", {}).items()},
                   dealer=ev["dealer"])
            table.last = None
        else:
            rnd = m.round
            if rnd is None:
                raise ValueError("an action before the first deal")
            action = parse_action(ev["token"])
            if rnd.phase == Phase.EXCHANGE and not isinstance(action, (Swap, Redeal, Decline)):
                # a log of the earlier asking order: nobody was asked again after a belot2
                # dealer's swap (now everyone is, R35); those asks keep
                skip_declined_exchanges(rnd, action)
            actor = action.seat if isinstance(action, Claim) else rnd.turn
            if actor != ev["seat"]:
                raise ValueError(f"event {seq} was made by seat {ev['seat']}, "
                                 f"not by the seat to act ({actor})")
            m.apply(action)
            table.last = (ev["seat"], action.token())
    table.match = m
    table.seq = len(events)
    return table


def _stored_deal(deal: Deal) -> dict[str, Any]:
    """A deal as the ``rounds`` table keeps it: hands in the order dealt, as card codes."""
    return {"hands": [format_cards(h) for h in deal.hands],
            "extra": {k: format_cards(v) for k, v in deal.extra.items()}}


def _datetime(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def _timestamp(when: datetime) -> float:
    """Seconds since the epoch of a stored time (SQLite gives it back without its zone:
    UTC)."""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def _codes(text: str) -> list[int]:
    return [int(c) for c in Card.parse(text)]

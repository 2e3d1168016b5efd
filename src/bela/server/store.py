"""What the server does with its rows beyond the queries of :class:`~bela.storage.Database`
(whose repositories, ``db.players``, ``db.tables``..., the server calls directly): a
token's checks, a table's writes from its :class:`~bela.server.model.Table` (the log's
writes timed), and the table rebuilt from its stored log.

A table is its settings, seats and event log (``rounds`` and ``actions`` rows, one per
event, numbered by ``seq``).  :meth:`Store.rebuild` replays a stored table through the
engine, so a server killed at any point comes back where its last committed event left it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ..engine import BelaError, Match, parse_action
from ..engine.actions import Action, Claim, Decline, Redeal, Swap
from ..engine.cards import Card, format_cards
from ..engine.enums import Phase
from ..engine.record import skip_declined_exchanges
from ..engine.variants import Deal
from ..storage import Database, RateFn
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
    """The server's logic over its rows (one :class:`Database`, ``db``: its plain queries
    are called there): tokens checked, tables written from the lobby's model (the writes
    of a table's log timed in ``metrics``) and rebuilt from their log."""

    def __init__(self, db: Database, metrics: Metrics | None = None) -> None:
        self.db = db
        self.metrics = metrics or Metrics()

    # -- players -----------------------------------------------------------------------------
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

    # -- ratings -----------------------------------------------------------------------------
    def meetings(self, table: Table, lines: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """Per human entry of a finishing match's ``lines``, his rated matches with the
        same human players in the last :data:`~bela.server.ratings.PAIR_WINDOW`."""
        if not table.rated:
            return {}
        humans = [str(ln["entry"]) for ln in lines if bot_of(str(ln["entry"])) is None]
        return self.db.ratings.meetings(humans, table.variant,
                                        _datetime(time.time() - PAIR_WINDOW))

    # -- tables ------------------------------------------------------------------------------
    def create(self, table: Table) -> None:
        self.db.tables.create_table(
            table.id, table.variant, table.options, table.seed, table.bot, table.owner_id,
            len(table.seats), private=table.private, invite_code=table.invite_code,
            active_at=_datetime(table.active_at), turn_clock=table.turn_clock,
            rated=table.rated, origin=table.origin,
            boards=list(table.boards) if table.boards else None)

    def save_seat(self, table: Table, seat: int) -> None:
        """A seat and the table's ``active_at``."""
        s = table.seats[seat]
        self.db.tables.set_seat(table.id, seat, s.player_id, s.is_bot, s.name,
                                _datetime(table.active_at), bot=s.bot)

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
            self.db.tables.add_action(table.id, table.seq + 1, len(table.match.rounds) - 1,
                                      seat, action.token())

    def finish(self, table: Table, result: dict[str, Any], record: dict[str, Any],
               lines: Sequence[Mapping[str, Any]] = (), rate: RateFn | None = None) -> None:
        """The match's result and record, with its seats' ``lines`` and (``rate``, see
        :func:`bela.server.ratings.rate_fn`) the ratings it moves, in one transaction."""
        with self.metrics.writing("result"):
            self.db.tables.finish_table(table.id, result, record, lines, table.variant, rate)

    # -- replay ------------------------------------------------------------------------------
    def rebuild(self, row: dict[str, Any]) -> Table:
        """The table of a stored row, its match replayed from the log (raises
        :class:`BrokenLog` when the log does not replay)."""
        try:
            return _rebuild(row)
        except (BelaError, KeyError, ValueError) as exc:
            raise BrokenLog(str(exc)) from exc


def _rebuild(row: dict[str, Any]) -> Table:
    seats = [Seat(player_id=s["player_id"], name=s["name"], is_bot=bool(s["is_bot"]),
                  bot=s.get("bot")) for s in row["seats"]]
    table = Table(id=row["id"], variant=row["variant"], options=dict(row["options"]),
                  seed=int(row["seed"]), bot=row["bot"], status=TableStatus(row["status"]),
                  owner_id=row["owner_id"], seats=seats,
                  result=row.get("result"), record=row.get("record"),
                  private=bool(row.get("private")), invite_code=row.get("invite_code"),
                  active_at=_timestamp(row.get("active_at") or row["created_at"]),
                  created_at=_timestamp(row["created_at"]),
                  turn_clock=row.get("turn_clock"), rated=bool(row.get("rated")),
                  origin=row.get("origin"), ratings=row.get("ratings"),
                  boards=tuple(row.get("boards") or ()))
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

"""Tables: their settings and seats, their event log (``rounds`` and ``actions``, one row
per event numbered by ``seq``), their end and the queries over them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Dialect, bindparam, func, insert, select, update

from ..models import actions, match_players, rounds, seats, tables
from .base import Repo, now
from .ratings import RateFn, apply_ratings

_INSERT_ACTION = insert(actions)
_INSERT_ROUND = insert(rounds)


class LogConflict(Exception):
    """An event written at a ``seq`` the table's log has already passed: another process
    appended to the table (it believed it ran the table too).  Nothing was written."""


_ADVANCE = (update(tables)
            .where(tables.c.id == bindparam("tid"), tables.c.seq == bindparam("prev"))
            .values(seq=bindparam("next")))


def _advance(conn: Connection, table_id: str, seq: int) -> None:
    """Move the table's stored event count from ``seq - 1`` to ``seq`` in the transaction
    that writes event ``seq``: raises :class:`LogConflict` (the transaction is rolled back)
    when the log is elsewhere."""
    if conn.execute(_ADVANCE, {"tid": table_id, "prev": seq - 1, "next": seq}).rowcount != 1:
        raise LogConflict(f"table {table_id}: event {seq} was already written, or the one "
                          "before it is missing")


@dataclass(frozen=True)
class LogEntry:
    """One event to append to a table's log (:meth:`Tables.append`): event ``seq`` of
    round ``round``, an action (its ``token``, made by ``seat``) or, with ``deal``, the
    round's deal (``seat``: its dealer)."""

    table_id: str
    seq: int
    round: int
    seat: int
    token: str | None = None
    deal: dict[str, Any] | None = None


class _Compiled:
    """A statement compiled once for a dialect, with its parameters made as SQLAlchemy
    makes them (each column type's bind processor: a deal's JSON) in the driver's style
    (positional or named): run on the driver's cursor, with no statement or parameter
    objects made per execution."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = str(compiled)
        self._order = tuple(compiled.positiontup) if compiled.positiontup else None
        self._process = {name: proc for name, bind in compiled.binds.items()
                         if (proc := bind.type.dialect_impl(dialect).bind_processor(dialect))
                         is not None}

    def rows(self, values: Iterable[Mapping[str, Any]]) -> list[Any]:
        """The driver's parameters of each row of ``values`` (column names to values)."""
        process = self._process
        rows = [{k: process[k](v) if k in process else v for k, v in row.items()}
                for row in values] if process else [dict(row) for row in values]
        if self._order is None:
            return rows
        order = self._order
        return [tuple(row[k] for k in order) for row in rows]


class _LogStatements:
    """The statements of :meth:`Tables.append`, compiled for one dialect."""

    def __init__(self, dialect: Dialect) -> None:
        self.advance = _Compiled(_ADVANCE, dialect)
        self.action = _Compiled(_INSERT_ACTION, dialect)
        self.deal = _Compiled(_INSERT_ROUND, dialect)

    def insert(self, cur: Any, entries: Sequence[LogEntry]) -> None:
        """The rows of ``entries`` (their fences moved): actions and deals."""
        acts = [{"table_id": e.table_id, "seq": e.seq, "round": e.round, "seat": e.seat,
                 "token": e.token} for e in entries if e.deal is None]
        deals = [{"table_id": e.table_id, "idx": e.round, "seq": e.seq, "dealer": e.seat,
                  "deal": e.deal} for e in entries if e.deal is not None]
        if acts:
            cur.executemany(self.action.sql, self.action.rows(acts))
        if deals:
            cur.executemany(self.deal.sql, self.deal.rows(deals))


# Tables.append on PostgreSQL: the batch as arrays (one statement text for any batch size,
# prepared once per connection by psycopg); each entry's fence moves where its table's log
# stands at seq - 1, and only the entries whose fence moved (RETURNING) insert their row,
# an action's or a deal's.  One statement is one transaction, in one round trip
_PG_APPEND = f"""\
WITH e AS (
  SELECT * FROM unnest(%s::varchar[], %s::int[], %s::int[], %s::int[], %s::text[], %s::text[])
    AS e(tid, seq, round, seat, token, deal)),
moved AS (
  UPDATE {tables.name} SET seq = e.seq FROM e
  WHERE {tables.name}.id = e.tid AND {tables.name}.seq = e.seq - 1
  RETURNING {tables.name}.id, {tables.name}.seq),
written AS (SELECT e.* FROM e JOIN moved ON moved.id = e.tid AND moved.seq = e.seq),
acts AS (
  INSERT INTO {actions.name} (table_id, seq, round, seat, token)
  SELECT tid, seq, round, seat, token FROM written WHERE deal IS NULL),
deals AS (
  INSERT INTO {rounds.name} (table_id, idx, seq, dealer, deal)
  SELECT tid, round, seq, seat, deal::json FROM written WHERE deal IS NOT NULL)
SELECT id FROM moved"""


def _append_postgresql(conn: Any, cur: Any, entries: Sequence[LogEntry]) -> list[bool]:
    """:meth:`Tables.append` on a psycopg connection: :data:`_PG_APPEND` run as its own
    transaction (autocommit for that statement: no BEGIN and COMMIT round trips)."""
    params = ([e.table_id for e in entries], [e.seq for e in entries],
              [e.round for e in entries], [e.seat for e in entries],
              [e.token for e in entries],
              # the deal's JSON as the column's own type writes it (the engine's default)
              [None if e.deal is None else json.dumps(e.deal) for e in entries])
    conn.autocommit = True
    try:
        cur.execute(_PG_APPEND, params)
        moved = {row[0] for row in cur.fetchall()}
    finally:
        if not conn.closed:  # a lost connection is dropped from the pool as it is
            conn.autocommit = False
    return [e.table_id in moved for e in entries]


class Tables(Repo):
    """Tables, their seats and their logs."""

    _log: _LogStatements | None = None

    def create_table(self, table_id: str, variant: str, options: dict[str, Any], seed: int,
                     bot: str, owner_id: str | None, n_seats: int, *, private: bool,
                     invite_code: str | None, active_at: datetime,
                     turn_clock: int | None, rated: bool = False,
                     origin: str | None = None, boards: list[int] | None = None) -> None:
        with self.begin() as conn:
            conn.execute(insert(tables).values(
                id=table_id, variant=variant, options=options, seed=seed, bot=bot,
                status="open", owner_id=owner_id, created_at=now(), private=private,
                invite_code=invite_code, active_at=active_at, turn_clock=turn_clock,
                rated=rated, origin=origin, boards=boards))
            conn.execute(insert(seats), [
                {"table_id": table_id, "seat": s, "player_id": None, "is_bot": False, "name": ""}
                for s in range(n_seats)])

    def set_seat(self, table_id: str, seat: int, player_id: str | None, is_bot: bool,
                 name: str, active_at: datetime, bot: str | None = None) -> None:
        """Who sits in a seat (``bot``: a bot seat's own bot, else the table's);
        ``active_at``: the time of this change, kept for the table."""
        with self.begin() as conn:
            conn.execute(update(seats).where(seats.c.table_id == table_id, seats.c.seat == seat)
                         .values(player_id=player_id, is_bot=is_bot, name=name, bot=bot))
            conn.execute(update(tables).where(tables.c.id == table_id)
                         .values(active_at=active_at))

    def set_status(self, table_id: str, status: str) -> None:
        with self.begin() as conn:
            conn.execute(update(tables).where(tables.c.id == table_id).values(status=status))

    def close_table(self, table_id: str) -> None:
        """The table ended without a result (status ``closed``)."""
        with self.begin() as conn:
            conn.execute(update(tables).where(tables.c.id == table_id).values(
                status="closed", finished_at=now()))

    def add_round(self, table_id: str, idx: int, seq: int, dealer: int,
                  deal: dict[str, Any]) -> None:
        """The deal of round ``idx`` as event ``seq`` (raises :class:`LogConflict` when the
        table's log is not at ``seq - 1``)."""
        with self.begin() as conn:
            _advance(conn, table_id, seq)
            conn.execute(insert(rounds).values(table_id=table_id, idx=idx, seq=seq,
                                               dealer=dealer, deal=deal))

    def add_action(self, table_id: str, seq: int, round_idx: int, seat: int, token: str) -> None:
        """An action as event ``seq`` (raises :class:`LogConflict` when the table's log is
        not at ``seq - 1``)."""
        with self.begin() as conn:  # prebuilt statements: the hot path of a server
            _advance(conn, table_id, seq)
            conn.execute(_INSERT_ACTION, {"table_id": table_id, "seq": seq, "round": round_idx,
                                          "seat": seat, "token": token})

    def append(self, entries: Sequence[LogEntry]) -> list[bool]:
        """Events of many tables in one transaction (a group commit), each fenced as
        :meth:`add_action` and :meth:`add_round` fence theirs: per entry, whether it was
        written (``False``: the table's log is not at ``seq - 1``, :class:`LogConflict`'s
        case; nothing of that entry is written, the others are).  At most one entry a table
        (a table's next event waits for its last): ``ValueError`` otherwise, nothing
        written.

        The server's hot path (one call per commit of its log writer), run on the driver's
        connection without SQLAlchemy's per-execution work (about half the writer's CPU
        per commit on SQLite, and as much less of its hold on the interpreter, which the
        event loop waits for).  On PostgreSQL the whole batch is one statement in one
        round trip (:data:`_PG_APPEND`): the writer's CPU per event is a third to two fifths of
        that of an ``executemany`` a statement and a commit (docs/CAPACITY.md).  Elsewhere the
        fences move in one ``executemany`` and, when one of them does not, the transaction
        is taken back and the entries are written one fence at a time, to tell which."""
        if len({e.table_id for e in entries}) != len(entries):
            raise ValueError("at most one event a table in one append")
        raw = self.engine.raw_connection()
        cur = None
        try:
            cur = raw.cursor()
            if self.engine.dialect.name == "postgresql":
                return _append_postgresql(raw.dbapi_connection, cur, entries)
            return self._append_fenced(raw, cur, entries)
        except BaseException as exc:
            dialect = self.engine.dialect
            if (isinstance(exc, dialect.loaded_dbapi.Error)
                    and dialect.is_disconnect(exc, raw.dbapi_connection, cur)):
                raw.invalidate(exc)  # a lost connection: not back into the pool
            else:
                with contextlib.suppress(Exception):
                    raw.rollback()
            raise
        finally:
            if cur is not None:
                with contextlib.suppress(Exception):
                    cur.close()
            raw.close()

    def _append_fenced(self, raw: Any, cur: Any, entries: Sequence[LogEntry]) -> list[bool]:
        """:meth:`append` with portable statements (SQLite): the fences, then the rows."""
        log = self._log_statements()
        fences = log.advance.rows({"tid": e.table_id, "prev": e.seq - 1, "next": e.seq}
                                  for e in entries)
        if self.engine.dialect.supports_sane_multi_rowcount:
            cur.executemany(log.advance.sql, fences)
            if cur.rowcount == len(entries):
                log.insert(cur, entries)
                raw.commit()
                return [True] * len(entries)
            raw.rollback()
        written = []
        for fence in fences:
            cur.execute(log.advance.sql, fence)
            written.append(cur.rowcount == 1)
        log.insert(cur, [e for e, moved in zip(entries, written) if moved])
        raw.commit()
        return written

    def _log_statements(self) -> _LogStatements:
        if self._log is None:
            self._log = _LogStatements(self.engine.dialect)
        return self._log

    def add_log(self, table_id: str, deals: Iterable[Mapping[str, Any]],
                actions_: Iterable[Mapping[str, Any]]) -> None:
        """Many events in one transaction (a table that starts from a log written
        elsewhere): ``deals`` as :meth:`add_round` takes them (``idx``, ``seq``,
        ``dealer``, ``deal``), ``actions_`` as :meth:`add_action` (``seq``, ``round``,
        ``seat``, ``token``); the fence advances through them in ``seq`` order."""
        events = sorted([(d["seq"], "deal", d) for d in deals]
                        + [(a["seq"], "act", a) for a in actions_], key=lambda e: e[0])
        with self.begin() as conn:
            for seq, kind, ev in events:
                _advance(conn, table_id, seq)
                if kind == "deal":
                    conn.execute(insert(rounds).values(table_id=table_id, idx=ev["idx"],
                                                       seq=seq, dealer=ev["dealer"],
                                                       deal=ev["deal"]))
                else:
                    conn.execute(_INSERT_ACTION, {"table_id": table_id, "seq": seq,
                                                  "round": ev["round"], "seat": ev["seat"],
                                                  "token": ev["token"]})

    def finish_table(self, table_id: str, result: dict[str, Any], record: dict[str, Any],
                     lines: Iterable[Mapping[str, Any]] = (), variant: str = "",
                     rate: RateFn | None = None) -> None:
        """The match's result and record; with it, in one transaction, each seat's line
        (``lines``: ``seat``, ``entry``, ``won``, ``left``, ``points``, ``deals``,
        ``contracts``) and, when ``rate`` is given, the new ratings of the entries in
        ``variant`` (their rows are locked while ``rate`` works them out)."""
        finished = now()
        rows = [dict(line, table_id=table_id, variant=variant, finished_at=finished,
                     rated=rate is not None, rating_before=None, rating_after=None)
                for line in lines]
        with self.begin() as conn:
            if not conn.execute(update(tables).where(tables.c.id == table_id,
                                                     tables.c.status != "finished").values(
                    status="finished", finished_at=finished, result=result,
                    record=record)).rowcount:
                return  # finished already (a retry whose first answer was lost)
            if rate is not None and rows:
                moved = apply_ratings(conn, variant, rows, rate, finished)
                for row in rows:
                    row["rating_before"] = moved[row["entry"]]["before"]
                    row["rating_after"] = moved[row["entry"]]["after"]
            if rows:
                conn.execute(insert(match_players), rows)


    # -- loading -------------------------------------------------------------------------
    def _table_dict(self, conn: Connection, row: Any, with_log: bool) -> dict[str, Any]:
        t: dict[str, Any] = dict(row._mapping)
        t["seats"] = [dict(r._mapping) for r in conn.execute(
            select(seats).where(seats.c.table_id == t["id"]).order_by(seats.c.seat))]
        if with_log:
            t["rounds"] = [dict(r._mapping) for r in conn.execute(
                select(rounds).where(rounds.c.table_id == t["id"]).order_by(rounds.c.idx))]
            t["actions"] = [dict(r._mapping) for r in conn.execute(
                select(actions).where(actions.c.table_id == t["id"]).order_by(actions.c.seq))]
            mp = match_players.c  # a rated finish: each seat's rating before and after
            t["ratings"] = [{"seat": r.seat, "before": r.rating_before, "after": r.rating_after}
                            for r in conn.execute(select(mp.seat, mp.rating_before,
                                                         mp.rating_after).where(
                                mp.table_id == t["id"], mp.rating_before.is_not(None))
                                .order_by(mp.seat))] or None
        return t

    def active_table_ids(self) -> list[str]:
        """The ids of the open and running tables."""
        with self.begin() as conn:
            return list(conn.execute(select(tables.c.id).where(
                tables.c.status.in_(("open", "running")))).scalars())

    def running_seats(self, player_id: str) -> int:
        """At how many running tables the player sits."""
        with self.begin() as conn:
            return int(conn.execute(select(func.count()).select_from(seats)
                                    .join(tables, tables.c.id == seats.c.table_id)
                                    .where(seats.c.player_id == player_id,
                                           tables.c.status == "running")).scalar_one())

    def count_active_tables(self, owner_id: str) -> int:
        """How many open or running tables ``owner_id`` created."""
        with self.begin() as conn:
            return int(conn.execute(select(func.count()).select_from(tables).where(
                tables.c.owner_id == owner_id,
                tables.c.status.in_(("open", "running")))).scalar_one())

    def load_active(self) -> list[dict[str, Any]]:
        """Every open or running table with its seats, deals and action log."""
        with self.begin() as conn:
            rows = conn.execute(select(tables).where(tables.c.status.in_(("open", "running")))
                                .order_by(tables.c.created_at)).all()
            return [self._table_dict(conn, r, True) for r in rows]

    def load_table(self, table_id: str, with_log: bool = False) -> dict[str, Any] | None:
        with self.begin() as conn:
            row = conn.execute(select(tables).where(tables.c.id == table_id)).first()
            return None if row is None else self._table_dict(conn, row, with_log)

    def history(self, player_id: str, limit: int = 100, offset: int = 0
                ) -> tuple[list[dict[str, Any]], int]:
        """A page of the finished matches a player sat in, newest first, without their
        records (``id``, ``variant``, ``options``, ``result``, ``finished_at``, ``origin``,
        ``seat``: his first seat, ``players``: the names in the seats), and how many there
        are in all."""
        mine = (select(seats.c.table_id, func.min(seats.c.seat).label("seat"))
                .where(seats.c.player_id == player_id).group_by(seats.c.table_id).subquery())
        base = (select(tables.c.id, tables.c.variant, tables.c.options, tables.c.result,
                       tables.c.finished_at, tables.c.origin, mine.c.seat)
                .join(mine, mine.c.table_id == tables.c.id)
                .where(tables.c.status == "finished"))
        with self.begin() as conn:
            total = conn.execute(select(func.count()).select_from(base.subquery())).scalar_one()
            rows = [dict(r._mapping) for r in conn.execute(
                base.order_by(tables.c.finished_at.desc(), tables.c.id)
                .limit(limit).offset(offset))]
        names = self.seat_names(r["id"] for r in rows)
        for r in rows:
            r["players"] = names[r["id"]]
        return rows, int(total)

    def seat_names(self, table_ids: Iterable[str]) -> dict[str, list[str]]:
        """The names in the seats of these tables."""
        ids = list(table_ids)
        out: dict[str, list[str]] = {t: [] for t in ids}
        with self.begin() as conn:
            for r in conn.execute(select(seats.c.table_id, seats.c.name)
                                  .where(seats.c.table_id.in_(ids))
                                  .order_by(seats.c.table_id, seats.c.seat)):
                out[r.table_id].append(r.name)
        return out

"""Tables: their settings and seats, their event log (``rounds`` and ``actions``, one row
per event numbered by ``seq``), their end and the queries over them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select, update

from ..models import actions, match_players, rounds, seats, tables
from .base import Repo, now
from .ratings import RateFn, apply_ratings

_INSERT_ACTION = insert(actions)


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



class Tables(Repo):
    """Tables, their seats and their logs."""

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

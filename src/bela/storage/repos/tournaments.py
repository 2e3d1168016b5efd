"""Tournaments: their settings and status, entries, the stored plans of their rounds and the
games of those plans with their tables and results (docs/TOURNAMENTS.md).

Every change of a tournament, its entries, rounds or games adds one to its ``version`` in
the same transaction (the server's cache of the tournament's object is keyed by it).
Every change of state is a compare-and-set on the status it expects (``expect``): two
requests, or two server instances, that race change it once.  A round's plan is stored
once, with its games, in one transaction (its key is (tournament, round)):
:meth:`Tournaments.store_round` answers whether this call stored it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ScalarSelect, func, insert, or_, select, update

from ..models import players, tournament_entries, tournaments
from .base import now
from .tournament_rounds import TournamentRounds, bump

Row = dict[str, Any]


def _of_entry(entry_id: int) -> ScalarSelect[Any]:
    """The tournament of an entry (a subquery)."""
    e = tournament_entries.c
    return select(e.tournament_id).where(e.id == entry_id).scalar_subquery()


class Tournaments(TournamentRounds):
    """Tournaments and their entries (and, :class:`TournamentRounds`, their rounds and
    games)."""

    # -- tournaments -----------------------------------------------------------------------
    def create(self, tournament_id: str, name: str, director_id: str, variant: str,
               fmt: str, settings: Mapping[str, Any], *, private: bool,
               invite_code: str | None, starts_at: datetime | None) -> None:
        with self.begin() as conn:
            conn.execute(insert(tournaments).values(
                id=tournament_id, name=name, director_id=director_id, variant=variant,
                format=fmt, settings=dict(settings), status="registering", private=private,
                invite_code=invite_code, round=0, starts_at=starts_at, created_at=now()))

    def get(self, tournament_id: str) -> Row | None:
        with self.begin() as conn:
            row = conn.execute(select(tournaments).where(
                tournaments.c.id == tournament_id)).first()
        return None if row is None else dict(row._mapping)

    def set_status(self, tournament_id: str, expect: Iterable[str], status: str,
                   **values: Any) -> bool:
        """Status ``status`` (and other ``values``) if the status is one of ``expect``:
        whether it was changed."""
        with self.begin() as conn:
            done = conn.execute(update(tournaments).where(
                tournaments.c.id == tournament_id, tournaments.c.status.in_(list(expect)))
                .values(status=status, **values)).rowcount
            if done:
                bump(conn, tournament_id)
        return bool(done)

    def set_next_round_at(self, tournament_id: str, when: datetime | None) -> None:
        with self.begin() as conn:
            conn.execute(update(tournaments).where(tournaments.c.id == tournament_id)
                         .values(next_round_at=when, version=tournaments.c.version + 1))

    def listing(self, statuses: Sequence[str], limit: int, offset: int,
                soonest_first: bool = False) -> tuple[list[Row], int]:
        """A page of the public tournaments in ``statuses``, newest first (or by
        ``starts_at``, soonest first), with their registered entries counted; the total."""
        t = tournaments.c
        where = (t.status.in_(list(statuses)), t.private.is_(False))
        e = tournament_entries.c
        counted = (select(func.count()).where(e.tournament_id == t.id,
                                              e.status == "registered")
                   .scalar_subquery().label("entries"))
        order = ((t.starts_at.is_(None), t.starts_at, t.created_at) if soonest_first
                 else (t.created_at.desc(), t.id))
        with self.begin() as conn:
            total = conn.execute(select(func.count()).select_from(tournaments)
                                 .where(*where)).scalar_one()
            rows = conn.execute(select(tournaments, counted).where(*where).order_by(*order)
                                .limit(limit).offset(offset))
            return [dict(r._mapping) for r in rows], int(total)

    def count_active(self, director_id: str) -> int:
        """The tournaments of a director that are not over."""
        t = tournaments.c
        with self.begin() as conn:
            return int(conn.execute(select(func.count()).select_from(tournaments).where(
                t.director_id == director_id,
                t.status.not_in(["finished", "cancelled"]))).scalar_one())

    def running_ids(self) -> list[str]:
        """The tournaments the scheduler looks after: running, or paused with tables still
        playing."""
        with self.begin() as conn:
            return list(conn.execute(select(tournaments.c.id).where(
                tournaments.c.status.in_(["running", "paused"]))).scalars())

    def due(self, when: datetime) -> list[str]:
        """The tournaments not started whose ``starts_at`` is ``when`` or before."""
        t = tournaments.c
        with self.begin() as conn:
            return list(conn.execute(select(t.id).where(
                t.status.in_(["registering", "closed"]), t.starts_at.is_not(None),
                t.starts_at <= when).order_by(t.starts_at)).scalars())

    # -- entries ---------------------------------------------------------------------------
    def add_entry(self, tournament_id: str, name: str, status: str, *,
                  player_id: str | None = None, partner_id: str | None = None,
                  bot: str | None = None, rating: float | None = None,
                  checked_in: Sequence[str] = ()) -> int:
        with self.begin() as conn:
            key = conn.execute(insert(tournament_entries).values(
                tournament_id=tournament_id, player_id=player_id, partner_id=partner_id,
                bot=bot, name=name, status=status, rating=rating,
                checked_in=list(checked_in), created_at=now())).inserted_primary_key
            bump(conn, tournament_id)
        assert key is not None
        return int(key[0])

    def entries(self, tournament_id: str) -> list[Row]:
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(
                select(tournament_entries).where(
                    tournament_entries.c.tournament_id == tournament_id)
                .order_by(tournament_entries.c.id))]

    def update_entry(self, entry_id: int, expect: Iterable[str] | None = None,
                     **values: Any) -> bool:
        """Change an entry (if its status is one of ``expect``, when given): whether it was
        changed."""
        e = tournament_entries.c
        where = [e.id == entry_id]
        if expect is not None:
            where.append(e.status.in_(list(expect)))
        with self.begin() as conn:
            done = bool(conn.execute(update(tournament_entries).where(*where)
                                     .values(**values)).rowcount)
            if done:
                bump(conn, _of_entry(entry_id))
        return done

    def set_entries(self, changes: Mapping[int, Mapping[str, Any]]) -> None:
        """Several entries changed in one transaction (the start: ratings fixed, pairs
        made, entries withdrawn)."""
        with self.begin() as conn:
            for entry_id, values in changes.items():
                conn.execute(update(tournament_entries).where(
                    tournament_entries.c.id == entry_id).values(**values))
                bump(conn, _of_entry(entry_id))

    def start(self, tournament_id: str, expect: Iterable[str],
              changes: Mapping[int, Mapping[str, Any]], started_at: datetime) -> bool:
        """Status ``running`` if the status is one of ``expect``, with the entries'
        ``changes`` (pairs made, entries withdrawn, ratings fixed), in one transaction:
        whether it started (nothing is written when not)."""
        with self.begin() as conn:
            if not conn.execute(update(tournaments).where(
                    tournaments.c.id == tournament_id, tournaments.c.status.in_(list(expect)))
                    .values(status="running", started_at=started_at,
                            version=tournaments.c.version + 1)).rowcount:
                return False
            for entry_id, values in changes.items():
                conn.execute(update(tournament_entries).where(
                    tournament_entries.c.id == entry_id).values(**values))
        return True

    def player_names(self, player_ids: Iterable[str]) -> dict[str, str]:
        """The names of these players (those that exist), in one query."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        with self.begin() as conn:
            return {r.id: r.name for r in conn.execute(
                select(players.c.id, players.c.name).where(players.c.id.in_(ids)))}

    def player_entries(self, player_id: str) -> list[Row]:
        """Every entry the player is in (as player or partner), with its tournament's name,
        status, variant, format, round and finish, newest first."""
        e, t = tournament_entries.c, tournaments.c
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(
                select(tournament_entries, t.name.label("tournament_name"),
                       t.status.label("tournament_status"), t.variant, t.format, t.round,
                       t.finished_at)
                .join(tournaments, t.id == e.tournament_id)
                .where(or_(e.player_id == player_id, e.partner_id == player_id))
                .order_by(t.created_at.desc(), e.id))]

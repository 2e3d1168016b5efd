"""Ratings of players and bots, the lines of finished matches, the leaderboard."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    case,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ..models import BOARD_RATING, match_players, players, ratings, tables
from .base import Repo

# a rating entry's row before its first rated match is written (games 0: never read as a
# skill; the match's update overwrites it in the same transaction)
NEW_MU, NEW_SIGMA = 25.0, 25.0 / 3


# what a rating update is given and gives back: entry -> (mu, sigma) before; entry ->
# {"mu", "sigma", "before", "after"} after (before/after: the ratings shown)
RateFn = Callable[[dict[str, tuple[float, float]]], dict[str, dict[str, Any]]]

def apply_ratings(conn: Connection, variant: str, rows: list[dict[str, Any]], rate: RateFn,
          when: datetime) -> dict[str, dict[str, Any]]:
    entries = sorted({r["entry"] for r in rows})  # locked in one order: no deadlock
    # every entry gets its row first (two matches finishing at once may both bring a
    # new entry: one inserts it, the other waits for its lock below)
    new = [{"entry": e, "variant": variant, "mu": NEW_MU, "sigma": NEW_SIGMA, "games": 0,
            "wins": 0} for e in entries]
    if conn.dialect.name == "postgresql":
        conn.execute(pg_insert(ratings).on_conflict_do_nothing(), new)
    elif conn.dialect.name == "sqlite":
        conn.execute(sqlite_insert(ratings).on_conflict_do_nothing(), new)
    else:  # pragma: no cover - the two databases the project runs on
        have: set[str] = set(conn.execute(select(ratings.c.entry).where(
            ratings.c.variant == variant, ratings.c.entry.in_(entries))).scalars())
        missing = [n for n in new if n["entry"] not in have]
        if missing:
            conn.execute(insert(ratings), missing)
    stmt = (select(ratings.c.entry, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .where(ratings.c.variant == variant, ratings.c.entry.in_(entries))
            .order_by(ratings.c.entry).with_for_update())
    current = {r.entry: (r.mu, r.sigma) for r in conn.execute(stmt) if r.games}
    moved = rate(current)
    for entry in entries:
        skill = moved[entry]
        won = int(all(r["won"] for r in rows if r["entry"] == entry))
        conn.execute(update(ratings).where(ratings.c.entry == entry,
                                           ratings.c.variant == variant)
                     .values(mu=skill["mu"], sigma=skill["sigma"],
                             games=ratings.c.games + 1, wins=ratings.c.wins + won,
                             updated_at=when))
    return moved



class Ratings(Repo):
    """Ratings, lines of finished matches and the leaderboard."""

    def ratings(self, entries: Iterable[str], variant: str) -> dict[str, dict[str, Any]]:
        """The stored ratings (``mu``, ``sigma``, ``games``, ``wins``) of these entries in
        ``variant``; an entry never rated is missing."""
        wanted = list(entries)
        with self.begin() as conn:
            rows = conn.execute(select(ratings).where(ratings.c.variant == variant,
                                                      ratings.c.entry.in_(wanted))).all()
        return {r.entry: dict(r._mapping) for r in rows}

    def meetings(self, entries: Iterable[str], variant: str, since: datetime
                 ) -> dict[str, int]:
        """For each of these entries, its rated matches of ``variant`` finished after
        ``since`` at which another of them sat too."""
        wanted = sorted(set(entries))
        if len(wanted) < 2:
            return {}
        mine, them = match_players.alias("mine"), match_players.alias("them")
        stmt = (select(mine.c.entry, func.count(func.distinct(mine.c.table_id)))
                .select_from(mine.join(them, them.c.table_id == mine.c.table_id))
                .where(mine.c.entry.in_(wanted), them.c.entry.in_(wanted),
                       them.c.entry != mine.c.entry, mine.c.variant == variant,
                       mine.c.rated.is_(True), mine.c.finished_at > since)
                .group_by(mine.c.entry))
        with self.begin() as conn:
            return {str(r[0]): int(r[1]) for r in conn.execute(stmt)}

    def ratings_of(self, entry: str) -> list[dict[str, Any]]:
        """An entry's rating in every variant it was rated in."""
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(
                select(ratings).where(ratings.c.entry == entry).order_by(ratings.c.variant))]

    def lines(self, entry: str, variant: str | None = None, limit: int | None = None,
              rated_only: bool = False) -> list[dict[str, Any]]:
        """An entry's lines of finished matches, newest first, each with its table's
        ``private``, ``options`` and ``result``."""
        stmt = (select(match_players, tables.c.private, tables.c.options, tables.c.result)
                .join(tables, tables.c.id == match_players.c.table_id)
                .where(match_players.c.entry == entry)
                .order_by(match_players.c.finished_at.desc(), match_players.c.table_id))
        if variant is not None:
            stmt = stmt.where(match_players.c.variant == variant)
        if rated_only:
            stmt = stmt.where(match_players.c.rated.is_(True))
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(stmt)]

    def line_stats(self, entry: str, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` lines of an entry's finished matches, without the tables'
        results (what a profile's contracts and rating history are counted from):
        ``table_id``, ``seat``, ``variant``, ``finished_at``, ``won``, ``rated``,
        ``contracts``, ``rating_after`` and the table's ``private``."""
        mp = match_players.c
        stmt = (select(mp.table_id, mp.seat, mp.variant, mp.finished_at, mp.won, mp.rated,
                       mp.contracts, mp.rating_after, tables.c.private)
                .join(tables, tables.c.id == mp.table_id)
                .where(mp.entry == entry)
                .order_by(mp.finished_at.desc(), mp.table_id, mp.seat).limit(limit))
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(stmt)]

    def line_totals(self, entry: str) -> dict[str, dict[str, int]]:
        """An entry's totals per variant over all its finished matches: ``games`` (tables),
        ``wins`` (tables where every seat of the entry won: a bot on both sides did not),
        ``points`` and ``deals`` (summed over its seats)."""
        mp = match_players.c
        per_table = (select(mp.table_id, mp.variant,
                            func.min(case((mp.won, 1), else_=0)).label("won"),
                            func.sum(mp.points).label("points"),
                            func.sum(mp.deals).label("deals"))
                     .where(mp.entry == entry).group_by(mp.table_id, mp.variant).subquery())
        stmt = (select(per_table.c.variant, func.count().label("games"),
                       func.sum(per_table.c.won).label("wins"),
                       func.sum(per_table.c.points).label("points"),
                       func.sum(per_table.c.deals).label("deals"))
                .group_by(per_table.c.variant))
        with self.begin() as conn:
            return {r.variant: {"games": int(r.games), "wins": int(r.wins or 0),
                                "points": int(r.points or 0), "deals": int(r.deals or 0)}
                    for r in conn.execute(stmt)}
    def leaderboard(self, variant: str, limit: int, offset: int, min_opponents: int = 0,
                    sides: int = 1) -> tuple[list[dict[str, Any]], int]:
        """The rated accounts and bots of ``variant``, best first by ``mu - 3 sigma``: a
        page (``entry``, ``name`` (None for a bot), ``mu``, ``sigma``, ``games``, ``wins``)
        and the length of the whole list.  An account is listed once it met
        ``min_opponents`` distinct entries on another side (seat modulo ``sides``) in rated
        matches of the variant."""
        listed = or_(ratings.c.entry.like("bot-%"), players.c.password_hash.is_not(None))
        if min_opponents:
            mine, them = match_players.alias("mine"), match_players.alias("them")
            met = (select(func.count(func.distinct(them.c.entry)))
                   .select_from(mine.join(them, them.c.table_id == mine.c.table_id))
                   .where(mine.c.entry == ratings.c.entry, mine.c.variant == variant,
                          mine.c.rated.is_(True), them.c.entry != mine.c.entry,
                          them.c.seat % sides != mine.c.seat % sides)
                   .scalar_subquery())
            listed = or_(ratings.c.entry.like("bot-%"),
                         and_(players.c.password_hash.is_not(None), met >= min_opponents))
        base = (select(ratings, players.c.name)
                .join(players, players.c.id == ratings.c.entry, isouter=True)
                .where(ratings.c.variant == variant, listed))
        with self.begin() as conn:
            total = conn.execute(select(func.count()).select_from(base.subquery())).scalar_one()
            rows = conn.execute(base.order_by(BOARD_RATING.desc(), ratings.c.entry)
                                .limit(limit).offset(offset)).all()
        return [dict(r._mapping) for r in rows], int(total)

"""A tournament's rounds and games: the stored plans of its rounds, the games of those
plans with their tables, who came, and their results (docs/TOURNAMENTS.md); the part of
:class:`~bela.storage.repos.Tournaments` that the scheduler steps.

A round's plan is stored once, with its games, in one transaction (its key is
(tournament, round)): :meth:`TournamentRounds.store_round` answers whether this call
stored it.  Every change adds one to the tournament's ``version`` in its transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, ScalarSelect, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..models import tournament_entries, tournament_games, tournament_rounds, tournaments
from .base import Repo, now

Row = dict[str, Any]


def bump(conn: Connection, tournament_id: str | ScalarSelect[Any]) -> None:
    """The tournament's ``version`` one more (in the transaction of its change)."""
    conn.execute(update(tournaments).where(tournaments.c.id == tournament_id)
                 .values(version=tournaments.c.version + 1))



class TournamentRounds(Repo):
    """The rounds and games of the tournaments."""

    # -- rounds and games ------------------------------------------------------------------
    def store_round(self, tournament_id: str, rnd: int, stage: str, byes: Sequence[int],
                    games: Sequence[Mapping[str, Any]], finished: bool = False) -> bool:
        """The plan of round ``rnd`` and its games (``table_no``, ``entries``, ``leg``,
        ``boards``), and the tournament's ``round``, in one transaction: ``False`` when the
        round was stored before (nothing is written).  ``finished``: a round of byes only."""
        stamp = now()
        try:
            with self.begin() as conn:
                conn.execute(insert(tournament_rounds).values(
                    tournament_id=tournament_id, round=rnd, stage=stage, byes=list(byes),
                    created_at=stamp, finished_at=stamp if finished else None))
                if games:
                    conn.execute(insert(tournament_games), [
                        {"tournament_id": tournament_id, "round": rnd,
                         "table_no": g["table_no"], "entries": list(g["entries"]),
                         "leg": g.get("leg", 1), "boards": list(g.get("boards", ())),
                         "status": "pending", "present": {}} for g in games])
                conn.execute(update(tournaments).where(tournaments.c.id == tournament_id)
                             .values(round=rnd, next_round_at=None,
                                     version=tournaments.c.version + 1))
        except IntegrityError:
            return False
        return True

    def rounds(self, tournament_id: str) -> list[Row]:
        """The stored rounds, oldest first, each with its ``games`` by table number."""
        r, g = tournament_rounds.c, tournament_games.c
        with self.begin() as conn:
            out = [dict(row._mapping) for row in conn.execute(
                select(tournament_rounds).where(r.tournament_id == tournament_id)
                .order_by(r.round))]
            games = [dict(row._mapping) for row in conn.execute(
                select(tournament_games).where(g.tournament_id == tournament_id)
                .order_by(g.round, g.table_no))]
        for rnd in out:
            rnd["games"] = [x for x in games if x["round"] == rnd["round"]]
        return out

    def finish_round(self, tournament_id: str, rnd: int) -> None:
        r = tournament_rounds.c
        with self.begin() as conn:
            if conn.execute(update(tournament_rounds).where(
                    r.tournament_id == tournament_id, r.round == rnd, r.finished_at.is_(None))
                    .values(finished_at=now())).rowcount:
                bump(conn, tournament_id)

    def update_game(self, tournament_id: str, rnd: int, table_no: int,
                    expect: Iterable[str], **values: Any) -> bool:
        """Change a game if its status is one of ``expect``: whether it was changed."""
        g = tournament_games.c
        with self.begin() as conn:
            done = bool(conn.execute(update(tournament_games).where(
                g.tournament_id == tournament_id, g.round == rnd, g.table_no == table_no,
                g.status.in_(list(expect))).values(**values)).rowcount)
            if done:
                bump(conn, tournament_id)
        return done

    def set_table_ids(self, tournament_id: str, table_ids: Mapping[tuple[int, int], str]
                      ) -> None:
        """The table id of each pending game without one (keyed by round and table number),
        in one transaction: stored before the tables are made."""
        g = tournament_games.c
        with self.begin() as conn:
            for (rnd, table_no), table_id in table_ids.items():
                conn.execute(update(tournament_games).where(
                    g.tournament_id == tournament_id, g.round == rnd, g.table_no == table_no,
                    g.status == "pending", g.table_id.is_(None)).values(table_id=table_id))
            bump(conn, tournament_id)

    def start_games(self, tournament_id: str, games: Iterable[tuple[int, int]],
                    started_at: datetime) -> list[tuple[int, int]]:
        """The pending games (round, table number) marked ``playing``, in one transaction:
        those this call changed."""
        g = tournament_games.c
        out = []
        with self.begin() as conn:
            for rnd, table_no in games:
                if conn.execute(update(tournament_games).where(
                        g.tournament_id == tournament_id, g.round == rnd,
                        g.table_no == table_no, g.status == "pending")
                        .values(status="playing", started_at=started_at)).rowcount:
                    out.append((rnd, table_no))
            if out:
                bump(conn, tournament_id)
        return out

    def correct_game(self, tournament_id: str, rnd: int, table_no: int,
                     result: Mapping[str, Any]) -> bool:
        """A finished game's result replaced (the director's correction), in one
        transaction, if no later round than ``rnd`` is paired (the tournament's ``round``,
        set with each stored plan, is still ``rnd``; its row is locked to the commit):
        whether it was changed (nothing is written when not)."""
        g, t = tournament_games.c, tournaments.c
        with self.begin() as conn:
            if not conn.execute(update(tournaments).where(
                    t.id == tournament_id, t.round == rnd)
                    .values(version=t.version + 1)).rowcount:
                return False
            if not conn.execute(update(tournament_games).where(
                    g.tournament_id == tournament_id, g.round == rnd, g.table_no == table_no,
                    g.status == "finished").values(result=dict(result))).rowcount:
                conn.rollback()
                return False
        return True

    def void_unfinished(self, tournament_id: str) -> list[str]:
        """The unfinished games of an ended tournament made ``void`` (not played): the ids of
        their tables."""
        g = tournament_games.c
        where = (g.tournament_id == tournament_id, g.status.in_(["pending", "playing"]))
        with self.begin() as conn:
            found: list[str | None] = list(conn.execute(select(g.table_id).where(*where))
                                           .scalars())
            conn.execute(update(tournament_games).where(*where)
                         .values(status="void", finished_at=now()))
            bump(conn, tournament_id)
        return [t for t in found if t]

    def game_of_table(self, table_id: str) -> Row | None:
        """The game played at a table, if it is a tournament's."""
        with self.begin() as conn:
            row = conn.execute(select(tournament_games).where(
                tournament_games.c.table_id == table_id)).first()
        return None if row is None else dict(row._mapping)

    def games_at(self, table_ids: Sequence[str]) -> list[Row]:
        """The games played at these tables (those of tournaments' games)."""
        if not table_ids:
            return []
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(select(tournament_games).where(
                tournament_games.c.table_id.in_(list(table_ids))))]

    def note_present(self, tournament_id: str, rnd: int, table_no: int,
                     seen: Iterable[int], bot_played: Iterable[int] = ()) -> bool:
        """The seats whose player connected to a playing game's table (``seen``) and the
        entries a bot played for (``bot_played``) added to its ``present``, in one
        transaction (the row locked: two instances' notes never lose one another's): whether
        it changed."""
        g = tournament_games.c
        where = (g.tournament_id == tournament_id, g.round == rnd, g.table_no == table_no,
                 g.status == "playing")
        with self.begin() as conn:
            found = conn.execute(select(g.present).where(*where).with_for_update()).first()
            if found is None:
                return False
            was = dict(found.present or {})
            now = {**was, "seen": sorted(set(was.get("seen", ())) | set(seen)),
                   "bot_played": sorted(set(was.get("bot_played", ())) | set(bot_played))}
            if now == {**was, "seen": sorted(was.get("seen", ())),
                       "bot_played": sorted(was.get("bot_played", ()))}:
                return False
            conn.execute(update(tournament_games).where(*where).values(present=now))
            bump(conn, tournament_id)
        return True

    def round_playing(self, table_id: str) -> bool:
        """Whether the table is a tournament game's whose round is still being played."""
        g, r = tournament_games.c, tournament_rounds.c
        with self.begin() as conn:
            found = conn.execute(select(r.finished_at).join(
                tournament_games, (g.tournament_id == r.tournament_id) & (g.round == r.round))
                .where(g.table_id == table_id)).first()
        return found is not None and found.finished_at is None

    def games_of_players(self, player_id: str) -> list[Row]:
        """The unfinished games of the tournaments the player is entered in that are not
        over, with the entry he plays in (``entry_id``)."""
        e, g, t = tournament_entries.c, tournament_games.c, tournaments.c
        with self.begin() as conn:
            return [dict(r._mapping) for r in conn.execute(
                select(tournament_games, e.id.label("entry_id"))
                .join(tournaments, t.id == g.tournament_id)
                .join(tournament_entries, e.tournament_id == g.tournament_id)
                .where(or_(e.player_id == player_id, e.partner_id == player_id),
                       e.status == "registered", g.status != "finished",
                       t.status.in_(["running", "paused"])))]

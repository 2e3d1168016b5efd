"""Friends and avatars: follows between accounts (one way a request, both ways friends) and
each player's drawn avatar."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update

from ..models import follows, players
from .base import Repo, now


class Friends(Repo):
    """Follows between players: ``follow`` asks (or accepts the other's ask), ``unfollow``
    ends a friendship or a request either way."""

    def follow(self, player_id: str, other_id: str) -> bool:
        """``player_id`` follows ``other_id`` (nothing if he already does): whether they
        are friends now (the other followed him first)."""
        with self.begin() as conn:
            have = conn.execute(select(follows.c.player_id).where(
                follows.c.player_id == player_id, follows.c.other_id == other_id)).first()
            if have is None:
                conn.execute(insert(follows).values(player_id=player_id, other_id=other_id,
                                                    created_at=now()))
            back = conn.execute(select(follows.c.player_id).where(
                follows.c.player_id == other_id, follows.c.other_id == player_id)).first()
            return back is not None

    def unfollow(self, player_id: str, other_id: str) -> None:
        """No follow between the two, either way (a friend removed, a request declined or
        taken back)."""
        with self.begin() as conn:
            conn.execute(delete(follows).where(or_(
                and_(follows.c.player_id == player_id, follows.c.other_id == other_id),
                and_(follows.c.player_id == other_id, follows.c.other_id == player_id))))

    def of(self, player_id: str) -> dict[str, list[dict[str, Any]]]:
        """``friends`` (both follow), ``incoming`` (requests to him) and ``outgoing`` (his
        requests), each a list of {``player_id``, ``name``, ``avatar``} by name."""
        with self.begin() as conn:
            out = {r.other_id for r in conn.execute(
                select(follows.c.other_id).where(follows.c.player_id == player_id))}
            into = {r.player_id for r in conn.execute(
                select(follows.c.player_id).where(follows.c.other_id == player_id))}
            ids = out | into
            rows = {r.id: {"player_id": r.id, "name": r.name, "avatar": r.avatar}
                    for r in conn.execute(select(players.c.id, players.c.name,
                                                 players.c.avatar)
                                          .where(players.c.id.in_(ids)))} if ids else {}

        def listed(keys: set[str]) -> list[dict[str, Any]]:
            return sorted((rows[k] for k in keys if k in rows),
                          key=lambda r: (str(r["name"]).casefold(), r["player_id"]))

        return {"friends": listed(out & into), "incoming": listed(into - out),
                "outgoing": listed(out - into)}


class Avatars(Repo):
    """Each player's chosen drawn avatar."""

    def set_avatar(self, player_id: str, avatar: str | None) -> None:
        with self.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id)
                         .values(avatar=avatar))

    def avatars(self, ids: list[str]) -> dict[str, str | None]:
        """The avatars of the known players among ``ids`` (None: not chosen)."""
        if not ids:
            return {}
        with self.begin() as conn:
            return {r.id: r.avatar for r in conn.execute(
                select(players.c.id, players.c.avatar).where(players.c.id.in_(ids)))}

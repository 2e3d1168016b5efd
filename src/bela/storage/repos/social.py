"""Friends, blocks and avatars: follows between accounts (one way a request, both ways
friends), blocks (the blocked player's free text never reaches the blocker) and each
player's drawn avatar."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update

from ..models import blocks, follows, players
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


class Blocks(Repo):
    """Blocks between accounts: ``block`` also ends a friendship or request either way."""

    def block(self, player_id: str, other_id: str) -> None:
        """``player_id`` blocks ``other_id`` (nothing if he already does)."""
        with self.begin() as conn:
            have = conn.execute(select(blocks.c.player_id).where(
                blocks.c.player_id == player_id, blocks.c.other_id == other_id)).first()
            if have is None:
                conn.execute(insert(blocks).values(player_id=player_id, other_id=other_id,
                                                   created_at=now()))
            conn.execute(delete(follows).where(or_(
                and_(follows.c.player_id == player_id, follows.c.other_id == other_id),
                and_(follows.c.player_id == other_id, follows.c.other_id == player_id))))

    def unblock(self, player_id: str, other_id: str) -> None:
        with self.begin() as conn:
            conn.execute(delete(blocks).where(blocks.c.player_id == player_id,
                                              blocks.c.other_id == other_id))

    def blocked(self, player_id: str) -> list[dict[str, Any]]:
        """The players ``player_id`` blocks: {``player_id``, ``name``} by name."""
        with self.begin() as conn:
            rows = conn.execute(select(players.c.id, players.c.name)
                                .join(blocks, blocks.c.other_id == players.c.id)
                                .where(blocks.c.player_id == player_id))
            return sorted(({"player_id": r.id, "name": r.name} for r in rows),
                          key=lambda r: (str(r["name"]).casefold(), r["player_id"]))

    def blocked_ids(self, player_id: str) -> set[str]:
        """The ids of the players ``player_id`` blocks."""
        with self.begin() as conn:
            return {r.other_id for r in conn.execute(
                select(blocks.c.other_id).where(blocks.c.player_id == player_id))}

    def blockers(self, other_id: str, among: Collection[str]) -> set[str]:
        """Those of ``among`` who block ``other_id``."""
        if not among:
            return set()
        with self.begin() as conn:
            return {r.player_id for r in conn.execute(
                select(blocks.c.player_id).where(blocks.c.other_id == other_id,
                                                 blocks.c.player_id.in_(set(among))))}


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

"""Players and their tokens: a guest's first token (on its ``players`` row) and the tokens of
logins (``sessions``)."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from ..models import players, sessions
from .base import Repo, hash_token, now


def _add_session(conn: Connection, player_id: str) -> str:
    token = secrets.token_urlsafe(32)
    made = now()
    conn.execute(insert(sessions).values(token_hash=hash_token(token), player_id=player_id,
                                         created_at=made, last_seen_at=made))
    return token


def _drop_tokens(conn: Connection, player_id: str) -> None:
    """Every token of the player stops working (his first one is replaced by one nobody
    knows)."""
    conn.execute(delete(sessions).where(sessions.c.player_id == player_id))
    conn.execute(update(players).where(players.c.id == player_id)
                 .values(token_hash=hash_token(secrets.token_urlsafe(32))))


class Players(Repo):
    """Players and their tokens."""

    def create_player(self, name: str) -> tuple[str, str]:
        """A guest account: its id and its secret token (only the hash is stored)."""
        pid = secrets.token_hex(8)
        token = secrets.token_urlsafe(32)
        made = now()
        with self.begin() as conn:
            conn.execute(insert(players).values(id=pid, name=name, token_hash=hash_token(token),
                                                created_at=made, last_seen_at=made))
        return pid, token

    def player_by_token(self, token: str) -> dict[str, Any] | None:
        """The player of a token (a guest's first token or a login's): ``id``, ``name``,
        ``account`` (whether the name is claimed) and ``last_seen_at`` (the token's last
        noted use)."""
        digest = hash_token(token)
        cols = (players.c.id, players.c.name, players.c.password_hash)
        with self.begin() as conn:
            row = conn.execute(select(*cols, players.c.last_seen_at)
                               .where(players.c.token_hash == digest)).first()
            if row is None:
                row = conn.execute(select(*cols, sessions.c.last_seen_at)
                                   .join(sessions, sessions.c.player_id == players.c.id)
                                   .where(sessions.c.token_hash == digest)).first()
        if row is None:
            return None
        return {"id": row.id, "name": row.name, "account": row.password_hash is not None,
                "last_seen_at": row.last_seen_at}

    def token_seen(self, token: str, when: datetime) -> None:
        """Note a use of a token."""
        digest = hash_token(token)
        with self.begin() as conn:
            if not conn.execute(update(players).where(players.c.token_hash == digest)
                                .values(last_seen_at=when)).rowcount:
                conn.execute(update(sessions).where(sessions.c.token_hash == digest)
                             .values(last_seen_at=when))

    def rotate_token(self, token: str) -> str | None:
        """A new secret token in place of ``token`` (a guest's first one or a login's):
        ``token`` stops working, the player's other tokens keep working; ``None`` for an
        unknown token."""
        digest, fresh = hash_token(token), secrets.token_urlsafe(32)
        with self.begin() as conn:
            if conn.execute(update(players).where(players.c.token_hash == digest)
                            .values(token_hash=hash_token(fresh), last_seen_at=now())).rowcount:
                return fresh
            player_id = conn.execute(delete(sessions).where(sessions.c.token_hash == digest)
                                     .returning(sessions.c.player_id)).scalar()
            if player_id is None:
                return None
            return _add_session(conn, player_id)

    def player(self, player_id: str) -> dict[str, Any] | None:
        """A player's public facts: ``id``, ``name``, ``account``, ``created_at``."""
        with self.begin() as conn:
            row = conn.execute(select(players.c.id, players.c.name, players.c.created_at,
                                      players.c.password_hash)
                               .where(players.c.id == player_id)).first()
        if row is None:
            return None
        return {"id": row.id, "name": row.name, "created_at": row.created_at,
                "account": row.password_hash is not None}

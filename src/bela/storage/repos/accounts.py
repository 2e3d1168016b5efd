"""Accounts (a guest who claimed a name and a password), their logins and devices."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..models import devices, players, sessions
from .base import Repo, hash_token, now
from .players import _add_session, _drop_tokens

MAX_DEVICES = 20  # device secrets an account keeps (the newest)

class NameTaken(Exception):
    """An account already has this name (names are compared case-folded)."""



class Accounts(Repo):
    """Accounts, the tokens of their logins and their devices."""

    def name_taken(self, name_key: str) -> bool:
        """Whether an account has the name of this key."""
        with self.begin() as conn:
            return conn.execute(select(players.c.id)
                                .where(players.c.name_key == name_key)).first() is not None

    def claim(self, player_id: str, name: str, name_key: str, password_hash: str) -> bool:
        """Make the guest an account with this name and password hash: ``False`` when he
        already is one (nothing changed); raises :class:`NameTaken` when another account
        has the name."""
        try:
            with self.begin() as conn:
                return bool(conn.execute(
                    update(players).where(players.c.id == player_id,
                                          players.c.password_hash.is_(None))
                    .values(name=name, name_key=name_key, password_hash=password_hash,
                            account_at=now())).rowcount)
        except IntegrityError:
            raise NameTaken(name) from None

    def account(self, name_key: str) -> dict[str, Any] | None:
        """The account of a name's key: ``id``, ``name``, ``password_hash``."""
        with self.begin() as conn:
            row = conn.execute(select(players.c.id, players.c.name, players.c.password_hash)
                               .where(players.c.name_key == name_key)).first()
        return None if row is None else dict(row._mapping)

    def password_hash(self, player_id: str) -> str | None:
        with self.begin() as conn:
            return conn.execute(select(players.c.password_hash)
                                .where(players.c.id == player_id)).scalar()

    def set_password(self, player_id: str, password_hash: str) -> None:
        with self.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id)
                         .values(password_hash=password_hash))

    def add_session(self, player_id: str) -> str:
        """A new token of the player (a login); his other tokens keep working."""
        with self.begin() as conn:
            return _add_session(conn, player_id)

    def add_device(self, player_id: str) -> str:
        """A new device secret of the player (a browser that logged in), stored hashed;
        the player keeps his :data:`MAX_DEVICES` newest."""
        secret = secrets.token_urlsafe(24)
        with self.begin() as conn:
            conn.execute(insert(devices).values(device_hash=hash_token(secret),
                                                player_id=player_id, created_at=now()))
            kept = select(devices.c.device_hash).where(devices.c.player_id == player_id) \
                .order_by(devices.c.created_at.desc()).limit(MAX_DEVICES)
            conn.execute(delete(devices).where(devices.c.player_id == player_id,
                                               devices.c.device_hash.not_in(kept.scalar_subquery())))
        return secret

    def known_device(self, player_id: str, secret: str) -> bool:
        """Whether ``secret`` is one of the player's device secrets."""
        with self.begin() as conn:
            return conn.execute(select(devices.c.player_id).where(
                devices.c.device_hash == hash_token(secret),
                devices.c.player_id == player_id)).first() is not None

    def change_password(self, player_id: str, password_hash: str) -> str:
        """The new password hash; at once, every token of the player stops working and a
        new one is made: it is returned."""
        with self.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id)
                         .values(password_hash=password_hash))
            _drop_tokens(conn, player_id)
            return _add_session(conn, player_id)

    def drop_token(self, token: str) -> None:
        """This token stops working (a guest's first token is replaced by one nobody
        knows)."""
        digest = hash_token(token)
        with self.begin() as conn:
            if not conn.execute(delete(sessions).where(sessions.c.token_hash == digest)).rowcount:
                conn.execute(update(players).where(players.c.token_hash == digest)
                             .values(token_hash=hash_token(secrets.token_urlsafe(32))))

    def drop_tokens(self, player_id: str) -> None:
        """Every token of the player stops working."""
        with self.begin() as conn:
            _drop_tokens(conn, player_id)

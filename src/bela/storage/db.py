"""The database: engine set-up, migrations at start, and the few queries the server needs.

Any SQLAlchemy URL works (SQLite by default, PostgreSQL with a ``postgresql://`` URL); the
queries are plain SQLAlchemy Core, no dialect-specific SQL.  SQLite runs in WAL mode with
``synchronous=NORMAL``, PostgreSQL with ``synchronous_commit = off``: a committed action
survives the server process being killed (a crash of the machine or of PostgreSQL may lose
the last fraction of a second), and no commit waits for a disk flush.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.pool import StaticPool

from .models import actions, players, rounds, seats, tables

MIGRATIONS = "bela.storage"
MIGRATION_LOCK = 0x62656C61  # PostgreSQL advisory lock: one process migrates at a time
_INSERT_ACTION = insert(actions)


class LogConflict(Exception):
    """An event written at a ``seq`` the table's log has already passed: another process
    appended to the table (it believed it ran the table too).  Nothing was written."""


def data_dir() -> Path:
    """The user's data folder for bela (``BELA_DATA_DIR`` overrides it)."""
    env = os.environ.get("BELA_DATA_DIR")
    if env:
        return Path(env).expanduser()
    try:
        from platformdirs import user_data_dir
    except ImportError:  # pragma: no cover - platformdirs is in the server extra
        return Path.home() / ".local" / "share" / "bela"
    return Path(user_data_dir("bela", appauthor=False))


def default_db_url() -> str:
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'bela.db'}"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL and a busy timeout, in-memory a single
    shared connection."""
    if url.startswith("sqlite"):
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
        if url in ("sqlite://", "sqlite:///:memory:"):
            kwargs["poolclass"] = StaticPool
        engine = create_engine(url, **kwargs)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            # checkpoints (the only fsyncs in WAL mode) run in Database's background thread;
            # this is the safety net should that thread fall behind
            cur.execute("PRAGMA wal_autocheckpoint=20000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    # no ping before each use (a round trip per action): a connection the server lost fails
    # its statement, is dropped from the pool, and the write is refused and tried again
    engine = create_engine(url, pool_recycle=1800)
    if engine.dialect.name == "postgresql":

        @event.listens_for(engine, "connect")
        def _async_commit(dbapi_conn: Any, _record: Any) -> None:
            # a commit returns once it is in PostgreSQL, before its WAL is flushed to disk:
            # the durability of SQLite's WAL/NORMAL above (a committed action survives any
            # server process being killed; a crash of the database machine may lose its
            # last fraction of a second), without an fsync on the event loop per action
            cur = dbapi_conn.cursor()
            cur.execute("SET synchronous_commit TO OFF")
            cur.close()
            dbapi_conn.commit()

    return engine


def alembic_config(url: str) -> Any:
    """The Alembic configuration, made in code so an installed package needs no .ini file."""
    from alembic.config import Config

    cfg = Config()
    location = resources.files(MIGRATIONS) / "migrations"
    cfg.set_main_option("script_location", str(location))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(engine: Engine) -> None:
    """``alembic upgrade head`` on the engine's database."""
    from alembic import command

    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":  # server processes starting together
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


class Database:
    """The server's storage.  Every method commits before it returns."""

    def __init__(self, url: str | None = None, *, upgrade: bool = True,
                 checkpoint_every: float = 1.0) -> None:
        self.url = url or default_db_url()
        self.engine = make_engine(self.url)
        if upgrade:
            migrate(self.engine)
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        path = self.engine.url.database
        if self.engine.dialect.name == "sqlite" and path and path != ":memory:":
            self._checkpointer = threading.Thread(
                target=self._checkpoints, args=(path, checkpoint_every), daemon=True,
                name="bela-sqlite-checkpoint")
            self._checkpointer.start()

    def _checkpoints(self, path: str, every: float) -> None:
        """Copy the WAL into the database now and then, off the server's event loop, so a
        commit there never waits for a checkpoint's fsync."""
        import sqlite3

        conn = sqlite3.connect(path, timeout=30, check_same_thread=False)
        try:
            while not self._stop.wait(every):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
        self.engine.dispose()

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # -- players -------------------------------------------------------------------------
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
        """The player (``id``, ``name``, ``last_seen_at``: the token's last noted use) of a
        token."""
        with self.begin() as conn:
            row = conn.execute(select(players.c.id, players.c.name, players.c.last_seen_at)
                               .where(players.c.token_hash == hash_token(token))).first()
        return None if row is None else dict(row._mapping)

    def player_seen(self, player_id: str, when: datetime) -> None:
        """Note a use of the player's token."""
        with self.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id)
                         .values(last_seen_at=when))

    def new_token(self, player_id: str) -> str:
        """A new secret token for the player; the old one stops working."""
        token = secrets.token_urlsafe(32)
        with self.begin() as conn:
            conn.execute(update(players).where(players.c.id == player_id)
                         .values(token_hash=hash_token(token), last_seen_at=now()))
        return token

    # -- tables --------------------------------------------------------------------------
    def create_table(self, table_id: str, variant: str, options: dict[str, Any], seed: int,
                     bot: str, owner_id: str | None, n_seats: int, *, private: bool,
                     invite_code: str | None, active_at: datetime,
                     turn_clock: int | None) -> None:
        with self.begin() as conn:
            conn.execute(insert(tables).values(
                id=table_id, variant=variant, options=options, seed=seed, bot=bot,
                status="open", owner_id=owner_id, created_at=now(), private=private,
                invite_code=invite_code, active_at=active_at, turn_clock=turn_clock))
            conn.execute(insert(seats), [
                {"table_id": table_id, "seat": s, "player_id": None, "is_bot": False, "name": ""}
                for s in range(n_seats)])

    def set_seat(self, table_id: str, seat: int, player_id: str | None, is_bot: bool,
                 name: str, active_at: datetime) -> None:
        """Who sits in a seat; ``active_at``: the time of this change, kept for the table."""
        with self.begin() as conn:
            conn.execute(update(seats).where(seats.c.table_id == table_id, seats.c.seat == seat)
                         .values(player_id=player_id, is_bot=is_bot, name=name))
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

    def finish_table(self, table_id: str, result: dict[str, Any],
                     record: dict[str, Any]) -> None:
        with self.begin() as conn:
            conn.execute(update(tables).where(tables.c.id == table_id).values(
                status="finished", finished_at=now(), result=result, record=record))

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
        return t

    def active_table_ids(self) -> list[str]:
        """The ids of the open and running tables."""
        with self.begin() as conn:
            return list(conn.execute(select(tables.c.id).where(
                tables.c.status.in_(("open", "running")))).scalars())

    def count_active_tables(self, owner_id: str) -> int:
        """How many open or running tables ``owner_id`` created."""
        with self.begin() as conn:
            return int(conn.execute(select(func.count()).select_from(tables).where(
                tables.c.owner_id == owner_id,
                tables.c.status.in_(("open", "running")))).scalar_one())

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.begin() as conn:
            conn.execute(text("SELECT 1"))

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

    def history(self, player_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The finished matches a player sat in, newest first."""
        with self.begin() as conn:
            rows = conn.execute(
                select(tables).join(seats, seats.c.table_id == tables.c.id)
                .where(seats.c.player_id == player_id, tables.c.status == "finished")
                .order_by(tables.c.finished_at.desc()).limit(limit)).all()
            return [self._table_dict(conn, r, False) for r in rows]

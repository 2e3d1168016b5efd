"""The database: engine set-up, migrations at start, and the few queries the server needs.

Any SQLAlchemy URL works (SQLite by default, PostgreSQL with a ``postgresql://`` URL); the
queries are plain SQLAlchemy Core, no dialect-specific SQL.  SQLite runs in WAL mode with
``synchronous=NORMAL``, PostgreSQL with ``synchronous_commit = off``: a committed action
survives the server process being killed (a crash of the machine or of PostgreSQL may lose
the last fraction of a second), and no commit waits for a disk flush.
"""

from __future__ import annotations

import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.pool import StaticPool

from .repos import (
    Accounts,
    Avatars,
    Blocks,
    Friends,
    Pads,
    Players,
    Ratings,
    Repo,
    Tables,
    Talk,
    Tournaments,
)
from .repos.accounts import NameTaken
from .repos.base import hash_token, now
from .repos.pads import PadQuota, PadRefused
from .repos.ratings import RateFn
from .repos.tables import LogConflict

__all__ = ["Database", "LogConflict", "NameTaken", "PadQuota", "PadRefused", "RateFn",
           "alembic_config", "data_dir", "default_db_url", "hash_token", "make_engine",
           "migrate", "now"]

MIGRATIONS = "bela.storage"
MIGRATION_LOCK = 0x62656C61  # PostgreSQL advisory lock: one process migrates at a time


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
    shared connection.  Its errors never carry the statement's values (a refused deal's
    would be a live hand in the log)."""
    if url.startswith("sqlite"):
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
        if url in ("sqlite://", "sqlite:///:memory:"):
            kwargs["poolclass"] = StaticPool
        engine = create_engine(url, hide_parameters=True, **kwargs)

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
    engine = create_engine(url, pool_recycle=1800, hide_parameters=True)
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


class Database(Repo):
    """The server's storage: the engine, its migrations at start, and its queries by
    concern (``players``, ``accounts``, ``tables``, ``ratings``, ``pads``, ``tournaments``:
    repositories on the one engine).  Every query commits before it returns."""

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
        self.players = Players(self.engine)
        self.accounts = Accounts(self.engine)
        self.tables = Tables(self.engine)
        self.ratings = Ratings(self.engine)
        self.pads = Pads(self.engine)
        self.tournaments = Tournaments(self.engine)
        self.talk = Talk(self.engine)
        self.friends = Friends(self.engine)
        self.avatars = Avatars(self.engine)
        self.blocks = Blocks(self.engine)

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

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.begin() as conn:
            conn.execute(text("SELECT 1"))

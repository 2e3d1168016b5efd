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
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import StaticPool

from .models import (
    BOARD_RATING,
    actions,
    devices,
    match_players,
    pads,
    players,
    ratings,
    rounds,
    seats,
    sessions,
    tables,
)

MIGRATIONS = "bela.storage"
# a rating entry's row before its first rated match is written (games 0: never read as a
# skill; the match's update overwrites it in the same transaction)
NEW_MU, NEW_SIGMA = 25.0, 25.0 / 3
MIGRATION_LOCK = 0x62656C61  # PostgreSQL advisory lock: one process migrates at a time
_INSERT_ACTION = insert(actions)


# what a rating update is given and gives back: entry -> (mu, sigma) before; entry ->
# {"mu", "sigma", "before", "after"} after (before/after: the ratings shown)
RateFn = Callable[[dict[str, tuple[float, float]]], dict[str, dict[str, Any]]]


@dataclass(frozen=True)
class PadQuota:
    """What one account's pads may take: ``pads`` of them, ``account_bytes`` of records, and
    all pads written from one client address ``address_bytes``."""

    pads: int
    account_bytes: int
    address_bytes: int


class PadRefused(Exception):
    """A pad not written: past the ``pads`` count, the ``account``'s bytes or the
    ``address``'s bytes of :class:`PadQuota` (``args[0]``)."""


class NameTaken(Exception):
    """An account already has this name (names are compared case-folded)."""


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


MAX_DEVICES = 20  # device secrets an account keeps (the newest)


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

    # -- accounts ------------------------------------------------------------------------
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

    # -- tables --------------------------------------------------------------------------
    def create_table(self, table_id: str, variant: str, options: dict[str, Any], seed: int,
                     bot: str, owner_id: str | None, n_seats: int, *, private: bool,
                     invite_code: str | None, active_at: datetime,
                     turn_clock: int | None, rated: bool = False,
                     origin: str | None = None) -> None:
        with self.begin() as conn:
            conn.execute(insert(tables).values(
                id=table_id, variant=variant, options=options, seed=seed, bot=bot,
                status="open", owner_id=owner_id, created_at=now(), private=private,
                invite_code=invite_code, active_at=active_at, turn_clock=turn_clock,
                rated=rated, origin=origin))
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
                moved = self._rate(conn, variant, rows, rate, finished)
                for row in rows:
                    row["rating_before"] = moved[row["entry"]]["before"]
                    row["rating_after"] = moved[row["entry"]]["after"]
            if rows:
                conn.execute(insert(match_players), rows)

    def _rate(self, conn: Connection, variant: str, rows: list[dict[str, Any]], rate: RateFn,
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

    # -- ratings and profiles ------------------------------------------------------------
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

    # -- score pads ----------------------------------------------------------------------
    def pads(self, player_id: str, limit: int | None = None, offset: int = 0
             ) -> tuple[list[dict[str, Any]], int]:
        """A page of the pads a player keeps, newest first, without their records (``id``,
        ``variant``, ``summary``, ``updated_at``), and how many he keeps."""
        stmt = (select(pads.c.id, pads.c.variant, pads.c.summary, pads.c.updated_at)
                .where(pads.c.player_id == player_id)
                .order_by(pads.c.updated_at.desc(), pads.c.id).offset(offset))
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.begin() as conn:
            total = conn.execute(select(func.count()).select_from(pads)
                                 .where(pads.c.player_id == player_id)).scalar_one()
            return [dict(r._mapping) for r in conn.execute(stmt)], int(total)

    def set_pad_summary(self, player_id: str, pad_id: str, summary: dict[str, Any]) -> None:
        """The summary of a pad written before pads had one."""
        with self.begin() as conn:
            conn.execute(update(pads).where(pads.c.player_id == player_id, pads.c.id == pad_id,
                                            pads.c.summary.is_(None))
                         .values(summary=summary))

    def pad(self, player_id: str, pad_id: str) -> dict[str, Any] | None:
        """One pad of the player (``id``, ``variant``, ``record``, ``updated_at``)."""
        with self.begin() as conn:
            row = conn.execute(select(pads.c.id, pads.c.variant, pads.c.record,
                                      pads.c.updated_at)
                               .where(pads.c.player_id == player_id, pads.c.id == pad_id)).first()
        return None if row is None else dict(row._mapping)

    def save_pad(self, player_id: str, pad_id: str, variant: str, record: dict[str, Any],
                 summary: dict[str, Any], size: int, address: str,
                 quota: PadQuota) -> datetime:
        """Write the player's pad ``pad_id`` (a new one, or over the one kept) with its
        ``summary``, its record's ``size`` in bytes and the client ``address`` writing it:
        the time it was written.  Raises :class:`PadRefused` (nothing written) when a new
        pad is past ``quota.pads``, or the player's pads would take more than
        ``quota.account_bytes``, or the address's more than ``quota.address_bytes``.  The
        player's row is locked first (PostgreSQL), so two writes of his never both pass
        the counts."""
        written = now()
        mine = (pads.c.player_id == player_id) & (pads.c.id == pad_id)
        with self.begin() as conn:
            conn.execute(select(players.c.id).where(players.c.id == player_id)
                         .with_for_update())
            old = conn.execute(select(pads.c.size).where(mine)).first()
            if old is None:
                kept = conn.execute(select(func.count()).select_from(pads)
                                    .where(pads.c.player_id == player_id)).scalar_one()
                if kept >= quota.pads:
                    raise PadRefused("pads")
            used: int = conn.execute(select(func.coalesce(func.sum(pads.c.size), 0))
                                .where(pads.c.player_id == player_id, ~mine)).scalar_one()
            if used + size > quota.account_bytes:
                raise PadRefused("account")
            by_address: int = conn.execute(select(func.coalesce(func.sum(pads.c.size), 0))
                                      .where(pads.c.address == address, ~mine)).scalar_one()
            if by_address + size > quota.address_bytes:
                raise PadRefused("address")
            values = {"variant": variant, "record": record, "summary": summary, "size": size,
                      "address": address, "updated_at": written}
            if old is not None:
                conn.execute(update(pads).where(mine).values(**values))
            else:
                conn.execute(insert(pads).values(player_id=player_id, id=pad_id, **values))
        return written

    def delete_pad(self, player_id: str, pad_id: str) -> bool:
        """Drop the player's pad; ``False`` when he keeps none of that id."""
        with self.begin() as conn:
            return bool(conn.execute(delete(pads).where(pads.c.player_id == player_id,
                                                        pads.c.id == pad_id)).rowcount)

"""The storage of accounts, logins, ratings and match lines (migration 0005), on SQLite and
(with BELA_TEST_POSTGRES_URL) on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from alembic import command  # noqa: E402
from sqlalchemy import select, text  # noqa: E402

from bela.storage import Database, NameTaken, make_engine  # noqa: E402
from bela.storage.db import alembic_config, hash_token, now  # noqa: E402
from bela.storage.models import match_players, ratings  # noqa: E402


def _table(db: Database, table_id: str, owner: str, n_seats: int = 2) -> None:
    db.tables.create_table(table_id, "bela2", {"target": 1}, 1, "heuristic", owner, n_seats,
                    private=False, invite_code=None, active_at=now(), turn_clock=None,
                    rated=True)


def test_a_guest_keeps_his_first_token_and_gets_more_by_login(db: Database) -> None:
    pid, first = db.players.create_player("Ana")
    second = db.accounts.add_session(pid)
    assert (db.players.player_by_token(first)["id"]
            == db.players.player_by_token(second)["id"] == pid)
    db.accounts.drop_token(second)  # a logout ends that token only
    assert db.players.player_by_token(second) is None
    assert db.players.player_by_token(first) is not None
    db.accounts.drop_token(first)  # the first token too: replaced by one nobody knows
    assert db.players.player_by_token(first) is None
    third = db.accounts.add_session(pid)
    db.accounts.drop_tokens(pid)  # everywhere
    assert db.players.player_by_token(third) is None


def test_account_names_are_unique_by_key(db: Database) -> None:
    ana, _ = db.players.create_player("Ana")
    other, _ = db.players.create_player("ANA")
    db.accounts.claim(ana, "Ana", "ana", "hash-a")
    with pytest.raises(NameTaken):
        db.accounts.claim(other, "ANA", "ana", "hash-b")
    assert db.accounts.account("ana") == {"id": ana, "name": "Ana", "password_hash": "hash-a"}
    assert db.players.player(other)["account"] is False
    assert db.players.player(ana)["account"] is True
    assert db.accounts.name_taken("ana") and not db.accounts.name_taken("ivo")


def _line(seat: int, entry: str, won: bool) -> dict[str, Any]:
    return {"seat": seat, "entry": entry, "won": won, "left": False, "points": 100,
            "deals": 2, "contracts": {"H": 1}}


def test_a_finish_writes_result_lines_and_ratings_in_one_transaction(db: Database) -> None:
    pid, _ = db.players.create_player("Ana")
    _table(db, "t1", pid)
    seen: list[dict[str, tuple[float, float]]] = []

    def rate(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        seen.append(current)
        return {pid: {"mu": 27.0, "sigma": 8.0, "before": 1000, "after": 1120},
                "bot-heuristic": {"mu": 23.0, "sigma": 8.0, "before": 1000, "after": 960}}

    lines = [_line(0, pid, True), _line(1, "bot-heuristic", False)]
    db.tables.finish_table("t1", {"winner": 0}, {"rounds": []}, lines, "bela2", rate)
    assert seen == [{}]  # nobody was rated before
    got = db.ratings.ratings([pid, "bot-heuristic"], "bela2")
    assert (got[pid]["mu"], got[pid]["games"], got[pid]["wins"]) == (27.0, 1, 1)
    assert (got["bot-heuristic"]["games"], got["bot-heuristic"]["wins"]) == (1, 0)
    mine = db.ratings.lines(pid)
    assert [(r["rating_before"], r["rating_after"], r["rated"]) for r in mine] == [
        (1000, 1120, True)]

    _table(db, "t2", pid)
    db.tables.finish_table("t2", {"winner": 1}, {"rounds": []}, lines, "bela2", rate)
    assert seen[1] == {pid: (27.0, 8.0), "bot-heuristic": (23.0, 8.0)}
    assert db.ratings.ratings([pid], "bela2")[pid]["games"] == 2

    def fails(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        raise RuntimeError("no")

    _table(db, "t3", pid)
    with pytest.raises(RuntimeError):
        db.tables.finish_table("t3", {"winner": 1}, {"rounds": []}, lines, "bela2", fails)
    assert db.tables.load_table("t3")["status"] == "open"  # nothing of the finish was written
    with db.begin() as conn:
        assert conn.execute(select(match_players).where(
            match_players.c.table_id == "t3")).first() is None


def test_a_second_finish_of_a_table_writes_nothing(db: Database) -> None:
    """A retry whose first answer was lost, or a second process: the finish is once."""
    pid, _ = db.players.create_player("Ana")
    _table(db, "t1", pid)
    calls = []

    def rate(current: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
        calls.append(current)
        return {pid: {"mu": 27.0, "sigma": 8.0, "before": 1000, "after": 1120}}

    for _ in range(2):
        db.tables.finish_table("t1", {"winner": 0}, {"rounds": []}, [_line(0, pid, True)], "bela2",
                        rate)
    assert len(calls) == 1 and len(db.ratings.lines(pid)) == 1
    assert db.ratings.ratings([pid], "bela2")[pid]["games"] == 1


def test_an_unrated_finish_writes_lines_only(db: Database) -> None:
    pid, _ = db.players.create_player("Ana")
    _table(db, "t1", pid)
    db.tables.finish_table("t1", {"winner": 0}, {"rounds": []}, [_line(0, pid, True)], "bela2")
    assert [r["rated"] for r in db.ratings.lines(pid)] == [False]
    with db.begin() as conn:
        assert conn.execute(select(ratings)).first() is None


def test_the_leaderboard_lists_accounts_and_bots_best_first(db: Database) -> None:
    ana, _ = db.players.create_player("Ana")
    guest, _ = db.players.create_player("Guest")
    db.accounts.claim(ana, "Ana", "ana", "h")
    with db.begin() as conn:
        conn.execute(ratings.insert(), [
            {"entry": ana, "variant": "bela4", "mu": 30.0, "sigma": 3.0, "games": 9, "wins": 6},
            {"entry": guest, "variant": "bela4", "mu": 40.0, "sigma": 1.0, "games": 9,
             "wins": 9},
            {"entry": "bot-pimc", "variant": "bela4", "mu": 28.0, "sigma": 1.0, "games": 99,
             "wins": 60},
            {"entry": "bot-random", "variant": "bela2", "mu": 20.0, "sigma": 1.0, "games": 9,
             "wins": 1}])
    rows, total = db.ratings.leaderboard("bela4", 10, 0)
    assert total == 2
    assert [(r["entry"], r["name"]) for r in rows] == [("bot-pimc", None), (ana, "Ana")]
    assert db.ratings.leaderboard("bela4", 1, 1)[0][0]["entry"] == ana


def test_a_leaderboard_page_is_read_off_its_index(db: Database) -> None:
    """The board's query, as run, is answered from ``ix_ratings_board`` (migration 0007)
    without sorting the variant's ratings."""
    from sqlalchemy import event

    seen: list[tuple[str, Any]] = []

    def keep(conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> None:
        if "ORDER BY" in statement:
            seen.append((statement, params))

    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        db.ratings.leaderboard("bela4", 10, 20)
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)
    [(statement, params)] = seen
    with db.engine.connect() as conn:
        if db.engine.dialect.name == "sqlite":
            plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, params))
            assert "ix_ratings_board" in plan and "TEMP B-TREE" not in plan, plan
        else:  # a table this small is cheaper to scan and sort: the planner is told not to
            for method in ("seqscan", "bitmapscan", "sort"):
                conn.exec_driver_sql(f"SET enable_{method} = off")
            plan = " ".join(str(row[0]) for row in conn.exec_driver_sql(
                "EXPLAIN " + statement, params))
            assert "ix_ratings_board" in plan and "Sort" not in plan, plan


def test_the_upgrade_keeps_players_and_their_tokens(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    cfg = alembic_config(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
        conn.execute(text("INSERT INTO players (id, name, token_hash, created_at) "
                          "VALUES ('p1', 'Ana', :h, '2026-01-01 00:00:00')"),
                     {"h": hash_token("tok")})
    engine.dispose()
    db = Database(url)
    try:
        assert db.players.player_by_token("tok") == {"id": "p1", "name": "Ana", "account": False,
                                             "last_seen_at": None}
        pid2, _ = db.players.create_player("Ivo")
        db.accounts.claim("p1", "Ana", "ana", "h")
        assert db.players.player("p1")["account"] and not db.players.player(pid2)["account"]
    finally:
        db.close()

"""The tournaments' repository: a round's plan is stored once, whoever stores it again
(a restarted server, a second instance); a status changes only from the one expected."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from bela.storage import Database  # noqa: E402


def test_a_round_is_stored_once(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        director, _ = db.players.create_player("Ana")
        db.tournaments.create("t1", "Petak", director, "bela2", "swiss", {"rounds": 2},
                              private=False, invite_code=None, starts_at=None)
        a = db.tournaments.add_entry("t1", "Ana", "registered", player_id=director)
        b = db.tournaments.add_entry("t1", "Bot", "registered", bot="club")
        games = [{"table_no": 1, "entries": [a, b]}]
        assert db.tournaments.store_round("t1", 1, "swiss", [], games)
        # the same round again (a restart that paired it anew): nothing written
        assert not db.tournaments.store_round("t1", 1, "swiss", [], [
            {"table_no": 1, "entries": [b, a]}, {"table_no": 2, "entries": [a, b]}])
        (rnd,) = db.tournaments.rounds("t1")
        assert [g["entries"] for g in rnd["games"]] == [[a, b]]
        assert db.tournaments.get("t1")["round"] == 1  # type: ignore[index]
        # a game's status changes from the one expected only
        assert db.tournaments.update_game("t1", 1, 1, ["pending"], status="playing")
        assert not db.tournaments.update_game("t1", 1, 1, ["pending"], status="playing")
        # a start changes status and entries at once, once
        assert db.tournaments.start("t1", ["registering"], {a: {"rating": 1000.0}},
                                    datetime.now(UTC))
        assert not db.tournaments.start("t1", ["registering"], {a: {"rating": 5.0}},
                                        datetime.now(UTC))
        assert [e["rating"] for e in db.tournaments.entries("t1")] == [1000.0, None]
    finally:
        db.close()

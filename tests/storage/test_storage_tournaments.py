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


def test_every_change_moves_the_version_and_a_correction_waits_for_no_later_round(
        tmp_path: Path) -> None:
    """Migration 0014: each change of the tournament, an entry, a round
    or a game adds one to ``version`` (a refused change none); a correction is written only
    while the game's round is the last one paired, in one transaction."""
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    t = db.tournaments

    def version() -> int:
        return int(t.get("t1")["version"])  # type: ignore[index]

    try:
        director, _ = db.players.create_player("Ana")
        t.create("t1", "Petak", director, "bela2", "swiss", {"rounds": 2}, private=False,
                 invite_code=None, starts_at=None)
        assert version() == 0
        a = t.add_entry("t1", "Ana", "registered", player_id=director)
        b = t.add_entry("t1", "Bot", "registered", bot="club")
        assert version() == 2
        steps = [
            lambda: t.update_entry(a, ["registered"], name="Ana B."),
            lambda: t.set_entries({b: {"rating": 900.0}}),
            lambda: t.start("t1", ["registering"], {}, datetime.now(UTC)),
            lambda: t.store_round("t1", 1, "swiss", [], [{"table_no": 1, "entries": [a, b]}]),
            lambda: t.set_table_ids("t1", {(1, 1): "tab1"}),
            lambda: t.start_games("t1", [(1, 1)], datetime.now(UTC)),
            lambda: t.update_game("t1", 1, 1, ["playing"], status="finished",
                                  result={"scores": [1, 0], "winner": a}),
            lambda: t.correct_game("t1", 1, 1, {"scores": [0, 1], "winner": b}),
            lambda: t.finish_round("t1", 1),
            lambda: t.set_next_round_at("t1", None),
            lambda: t.set_status("t1", ["running"], "paused"),
        ]
        for n, step in enumerate(steps, start=3):
            assert step() is not False
            assert version() == n, n
        # refused changes move nothing
        assert not t.update_entry(a, ["withdrawn"], name="X")
        assert not t.update_game("t1", 1, 1, ["pending"], status="playing")
        assert not t.set_status("t1", ["running"], "finished")
        assert t.start_games("t1", [(1, 1)], datetime.now(UTC)) == []
        t.finish_round("t1", 1)
        assert version() == 2 + len(steps)
        # round 2 paired: round 1's results are fixed
        assert t.store_round("t1", 2, "swiss", [], [{"table_no": 1, "entries": [b, a]}])
        assert not t.correct_game("t1", 1, 1, {"scores": [5, 5], "winner": None})
        (game,) = t.rounds("t1")[0]["games"]
        assert game["result"] == {"scores": [0, 1], "winner": b}
        assert version() == 3 + len(steps)
    finally:
        db.close()

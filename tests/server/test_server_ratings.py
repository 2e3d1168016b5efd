"""The rating rules of a finished match: its lines, teams, ranks, leavers and bots."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from bela.engine.variants import VARIANTS
from bela.server.model import Seat, Table, TableStatus
from bela.server.ratings import MU, SIGMA, lines, rate_fn, shown, standings
from bela.server.ratings import damping as ratings_damping
from bela.storage import Database

MODEL = PlackettLuce()


def table(variant: str, who: list[str | None], rated: bool = True,
          left: tuple[int, ...] = ()) -> Table:
    """A finished table: a player id per seat (``None``: the table's heuristic bot); the
    seats in ``left`` were played by a bot at the end."""
    seats = [Seat(name="Bot", is_bot=True) if p is None
             else Seat(player_id=p, name=p, autopilot=i in left) for i, p in enumerate(who)]
    return Table(id="t1", variant=variant, options={}, seed=1, bot="heuristic",
                 status=TableStatus.RUNNING, owner_id=who[0], seats=seats, rated=rated)


def result(totals: list[int], winner: int) -> dict[str, Any]:
    """A result of one round that scored ``totals``."""
    return {"rounds": [{"caller": 0, "trump": "H", "outcome": "pass", "scores": totals}],
            "totals": totals, "winner": winner}


def rated(t: Table, res: dict[str, Any],
          current: dict[str, tuple[float, float]] | None = None) -> dict[str, dict[str, Any]]:
    rate = rate_fn(t, lines(t, res))
    assert rate is not None
    return rate(current or {})


def expected(teams: list[list[tuple[float, float]]], ranks: list[float]
             ) -> list[list[tuple[float, float]]]:
    """OpenSkill's own update of these teams of (mu, sigma)."""
    new = MODEL.rate([[MODEL.rating(mu=m, sigma=s) for m, s in team] for team in teams],
                     ranks=ranks)
    return [[(r.mu, r.sigma) for r in team] for team in new]


def skill(moved: dict[str, dict[str, Any]], entry: str) -> tuple[float, float]:
    return moved[entry]["mu"], moved[entry]["sigma"]


NEW = (MU, SIGMA)


# -- lines -----------------------------------------------------------------------------------
def test_lines_sum_the_sides_points_count_deals_and_contracts() -> None:
    t = table("bela4", ["ana", "ben", None, "cid"], left=(0,))
    res = {"rounds": [
        {"caller": 0, "trump": "H", "outcome": "pass", "scores": [100, 62]},
        {"caller": 2, "trump": "S", "outcome": "fall", "scores": [0, 182]},
        {"caller": 0, "trump": "H", "outcome": "capot", "scores": [252, 0]},
        {"caller": 3, "trump": "VC", "outcome": "claim", "scores": [182, 0]},
        {"caller": 1, "trump": None, "outcome": "redeal", "scores": [0, 0]},  # R35: no deal
    ], "totals": [534, 244], "winner": 0}
    got = lines(t, res)
    assert [ln["seat"] for ln in got] == [0, 1, 2, 3]
    assert [ln["entry"] for ln in got] == ["ana", "ben", "bot-heuristic", "cid"]
    assert [ln["points"] for ln in got] == [534, 244, 534, 244]  # per side: seat % 2
    assert [ln["deals"] for ln in got] == [4] * 4
    assert [ln["contracts"] for ln in got] == [{"H": 2}, {}, {"S": 1}, {"VC": 1}]
    # ana's side won, but she had left: she lost; her partner (the bot) won
    assert [ln["left"] for ln in got] == [True, False, False, False]
    assert [ln["won"] for ln in got] == [False, False, True, False]


def test_lines_of_bela3_are_each_players_own() -> None:
    t = table("bela3", ["ana", "ben", "cid"])
    res = {"rounds": [
        {"caller": 1, "trump": "D", "outcome": "pass", "scores": [30, 90, 60]},
        {"caller": 2, "trump": "C", "outcome": "fall", "scores": [100, 80, 0]},
    ], "totals": [130, 170, 60], "winner": 1}
    got = lines(t, res)
    assert [ln["points"] for ln in got] == [130, 170, 60]
    assert [ln["won"] for ln in got] == [False, True, False]
    assert [ln["contracts"] for ln in got] == [{}, {"D": 1}, {"C": 1}]
    assert all(ln["deals"] == 2 and not ln["left"] for ln in got)


# -- teams and ranks -------------------------------------------------------------------------
def test_sides_are_the_teams_of_bela4() -> None:
    t = table("bela4", ["ana", "ben", "cid", "dan"])
    moved = rated(t, result([1001, 540], winner=0))
    (win, _), (lose, _) = expected([[NEW, NEW], [NEW, NEW]], [0, 1])
    assert skill(moved, "ana") == skill(moved, "cid") == pytest.approx(win)
    assert skill(moved, "ben") == skill(moved, "dan") == pytest.approx(lose)
    assert moved["ana"]["mu"] > MU > moved["ben"]["mu"]
    assert all(m["before"] == 1000 for m in moved.values())
    assert moved["ana"]["after"] == shown(*win) > 1000 > moved["ben"]["after"]


def test_bela3_rates_each_player_alone_and_equal_totals_tie() -> None:
    t = table("bela3", ["ana", "ben", "cid"])
    current = {"ana": (30.0, 5.0), "cid": (20.0, 6.0)}  # ben is new
    moved = rated(t, result([400, 1001, 400], winner=1), current)
    want = expected([[(30.0, 5.0)], [NEW], [(20.0, 6.0)]], [1, 0, 1])
    assert [skill(moved, e) for e in ("ana", "ben", "cid")] == [
        pytest.approx(w[0]) for w in want]
    assert moved["ana"]["before"] == shown(30.0, 5.0) and moved["ben"]["before"] == 1000
    # a tie is not a loss: equal players tied below the winner keep their mu
    even = rated(t, result([400, 1001, 400], winner=1))
    assert even["ana"]["mu"] == pytest.approx(even["cid"]["mu"])
    assert even["ben"]["mu"] > even["ana"]["mu"]


def test_the_winner_ranks_first_whatever_its_points() -> None:
    """A match won by a belot (R10) or on the target (R25) puts the winner first; the
    others follow by their totals."""
    got = standings("bela3", lines(table("bela3", ["ana", "ben", "cid"]),
                                   result([900, 300, 600], winner=1)))
    assert got == [([0], 1), ([1], 0), ([2], 2)]


def test_a_leaver_loses_though_his_side_won_and_his_partner_keeps_the_win() -> None:
    """Ana (seat 0) left, her side won all the same: she moves as if her side had come
    last; her partner and the other side move by the result as played."""
    t = table("bela4", ["ana", "ben", "cid", "dan"], left=(0,))
    res = result([1001, 540], winner=0)
    assert standings("bela4", lines(t, res)) == [([0, 2], 0), ([1, 3], 1)]
    moved = rated(t, res)
    (_, cid), (ben, dan) = expected([[NEW, NEW], [NEW, NEW]], [0, 1])
    (ana, _), _ = expected([[NEW, NEW], [NEW, NEW]], [2, 1])
    assert skill(moved, "cid") == pytest.approx(cid)
    assert skill(moved, "ben") == pytest.approx(ben) and skill(moved, "dan") == pytest.approx(dan)
    assert skill(moved, "ana") == pytest.approx(ana)
    assert moved["ana"]["mu"] < MU < moved["cid"]["mu"]


def test_a_leavers_partner_gains_nothing_when_their_side_lost() -> None:
    """The review's case: seat 3 left and his side (1+3) lost; his partner ben moves as a
    loser, never above the winners (a leaver is not someone his partner beat)."""
    t = table("bela4", ["ana", "ben", "cid", "dan"], left=(3,))
    moved = rated(t, result([1001, 540], winner=0))
    (ana, cid), (ben, _) = expected([[NEW, NEW], [NEW, NEW]], [0, 1])
    assert skill(moved, "ben") == pytest.approx(ben)
    assert skill(moved, "ana") == pytest.approx(ana)
    assert skill(moved, "cid") == pytest.approx(cid)
    assert moved["ben"]["after"] < 1000 < moved["ana"]["after"]
    assert moved["dan"]["after"] <= moved["ben"]["after"]


def test_a_leaver_loses_even_when_the_bot_playing_for_him_won() -> None:
    t = table("bela2", ["ana", None], left=(0,))
    res = result([1001, 300], winner=0)  # seat 0 won, played by a bot since ana left
    ana, bot = lines(t, res)
    assert ana["left"] and not ana["won"] and not bot["won"]
    moved = rated(t, res)
    assert moved["ana"]["mu"] < MU  # she lost; the bot lost the match as it was played
    assert moved["bot-heuristic"]["mu"] < MU


def test_a_bot_in_several_seats_gets_the_mean_of_its_copies() -> None:
    t = table("bela4", ["ana", None, None, None])
    bot = (27.0, 4.0)
    moved = rated(t, result([1001, 700], winner=0), {"bot-heuristic": bot})
    (ana, partner), (left, right) = expected([[NEW, bot], [bot, bot]], [0, 1])
    copies = [partner, left, right]
    assert skill(moved, "ana") == pytest.approx(ana)
    assert skill(moved, "bot-heuristic") == pytest.approx(
        (sum(c[0] for c in copies) / 3, sum(c[1] for c in copies) / 3))
    assert moved["bot-heuristic"]["before"] == shown(*bot)
    assert set(moved) == {"ana", "bot-heuristic"}


def test_unrated_and_bots_only_tables_move_nothing() -> None:
    res = result([1001, 700], winner=0)
    unrated = table("bela2", ["ana", None], rated=False)
    assert rate_fn(unrated, lines(unrated, res)) is None
    assert [ln["won"] for ln in lines(unrated, res)] == [True, False]  # stats still count
    bots = table("bela4", [None] * 4)
    assert rate_fn(bots, lines(bots, res)) is None


# -- in the database -------------------------------------------------------------------------
def test_finished_tables_move_the_stored_ratings(tmp_path: Path) -> None:
    """The update reads the entries' stored skill: a second match starts where the first
    left them; an unrated one adds its lines and moves nothing."""
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        ana, _ = db.players.create_player("Ana")
        res = result([1001, 300], winner=0)
        for tid, rated_table in (("t1", True), ("t2", True), ("t3", False)):
            t = table("bela2", [ana, None], rated=rated_table)
            t.id = tid
            db.tables.create_table(tid, "bela2", {}, 1, "heuristic", ana, 2, private=False,
                            invite_code=None, active_at=datetime.now(UTC), turn_clock=None,
                            rated=rated_table)
            found = lines(t, res)
            db.tables.finish_table(tid, res, {}, found, "bela2", rate_fn(t, found))
        now = db.ratings.ratings([ana, "bot-heuristic"], "bela2")
        assert now[ana]["games"] == 2 and now[ana]["wins"] == 2
        assert now["bot-heuristic"]["games"] == 2 and now["bot-heuristic"]["wins"] == 0
        first, second, unrated = sorted(db.ratings.lines(ana), key=lambda ln: ln["table_id"])
        assert not unrated["rated"] and unrated["rating_before"] is None
        assert first["rating_before"] == 1000
        assert second["rating_before"] == first["rating_after"] < second["rating_after"]
        assert shown(now[ana]["mu"], now[ana]["sigma"]) == second["rating_after"]
    finally:
        db.close()


# -- rating farming (docs/SECURITY.md, "Fair shares and ratings") -----------------------------
def test_private_and_short_tables_are_made_unrated(tmp_path: Path) -> None:
    """Only a public table to the variant's default target is rated: a private one or a
    shorter target is stored unrated and its summary says so."""
    from server_helpers import guest, server
    with server(tmp_path, allow_seed=False) as client:
        _, h = guest(client, "Ana")
        made = []
        for body in ({}, {"private": True}, {"options": {"target": 500}},
                     {"options": {"target": 501}}, {"rated": False}):
            r = client.post("/api/tables", json={"variant": "bela2", **body}, headers=h)
            assert r.status_code == 200, r.text
            made.append(r.json()["rated"])
            assert client.post(f"/api/tables/{r.json()['id']}/close",
                               headers=h).status_code == 200
        assert made == [True, False, False, True, False]
    with server(tmp_path, allow_seed=False, rated_min_target=101) as client:
        _, h = guest(client, "Ana")
        r = client.post("/api/tables", json={"variant": "bela2", "options": {"target": 101}},
                        headers=h)
        assert r.json()["rated"] is True  # the server's own shortest rated target


def test_two_seats_of_one_address_move_nothing() -> None:
    res = result([1001, 700, 300], winner=0)
    t = table("bela3", ["ana", "ben", None])
    t.seats[0].address, t.seats[1].address = "10.0.0.1", "10.0.0.1"
    assert rate_fn(t, lines(t, res)) is None
    t.seats[1].address = "10.0.0.2"
    assert rate_fn(t, lines(t, res)) is not None
    t.seats[1].address = None  # unknown (a seat taken before a restart): not the same
    assert rate_fn(t, lines(t, res)) is not None


def test_the_same_players_again_move_less_and_then_nothing() -> None:
    t = table("bela2", ["ana", "ben"])
    res = result([1001, 700], winner=0)
    full = rated(t, res)
    for met, share in ((1, 0.5), (2, 0.25), (3, 0.0), (9, 0.0)):
        rate = rate_fn(t, lines(t, res), {"ana": met, "ben": met})
        assert rate is not None
        moved = rate({})
        for who in ("ana", "ben"):
            assert moved[who]["mu"] == pytest.approx(MU + share * (full[who]["mu"] - MU))
            assert moved[who]["sigma"] == pytest.approx(
                SIGMA + share * (full[who]["sigma"] - SIGMA))
        if share == 0:
            assert moved["ana"]["after"] == moved["ana"]["before"] == 1000


def test_meetings_count_recent_rated_matches_with_the_same_players(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        ana, _ = db.players.create_player("Ana")
        ben, _ = db.players.create_player("Ben")
        cid, _ = db.players.create_player("Cid")
        res = result([1001, 300], winner=0)
        for i, (who, rated_table) in enumerate([((ana, ben), True), ((ana, ben), True),
                                                ((ana, cid), True), ((ana, ben), False)]):
            t = table("bela2", list(who), rated=rated_table)
            t.id = f"t{i}"
            db.tables.create_table(t.id, "bela2", {}, 1, "heuristic", ana, 2, private=False,
                            invite_code=None, active_at=datetime.now(UTC), turn_clock=None,
                            rated=rated_table)
            found = lines(t, res)
            db.tables.finish_table(t.id, res, {}, found, "bela2", rate_fn(t, found))
        long_ago = datetime(2000, 1, 1, tzinfo=UTC)
        assert db.ratings.meetings([ana, ben], "bela2", long_ago) == {ana: 2, ben: 2}
        assert db.ratings.meetings([ana, ben, cid], "bela2", long_ago) == {ana: 3, ben: 2, cid: 1}
        assert db.ratings.meetings([ana], "bela2", long_ago) == {}
        assert db.ratings.meetings([ana, ben], "bela4", long_ago) == {}
        assert db.ratings.meetings([ana, ben], "bela2", datetime.now(UTC)) == {}
        # a third match of ana and ben moves a quarter as much
        assert ratings_damping(2) == 0.25
    finally:
        db.close()


def test_the_leaderboard_lists_an_account_after_enough_distinct_opponents(
        tmp_path: Path) -> None:
    """Opponents are entries on another side in rated matches: a partner, the same
    opponent again or an unrated match does not count."""
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        ana, _ = db.players.create_player("Ana")
        db.accounts.claim(ana, "Ana", "ana", "not-a-real-hash")
        others = [db.players.create_player(n)[0] for n in ("Ben", "Cid", "Dan", "Eva")]
        res = result([1001, 300], winner=0)

        def play(i: int, variant: str, who: list[str | None], rated_table: bool = True
                 ) -> None:
            t = table(variant, who, rated=rated_table)
            t.id = f"t{i}"
            db.tables.create_table(t.id, variant, {}, 1, "heuristic", ana, len(who), private=False,
                            invite_code=None, active_at=datetime.now(UTC), turn_clock=None,
                            rated=rated_table)
            found = lines(t, res)
            db.tables.finish_table(t.id, res, {}, found, variant, rate_fn(t, found))

        def listed(variant: str, least: int) -> bool:
            rows, _ = db.ratings.leaderboard(variant, 50, 0, least, VARIANTS[variant].sides)
            return ana in [r["entry"] for r in rows]

        for i in range(4):
            play(i, "bela2", [ana, others[0]])  # the same opponent four times
        play(4, "bela2", [ana, others[1]], rated_table=False)
        assert listed("bela2", 1) and not listed("bela2", 2)
        play(5, "bela2", [ana, None])  # a bot is an opponent too
        assert listed("bela2", 2) and not listed("bela2", 3)
        # bela4: the partner (seat 2) is not an opponent
        play(6, "bela4", [ana, others[1], others[2], others[3]])
        assert listed("bela4", 2) and not listed("bela4", 3)
        assert db.ratings.leaderboard("bela2", 50, 0, 9, 2)[1] == 1  # the bot is still listed
    finally:
        db.close()

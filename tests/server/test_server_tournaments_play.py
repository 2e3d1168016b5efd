"""Tournaments played out: an 8-pair bela4 Swiss of three rounds end to end by the server's
bots (and two pairs of players whose absent seats the table's bot plays), a duplicate round
of four tables dealing the very same boards, the no-show rule, and a result from a score
pad (docs/TOURNAMENTS.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient
from server_helpers import guest, server, until

from bela.engine.variants import VARIANTS
from bela.server.errors import Conflict, InvalidInput
from bela.server.tournaments.stored import entries_of, results_of, settings_of
from bela.storage import Database
from bela.tournament import standings

LEVELS = ("club", "beginner")




def tournament(c: TestClient, h: dict[str, str], **body: Any) -> str:
    r = c.post("/api/tournaments", json={"name": "Turnir", **body}, headers=h)
    assert r.status_code == 200, r.text
    tid: str = r.json()["id"]
    return tid


def add_bots(c: TestClient, tid: str, h: dict[str, str], n: int) -> None:
    for i in range(n):
        r = c.post(f"/api/tournaments/{tid}/entries", json={"bot": LEVELS[i % 2]}, headers=h)
        assert r.status_code == 200, r.text


def finished(c: TestClient, tid: str) -> dict[str, Any] | None:
    obj: dict[str, Any] = c.get(f"/api/tournaments/{tid}").json()
    return obj if obj["status"] == "finished" else None


def table_row(tmp_path: Path, table_id: str) -> dict[str, Any]:
    """The stored row of a finished table, with its seats."""
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        row = db.tables.load_table(table_id)
    finally:
        db.close()
    assert row is not None and row["status"] == "finished"
    return row


def table_result(tmp_path: Path, table_id: str) -> dict[str, Any]:
    """The stored result of a finished table (``bela score --json``)."""
    result: dict[str, Any] = table_row(tmp_path, table_id)["result"]
    return result


def stored_standings(db_path: Path, tid: str) -> list[dict[str, Any]]:
    """The core's standings over what the database holds."""
    db = Database(f"sqlite:///{db_path}")
    try:
        row = db.tournaments.get(tid)
        assert row is not None
        table = standings(settings_of(row), entries_of(db.tournaments.entries(tid)),
                          results_of(db.tournaments.rounds(tid)))
    finally:
        db.close()
    return [{"rank": s.rank, "entry": s.entry, "match_points": s.match_points,
             "buchholz": s.buchholz, "points_diff": s.points_diff} for s in table]


def test_swiss_of_eight_pairs_played_by_bots(tmp_path: Path) -> None:
    with server(tmp_path, grace=0.05) as c:
        _, d = guest(c, "Direktor")
        tid = tournament(c, d, variant="bela4", format="swiss", rounds=3,
                         options={"target": 501}, seed=11)
        people = {}
        for a, b in (("Ana", "Bo"), ("Cvita", "Dino")):  # two pairs of players
            _, ha = guest(c, a)
            _, hb = guest(c, b)
            pb = c.get("/api/players/me", headers=hb).json()["player_id"]
            t = c.post(f"/api/tournaments/{tid}/register", json={"partner": pb},
                       headers=ha).json()
            entry = t["entries"][-1]
            c.post(f"/api/tournaments/{tid}/accept", json={"entry": entry["id"]}, headers=hb)
            people[entry["id"]] = [p["player_id"] for p in entry["players"]]
        add_bots(c, tid, d, 6)
        r = c.post(f"/api/tournaments/{tid}/start", headers=d)
        assert r.status_code == 200, r.text
        first = r.json()["rounds"][0]
        assert len(first["games"]) == 4 and all(g["table"] for g in first["games"])
        obj = until(lambda: finished(c, tid), "the tournament to finish")

        # three stored rounds of four tables, each finished at its table
        assert [len(r["games"]) for r in obj["rounds"]] == [4, 4, 4]
        names = {e["id"]: e["name"] for e in obj["entries"]}
        levels = {e["id"]: e["bot"] for e in obj["entries"]}
        met = set()
        for rnd in obj["rounds"]:
            for g in rnd["games"]:
                table = c.get(f"/api/tables/{g['table']}").json()
                assert table["status"] == "finished" and g["status"] == "finished"
                record = c.get(f"/api/tables/{g['table']}/record").json()
                # side 0 at seats 0 and 2, side 1 at seats 1 and 3
                for seat in range(4):
                    entry = g["entries"][seat % 2]
                    if entry in people:
                        assert table["seats"][seat]["player_id"] == people[entry][seat // 2]
                    else:  # played by a bot of the entry's own level
                        assert record["players"][seat] == names[entry]
                        assert table_row(tmp_path, g["table"])["seats"][seat]["bot"] == \
                            levels[entry]
                stored = table_result(tmp_path, g["table"])
                assert g["result"]["scores"] == stored["totals"]
                assert g["result"]["winner"] == g["entries"][stored["winner"]]
                pair = frozenset(g["entries"])
                assert pair not in met  # nobody meets twice in three rounds of eight
                met.add(pair)
        # the standings answered are the core's over the stored results
        answered = [{k: s[k] for k in ("rank", "entry", "match_points", "buchholz",
                                       "points_diff")} for s in obj["standings"]]
        assert answered == stored_standings(tmp_path / "bela.db", tid)
        assert sum(s["match_points"] for s in obj["standings"]) == 2 * 12
        # the exports and a player's history
        csv = c.get(f"/api/tournaments/{tid}/export.csv")
        assert csv.headers["content-type"].startswith("text/csv")
        lines = csv.text.strip().split("\n")
        assert lines[0].startswith("rank,entry,name,players") and len(lines) == 9
        exported = c.get(f"/api/tournaments/{tid}/export.json").json()
        assert len(exported["results"]) == 12
        ana = next(iter(people.values()))[0]
        (mine,) = c.get(f"/api/tournaments/history/{ana}").json()["tournaments"]
        assert mine["id"] == tid and mine["entries"] == 8
        assert mine["rank"] == next(s["rank"] for s in obj["standings"]
                                    if s["entry"] == mine["entry"])


def test_duplicate_round_deals_the_same_boards_at_four_tables(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        tid = tournament(c, d, variant="bela4", format="duplicate", rounds=1, boards=2)
        add_bots(c, tid, d, 8)
        scheduler = c.app.state.tournament_scheduler  # type: ignore[attr-defined]
        c.portal.call(scheduler.stop)  # type: ignore[union-attr]
        # no tick: the round is not seen to end, so its records stay unpublished
        games = c.post(f"/api/tournaments/{tid}/start", headers=d).json()["rounds"][0]["games"]
        assert len(games) == 4 and all(g["boards"] == [1, 2] for g in games)
        until(lambda: all(c.get(f"/api/tables/{g['table']}").json()["status"] == "finished"
                          for g in games), "the tables to finish")
        r = c.get(f"/api/tables/{games[0]['table']}/record")
        assert r.status_code == 409 and r.json()["error"]["code"] == "round_playing"
        c.portal.call(scheduler.start)  # type: ignore[union-attr]
        obj = until(lambda: finished(c, tid), "the tournament to finish")
        deals = []
        for g in obj["rounds"][0]["games"]:
            record = c.get(f"/api/tables/{g['table']}/record").json()
            deals.append([(rd["dealer"], rd["hands"]) for rd in record["rounds"]])
            assert len(record["rounds"]) == 2  # its two boards, no target
            assert [b for b, _ in g["result"]["board_scores"]] == [1, 2]
            assert g["result"]["winner"] is None
            stored = table_result(tmp_path, g["table"])
            assert [s for _, s in g["result"]["board_scores"]] == \
                [rd["scores"] for rd in stored["rounds"]]
            assert g["result"]["scores"] == stored["totals"]
        assert all(d == deals[0] for d in deals)  # side 0 holds the same cards everywhere
        boards = obj["boards"][0]["boards"]
        assert [b["board"] for b in boards] == [1, 2] and all(b["top"] == 6 for b in boards)
        assert all(sum(f["count"] for f in b["frequencies"]) == 4 for b in boards)
        percentages = [s["percentage"] for s in obj["standings"]]
        assert all(p is not None for p in percentages)
        assert sum(percentages) == pytest.approx(8 * 50.0)


def _game(c: TestClient, tid: str) -> dict[str, Any]:
    game: dict[str, Any] = c.get(f"/api/tournaments/{tid}").json()["rounds"][0]["games"][0]
    return game


def _players_tournament(c: TestClient, d: dict[str, str], **body: Any) -> tuple[str, int]:
    """A bela2 Swiss of one round: Ana (who never comes) against a bot; her entry's id."""
    tid = tournament(c, d, variant="bela2", format="swiss", rounds=1, **body)
    _, ana = guest(c, "Ana")
    entry: int = c.post(f"/api/tournaments/{tid}/register", json={},
                        headers=ana).json()["entries"][0]["id"]
    add_bots(c, tid, d, 1)
    assert c.post(f"/api/tournaments/{tid}/start", headers=d).status_code == 200
    return tid, entry


def _age(tmp_path: Path, tid: str, seconds: float) -> None:
    """The round's table made ``seconds`` ago (what the no-show rule reads)."""
    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        db.tournaments.update_game(tid, 1, 1, ["playing"],
                                   started_at=datetime.now(UTC) - timedelta(seconds=seconds))
    finally:
        db.close()


def test_a_player_who_never_comes_forfeits(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        tid, ana = _players_tournament(c, d, no_show=30)
        game = _game(c, tid)
        _age(tmp_path, tid, 31)
        obj = until(lambda: finished(c, tid), "the forfeit")
        res = obj["rounds"][0]["games"][0]["result"]
        bot = next(e for e in game["entries"] if e != ana)
        assert res["forfeit"] == [ana] and res["winner"] == bot
        target = VARIANTS["bela2"].default_target
        assert res["scores"] == [0 if e == ana else target for e in game["entries"]]
        assert c.get(f"/api/tables/{game['table']}").json()["status"] == "closed"
        assert obj["standings"][0]["entry"] == bot


def test_a_bot_plays_for_a_player_who_never_comes(tmp_path: Path) -> None:
    with server(tmp_path, grace=0.05) as c:
        _, d = guest(c, "Direktor")
        tid, ana = _players_tournament(c, d, no_show=30, no_show_bot=True,
                                       options={"target": 301})
        obj = until(lambda: finished(c, tid), "the table to finish")
        res = obj["rounds"][0]["games"][0]["result"]
        assert res["bot_played"] == [ana] and res["forfeit"] == []
        assert max(res["scores"]) >= 301


def test_a_result_from_a_score_pad(tmp_path: Path) -> None:
    with server(tmp_path) as c:  # grace 60 s: Ana's table waits for her
        _, d = guest(c, "Direktor")
        tid, ana = _players_tournament(c, d)
        game = _game(c, tid)
        scheduler = c.app.state.tournament_scheduler  # type: ignore[attr-defined]
        portal = c.portal
        assert portal is not None
        with pytest.raises(InvalidInput):
            portal.call(scheduler.record_result, tid, 1, 1, [1001])
        scores = [1001 if e == ana else 640 for e in game["entries"]]
        portal.call(scheduler.record_result, tid, 1, 1, scores)
        with pytest.raises(Conflict):
            portal.call(scheduler.record_result, tid, 1, 1, scores)
        obj = until(lambda: finished(c, tid), "the tournament to finish")
        res = obj["rounds"][0]["games"][0]["result"]
        assert res["scores"] == scores and res["winner"] == ana
        assert obj["standings"][0]["entry"] == ana
        assert c.get(f"/api/tables/{game['table']}").json()["status"] == "closed"


def test_a_player_hears_of_his_next_table_on_his_open_websocket(tmp_path: Path) -> None:
    with server(tmp_path, grace=0.05) as c:  # his seats are played for him (he watches)
        _, d = guest(c, "Direktor")
        token, ana = guest(c, "Ana")
        tid = tournament(c, d, variant="bela2", format="swiss", rounds=2,
                         options={"target": 201})
        mine = c.post(f"/api/tournaments/{tid}/register", json={},
                      headers=ana).json()["entries"][0]["id"]
        add_bots(c, tid, d, 3)
        first = c.post(f"/api/tournaments/{tid}/start", headers=d).json()["rounds"][0]
        other = next(g for g in first["games"] if mine not in g["entries"])
        with c.websocket_connect(f"/ws/tables/{other['table']}?token={token}") as ws:
            while True:  # he watches a table of bots until his next table is made
                msg = ws.receive_json()
                if msg["type"] == "tournament":
                    break
        obj = c.get(f"/api/tournaments/{tid}").json()
        (game,) = [g for g in obj["rounds"][1]["games"] if mine in g["entries"]]
        assert msg == {"type": "tournament", "tournament": tid, "name": "Turnir", "round": 2,
                       "table": game["table"], "link": f"/?table={game['table']}",
                       "entry": mine}
        # what the protocol's schema (docs/protocol.schema.json) says the server sends
        schema = json.loads((Path(__file__).parents[2] / "docs" / "protocol.schema.json")
                            .read_text(encoding="utf-8"))
        jsonschema.validate(msg, {**{k: v for k, v in schema.items() if k != "oneOf"},
                                  "$ref": "#/$defs/TournamentMessage"})


def test_a_game_whose_table_is_closed_under_it_is_played_again(tmp_path: Path) -> None:
    with server(tmp_path) as c:  # grace 60 s: Ana's table waits for her
        _, d = guest(c, "Direktor")
        tid, _ana = _players_tournament(c, d)
        closed = _game(c, tid)["table"]
        lobby = c.app.state.lobby  # type: ignore[attr-defined]
        portal = c.portal
        assert portal is not None
        portal.call(lobby.close_table, lobby.tables[closed])
        game = until(lambda: (lambda g: g if g["table"] not in (None, closed)
                              and g["status"] == "playing" else None)(_game(c, tid)),
                     "the game's new table")
        assert c.get(f"/api/tables/{game['table']}").json()["status"] == "running"
        assert c.get(f"/api/tables/{closed}").json()["status"] == "closed"
        assert len(c.get(f"/api/tournaments/{tid}").json()["rounds"]) == 1


def test_a_paused_tournament_pairs_no_round_until_resumed(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        tid = tournament(c, d, variant="bela2", format="swiss", rounds=2,
                         options={"target": 101}, round_break=1)
        add_bots(c, tid, d, 2)
        scheduler = c.app.state.tournament_scheduler  # type: ignore[attr-defined]
        portal = c.portal
        assert portal is not None
        portal.call(scheduler.stop)
        c.post(f"/api/tournaments/{tid}/start", headers=d)
        assert c.post(f"/api/tournaments/{tid}/pause", headers=d).json()["status"] == "paused"
        portal.call(scheduler.start)
        until(lambda: c.get(f"/api/tournaments/{tid}").json()["rounds"][0]["finished"],
              "round 1 to end")
        portal.call(scheduler.tick)  # paused: round 1's results kept, no round 2
        obj = c.get(f"/api/tournaments/{tid}").json()
        assert len(obj["rounds"]) == 1 and obj["standings"][0]["played"] == 1
        assert c.post(f"/api/tournaments/{tid}/resume", headers=d).json()["status"] == \
            "running"
        # the round's break (a second) first, then round 2
        obj = until(lambda: finished(c, tid), "round 2 after the break")
        assert [len(r["games"]) for r in obj["rounds"]] == [1, 1]

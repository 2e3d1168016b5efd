"""The director corrects a game's result (docs/TOURNAMENTS.md "Corrections"): stored with
its mark (who, when, why, the result it replaced), the standings and the next round's
pairing follow it; refused (409, nothing written) for a game whose following round is
paired, for a game without a result, and in a finished tournament where the corrected
result would call for another round."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from fastapi.testclient import TestClient
from server_helpers import guest, server
from test_server_tournaments_club import WIN, club_night, record, refused, until


def _get(c: TestClient, tid: str, h: dict[str, str]) -> dict[str, Any]:
    obj: dict[str, Any] = c.get(f"/api/tournaments/{tid}", headers=h).json()
    return obj


def _playing(c: TestClient, tid: str, h: dict[str, str], rnd: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = until(lambda: (lambda o: o["rounds"][rnd - 1]["games"] if len(
        o["rounds"]) >= rnd and all(g["status"] == "playing" for g in o["rounds"][rnd - 1][
            "games"]) else None)(_get(c, tid, h)), f"round {rnd} playing")
    return found


def _score(c: TestClient, tid: str, game: dict[str, Any], rnd: int, deals: Any = WIN) -> None:
    key = parse_qs(urlparse(game["scorer"]).query)["key"][0]
    r = c.post(f"/api/tournaments/{tid}/scorer/{rnd}/{game['table_no']}",
               json={"key": key, "record": record(deals)})
    assert r.status_code == 200, r.text


def _after(c: TestClient, tid: str, h: dict[str, str], rnd: int) -> dict[str, Any]:
    """The tournament once round ``rnd`` finished and the next is paired (or it ended)."""
    def done() -> dict[str, Any] | None:
        o = _get(c, tid, h)
        return o if o["rounds"][rnd - 1]["finished"] and (
            o["status"] == "finished" or len(o["rounds"]) > rnd) else None
    found: dict[str, Any] = until(done, f"the step after round {rnd}")
    return found


def _fix(rnd: int, table_no: int) -> str:
    return f"/rounds/{rnd}/games/{table_no}/result"


def test_a_correction_moves_the_standings_and_the_next_pairing(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        _, other = guest(c, "Gost")
        t = club_night(c, d)
        tid, api = t["id"], f"/api/tournaments/{t['id']}"
        first, second = _playing(c, tid, d, 1)
        _score(c, tid, first, 1)
        assert c.post(f"{api}/pause", headers=d).status_code == 200
        _score(c, tid, second, 1)  # side 0 wins at both tables
        obj = until(lambda: (lambda o: o if o["rounds"][0]["finished"] else None)(
            _get(c, tid, d)), "round 1 finished")
        assert len(obj["rounds"]) == 1  # paused: round 2 waits
        assert all(g["correctable"] for g in obj["rounds"][0]["games"])
        assert "correctable" not in _get(c, tid, other)["rounds"][0]["games"][0]
        winners = {g["result"]["winner"] for g in obj["rounds"][0]["games"]}
        assert winners == {first["entries"][0], second["entries"][0]}

        # refusals change nothing
        body = {"scores": [120, 501], "reason": "  zamijenjeni  stupci "}
        refused(c.post(api + _fix(1, 2), json=body, headers=other), 403, "not_director")
        refused(c.post(api + _fix(1, 9), json=body, headers=d), 404, "unknown_game")
        refused(c.post(api + _fix(1, 2), json={**body, "scores": [1, 2, 3]}, headers=d),
                422, "bad_scores")
        refused(c.post(api + _fix(1, 2), json={**body, "board_scores": [[1, [1, 2]]]},
                       headers=d), 422, "bad_boards")
        refused(c.post(api + _fix(1, 2), json={**body, "reason": "   "}, headers=d),
                422, "bad_reason")
        refused(c.post(api + _fix(1, 2), json={**body, "scores": [-1, 2]}, headers=d),
                422, "bad_request")
        assert _get(c, tid, d)["rounds"][0]["games"] == obj["rounds"][0]["games"]

        # table 2's scores were written in the wrong columns: side 1 won
        old = obj["rounds"][0]["games"][1]["result"]
        r = c.post(api + _fix(1, 2), json=body, headers=d)
        assert r.status_code == 200, r.text
        game = r.json()["rounds"][0]["games"][1]
        res = game["result"]
        assert res["scores"] == [120, 501] and res["winner"] == second["entries"][1]
        mark = res["corrected"]
        assert mark["reason"] == "zamijenjeni stupci" and mark["name"] == "Sudac"
        assert mark["by"] == t["director"]["player_id"] and mark["at"].endswith("+00:00")
        assert mark["was"] == {"scores": old["scores"], "winner": second["entries"][0],
                               "forfeit": []}
        top = {s["entry"]: s for s in r.json()["standings"]}
        assert top[second["entries"][1]]["wins"] == 1
        assert top[second["entries"][0]]["losses"] == 1
        assert top[second["entries"][1]]["points_diff"] == 381

        # resumed: round 2 pairs the two winners, the corrected one among them
        assert c.post(f"{api}/resume", headers=d).status_code == 200
        games = _playing(c, tid, d, 2)
        top_table = next(g for g in games if first["entries"][0] in g["entries"])
        assert sorted(top_table["entries"]) == sorted([first["entries"][0],
                                                       second["entries"][1]])
        # round 2 is paired from round 1: its results stay as they are
        refused(c.post(api + _fix(1, 1), json=body, headers=d), 409, "next_round_paired")
        assert not _get(c, tid, d)["rounds"][0]["games"][0]["correctable"]
        # a game still playing has no result to correct
        refused(c.post(api + _fix(2, 1), json=body, headers=d), 409, "not_finished")
        assert _get(c, tid, d)["rounds"][0]["games"][0]["result"] == obj["rounds"][0][
            "games"][0]["result"]


def test_the_last_round_is_corrected_after_the_end_unless_it_calls_for_more(
        tmp_path: Path) -> None:
    """A knockout best of 3 between two entries: 2-0 ends it; the second partija
    corrected to the other side would call for a third: refused; a correction that keeps
    the winner of the tie is taken after the end."""
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        r = c.post("/api/tournaments", json={"name": "Kup", "variant": "bela4",
                                             "format": "knockout", "best_of": 3,
                                             "options": {"target": 501},
                                             "real_cards": True}, headers=d)
        assert r.status_code == 200, r.text
        tid, api = r.json()["id"], f"/api/tournaments/{r.json()['id']}"
        for name in ("Ana & Marko", "Ivo & Mara"):
            assert c.post(f"{api}/entries", json={"name": name},
                          headers=d).status_code == 200
        assert c.post(f"{api}/start", headers=d).status_code == 200
        rnd = 1
        while True:
            [game] = _playing(c, tid, d, rnd)
            # the entry that sits at side 0 in the first partija wins each
            leader = _get(c, tid, d)["rounds"][0]["games"][0]["entries"][0]
            side = game["entries"].index(leader)
            deals = WIN if side == 0 else [{**x, "caller": 1, "points": [None, 112],
                                            "declarations": [0, 50]} for x in WIN]
            _score(c, tid, game, rnd, deals)
            if _after(c, tid, d, rnd)["status"] == "finished":
                break
            rnd += 1
        obj = _get(c, tid, d)
        assert obj["status"] == "finished" and rnd == 2
        game = obj["rounds"][1]["games"][0]
        assert game["correctable"]
        lost = [0, 0]
        lost[game["entries"].index(game["result"]["winner"])] = 300
        lost[1 - game["entries"].index(game["result"]["winner"])] = 501
        refused(c.post(api + _fix(2, 1), json={"scores": lost, "reason": "krivo"},
                       headers=d), 409, "tournament_over")
        assert _get(c, tid, d)["rounds"][1]["games"][0]["result"] == game["result"]
        kept = [501 if s == max(game["result"]["scores"]) else 300
                for s in game["result"]["scores"]]
        r = c.post(api + _fix(2, 1), json={"scores": kept, "reason": "zbroj"}, headers=d)
        assert r.status_code == 200, r.text
        after = r.json()
        assert after["status"] == "finished"
        assert after["rounds"][1]["games"][0]["result"]["scores"] == kept
        assert after["rounds"][1]["games"][0]["result"]["corrected"]["reason"] == "zbroj"
        assert next(s for s in after["standings"] if s["place"] == 1)["entry"] == leader


def test_a_tournament_ended_midway_takes_a_correction_of_its_last_round(
        tmp_path: Path) -> None:
    """The director ends a paused Swiss after its first round (of two): round 1's results
    are still corrected (no round follows them)."""
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        t = club_night(c, d)
        tid, api = t["id"], f"/api/tournaments/{t['id']}"
        first, second = _playing(c, tid, d, 1)
        _score(c, tid, first, 1)
        assert c.post(f"{api}/pause", headers=d).status_code == 200
        _score(c, tid, second, 1)
        until(lambda: _get(c, tid, d)["rounds"][0]["finished"], "round 1 finished")
        assert c.post(f"{api}/end", headers=d).json()["status"] == "finished"
        r = c.post(api + _fix(1, 1), json={"scores": [0, 501], "reason": "predaja"},
                   headers=d)
        assert r.status_code == 200, r.text
        assert r.json()["rounds"][0]["games"][0]["result"]["winner"] == first["entries"][1]
        assert len(r.json()["rounds"]) == 1 and r.json()["status"] == "finished"

"""A club night with real cards (docs/TOURNAMENTS.md "Real cards"): no table is made,
each game is scored on a pad bound to it by its scorer link (an unguessable key per
game), and the pad's match totals are the game's result: the director sees them, the
standings move, the next round is paired."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from fastapi.testclient import TestClient
from server_helpers import guest, server, until

from bela.engine.pad import Pad

PAIRS = ["Ana & Marko", "Ivo & Mara", "Luka & Nina", "Petra & Zdravko"]




def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


def record(deals: list[dict[str, Any]], target: int = 501) -> dict[str, Any]:
    return {"pad": 1, "variant": "bela4", "options": {"target": target}, "deals": deals}


# side 0 calls hearts and takes 100 of 162 and, with its declarations, the match at 501
WIN = [{"caller": 0, "trump": "H", "points": [112, None], "declarations": [50, 0]}] * 4
ONE = [{"caller": 1, "trump": "S", "points": [60, None]}]


def club_night(c: TestClient, d: dict[str, str], **body: Any) -> dict[str, Any]:
    r = c.post("/api/tournaments", json={"name": "Klub petak", "variant": "bela4",
                                         "format": "swiss", "rounds": 2,
                                         "options": {"target": 501}, "real_cards": True,
                                         **body}, headers=d)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    for name in PAIRS:
        r = c.post(f"/api/tournaments/{tid}/entries", json={"name": name}, headers=d)
        assert r.status_code == 200, r.text
    r = c.post(f"/api/tournaments/{tid}/start", headers=d)
    assert r.status_code == 200, r.text
    obj: dict[str, Any] = r.json()
    return obj


def test_a_club_night_is_scored_on_bound_pads(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        _, other = guest(c, "Gost")
        t = club_night(c, d)
        tid = t["id"]
        assert t["settings"]["real_cards"] and not t["settings"]["rated"]
        [rnd] = t["rounds"]
        assert rnd["started_at"] and t["next_round_at"] is None
        games = until(lambda: all(g["status"] == "playing" for g in
                                  c.get(f"/api/tournaments/{tid}", headers=d)
                                  .json()["rounds"][0]["games"]) and
                      c.get(f"/api/tournaments/{tid}", headers=d).json()["rounds"][0]["games"],
                      "the round's games playing")
        assert len(games) == 2 and all(g["table"] is None and g["link"] is None
                                       for g in games)
        # the links are the director's: nobody else sees them
        seen = c.get(f"/api/tournaments/{tid}", headers=other).json()
        assert all("scorer" not in g for g in seen["rounds"][0]["games"])
        links = [urlparse(g["scorer"]) for g in games]
        assert all(u.path == "/pad" for u in links)
        keys = [parse_qs(u.query)["key"][0] for u in links]
        assert len(set(keys)) == 2 and all(len(k) >= 20 for k in keys)
        api = f"/api/tournaments/{tid}/scorer/1"
        first, second = games
        names = {e["id"]: e["name"] for e in t["entries"]}

        # the pad bound to table 1 is set up from its game
        view = c.get(f"{api}/1", params={"key": keys[0]}).json()
        assert view["variant"] == "bela4" and view["options"]["target"] == 501
        assert view["names"] == [names[e] for e in first["entries"]]
        assert view["status"] == "playing" and view["result"] is None
        # a wrong key, or another table's, is refused; so is a game that is not there
        refused(c.get(f"{api}/1", params={"key": keys[1]}), 403, "bad_key")
        refused(c.get(f"{api}/1", params={"key": "x" * 22}), 403, "bad_key")
        refused(c.post(f"{api}/1", json={"key": keys[1], "record": record(WIN)}), 403,
                "bad_key")
        refused(c.get(f"{api}/9", params={"key": keys[0]}), 404, "unknown_game")
        # a record of other rules, or with nothing written, is refused
        refused(c.post(f"{api}/1", json={"key": keys[0], "record": record(WIN, 1001)}),
                422, "bad_pad")
        refused(c.post(f"{api}/1", json={"key": keys[0], "record": record([])}), 422,
                "bad_pad")
        qr = c.get(f"{api}/1/qr.svg", params={"key": keys[0]})
        assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
        refused(c.get(f"{api}/1/qr.svg", params={"key": keys[1]}), 403, "bad_key")

        # table 1's match ends on the pad: its totals are the game's result
        totals = list(Pad.from_record(record(WIN)).totals)
        assert Pad.from_record(record(WIN)).winner == 0
        r = c.post(f"{api}/1", json={"key": keys[0], "record": record(WIN)})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "finished" and r.json()["result"]["scores"] == totals
        # ... once: the second time is refused
        refused(c.post(f"{api}/1", json={"key": keys[0], "record": record(WIN)}), 409,
                "game_over")
        # table 2 submits before its match ends (the round's time is up): its totals
        part = list(Pad.from_record(record(ONE)).totals)
        r = c.post(f"{api}/2", json={"key": keys[1], "record": record(ONE)})
        assert r.status_code == 200, r.text

        obj = until(lambda: (lambda o: o if len(o["rounds"]) == 2 else None)(
            c.get(f"/api/tournaments/{tid}", headers=d).json()), "round 2 paired")
        done = obj["rounds"][0]["games"]
        assert [g["result"]["scores"] for g in done] == [totals, part]
        assert done[0]["result"]["winner"] == first["entries"][0]
        assert done[1]["result"]["winner"] == second["entries"][1]
        top = {s["entry"]: s for s in obj["standings"]}
        assert top[first["entries"][0]]["wins"] == 1
        assert top[first["entries"][0]]["points_diff"] == totals[0] - totals[1]
        assert top[second["entries"][1]]["wins"] == 1
        assert obj["rounds"][0]["finished"] and obj["rounds"][0]["finished_at"]
        # round 2's keys are new ones
        keys2 = [parse_qs(urlparse(g["scorer"]).query)["key"][0]
                 for g in obj["rounds"][1]["games"]]
        assert not set(keys2) & set(keys)


def test_real_cards_refuses_a_duplicate_and_names_need_it(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        r = c.post("/api/tournaments", json={"name": "D", "variant": "bela4",
                                             "format": "duplicate", "rounds": 1,
                                             "boards": 4, "real_cards": True}, headers=d)
        refused(r, 422, "bad_settings")
        r = c.post("/api/tournaments", json={"name": "S", "variant": "bela4",
                                             "format": "swiss", "rounds": 1}, headers=d)
        tid = r.json()["id"]
        refused(c.post(f"/api/tournaments/{tid}/entries", json={"name": "Ana & Marko"},
                       headers=d), 422, "bad_entry")
        # an online tournament's games have no scorer
        refused(c.get(f"/api/tournaments/{tid}/scorer/1/1", params={"key": "k"}), 404,
                "unknown_game")


def test_the_round_break_is_shown_as_next_round_at(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        t = club_night(c, d, round_break=600)
        tid = t["id"]
        obj = until(lambda: (lambda o: o if all(g["status"] == "playing" for g in
                                                o["rounds"][0]["games"]) else None)(
            c.get(f"/api/tournaments/{tid}", headers=d).json()), "games playing")
        for g in obj["rounds"][0]["games"]:
            key = parse_qs(urlparse(g["scorer"]).query)["key"][0]
            r = c.post(f"/api/tournaments/{tid}/scorer/1/{g['table_no']}",
                       json={"key": key, "record": record(WIN)})
            assert r.status_code == 200, r.text
        obj = until(lambda: (lambda o: o if o["next_round_at"] else None)(
            c.get(f"/api/tournaments/{tid}", headers=d).json()), "the break's end")
        assert len(obj["rounds"]) == 1 and obj["rounds"][0]["finished"]
        assert obj["next_round_at"].endswith("+00:00")
        assert obj["next_round_at"] > obj["rounds"][0]["finished_at"]


def test_a_player_entered_at_a_club_night_is_sent_to_no_online_table(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        _, ana = guest(c, "Ana")
        ana_id = c.get("/api/players/me", headers=ana).json()["player_id"]
        r = c.post("/api/tournaments", json={"name": "Klub", "variant": "bela2",
                                             "format": "swiss", "rounds": 1,
                                             "real_cards": True}, headers=d)
        tid = r.json()["id"]
        assert c.post(f"/api/tournaments/{tid}/entries", json={"players": [ana_id]},
                      headers=d).status_code == 200
        assert c.post(f"/api/tournaments/{tid}/entries", json={"name": "Ivo"},
                      headers=d).status_code == 200
        assert c.post(f"/api/tournaments/{tid}/start", headers=d).status_code == 200
        feed = until(lambda: (lambda f: f if f and f[0]["round"] == 1 else None)(
            c.get("/api/tournaments/mine", headers=ana).json()["tournaments"]), "the feed")
        assert feed[0]["id"] == tid and feed[0]["link"] is None
        obj = c.get(f"/api/tournaments/{tid}", headers=d).json()
        assert all(g["table"] is None for g in obj["rounds"][0]["games"])

"""Profiles and the leaderboard, through the app: rated matches move ratings and fill the
history; unrated ones count in the stats only; private matches are their player's."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from server_helpers import Reader, choose, guest, server, start

from bela.engine.record import read_record, replay, score
from bela.server import profiles
from bela.server.model import Seat, Table, TableStatus
from bela.server.profiles import TRUMPS
from bela.server.ratings import lines, rate_fn
from bela.server.store import Store
from bela.storage import Database

# one-point matches are rated here (a server's rated_min_target); one opponent lists one
RATED: dict[str, Any] = {"rated_min_target": 1, "board_opponents": 1}


def player_id(client: Any, h: dict[str, str]) -> str:
    return str(client.get("/api/players/me", headers=h).json()["player_id"])


def play(client: Any, token: str, h: dict[str, str], **body: Any) -> tuple[str, list[int]]:
    """A bela2 match to one point against the heuristic bot, played to its end with random
    legal moves (no seed: a rated table unless ``rated`` is false): its id and totals."""
    r = client.post("/api/tables", json={"variant": "bela2", "options": {"target": 1},
                                         "seat": 0, **body}, headers=h)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert r.json()["rated"] == (body.get("rated", True) and not body.get("private", False))
    assert client.post(f"/api/tables/{tid}/bots", headers=h).status_code == 200
    with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as w:
        me = Reader(w)
        me.recv()
        start(client, tid, h)
        rng = random.Random(7)
        while True:
            st = me.until(lambda m: m["type"] == "state")
            if st["status"] == "finished":
                return tid, list(st["view"]["totals"])
            if st["view"]["legal"]:
                me.send({"type": "act", "action": choose(st, rng), "seq": st["seq"]})


def profile(client: Any, pid: str, h: dict[str, str] | None = None) -> dict[str, Any]:
    r = client.get(f"/api/players/{pid}", headers=h or {})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_rated_match_moves_both_ratings_and_fills_the_profiles(tmp_path: Path) -> None:
    with server(tmp_path, **RATED) as client:
        token, h = guest(client, "Ana")
        pid = player_id(client, h)
        tid, totals = play(client, token, h)
        won = totals[0] > totals[1]

        me = profile(client, pid)
        assert me["player_id"] == pid and me["name"] == "Ana" and me["bot"] is None
        assert me["account"] is False and me["since"]
        [bela2] = me["variants"]
        assert bela2["variant"] == "bela2" and bela2["provisional"]
        assert bela2["games"] == 1 and bela2["wins"] == int(won)
        assert (bela2["rating"] > 1000) if won else (bela2["rating"] < 1000)
        assert bela2["history"] == [{"at": bela2["history"][0]["at"],
                                     "rating": bela2["rating"], "table": tid}]
        sheet = score(replay(read_record(client.get(f"/api/tables/{tid}/record").json())))
        played = [r for r in sheet["rounds"] if r["outcome"] != "redeal"]
        assert bela2["points_per_deal"] == round(totals[0] / len(played), 1)
        called = [r["trump"] for r in played if r["caller"] == 0]
        assert bela2["contracts"] == [{"trump": t, "count": called.count(t)}
                                      for t in sorted(set(called), key=lambda t: (
                                          -called.count(t), TRUMPS.index(t)))]
        [match] = me["matches"]
        assert match == {
            "table": tid, "variant": "bela2", "finished_at": match["finished_at"], "seat": 0,
            "won": won, "left": False, "rated": True, "rating_before": 1000,
            "rating_after": bela2["rating"], "totals": totals, "players": ["Ana", "Bot 2"],
            "record": f"/api/tables/{tid}/record"}
        assert client.get(match["record"]).json()["table"] == tid

        bot = profile(client, "bot-heuristic")
        assert (bot["name"], bot["bot"], bot["since"], bot["account"]) == (
            "heuristic", "heuristic", None, False)
        [bot_bela2] = bot["variants"]
        assert bot_bela2["games"] == 1 and bot_bela2["wins"] == int(not won)
        assert (bot_bela2["rating"] < 1000) if won else (bot_bela2["rating"] > 1000)
        assert [m["table"] for m in bot["matches"]] == [tid]
        assert bot["matches"][0]["seat"] == 1 and bot["matches"][0]["won"] is not won

        # a known bot that never played has a profile without variants; others are nobody
        assert profile(client, "bot-random")["variants"] == []
        for nobody in ("bot-nobody", "0123456789abcdef", "x" * 200):
            r = client.get(f"/api/players/{nobody}")
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_player"
        assert client.get(f"/api/players/{pid}", headers={"Authorization": "Bearer nope"}
                          ).json()["error"]["code"] == "bad_token"

        # the leaderboard lists bots and accounts, not guests
        board = client.get("/api/leaderboard?variant=bela2").json()
        assert board["variant"] == "bela2" and board["total"] == 1
        assert board["entries"] == [{
            "rank": 1, "player_id": "bot-heuristic", "name": "heuristic", "bot": "heuristic",
            "rating": bot_bela2["rating"], "provisional": True, "games": 1,
            "wins": int(not won)}]
        client.app.state.db.accounts.claim(pid, "Ana", "ana", "not-a-real-hash")  # an account
        board = client.get("/api/leaderboard", params={"variant": "bela2"}).json()
        assert board["total"] == 2
        ratings = [e["rating"] for e in board["entries"]]
        assert ratings == sorted(ratings, reverse=True)
        assert [e["rank"] for e in board["entries"]] == [1, 2]
        mine = next(e for e in board["entries"] if e["player_id"] == pid)
        assert mine["name"] == "Ana" and mine["bot"] is None and mine["games"] == 1
        second = client.get("/api/leaderboard?variant=bela2&limit=1&offset=1").json()
        assert second["total"] == 2 and [e["rank"] for e in second["entries"]] == [2]
        assert client.get("/api/leaderboard?variant=bela4").json() == {
            "variant": "bela4", "total": 0, "entries": []}
        for bad in ("variant=nope", "limit=0", "limit=201", "offset=-1"):
            assert client.get(f"/api/leaderboard?{bad}").status_code == 422


def test_private_matches_are_their_players_and_unrated_ones_move_nothing(
        tmp_path: Path) -> None:
    """A private table is unrated (rating farming, SECURITY.md) and its match is its
    players' own; a table made unrated counts in the stats only."""
    with server(tmp_path, **RATED) as client:
        token, h = guest(client, "Ana")
        _, ben = guest(client, "Ben")
        pid = player_id(client, h)
        public, _ = play(client, token, h)
        rating = profile(client, pid, h)["variants"][0]["rating"]
        bot_rating = profile(client, "bot-heuristic")["variants"][0]["rating"]
        hidden, _ = play(client, token, h, private=True)
        own = profile(client, pid, h)
        assert [m["table"] for m in own["matches"]] == [hidden, public]
        assert not own["matches"][0]["rated"] and own["variants"][0]["rating"] == rating
        for viewer in (None, ben):  # anyone else: not the private match
            seen = profile(client, pid, viewer)
            assert [m["table"] for m in seen["matches"]] == [public]
            assert seen["variants"][0]["rating"] == rating
        assert [m["table"] for m in profile(client, "bot-heuristic")["matches"]] == [public]

        free, _ = play(client, token, h, rated=False)
        after = profile(client, pid, h)
        [bela2] = after["variants"]
        assert bela2["rating"] == rating and len(bela2["history"]) == 1
        assert bela2["games"] == 3  # the stats count them
        assert [m["table"] for m in after["matches"]] == [free, hidden, public]
        newest = after["matches"][0]
        assert not newest["rated"] and newest["rating_before"] is None
        assert newest["rating_after"] is None
        assert [m["table"] for m in profile(client, pid, ben)["matches"]] == [free, public]
        bot = profile(client, "bot-heuristic")
        assert bot["variants"][0]["rating"] == bot_rating
        assert bot["variants"][0]["games"] == 3
        assert client.get("/api/leaderboard?variant=bela2").json()["entries"][0][
            "games"] == 1  # the rated ones


def test_a_profile_lists_the_newest_fifty_matches_it_may_show(tmp_path: Path) -> None:
    """Straight from the database: private matches are skipped for others without
    shortening the list; a bot in three seats of a match counts it once."""
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        store = Store(db)
        ana, _ = db.players.create_player("Ana")
        res = {"rounds": [{"caller": 1, "trump": "S", "outcome": "pass",
                           "scores": [60, 102]}], "totals": [60, 102], "winner": 1}
        ids = []
        for i in range(60):
            t = Table(id=f"t{i:02}", variant="bela4", options={}, seed=i, bot="heuristic",
                      status=TableStatus.RUNNING, owner_id=ana, rated=True, private=i % 3 == 0,
                      seats=[Seat(ana, "Ana")] + [Seat(name=f"Bot {s}", is_bot=True)
                                                  for s in (2, 3, 4)])
            store.create(t)
            for seat in range(4):
                store.save_seat(t, seat)
            found = lines(t, res)
            store.finish(t, res, {}, found, rate_fn(t, found))
            ids.append(t.id)
        newest = ids[::-1]
        own = profiles.profile(db, ana, {"id": ana})
        assert [m["table"] for m in own["matches"]] == newest[:50]
        seen = profiles.profile(db, ana, None)
        public = [t for t in newest if int(t[1:]) % 3]
        assert [m["table"] for m in seen["matches"]] == public  # 40: all there are
        assert len(seen["variants"][0]["history"]) == 60
        assert sum(p["table"] is None for p in seen["variants"][0]["history"]) == 20
        bot = profiles.profile(db, "bot-heuristic", {"id": ana})
        [bela4] = bot["variants"]
        assert bela4["games"] == 60 and bela4["wins"] == 0  # on both sides: not a win
        assert bela4["contracts"] == [{"trump": "S", "count": 60}]
        assert bela4["points_per_deal"] == round((60 + 102 + 102) / 3, 1)  # every seat
        assert [m["table"] for m in bot["matches"]] == public
        assert {m["seat"] for m in bot["matches"]} == {1}
        assert all(m["players"] == ["Ana", "Bot 2", "Bot 3", "Bot 4"]
                   for m in bot["matches"])
    finally:
        db.close()


def test_a_fault_of_the_ratings_stores_the_match_unrated(tmp_path: Path,
                                                         monkeypatch: Any) -> None:
    """A rating update that raises (a bug, not the database) must not leave the match
    running forever: it is stored, its lines unrated, and no rating moved."""
    from bela.server import ratings

    class Broken:
        def rating(self, *_args: Any) -> Any:
            raise ZeroDivisionError("a bug")

    monkeypatch.setattr(ratings, "_MODEL", Broken())
    with server(tmp_path, **RATED) as client:
        token, h = guest(client, "Ana")
        pid = player_id(client, h)
        tid, _totals = play(client, token, h)
        assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
        me = profile(client, pid)
        [match] = me["matches"]
        assert match["table"] == tid and match["rated"] is False
        assert match["rating_before"] is None and me["variants"][0]["history"] == []
        assert me["variants"][0]["games"] == 1 and me["variants"][0]["rating"] == 1000

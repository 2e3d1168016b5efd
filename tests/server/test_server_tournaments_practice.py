"""Practice duplicate (issue 41 item 6, docs/TOURNAMENTS.md "Practice duplicate"): one
player against bots on a set of boards, the bots' own pairs playing the same boards at the
other tables; the board tables compare his results with theirs.  Here his seat is played by
his table's bot (he never sits: the grace is short), which the result marks."""

from __future__ import annotations

from pathlib import Path

from server_helpers import guest, server, until

from bela.storage import Database


def test_a_practice_duplicate_against_bots(tmp_path: Path) -> None:
    with server(tmp_path, grace=0.05) as c:
        _, h = guest(c, "Ana")
        me = c.get("/api/players/me", headers=h).json()["player_id"]
        r = c.post("/api/tournaments/practice",
                   json={"variant": "bela4", "boards": 2, "level": "beginner"}, headers=h)
        assert r.status_code == 200, r.text
        t = r.json()
        tid = t["id"]
        assert t["format"] == "duplicate" and t["status"] == "running"
        assert t["settings"]["boards"] == 2 and not t["settings"]["rated"]
        assert t["settings"]["private"] and t["director"]["player_id"] == me
        mine = next(e for e in t["entries"] if e["players"])
        assert [p["player_id"] for p in mine["players"]] == [me] and mine["bot"] == "beginner"
        assert sum(1 for e in t["entries"] if not e["players"]) == 3
        # not listed; he is told his table
        assert tid not in [x["id"] for x in c.get("/api/tournaments?status=running").json()]
        feed = c.get("/api/tournaments/mine", headers=h).json()["tournaments"]
        assert feed[0]["id"] == tid

        done = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
            c.get(f"/api/tournaments/{tid}", headers=h).json()), "the practice's end")
        games = done["rounds"][0]["games"]
        assert len(games) == 2 and all(g["boards"] == [1, 2] for g in games)
        his = next(g for g in games if mine["id"] in g["entries"])
        assert his["result"]["bot_played"] == [mine["id"]]  # his table's bot sat for him
        # his table: his seat a human's (played for him), his partner's a bot of the level
        db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
        try:
            row = db.tables.load_table(his["table"])
        finally:
            db.close()
        assert row is not None
        side = his["entries"].index(mine["id"])
        seats = [s for i, s in enumerate(row["seats"]) if i % 2 == side]
        assert [s["player_id"] for s in seats] == [me, None]
        assert [bool(s["is_bot"]) for s in seats] == [False, True]
        # the board tables compare his results with the bots' pairs' on the same cards
        [rnd] = done["boards"]
        assert [b["board"] for b in rnd["boards"]] == [1, 2]
        for board in rnd["boards"]:
            assert board["top"] == 2
            lines = {tuple(ln["entries"]): ln for ln in board["lines"]}
            assert len(lines) == 2 and tuple(his["entries"]) in lines
            ours = lines[tuple(his["entries"])]
            other = next(ln for k, ln in lines.items() if k != tuple(his["entries"]))
            # he (side `side`) against the bots who held his cards at the other table
            mine_margin = ours["margin"] if side == 0 else -ours["margin"]
            their_margin = other["margin"] if side == 0 else -other["margin"]
            expect = 2 if mine_margin > their_margin else 1 if mine_margin == their_margin \
                else 0
            assert ours["matchpoints"][side] == expect
        standing = next(s for s in done["standings"] if s["entry"] == mine["id"])
        got = sum(next(ln for ln in b["lines"] if mine["id"] in ln["entries"])
                  ["matchpoints"][side] for b in rnd["boards"])
        assert standing["percentage"] is not None
        assert abs(standing["percentage"] - 100 * got / 4) < 0.01


def test_a_practice_refuses_what_it_cannot_play(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, h = guest(c, "Ana")
        post = lambda **b: c.post("/api/tournaments/practice", json=b, headers=h)  # noqa: E731
        r = post(variant="bela3", boards=2)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_settings", r.text
        r = post(variant="bela4", level="grandmaster")
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_level", r.text
        r = post(variant="bela4", boards=0)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request", r.text
        assert c.post("/api/tournaments/practice", json={"variant": "bela2"}).status_code == 401

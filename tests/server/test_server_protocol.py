"""The lobby and table protocol over FastAPI's TestClient: join, act, refuse, reconnect,
spectate, bots, the grace period, history and records."""

from __future__ import annotations

import random
import time
from contextlib import ExitStack
from typing import Any

from server_helpers import Reader, choose, guest, play_out, server, start, table_with

from bela.engine import Match, parse_action
from bela.engine.cards import Card
from bela.engine.record import read_record, replay, score


def test_guest_and_table_lifecycle(tmp_path: Any) -> None:
    with server(tmp_path, tables_per_guest=4) as client:
        page = client.get("/")
        assert page.status_code == 200 and "<html" in page.text.lower()
        token, h = guest(client, "  Ana  ")
        assert client.get("/api/players/me", headers=h).json()["name"] == "Ana"
        assert client.get("/api/players/me").status_code == 401
        bad = client.get("/api/players/me", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401 and bad.json()["error"]["code"] == "bad_token"
        variants = client.get("/api/variants").json()
        assert {v["id"] for v in variants["variants"]} == {"bela4", "bela3", "bela2", "belot2"}
        assert {"random", "heuristic"} <= set(variants["bots"])
        for variant, seats in (("bela4", 4), ("bela3", 3), ("bela2", 2), ("belot2", 2)):
            r = client.post("/api/tables", json={"variant": variant, "bot": "random"},
                            headers=h)
            assert r.status_code == 200, r.text
            t = r.json()
            assert len(t["seats"]) == seats and t["seats"][0]["name"] == "Ana"
            assert t["status"] == "open" and t["invite"].endswith(t["id"])
        listed = client.get("/api/tables").json()
        assert len(listed) == 4
        # bad requests: clear errors
        for body, code in (({"variant": "bela5"}, "bad_request"),
                           ({"options": {"target": -5}}, "bad_options"),
                           ({"options": {"colour": "red"}}, "bad_options"),
                           ({"bot": "genius"}, "bad_bot"),
                           ({"seat": 7}, "bad_seat"),
                           ({"variant": 4}, "bad_request")):
            r = client.post("/api/tables", json=body, headers=h)
            assert r.status_code in (403, 422), r.text
            assert r.json()["error"]["code"] == code, (body, r.text)
        assert client.post("/api/guests", json={"name": ""}).status_code == 422
        assert client.post("/api/guests", json={"name": "\x00\x01"}).status_code == 422
        assert client.post("/api/guests", json={"name": 5}).status_code == 422
        huge = client.post("/api/guests", content=b'{"name": "' + b"a" * 200_000 + b'"}',
                           headers={"content-type": "application/json"})
        assert huge.status_code == 413
        r = client.get("/api/tables/nope")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_table"
        assert client.post("/api/tables/nope/sit", json={"seat": 0}, headers=h).status_code == 404


def test_sit_bots_start_and_refusals(tmp_path: Any) -> None:
    with server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = table_with(client, "bela4", [ana])
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 0}, headers=bruno)
        assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
        r = client.post(f"/api/tables/{tid}/start", headers=ana)
        assert r.status_code == 409 and r.json()["error"]["code"] == "seats_free"
        assert client.post(f"/api/tables/{tid}/start", headers=bruno).status_code == 403
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 2},
                           headers=bruno).status_code == 200
        # moving to another seat frees the first one
        t = client.post(f"/api/tables/{tid}/sit", json={"seat": 1}, headers=bruno).json()
        assert [s["kind"] for s in t["seats"]] == ["human", "human", None, None]
        r = client.post(f"/api/tables/{tid}/bots", json={"seats": [3]}, headers=bruno)
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_owner"
        t = client.post(f"/api/tables/{tid}/bots", json={"seats": [3]}, headers=ana).json()
        assert [s["kind"] for s in t["seats"]] == ["human", "human", None, "bot"]
        t = client.post(f"/api/tables/{tid}/bots", headers=ana).json()
        assert [s["kind"] for s in t["seats"]] == ["human", "human", "bot", "bot"]
        start(client, tid, ana)
        r = client.post(f"/api/tables/{tid}/sit", json={"seat": 2}, headers=bruno)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"
        r = client.get(f"/api/tables/{tid}/record")
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
        assert client.get(f"/api/tables/{tid}").json()["status"] == "running"


def test_join_act_refuse_reconnect_spectate(tmp_path: Any) -> None:
    with server(tmp_path) as client:
        toks = [guest(client, name) for name in ("Ana", "Bruno")]
        tid = table_with(client, "bela2", [h for _, h in toks])
        with client.websocket_connect(f"/ws/tables/{tid}?token={toks[0][0]}") as w0, \
                client.websocket_connect(f"/ws/tables/{tid}?token={toks[1][0]}") as w1, \
                client.websocket_connect(f"/ws/tables/{tid}") as ws:
            a, b, spec = Reader(w0), Reader(w1), Reader(ws)
            hello = a.recv()
            assert hello["type"] == "welcome" and hello["seat"] == 0
            assert b.recv()["seat"] == 1 and spec.recv()["seat"] is None
            start(client, tid, toks[0][1])
            sa, sb, ss = a.until_seq(1), b.until_seq(1), spec.until_seq(1)
            # join: each seat gets its own hand, the spectator none
            assert len(sa["view"]["hand"]) == 6 and len(sb["view"]["hand"]) == 6
            assert not set(sa["view"]["hand"]) & set(sb["view"]["hand"])
            assert ss["view"]["hand"] == [] and ss["view"]["legal"] == []
            assert ss["view"]["public"]["turned"] == sa["view"]["public"]["turned"]
            turn = sa["view"]["turn"]
            mover, waiter = (a, b) if turn == 0 else (b, a)
            legal = mover.state["view"]["legal"]
            assert legal and waiter.state["view"]["legal"] == []
            # refuse: out of turn, illegal, unknown, spectator; nothing changes
            waiter.send({"type": "act", "action": legal[0], "seq": 1})
            err = waiter.until(lambda m: m["type"] == "error")
            assert err["code"] == "not_your_turn" and "turn" in err["message"]
            mover.send({"type": "act", "action": "VC", "seq": 1})
            err = mover.until(lambda m: m["type"] == "error")
            assert err["code"] == "illegal" and err["rule"] == "R31" and err["legal"] == legal
            mover.send({"type": "act", "action": "jump", "seq": 1})
            assert mover.until(lambda m: m["type"] == "error")["code"] == "bad_action"
            spec.send({"type": "act", "action": legal[0]})
            assert spec.until(lambda m: m["type"] == "error")["code"] == "spectator"
            mover.send({"type": "act", "action": legal[0], "seq": 0})
            assert mover.until(lambda m: m["type"] == "error")["code"] == "stale"
            assert client.get(f"/api/tables/{tid}").json()["seq"] == 1
            mover.send({"type": "sync"})
            again = mover.until(lambda m: m["type"] == "state")
            assert again["seq"] == 1 and again["view"] == mover.state["view"]
            # act: everyone gets the new state, with the last action
            mover.send({"type": "act", "action": legal[0], "seq": 1})
            for r in (a, b, spec):
                st = r.until_seq(2)
                assert st["last"] == {"seat": turn, "action": legal[0]}
            # a replayed message is stale
            mover.send({"type": "act", "action": legal[0], "seq": 1})
            assert mover.until(lambda m: m["type"] == "error")["code"] == "stale"
            mover.send({"type": "ping"})
            assert mover.until(lambda m: m["type"] != "table")["type"] == "pong"
        # reconnect with the same token: the same seat, the same hand
        with client.websocket_connect(f"/ws/tables/{tid}?token={toks[0][0]}") as w0:
            back = Reader(w0)
            assert back.recv()["seat"] == 0
            st = back.until(lambda m: m["type"] == "state")
            assert st["seq"] == 2 and st["view"]["seat"] == 0
            assert st["view"]["hand"] == a.state["view"]["hand"]
        with client.websocket_connect("/ws/tables/nope") as w:
            msg = w.receive_json()
            assert msg["type"] == "error" and msg["code"] == "unknown_table"
        with client.websocket_connect(f"/ws/tables/{tid}?token=forged") as w:
            assert w.receive_json()["code"] == "bad_token"


def test_state_messages_carry_the_events_each_seat_may_see(tmp_path: Any) -> None:
    """A state after an action carries its events as each seat (and the spectator) may see
    them: every card played and trick taken for all, a picked-up talon's cards for its own
    seat only; a state no action made (a deal, a welcome) carries none."""
    with server(tmp_path) as client:
        toks = [guest(client, f"p{i}") for i in range(4)]
        tid = table_with(client, "bela4", [h for _, h in toks])
        with ExitStack() as stack:
            seats = [Reader(stack.enter_context(client.websocket_connect(
                f"/ws/tables/{tid}?token={tok}"))) for tok, _ in toks]
            everyone = [*seats, Reader(stack.enter_context(
                client.websocket_connect(f"/ws/tables/{tid}")))]
            for r in everyone:
                r.recv()
            start(client, tid, toks[0][1])
            assert all(r.until_seq(1)["events"] == [] for r in everyone)  # the deal
            with client.websocket_connect(f"/ws/tables/{tid}?token={toks[1][0]}") as w:
                late = Reader(w)
                assert late.recv()["type"] == "welcome"
                st = late.until(lambda m: m["type"] == "state")
                assert st["seq"] == 1 and st["events"] == []
            rng, seq, taken, talons = random.Random(4), 1, 0, 0
            while taken < 2:
                seat = next(s for s, r in enumerate(seats) if r.state["view"]["legal"])
                hands = [r.state["view"]["hand"] for r in everyone]
                before = seats[seat].state["view"]
                token = choose(seats[seat].state, rng)
                seats[seat].send({"type": "act", "action": token, "seq": seq})
                seq += 1
                got = [r.until_seq(seq) for r in everyone]
                assert all(st["seq"] == seq for st in got)
                for viewer, st, hand in zip([0, 1, 2, 3, None], got, hands):
                    types = [e["type"] for e in st["events"]]
                    assert types == [e["type"] for e in got[-1]["events"]]
                    for e in st["events"]:
                        if e["type"] == "talon_taken":
                            mine = e["seat"] == viewer
                            assert (e["cards"] is not None) == mine, (viewer, e)
                            if mine:  # the cards the hand gained
                                gained = set(st["view"]["hand"]) - set(hand)
                                assert set(e["cards"]) == gained and len(gained) == 2
                                talons += 1
                if before["phase"] != "play" or token.startswith("declare"):
                    continue
                view = got[-1]["view"]
                played = {"type": "card_played", "seat": seat, "card": token.rstrip("*"),
                          "bela": token.endswith("*")}
                for st in got:
                    assert st["events"][0] == played
                    if len(view["tricks"]) > len(before["tricks"]):  # the trick's last card
                        trick, side = view["tricks"][-1], view["tricks"][-1]["winner"] % 2
                        points = view["card_points"][side] - before["card_points"][side]
                        assert st["events"][1] == {
                            "type": "trick_taken", "seat": trick["winner"],
                            "cards": trick["cards"], "points": points}
                    else:
                        assert len(st["events"]) == 1
                taken = len(view["tricks"])
            assert talons >= 1


def test_spectator_watches_a_bot_table_to_the_end_and_history(tmp_path: Any) -> None:
    with server(tmp_path) as client:
        tok, h = guest(client, "Ana")
        tid = table_with(client, "belot2", [h], bots=True, bot="random",
                         options={"target": 301})
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as w, \
                client.websocket_connect(f"/ws/tables/{tid}") as s:
            me, spec = Reader(w), Reader(s)
            me.recv(), spec.recv()
            start(client, tid, h)
            rng = random.Random(3)
            while True:
                st = me.until(lambda m: m["type"] == "state")
                if st["status"] == "finished":
                    break
                if st["view"]["legal"]:
                    me.send({"type": "act", "action": choose(st, rng), "seq": st["seq"]})
            last = spec.until(lambda m: m["type"] == "state" and m["status"] == "finished")
            assert last["seq"] == st["seq"] and last["view"]["hand"] == []
        record = client.get(f"/api/tables/{tid}/record").json()
        assert record["players"][0] == "Ana" and record["seed"] == 1
        replayed = replay(read_record(record))
        assert score(replayed)["totals"] == st["view"]["totals"]
        hist = client.get("/api/players/me/history", headers=h).json()
        assert len(hist) == 1 and hist[0]["table"] == tid and hist[0]["seat"] == 0
        assert hist[0]["record"] == f"/api/tables/{tid}/record"  # the record by its link
        assert client.get(hist[0]["record"]).json() == record
        assert hist[0]["totals"] == st["view"]["totals"]
        assert client.get("/api/tables").json() == []
        # a finished table can still be watched (loaded again from the database)
        with client.websocket_connect(f"/ws/tables/{tid}") as s:
            assert s.receive_json()["table"]["status"] == "finished"
            assert s.receive_json()["status"] == "finished"


def test_grace_period_bot_takes_over_and_player_returns(tmp_path: Any) -> None:
    with server(tmp_path, grace=0.3, bot_delay=0.02) as client:
        tok, h = guest(client, "Ana")
        tid = table_with(client, "bela4", [h], bots=True, bot="random")
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as w:
            me = Reader(w)
            me.recv()
            start(client, tid, h)
            st = me.until(lambda m: m["type"] == "state" and m["view"]["turn"] == 0)
            seq = st["seq"]
        time.sleep(0.15)  # within the grace period: the seat waits for its player
        t = client.get(f"/api/tables/{tid}").json()
        assert t["seq"] == seq and not t["seats"][0]["connected"]
        assert not t["seats"][0]["autopilot"]
        deadline = time.time() + 5
        while client.get(f"/api/tables/{tid}").json()["seq"] < seq + 8:
            assert time.time() < deadline, "no bot took over the absent player's seat"
            time.sleep(0.05)
        assert client.get(f"/api/tables/{tid}").json()["seats"][0]["autopilot"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={tok}") as w:
            me = Reader(w)
            hello = me.recv()
            assert hello["seat"] == 0
            t = hello["table"]
            assert t["seats"][0]["connected"] and not t["seats"][0]["autopilot"]
            st = me.until(lambda m: m["type"] == "state" and (
                m["view"]["turn"] == 0 or m["status"] == "finished"))
            if st["status"] == "running":  # the bot no longer plays for the player
                time.sleep(0.2)
                assert client.get(f"/api/tables/{tid}").json()["seq"] == st["seq"]
                me.send({"type": "act", "action": st["view"]["legal"][0], "seq": st["seq"]})
                assert me.until_seq(st["seq"] + 1)["last"]["seat"] == 0


def test_full_match_over_websockets_equals_the_engine(tmp_path: Any) -> None:
    """The server's match is the engine's match: same deals, same actions, same result."""
    with server(tmp_path) as client:
        toks = [guest(client, f"p{i}") for i in range(3)]
        tid = table_with(client, "bela3", [h for _, h in toks], options={"target": 301})
        with client.websocket_connect(f"/ws/tables/{tid}?token={toks[0][0]}") as w0, \
                client.websocket_connect(f"/ws/tables/{tid}?token={toks[1][0]}") as w1, \
                client.websocket_connect(f"/ws/tables/{tid}?token={toks[2][0]}") as w2:
            readers = [Reader(w) for w in (w0, w1, w2)]
            for r in readers:
                r.recv()
            start(client, tid, toks[0][1])
            final = play_out(readers, dict(enumerate(readers)), random.Random(5))
        record = client.get(f"/api/tables/{tid}/record").json()
        m = Match("bela3", {"target": 301})
        for rd in record["rounds"]:
            rnd = m.deal([[int(c) for c in Card.parse(x)] for x in rd["hands"]],
                         {"extra": [int(c) for c in Card.parse(rd["extra"])]},
                         dealer=rd["dealer"])
            for tok in rd["actions"]:
                m.apply(parse_action(tok))
            assert rnd.is_over
        assert list(m.totals) == final["view"]["totals"] and m.winner == final["view"]["winner"]


def test_view_json_round_trip_for_bots(tmp_path: Any) -> None:
    """A Python client can rebuild the engine's SeatView from a state message."""
    from bela.engine.views import seat_view
    from bela.server.protocol import view_from_json, view_json

    for variant in ("bela4", "bela3", "bela2", "belot2"):
        m = Match(variant, seed=9)
        rnd = m.deal()
        rng = random.Random(1)
        while not rnd.is_over:
            for seat in (None, *range(m.variant.seats)):
                j = view_json(seat_view(m, seat))
                back = view_json(view_from_json(j))
                assert {**back, "result": None} == {**j, "result": None}
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])

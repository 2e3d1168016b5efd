"""Malformed and hostile messages: wrong types, huge payloads, actions for another seat,
replayed or out-of-turn actions, unknown tables.  Each gets a clear error; the server does
not crash and the table does not change (hand-written cases and Hypothesis-generated)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import Reader, guest, server, start, table_with

from bela.engine import parse_action

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12)
TOKENS = st.sampled_from(["pass", "H", "D", "S", "C", "VC", "BC", "swap", "redeal", "keep",
                          "claim 0", "claim 1", "claim 9", "claim -1", "discard 7H 8H",
                          "declare 7H 8H 9H", "JH", "KH*", "10S", "XX", "", " ", "pass pass"])
ACTS = st.fixed_dictionaries(
    {"type": st.just("act"),
     "action": TOKENS | st.text(max_size=30) | st.integers() | st.none() | st.lists(TOKENS)},
    optional={"seq": st.integers() | st.text(max_size=3) | st.floats() | st.booleans(),
              "extra": JSON})
MESSAGES = JSON | ACTS | st.fixed_dictionaries({"type": st.text(max_size=10) | st.integers()})


def _canonical(token: str) -> str | None:
    try:
        return parse_action(token).token()
    except ValueError:
        return None


def _snapshot(client: Any, tid: str) -> tuple[int, list[str], Any]:
    table = client.app.state.lobby.tables[tid]
    rnd = table.match.round
    return table.seq, [a.token() for a in rnd.log], rnd.hands[:]


def _setup(client: Any) -> tuple[str, list[tuple[str, dict[str, str]]]]:
    players = [guest(client, n) for n in ("Ana", "Bruno")]
    tid = table_with(client, "bela2", [h for _, h in players], seed=5)
    start(client, tid, players[0][1])
    return tid, players


def test_hand_written_hostile_messages(tmp_path: Any) -> None:
    with server(tmp_path) as client:
        tid, players = _setup(client)
        before = _snapshot(client, tid)
        turn = client.app.state.lobby.tables[tid].match.round.turn
        with client.websocket_connect(f"/ws/tables/{tid}?token={players[turn][0]}") as wm, \
                client.websocket_connect(f"/ws/tables/{tid}?token={players[1 - turn][0]}") \
                as wo, client.websocket_connect(f"/ws/tables/{tid}") as ws:
            mover, other, spec = Reader(wm), Reader(wo), Reader(ws)
            for r in (mover, other, spec):
                r.until(lambda m: m["type"] == "state")
            legal = mover.state["view"]["legal"]

            def refused(r: Reader, msg: Any, code: str) -> dict[str, Any]:
                r.send(msg)
                err = r.until(lambda m: m["type"] == "error")
                assert err["code"] == code, err
                assert err["message"]
                assert _snapshot(client, tid) == before
                return err

            refused(mover, "not json", "bad_json")
            refused(mover, "[1, 2", "bad_json")
            refused(mover, "[]", "bad_message")
            refused(mover, "null", "bad_message")
            refused(mover, {"type": "act"}, "bad_message")
            refused(mover, {"type": "act", "action": 5}, "bad_message")
            refused(mover, {"type": "act", "action": ["pass"]}, "bad_message")
            refused(mover, {"type": "act", "action": legal[0], "seq": "1"}, "bad_message")
            refused(mover, {"type": "act", "action": legal[0], "seq": 1.5}, "bad_message")
            refused(mover, {"type": "act", "action": legal[0], "evil": 1}, "bad_message")
            refused(mover, {"type": "fly"}, "bad_message")
            refused(mover, {"type": "act", "action": "x" * 1000}, "bad_message")
            refused(mover, "[" * 100_000 + "]" * 100_000, "too_large")
            refused(mover, json.dumps({"type": "act", "action": "a" * 70_000}), "too_large")
            refused(mover, "[" * 30_000 + "]" * 30_000, "bad_json")  # deep nesting
            refused(mover, {"type": "act", "action": "claim 1"}, "wrong_seat")
            refused(mover, {"type": "act", "action": f"claim {turn}"}, "illegal")
            refused(mover, {"type": "act", "action": "AH AS"}, "bad_action")
            # another seat's action, the opponent's cards, a spectator
            refused(other, {"type": "act", "action": legal[0]}, "not_your_turn")
            refused(other, {"type": "act", "action": legal[0], "seq": 1}, "not_your_turn")
            refused(spec, {"type": "act", "action": legal[0]}, "spectator")
            # replayed and out-of-date
            refused(mover, {"type": "act", "action": legal[0], "seq": 0}, "stale")
            refused(mover, {"type": "act", "action": legal[0], "seq": 10**30}, "stale")
            wm.send_bytes(b"\xff\xfe")
            assert mover.until(lambda m: m["type"] == "error")["code"] == "bad_json"
            # the connection still works, and so does the table
            mover.send({"type": "act", "action": legal[0], "seq": 1})
            assert mover.until_seq(2)["last"]["action"] == legal[0]
            refused_again = {"type": "act", "action": legal[0], "seq": 1}
            mover.send(refused_again)  # the same message again: stale, nothing changes
            assert mover.until(lambda m: m["type"] == "error")["code"] == "stale"
            assert client.app.state.lobby.tables[tid].seq == 2
        r = client.get("/api/tables/%2e%2e")
        assert r.status_code == 404
        with client.websocket_connect("/ws/tables/" + "x" * 500) as w:
            assert w.receive_json()["code"] == "unknown_table"


def test_generated_hostile_messages(tmp_path: Any) -> None:
    with server(tmp_path) as client:
        tid, players = _setup(client)
        turn = client.app.state.lobby.tables[tid].match.round.turn
        before = _snapshot(client, tid)
        with client.websocket_connect(f"/ws/tables/{tid}?token={players[turn][0]}") as wm, \
                client.websocket_connect(f"/ws/tables/{tid}?token={players[1 - turn][0]}") \
                as wo, client.websocket_connect(f"/ws/tables/{tid}") as ws:
            readers = [Reader(w) for w in (wm, wo, ws)]
            for r in readers:
                r.until(lambda m: m["type"] == "state")
            mover = readers[0]
            legal = set(mover.state["view"]["legal"])

            @settings(max_examples=150, deadline=None,
                      suppress_health_check=list(HealthCheck))
            @given(msg=MESSAGES, who=st.integers(0, 2))
            def check(msg: Any, who: int) -> None:
                r = readers[who]
                if (who == 0 and isinstance(msg, dict) and msg.get("type") == "act"
                        and isinstance(msg.get("action"), str)
                        and _canonical(msg["action"]) in legal
                        and msg.get("seq") in (None, 1) and set(msg) <= {"type", "action",
                                                                           "seq"}):
                    msg = {**msg, "seq": 0}  # the one legal move: made stale on purpose
                r.send(msg)
                reply = r.until(lambda m: m["type"] in ("error", "pong")
                                or (m["type"] == "table" and msg == {"type": "sync"}))
                if reply["type"] == "error":
                    assert reply["code"] and reply["message"]
                assert _snapshot(client, tid) == before

            check()
            mover.send({"type": "act", "action": sorted(legal)[0], "seq": 1})
            assert mover.until_seq(2)["seq"] == 2


def test_flooding_is_cut_off(tmp_path: Any) -> None:
    with server(tmp_path, max_rate=5) as client:
        tid, players = _setup(client)
        with client.websocket_connect(f"/ws/tables/{tid}?token={players[0][0]}") as w:
            r = Reader(w)
            r.until(lambda m: m["type"] == "state")
            for _ in range(8):
                r.send({"type": "ping"})
            replies = [r.until(lambda m: m["type"] in ("pong", "error")) for _ in range(6)]
            assert [m["type"] for m in replies] == ["pong"] * 5 + ["error"]
            assert replies[-1]["code"] == "too_many"
        assert client.get(f"/api/tables/{tid}").json()["seq"] == 1

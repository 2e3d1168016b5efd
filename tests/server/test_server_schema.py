"""The protocol's JSON Schema (docs/protocol.schema.json) is generated from the message
models, and every message the server sends over a real WebSocket validates against it:
games of every variant with bots, the exchange, a claim, refusals, table updates and a bot
that thinks; and each message and event kind the schema lists is seen at least once, so
that the schema says what the server sends, no more and no less."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import jsonschema
import protocol_schema  # tools/protocol_schema.py (pytest puts tools/ on the path)
import pytest
from pydantic import TypeAdapter
from server_helpers import Reader, guest, server, start

from bela.bots import RandomBot
from bela.server import actor as actor_module
from bela.server.answers import HistoryEntry
from bela.server.messages import ServerMessage, TableSummary, message_kinds

ROOT = Path(__file__).parents[2]
SCHEMA_FILE = ROOT / "docs" / "protocol.schema.json"


def _committed() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


def _validator(ref: str) -> Any:
    """A validator of ``#/$defs/<ref>`` of the committed schema."""
    schema = {k: v for k, v in _committed().items() if k != "oneOf"}
    schema["$ref"] = f"#/$defs/{ref}"
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _listed(ref: str) -> set[str]:
    """The ``type`` values a discriminated union of the committed schema lists."""
    return set(_committed()["$defs"][ref]["discriminator"]["mapping"])


def test_the_schema_file_is_generated_from_the_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == protocol_schema.output(), (
        "docs/protocol.schema.json is not what the message models make: "
        "run python tools/protocol_schema.py")
    assert _listed("ServerMessage") == set(message_kinds(ServerMessage))
    assert _listed("ClientMessage") == {"act", "ping", "sync", "say", "chat", "report"}


def test_the_schema_refuses_what_the_protocol_does_not_send() -> None:
    """The schema can fail: a key the models do not name, a card that is no RECORD.md code,
    a missing key, an unknown kind are refused."""
    v = _validator("ServerMessage")
    assert v.is_valid({"type": "thinking", "seat": 1, "seq": 3})
    for bad in ({"type": "thinking", "seat": 1, "seq": 3, "hand": ["JH"]},
                {"type": "thinking", "seat": 1},
                {"type": "thinking", "seat": "1", "seq": 3},
                {"type": "whisper", "seat": 1, "seq": 3}):
        assert not v.is_valid(bad), bad
    ev = _validator("EventJson")
    assert ev.is_valid({"type": "card_played", "seat": 1, "card": "TH", "bela": False})
    assert not ev.is_valid({"type": "card_played", "seat": 1, "card": "10H", "bela": False})


class Slow:
    """A random bot that takes ``pause`` seconds over every decision (it is marked
    ``thinking`` at the bot delay)."""

    pause = 0.15

    def __init__(self, seed: int | None = None) -> None:
        self.random = RandomBot(seed)

    def act(self, view: Any) -> Any:
        time.sleep(self.pause)
        return self.random.act(view)


def _pick(legal: list[str], seat: int, rng: random.Random, claim: bool) -> str:
    """Ana's choice: a claim when allowed and asked for, a swap, a declaration, else any
    legal action (so that every kind of event comes up)."""
    if claim:
        return f"claim {seat}"
    for word in ("swap", "declare"):
        offered = [a for a in legal if a.split(" ", 1)[0] == word]
        if offered:
            return max(offered, key=len)
    return legal[rng.randrange(len(legal))]


def _play(reader: Reader, seat: int, rng: random.Random, claim_once: bool) -> None:
    """Play Ana's seat until the match is over; the first time a claim is allowed (bela4
    with enforce off) she claims."""
    claimed = not claim_once
    pending = [reader.state] if reader.state is not None else []  # the state read last
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        msg = pending.pop() if pending else reader.recv()
        if msg["type"] != "state":
            continue
        if msg["status"] == "finished":
            return
        view = msg["view"]
        if view["phase"] == "done":
            continue
        claim = not claimed and view["claim_allowed"]
        if claim or (view["turn"] == seat and view["legal"] and view["legal"] != ["keep"]):
            claimed = claimed or claim
            reader.send({"type": "act", "action": _pick(view["legal"], seat, rng, claim),
                         "seq": msg["seq"]})
    raise AssertionError("the match did not end in time")


def _refusals(reader: Reader, spectator: Reader) -> set[str]:
    """Messages the server refuses, each answered with an error (a ping with a pong):
    their codes.  Sent in the bidding, before a card is played: a claim is illegal there
    (R24), and one for another seat is refused before that."""
    sent: list[Any] = ["{not json", {"type": "dance"},
                       {"type": "act", "action": "no such token"},
                       {"type": "act", "action": "pass", "seq": -1},
                       {"type": "act", "action": "claim 0"},
                       {"type": "act", "action": "claim 1"},
                       {"type": "ping"}]
    for msg in sent:
        reader.send(msg)
    codes = {reader.until(lambda m: m["type"] in ("error", "pong")).get("code", "pong")
             for _ in sent}
    spectator.send({"type": "act", "action": "pass"})
    codes.add(spectator.until(lambda m: m["type"] == "error")["code"])
    return codes


def _game(client: Any, ana: dict[str, str], bruno: dict[str, str], variant: str,
          options: dict[str, Any], seed: int, claim: bool = False,
          refusals: set[str] | None = None) -> list[str]:
    """A match of Ana and heuristic bots, watched by a spectator, with a seat taken and
    left before the start: every message the two connections got."""
    r = client.post("/api/tables", json={"variant": variant, "seed": seed, "seat": 0,
                                         "options": options, "bot": "heuristic"}, headers=ana)
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    token = ana["Authorization"].removeprefix("Bearer ")
    with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws, \
            client.websocket_connect(f"/ws/tables/{tid}") as watch_ws:
        me, watcher = Reader(ws), Reader(watch_ws)
        me.until(lambda m: m["type"] == "welcome")
        watcher.until(lambda m: m["type"] == "welcome")
        # a seat taken and left, bots in the others: the connections hear of it (table)
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1},
                           headers=bruno).status_code == 200
        assert client.post(f"/api/tables/{tid}/leave", headers=bruno).status_code == 200
        assert client.post(f"/api/tables/{tid}/bots", headers=ana).status_code == 200
        start(client, tid, ana)
        me.until(lambda m: m["type"] == "state")
        if refusals is not None:
            refusals |= _refusals(me, watcher)
        _play(me, 0, random.Random(seed), claim)
        watcher.until(lambda m: m["type"] == "state" and m["status"] == "finished")
        return me.raw + watcher.raw


def _talk(client: Any) -> list[str]:
    """Talk at an open table of two accounts: a line, a report of it, a phrase."""
    heads = []
    for name in ("Vesna", "Zoran"):
        _token, h = guest(client, name)
        r = client.post("/api/accounts", json={"password": "konj-i-kraljica-7"}, headers=h)
        assert r.status_code == 200, r.text
        heads.append(h)
    r = client.post("/api/tables", json={"variant": "bela4", "seat": 0}, headers=heads[0])
    tid = r.json()["id"]
    assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1},
                       headers=heads[1]).status_code == 200
    tokens = [h["Authorization"].removeprefix("Bearer ") for h in heads]
    with client.websocket_connect(f"/ws/tables/{tid}?token={tokens[0]}") as ws0, \
            client.websocket_connect(f"/ws/tables/{tid}?token={tokens[1]}") as ws1:
        vesna, zoran = Reader(ws0), Reader(ws1)
        for r in (vesna, zoran):
            r.joined()  # a line sent sooner may go out before the other joined
        vesna.send({"type": "chat", "text": "<b>bok</b>"})
        line = zoran.until(lambda m: m["type"] == "chat")
        zoran.send({"type": "report", "id": line["id"]})
        zoran.until(lambda m: m["type"] == "reported")
        zoran.send({"type": "say", "phrase": "sretno"})
        vesna.until(lambda m: m["type"] == "said")
        return vesna.raw + zoran.raw


def _events(raw: list[str]) -> set[str]:
    return {e["type"] for text in raw for e in json.loads(text).get("events", ())}


def test_every_message_of_real_games_validates_against_the_schema(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server_v = _validator("ServerMessage")
    raw: list[str] = []
    codes: set[str] = set()
    with server(tmp_path, tables_per_guest=50) as client:
        _token, ana = guest(client, "Ana")
        _token, bruno = guest(client, "Bruno")
        # an open table, listed till the end
        assert client.post("/api/tables", json={"variant": "bela3", "seat": 0},
                           headers=bruno).status_code == 200
        raw += _talk(client)
        # bela4 with enforce off: Ana claims (R24) at her first chance
        raw += _game(client, ana, bruno, "bela4", {"target": 1, "enforce": "off"}, 10,
                     claim=True, refusals=codes)
        for n, variant in enumerate(("bela4", "bela3", "bela2", "belot2")):
            raw += _game(client, ana, bruno, variant, {"target": 301}, 11 + n)
        # the exchange: one-round matches until a seat swaps the 7 of trump (R32, R35)
        for seed in range(20, 40):
            if "swapped" in _events(raw):
                break
            raw += _game(client, ana, bruno, "belot2" if seed % 2 else "bela2",
                         {"target": 1}, seed)
        # the REST answers served as prepared bytes (no response model checks them)
        listed = client.get("/api/tables").json()
        assert listed and TypeAdapter(list[TableSummary]).validate_python(listed)
        played = client.get("/api/players/me/history", headers=ana).json()
        assert len(played) >= 5 and TypeAdapter(list[HistoryEntry]).validate_python(played)
        # a refused connection: its error comes before the close
        with client.websocket_connect("/ws/tables/nope") as ws:
            gone = Reader(ws)
            codes.add(gone.recv()["code"])
            raw += gone.raw
    # a bot over its delay is marked thinking
    monkeypatch.setattr(actor_module, "make_bot", lambda spec, seed=None: Slow(seed))
    (tmp_path / "slow").mkdir()
    with server(tmp_path / "slow", bot_delay=0.05) as client:
        _token, ana = guest(client, "Ana")
        r = client.post("/api/tables", json={"variant": "bela2", "seed": 3, "seat": None},
                        headers=ana)
        tid = r.json()["id"]
        assert client.post(f"/api/tables/{tid}/bots", headers=ana).status_code == 200
        with client.websocket_connect(f"/ws/tables/{tid}") as ws:
            watcher = Reader(ws)
            watcher.until(lambda m: m["type"] == "welcome")
            start(client, tid, ana)
            watcher.until(lambda m: m["type"] == "thinking")
            raw += watcher.raw
            client.post(f"/api/tables/{tid}/close", headers=ana)

    mapping = _committed()["$defs"]["ServerMessage"]["discriminator"]["mapping"]
    by_kind = {kind: _validator(ref.rsplit("/", 1)[1]) for kind, ref in mapping.items()}
    seen: set[str] = set()
    for text in raw:
        msg = json.loads(text)
        # its own kind's definition, for an error that names the key
        errors = sorted(by_kind[msg["type"]].iter_errors(msg),
                        key=lambda e: list(e.absolute_path))
        assert not errors, (  # a key the server gained: add it to bela.server.messages
            "a message does not validate against docs/protocol.schema.json",
            text[:300], [(list(e.absolute_path), e.message) for e in errors[:3]])
        assert server_v.is_valid(msg), text[:300]
        ServerMessage.model_validate_json(text)  # the models take it as the schema does
        seen.add(msg["type"])
    # a tournament's table call is validated where a tournament is played:
    # test_server_tournaments_play.py, test_a_player_hears_of_his_next_table_on_...
    assert seen == _listed("ServerMessage") - {"tournament"}, seen
    assert _events(raw) == _listed("EventJson"), _listed("EventJson") - _events(raw)
    assert codes == {"bad_json", "bad_message", "bad_action", "stale", "illegal",
                     "wrong_seat", "pong", "spectator", "unknown_table"}, codes


def test_the_openapi_document_states_the_rest_answers(tmp_path: Path) -> None:
    """The main REST routes name their answers' models (``response_model``), so that
    ``/api/openapi.json`` gives their shapes."""
    with server(tmp_path) as client:
        doc = client.get("/api/openapi.json").json()

    def answer(path: str, method: str) -> str:
        content = doc["paths"][path][method]["responses"]["200"]["content"]
        schema = content["application/json"]["schema"]
        return str(schema.get("$ref") or schema["items"]["$ref"]).rsplit("/", 1)[1]

    assert answer("/api/variants", "get") == "Variants"
    assert answer("/api/tables", "get") == "TableSummary"
    assert answer("/api/players/me/history", "get") == "HistoryEntry"
    for path in ("/api/tables/{table_id}/sit", "/api/tables/{table_id}/start"):
        assert answer(path, "post") == "TableSummary"
    assert answer("/api/guests", "post") == "PlayerToken"
    assert answer("/api/login", "post") == "LoggedIn"
    assert answer("/api/players/{player_id}", "get") == "Profile"
    assert answer("/api/leaderboard", "get") == "Leaderboard"
    quick = doc["paths"]["/api/quick"]["get"]["responses"]["200"]["content"]
    assert "QuickMatched" in json.dumps(quick)
    assert answer("/api/pads/{pad_id}", "get") == "KeptPad"
    assert answer("/api/analysis/reviews/{review_id}", "get") == "ReviewStatus"
    assert answer("/api/analysis/play-on", "post") == "TableSummary"
    assert answer("/api/tables/{table_id}/hint", "get") == "Hint"
    summary = doc["components"]["schemas"]["TableSummary"]
    assert summary["additionalProperties"] is False and "facts" in summary["required"]

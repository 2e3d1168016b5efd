"""Blocks are the server's for accounts (docs/SECURITY.md, Talk): a blocked player's free
text reaches none of the blocker's connections (two devices at a table, the lobby's room,
its backlog), while his phrases still reach everyone as one message; a block ends a
friendship and refuses new requests; guests keep their blocks in the browser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server_helpers import Reader, guest, server, table_with

PASSWORD = "konj-i-kraljica-7"


def _account(client: Any, name: str) -> tuple[str, dict[str, str]]:
    _token, h = guest(client, name)
    r = client.post("/api/accounts", json={"password": PASSWORD}, headers=h)
    assert r.status_code == 200, r.text
    return r.json()["player_id"], h


def _lines_of(reader: Reader, player_id: str) -> list[dict[str, Any]]:
    """The lines of ``player_id`` that ``reader`` received."""
    msgs = [json.loads(t) for t in reader.raw]
    return [m for m in msgs if m["type"] == "chat" and m["player_id"] == player_id]


def _token(h: dict[str, str]) -> str:
    return h["Authorization"].removeprefix("Bearer ")


def test_a_blocked_players_lines_reach_no_device_of_the_blocker(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana_id, ana = _account(client, "Ana")
        bruno_id, bruno = _account(client, "Bruno")
        _cid, cvita = _account(client, "Cvita")
        client.post(f"/api/friends/{bruno_id}", headers=ana)
        assert client.post(f"/api/friends/{ana_id}", headers=bruno).json()["friends"]
        r = client.put(f"/api/blocks/{bruno_id}", headers=ana)
        assert r.status_code == 200 and r.json() == {"blocked": True}
        assert client.get("/api/blocks", headers=ana).json() == {
            "blocked": [{"player_id": bruno_id, "name": "Bruno"}]}
        # the block ended the friendship, and Bruno cannot ask again
        assert client.get("/api/friends", headers=ana).json()["friends"] == []
        r = client.post(f"/api/friends/{ana_id}", headers=bruno)
        assert r.status_code == 403 and r.json()["error"]["code"] == "blocked"
        tid = table_with(client, "bela4", [ana, bruno, cvita], bots=False)
        url = f"/ws/tables/{tid}?token="
        with client.websocket_connect(url + _token(ana)) as phone, \
                client.websocket_connect(url + _token(ana)) as laptop, \
                client.websocket_connect(url + _token(bruno)) as wb, \
                client.websocket_connect(url + _token(cvita)) as wc:
            a1, a2, b, c = Reader(phone), Reader(laptop), Reader(wb), Reader(wc)
            for r in (a1, a2, b, c):
                r.joined()
            b.send({"type": "chat", "text": "ružna riječ"})
            assert c.until(lambda m: m["type"] == "chat")["text"] == "ružna riječ"
            b.send({"type": "say", "phrase": "bravo"})
            c.until(lambda m: m["type"] == "said")  # the phrase first, then Cvita's line
            c.send({"type": "chat", "text": "ajmo"})
            for r in (a1, a2):  # the phrase comes, Bruno's line never does
                assert r.until(lambda m: m["type"] == "said")["seat"] == 1
                assert r.until(lambda m: m["type"] == "chat")["text"] == "ajmo"
            assert _lines_of(a1, bruno_id) == _lines_of(a2, bruno_id) == []
            assert b.until(lambda m: m["type"] == "chat")["text"] == "ružna riječ"
            # unblocked: his lines come again
            assert client.delete(f"/api/blocks/{bruno_id}", headers=ana).json() == {
                "blocked": False}
            b.send({"type": "chat", "text": "oprosti"})
            assert a1.until(lambda m: m["type"] == "chat")["text"] == "oprosti"


def test_the_lobby_keeps_a_blocked_players_lines_from_the_blocker(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _aid, ana = _account(client, "Ana")
        bruno_id, bruno = _account(client, "Bruno")
        _t, gost = guest(client, "Gost")
        assert client.put(f"/api/blocks/{bruno_id}", headers=ana).status_code == 200
        r = client.put(f"/api/blocks/{bruno_id}", headers=gost)  # a guest's stay his own
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_account"
        with client.websocket_connect(f"/ws/lobby?token={_token(ana)}") as wa, \
                client.websocket_connect(f"/ws/lobby?token={_token(bruno)}") as wb:
            a, b = Reader(wa), Reader(wb)
            b.send({"type": "chat", "text": "kupujem zlato"})
            assert b.until(lambda m: m["type"] == "chat")["text"] == "kupujem zlato"
            a.send({"type": "chat", "text": "tko igra?"})
            assert a.until(lambda m: m["type"] == "chat")["text"] == "tko igra?"
            assert _lines_of(a, bruno_id) == []
            with client.websocket_connect(f"/ws/lobby?token={_token(ana)}") as late:
                r = Reader(late)  # her new device's backlog leaves his line out too
                assert r.until(lambda m: m["type"] == "chat")["text"] == "tko igra?"
                assert _lines_of(r, bruno_id) == []

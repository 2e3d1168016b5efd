"""Friends, presence, invitations and avatars (issue 44, part 4): a request, its
acceptance, the friend shown online at his table, an invitation that brings the friend to
the table; avatars chosen from the drawn set only; guests have no friends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_helpers import Reader, guest, server

from bela.server.talk.avatars import AVATARS

PASSWORD = "konj-i-kraljica-7"


def _account(client: Any, name: str) -> tuple[str, dict[str, str]]:
    token, h = guest(client, name)
    r = client.post("/api/accounts", json={"password": PASSWORD}, headers=h)
    assert r.status_code == 200, r.text
    return r.json()["player_id"], h


def test_a_request_accepted_makes_friends_shown_online_and_invited(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana_id, ana = _account(client, "Ana")
        bruno_id, bruno = _account(client, "Bruno")
        _cid, cvita = _account(client, "Cvita")
        assert client.post(f"/api/friends/{bruno_id}", headers=ana).json() == {"friends": False}
        mine = client.get("/api/friends", headers=ana).json()
        assert [f["name"] for f in mine["outgoing"]] == ["Bruno"] and mine["friends"] == []
        his = client.get("/api/friends", headers=bruno).json()
        assert [f["player_id"] for f in his["incoming"]] == [ana_id]
        # an invitation before they are friends is refused
        r = client.post("/api/tables", json={"variant": "bela4", "seat": 0}, headers=ana)
        tid = r.json()["id"]
        r = client.post(f"/api/friends/{bruno_id}/invite", json={"table": tid}, headers=ana)
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_friends"
        # Bruno accepts: friends both ways
        assert client.post(f"/api/friends/{ana_id}", headers=bruno).json() == {"friends": True}
        # online: the two asked lately (Cvita never did); at no table yet
        assert client.get("/api/presence").json() == {"online": 2}
        friend = client.get("/api/friends", headers=bruno).json()["friends"][0]
        assert friend["online"] is True and friend["table"] is None
        token = ana["Authorization"].removeprefix("Bearer ")
        with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
            Reader(ws).until(lambda m: m["type"] == "welcome")
            his = client.get("/api/friends", headers=bruno).json()
            assert his["incoming"] == [] and his["friends"] == [
                {"player_id": ana_id, "name": "Ana", "avatar": None, "online": True,
                 "table": tid}]
            r = client.post(f"/api/friends/{bruno_id}/invite", json={"table": tid},
                            headers=ana)
            assert r.status_code == 200, r.text
            his = client.get("/api/friends", headers=bruno).json()
            assert his["invites"] == [{"from_id": ana_id, "from_name": "Ana", "table": tid}]
            # the invitation joins the table: Bruno sits
            r = client.post(f"/api/tables/{tid}/sit", json={"seat": 1}, headers=bruno)
            assert r.status_code == 200, r.text
            assert r.json()["seats"][1]["player_id"] == bruno_id
            assert client.post(f"/api/friends/{bruno_id}/invite", json={"table": tid},
                               headers=cvita).status_code == 403
        his = client.get("/api/friends", headers=bruno).json()
        assert his["friends"][0]["table"] is None  # online still: Ana's page asked lately
        # removed: gone both ways
        assert client.delete(f"/api/friends/{ana_id}", headers=bruno).status_code == 200
        assert client.get("/api/friends", headers=ana).json()["friends"] == []


def test_friends_are_for_accounts_and_real_players(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana_id, ana = _account(client, "Ana")
        gost_id = guest(client, "Gost")[1]
        _t, gost = guest(client, "Gost2")
        r = client.get("/api/friends", headers=gost)
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_account"
        assert client.post(f"/api/friends/{ana_id}", headers=ana).status_code == 422
        assert client.post("/api/friends/nobody", headers=ana).status_code == 404
        assert gost_id  # a guest cannot be befriended either
        me = client.get("/api/players/me", headers=gost).json()["player_id"]
        assert client.post(f"/api/friends/{me}", headers=ana).status_code == 404


def test_avatars_are_chosen_from_the_drawn_set(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        _t, ana = guest(client, "Ana")
        me = client.get("/api/players/me", headers=ana).json()["player_id"]
        answer = client.get("/api/avatars").json()
        assert answer["avatars"] == list(AVATARS)
        r = client.put("/api/players/me/avatar", json={"avatar": "owl"}, headers=ana)
        assert r.status_code == 200 and r.json() == {"avatar": "owl"}
        assert client.get(f"/api/avatars?ids={me},nobody").json()["players"] == {me: "owl"}
        r = client.put("/api/players/me/avatar", json={"avatar": "<svg onload=x>"},
                       headers=ana)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_avatar"
        assert client.put("/api/players/me/avatar", json={"avatar": None},
                          headers=ana).json() == {"avatar": None}


def test_a_profile_lists_only_accepted_friends_with_names_and_avatars(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        ana_id, ana = _account(client, "Ana")
        bruno_id, bruno = _account(client, "Bruno")
        cvita_id, cvita = _account(client, "Cvita")
        dora_id, _dora = _account(client, "Dora")
        client.post(f"/api/friends/{bruno_id}", headers=ana)
        client.post(f"/api/friends/{ana_id}", headers=bruno)  # accepted
        client.post(f"/api/friends/{ana_id}", headers=cvita)  # asked Ana, not accepted
        client.post(f"/api/friends/{dora_id}", headers=ana)  # Ana asked, not accepted
        client.put("/api/players/me/avatar", json={"avatar": "owl"}, headers=bruno)
        for viewer in (None, cvita, ana):  # anyone sees the same: no pending requests
            r = client.get(f"/api/players/{ana_id}", headers=viewer or {})
            assert r.status_code == 200, r.text
            assert r.json()["friends"] == [
                {"player_id": bruno_id, "name": "Bruno", "avatar": "owl"}]
        assert client.get(f"/api/players/{cvita_id}").json()["friends"] == []
        _t, gost = guest(client, "Gost")
        gost_id = client.get("/api/players/me", headers=gost).json()["player_id"]
        assert client.get(f"/api/players/{gost_id}").json()["friends"] == []


def test_each_bot_seat_names_its_own_bot_at_a_table_of_mixed_levels(tmp_path: Path) -> None:
    """A bot's seat carries the bot that plays it (its face and level name in the web):
    a seat's own bot (a tournament's bot entry) or the table's, never the table's alone."""
    with server(tmp_path) as client:
        _aid, ana = _account(client, "Ana")
        r = client.post("/api/tables", json={"variant": "bela4", "seat": 0, "bot": "club"},
                        headers=ana)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        assert client.post(f"/api/tables/{tid}/bots", headers=ana).status_code == 200
        table = client.app.state.lobby.tables[tid]
        table.seats[1].bot = "beginner"  # as a tournament seats a beginner pair's bot
        seats = client.get(f"/api/tables/{tid}").json()["seats"]
        assert [(s["kind"], s["bot"]) for s in seats] == [
            ("human", None), ("bot", "beginner"), ("bot", "club"), ("bot", "club")]
        listed = next(t for t in client.get("/api/tables").json() if t["id"] == tid)
        assert [s["bot"] for s in listed["seats"]] == [None, "beginner", "club", "club"]

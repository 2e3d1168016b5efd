"""Tournaments: creation, registration and the director's rules, with their errors
(docs/TOURNAMENTS.md).  Nothing here plays a table: see test_server_tournaments_play.py."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from server_helpers import guest, server

SWISS = {"name": "Petak navečer", "variant": "bela4", "format": "swiss", "rounds": 3,
         "options": {"target": 1001}}


def me(client: TestClient, h: dict[str, str]) -> str:
    pid: str = client.get("/api/players/me", headers=h).json()["player_id"]
    return pid


def create(client: TestClient, h: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/api/tournaments", json={**SWISS, **body}, headers=h)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


def test_create_validates_everything(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Ana")
        t = create(c, d)
        assert t["status"] == "registering" and t["director"]["name"] == "Ana"
        assert t["settings"]["options"]["target"] == 1001 and "seed" not in t["settings"]
        post = lambda **b: c.post("/api/tournaments", json={**SWISS, **b}, headers=d)  # noqa: E731
        refused(post(variant="preferans"), 422, "bad_variant")
        refused(post(format="ladder"), 422, "bad_format")
        refused(post(options={"target": 0}), 422, "bad_options")
        refused(post(options={"trumps": 3}), 422, "bad_options")
        refused(post(turn_clock=2), 422, "bad_turn_clock")
        refused(post(rounds=0), 422, "bad_settings")  # a swiss needs rounds
        refused(post(variant="bela3", format="duplicate", rounds=2, boards=4), 422,
                "bad_settings")  # duplicate is two-sided
        refused(post(format="knockout", rounds=3), 422, "bad_settings")  # derived
        refused(post(surprise=True), 422, "bad_request")  # extra="forbid"
        refused(post(name=""), 422, "bad_request")
        refused(c.post("/api/tournaments", json=SWISS), 401, "no_token")
        dup = create(c, d, format="duplicate", rounds=2, boards=3, rated=True)
        assert dup["settings"]["rated"] is False  # a duplicate's tables are never rated


def test_pairs_invite_accept_and_withdraw(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        _, ana = guest(c, "Ana")
        _, marko = guest(c, "Marko")
        _, iva = guest(c, "Iva")
        tid = create(c, d)["id"]
        refused(c.post(f"/api/tournaments/{tid}/register", json={}, headers=ana), 422,
                "odd_pair")
        refused(c.post(f"/api/tournaments/{tid}/register",
                       json={"partner": me(c, ana)}, headers=ana), 422, "odd_pair")
        refused(c.post(f"/api/tournaments/{tid}/register", json={"partner": "nobody"},
                       headers=ana), 404, "unknown_player")
        t = c.post(f"/api/tournaments/{tid}/register", json={"partner": me(c, marko)},
                   headers=ana).json()
        (entry,) = t["entries"]
        assert entry["status"] == "invited" and entry["name"] == "Ana & Marko"
        assert [p["name"] for p in entry["players"]] == ["Ana", "Marko"]
        # Marko is held by the invitation; Iva was not invited
        refused(c.post(f"/api/tournaments/{tid}/register", json={"seeking": True},
                       headers=marko), 409, "already_entered")
        refused(c.post(f"/api/tournaments/{tid}/accept", json={"entry": entry["id"]},
                       headers=iva), 409, "not_invited")
        t = c.post(f"/api/tournaments/{tid}/accept", json={"entry": entry["id"]},
                   headers=marko).json()
        assert t["entries"][0]["status"] == "registered"
        refused(c.post(f"/api/tournaments/{tid}/accept", json={"entry": entry["id"]},
                       headers=marko), 409, "not_invited")
        # Marko withdraws the pair; both are free to enter again
        t = c.post(f"/api/tournaments/{tid}/withdraw", headers=marko).json()
        assert t["entries"][0]["status"] == "withdrawn"
        refused(c.post(f"/api/tournaments/{tid}/withdraw", headers=marko), 404, "unknown_entry")
        t = c.post(f"/api/tournaments/{tid}/register", json={"seeking": True},
                   headers=ana).json()
        assert t["entries"][-1]["status"] == "seeking"
        # a closed registration refuses
        refused(c.post(f"/api/tournaments/{tid}/close", headers=ana), 403, "not_director")
        assert c.post(f"/api/tournaments/{tid}/close", headers=d).json()["status"] == "closed"
        refused(c.post(f"/api/tournaments/{tid}/register", json={"seeking": True},
                       headers=iva), 409, "not_registering")
        assert c.post(f"/api/tournaments/{tid}/open", headers=d).json()["status"] == \
            "registering"


def test_single_players_and_private_tournaments(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        _, ana = guest(c, "Ana")
        _, ivo = guest(c, "Ivo")
        t = create(c, d, variant="bela2", private=True, rated=True)
        tid, code = t["id"], t["invite_code"]
        assert t["settings"]["rated"] is False  # private: never rated
        refused(c.get(f"/api/tournaments/{tid}"), 404, "unknown_tournament")
        assert "invite_code" not in c.get(f"/api/tournaments/{tid}?code={code}").json()
        listed = c.get("/api/tournaments").json()
        assert tid not in [x["id"] for x in listed]
        refused(c.post(f"/api/tournaments/{tid}/register", json={}, headers=ana), 404,
                "unknown_tournament")
        refused(c.post(f"/api/tournaments/{tid}/register", json={"code": "wrong"},
                       headers=ana), 404, "unknown_tournament")
        t = c.post(f"/api/tournaments/{tid}/register", json={"code": code}, headers=ana).json()
        assert t["entries"][0]["name"] == "Ana" and t["entries"][0]["status"] == "registered"
        # entered: she sees it without the code; a partner makes no sense in bela2
        assert c.get(f"/api/tournaments/{tid}", headers=ana).status_code == 200
        refused(c.post(f"/api/tournaments/{tid}/register",
                       json={"code": code, "partner": me(c, ana)}, headers=ivo), 422,
                "no_pairs")
        refused(c.post(f"/api/tournaments/{tid}/register", json={"code": code}, headers=ana),
                409, "already_entered")


def test_director_entries_pairing_and_start(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        players = [guest(c, name)[1] for name in ("Ana", "Bo", "Cvita", "Dino", "Eva")]
        tid = create(c, d, rounds=1)["id"]
        seekers = []
        for h in players:
            t = c.post(f"/api/tournaments/{tid}/register", json={"seeking": True},
                       headers=h).json()
            seekers.append(t["entries"][-1]["id"])
        refused(c.post(f"/api/tournaments/{tid}/entries", json={"bot": "grandmaster"},
                       headers=d), 422, "bad_level")
        refused(c.post(f"/api/tournaments/{tid}/entries", json={"bot": "club"},
                       headers=players[0]), 403, "not_director")
        refused(c.post(f"/api/tournaments/{tid}/entries", json={"players": [me(c, d)]},
                       headers=d), 422, "odd_pair")
        refused(c.post(f"/api/tournaments/{tid}/entries", json={}, headers=d), 422,
                "bad_entry")
        # the director pairs Ana with Bo; a registered entry cannot be paired again
        t = c.post(f"/api/tournaments/{tid}/pair", json={"entries": seekers[:2]},
                   headers=d).json()
        first = next(e for e in t["entries"] if e["id"] == seekers[0])
        assert first["status"] == "registered" and first["name"] == "Ana & Bo"
        refused(c.post(f"/api/tournaments/{tid}/pair", json={"entries": seekers[:2]},
                       headers=d), 409, "not_seeking")
        # a bot entry, removed, and another
        t = c.post(f"/api/tournaments/{tid}/entries", json={"bot": "club"}, headers=d).json()
        bot = t["entries"][-1]
        assert bot["bot"] == "club" and bot["status"] == "registered" and bot["players"] == []
        t = c.delete(f"/api/tournaments/{tid}/entries/{bot['id']}", headers=d).json()
        assert next(e for e in t["entries"] if e["id"] == bot["id"])["status"] == "removed"
        refused(c.delete(f"/api/tournaments/{tid}/entries/{bot['id']}", headers=d), 409,
                "not_entered")
        refused(c.delete(f"/api/tournaments/{tid}/entries/9999", headers=d), 404,
                "unknown_entry")
        refused(c.post(f"/api/tournaments/{tid}/pause", headers=d), 409, "not_running")
        # at the start the three seekers left are paired by rating: two paired, one out
        t = c.post(f"/api/tournaments/{tid}/start", headers=d).json()
        assert t["status"] == "running"
        status = {e["id"]: e["status"] for e in t["entries"]}
        assert sorted(status[e] for e in seekers[2:]) == ["registered", "withdrawn",
                                                          "withdrawn"]
        playing = [e for e in t["entries"] if e["status"] == "registered"]
        assert len(playing) == 2 and all(e["rating"] == 1000.0 for e in playing)
        (rnd,) = t["rounds"]
        (game,) = rnd["games"]
        assert sorted(game["entries"]) == sorted(e["id"] for e in playing)
        assert game["status"] == "playing" and game["link"] == f"/?table={game['table']}"
        table = c.get(f"/api/tables/{game['table']}").json()
        assert table["status"] == "running"
        refused(c.post(f"/api/tournaments/{tid}/start", headers=d), 409, "already_started")
        refused(c.post(f"/api/tournaments/{tid}/withdraw", headers=players[0]), 409,
                "already_started")
        # the feed tells a player his table
        feed = c.get("/api/tournaments/mine", headers=players[0]).json()["tournaments"]
        assert [(f["id"], f["table"]) for f in feed] == [(tid, game["table"])]
        # the director pauses, ends: the unfinished table is closed, its game void
        assert c.post(f"/api/tournaments/{tid}/pause", headers=d).json()["status"] == "paused"
        refused(c.post(f"/api/tournaments/{tid}/pause", headers=d), 409, "not_running")
        t = c.post(f"/api/tournaments/{tid}/end", headers=d).json()
        assert t["status"] == "finished" and t["rounds"][0]["games"][0]["status"] == "void"
        assert c.get(f"/api/tables/{game['table']}").json()["status"] == "closed"
        refused(c.post(f"/api/tournaments/{tid}/end", headers=d), 409, "tournament_over")


def test_start_needs_entries_and_checkin(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        _, ana = guest(c, "Ana")
        _, ivo = guest(c, "Ivo")
        tid = create(c, d, variant="belot2", checkin=True, rounds=1)["id"]
        c.post(f"/api/tournaments/{tid}/register", json={}, headers=ana)
        c.post(f"/api/tournaments/{tid}/register", json={}, headers=ivo)
        refused(c.post(f"/api/tournaments/{tid}/start", headers=d), 409, "too_few_entries")
        assert c.get(f"/api/tournaments/{tid}").json()["status"] == "registering"
        t = c.post(f"/api/tournaments/{tid}/checkin", headers=ana).json()
        assert [e["checked_in"] for e in t["entries"]] == [True, False]
        c.post(f"/api/tournaments/{tid}/entries", json={"bot": "beginner"}, headers=d)
        t = c.post(f"/api/tournaments/{tid}/start", headers=d).json()
        assert [e["status"] for e in t["entries"]] == ["registered", "withdrawn", "registered"]
        # an unstarted tournament is cancelled
        other = create(c, d)["id"]
        assert c.post(f"/api/tournaments/{other}/end", headers=d).json()["status"] == \
            "cancelled"
        listed = c.get("/api/tournaments?status=finished").json()
        assert [x["id"] for x in listed] == [other]
        assert c.get("/api/tournaments?status=running").json()[0]["id"] == tid
        refused(c.get("/api/tournaments?status=soon"), 422, "bad_request")


def test_a_tournament_starts_at_its_time(tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Direktor")
        past = "2026-01-01T19:00:00Z"
        tid = create(c, d, variant="bela2", rounds=1, starts_at=past)["id"]
        assert c.get(f"/api/tournaments/{tid}").json()["settings"]["starts_at"].startswith(
            "2026-01-01T19:00")
        # no entries yet: the scheduler cannot start it
        scheduler = c.app.state.tournament_scheduler  # type: ignore[attr-defined]
        c.portal.call(scheduler.tick)  # type: ignore[union-attr]
        assert c.get(f"/api/tournaments/{tid}").json()["status"] == "registering"
        for level in ("club", "beginner"):
            c.post(f"/api/tournaments/{tid}/entries", json={"bot": level}, headers=d)
        deadline = time.monotonic() + 30
        while c.get(f"/api/tournaments/{tid}").json()["status"] != "running":
            assert time.monotonic() < deadline, "the tournament did not start at its time"
            time.sleep(0.05)
        assert c.get(f"/api/tournaments/{tid}").json()["rounds"][0]["games"]

"""Accounts: a guest claims his name with a password and stays the same player; names are
unique among accounts; logins in several browsers, logouts, password changes; guessing is
limited per address and per name; passwords are never logged."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2.exceptions import VerifyMismatchError
from server_helpers import guest, server
from starlette.testclient import TestClient

from bela.server.accounts import MAX_PASSWORD, Passwords, name_key

PASSWORD = "konj-i-kraljica-7"
OTHER = "dama-u-tref-9"


@contextmanager
def accounts_server(tmp_path: Path, **config: Any) -> Iterator[TestClient]:
    """A server without the per-address limit of logins (unless given): the tests that are
    not about it make more claims and logins than it lets through in a minute."""
    config.setdefault("rate_logins", "")
    with server(tmp_path, **config) as client:
        yield client


def elsewhere(client: TestClient, host: str) -> TestClient:
    """A client of the same running app that comes from another address."""
    other = TestClient(client.app, client=(host, 40000))
    other.portal = client.portal  # the app's event loop, not a new one per request
    return other


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def claim(client: TestClient, h: dict[str, str], password: str = PASSWORD,
          **body: Any) -> dict[str, Any]:
    r = client.post("/api/accounts", json={"password": password, **body}, headers=h)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def login(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/login", json={"name": name, "password": password})


def logged_in(client: TestClient, name: str, password: str = PASSWORD) -> str:
    r = login(client, name, password)
    assert r.status_code == 200, r.text
    assert r.json()["account"] is True
    token: str = r.json()["token"]
    return token


def me(client: TestClient, token: str) -> Any:
    return client.get("/api/players/me", headers=bearer(token))


def refused(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    error: dict[str, Any] = r.json()["error"]
    assert error["code"] == code, error
    return error


def test_a_guest_claims_his_name_and_stays_the_same_player(tmp_path: Path) -> None:
    with accounts_server(tmp_path, grace=0) as client:
        token, ana = guest(client, "Ana")
        pid = me(client, token).json()["player_id"]
        assert me(client, token).json() == {"player_id": pid, "name": "Ana", "account": False}
        # a finished match before the claim: Ana (away, her seat on autopilot) against a bot
        r = client.post("/api/tables", json={"variant": "bela2", "bot": "random", "seed": 3,
                                             "options": {"target": 1}}, headers=ana)
        assert r.status_code == 200, r.text
        tid = r.json()["id"]
        assert client.post(f"/api/tables/{tid}/bots", headers=ana).status_code == 200
        assert client.post(f"/api/tables/{tid}/start", headers=ana).status_code == 200
        deadline = time.monotonic() + 30
        while client.get(f"/api/tables/{tid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.05)

        made = claim(client, ana)
        assert made.pop("device")  # this browser's device secret (a later login's)
        assert made == {"player_id": pid, "name": "Ana", "account": True}
        assert me(client, token).json() == {"player_id": pid, "name": "Ana", "account": True}
        refused(client.post("/api/accounts", json={"password": OTHER}, headers=ana),
                409, "already_account")
        history = client.get("/api/players/me/history", headers=ana).json()
        assert [m["table"] for m in history] == [tid]
        # another browser logs in: a second token, and both work
        second = logged_in(client, "Ana")
        assert second != token
        for t in (token, second):
            assert me(client, t).json()["player_id"] == pid
        assert [m["table"] for m in client.get("/api/players/me/history",
                                               headers=bearer(second)).json()] == [tid]


def test_account_names_are_unique_whatever_their_case_and_spaces(tmp_path: Path) -> None:
    with accounts_server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        _, other_ana = guest(client, "ANA")  # guests may share names
        _, bruno = guest(client, "Bruno")
        claim(client, ana)
        for h, body in ((other_ana, {}), (bruno, {"name": " ana "})):
            error = refused(client.post("/api/accounts", json={"password": OTHER, **body},
                                        headers=h), 409, "name_taken")
            assert "log in" in error["message"]
        for name in ("ana", "  ANA ", "aNa", "Ａｎａ"):  # a new guest may not take it either
            refused(client.post("/api/guests", json={"name": name}), 409, "name_taken")
        guest(client, "Ana Marija")
        # a claim may choose another name; it is kept with its spaces made one
        assert claim(client, bruno, name="Bruno   Brzi")["name"] == "Bruno Brzi"
        assert me(client, bruno["Authorization"][7:]).json()["name"] == "Bruno Brzi"
        refused(client.post("/api/guests", json={"name": "bruno brzi"}), 409, "name_taken")
        assert logged_in(client, "  BRUNO brzi ")  # a login finds the name by its key
        # names and passwords that cannot be
        _, cara = guest(client, "Cara")
        for password in ("7 chars", "x" * (MAX_PASSWORD + 1)):
            refused(client.post("/api/accounts", json={"password": password}, headers=cara),
                    422, "weak_password")
        for name in ("\u0007bell", "   ", "\ufb03" * 40):  # the ligature folds to "ffi"
            refused(client.post("/api/accounts", json={"password": PASSWORD, "name": name},
                                headers=cara), 422, "bad_name")
        assert me(client, cara["Authorization"][7:]).json()["account"] is False


def test_a_bad_login_does_not_tell_whether_the_name_exists(tmp_path: Path) -> None:
    with accounts_server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        claim(client, ana)
        wrong = login(client, "Ana", OTHER)
        unknown = login(client, "Nobody", PASSWORD)
        guest_only = login(client, "Guest", PASSWORD)
        guest(client, "Guest")
        for r in (wrong, unknown, guest_only):
            refused(r, 401, "bad_login")
            assert r.json() == wrong.json() and "Retry-After" not in r.headers


def test_logout_ends_one_token_and_logout_all_every_one(tmp_path: Path) -> None:
    with accounts_server(tmp_path) as client:
        first, ana = guest(client, "Ana")
        claim(client, ana)
        second, third = logged_in(client, "Ana"), logged_in(client, "ana")
        assert client.post("/api/logout", headers=bearer(second)).json() == {"ok": True}
        refused(me(client, second), 401, "bad_token")
        refused(client.post("/api/logout", headers=bearer(second)), 401, "bad_token")
        for t in (first, third):
            assert me(client, t).status_code == 200

        _, bruno = guest(client, "Bruno")
        r = client.post("/api/tables", json={"variant": "bela2"}, headers=bruno)
        tid = r.json()["id"]
        with client.websocket_connect(f"/ws/tables/{tid}?token={third}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            r = client.post("/api/logout-all", headers=bearer(first))
            assert r.status_code == 200 and r.json() == {"ok": True}
            msg = ws.receive()
            while msg["type"] != "websocket.close":
                msg = ws.receive()
            assert msg["code"] == 4401
        for t in (first, third):
            refused(me(client, t), 401, "bad_token")
        assert me(client, logged_in(client, "Ana")).status_code == 200  # log in again
        assert me(client, bruno["Authorization"][7:]).status_code == 200  # others unharmed

        # a guest has no account to log out of everywhere; his logout ends him
        guest_token, cara = guest(client, "Cara")
        refused(client.post("/api/logout-all", headers=cara), 403, "not_account")
        assert client.post("/api/logout", headers=cara).json() == {"ok": True}
        refused(me(client, guest_token), 401, "bad_token")
        refused(client.post("/api/logout"), 401, "no_token")


def test_a_new_password_ends_every_other_token(tmp_path: Path) -> None:
    with accounts_server(tmp_path) as client:
        first, ana = guest(client, "Ana")
        pid = claim(client, ana)["player_id"]
        second = logged_in(client, "Ana")
        change = "/api/players/me/password"
        error = refused(client.post(change, json={"old": OTHER, "new": "nova-lozinka-1"},
                                    headers=ana), 401, "bad_login")
        assert "old password" in error["message"]
        refused(client.post(change, json={"old": PASSWORD, "new": "short"}, headers=ana),
                422, "weak_password")
        for t in (first, second):  # nothing changed yet
            assert me(client, t).status_code == 200
        r = client.post(change, json={"old": PASSWORD, "new": OTHER}, headers=bearer(second))
        assert r.status_code == 200, r.text
        answer = r.json()
        assert {k: answer[k] for k in ("player_id", "name", "account")} == {
            "player_id": pid, "name": "Ana", "account": True}
        for t in (first, second):
            refused(me(client, t), 401, "bad_token")
        assert me(client, answer["token"]).json()["player_id"] == pid
        refused(login(client, "Ana", PASSWORD), 401, "bad_login")
        assert logged_in(client, "Ana", OTHER)
        # a guest has no password to change
        _, bruno = guest(client, "Bruno")
        refused(client.post(change, json={"old": PASSWORD, "new": OTHER}, headers=bruno),
                403, "not_account")


def closed_with(ws: Any) -> int:
    """The close code of a WebSocket the server has closed, once the messages before it
    are read; a ping first, so that one still open answers (and fails) instead of
    leaving the test waiting."""
    ws.send_json({"type": "ping"})
    msg = ws.receive()
    while msg["type"] != "websocket.close":
        assert '"pong"' not in msg.get("text", ""), "the WebSocket is still open"
        msg = ws.receive()
    code: int = msg["code"]
    return code


def test_a_new_password_closes_the_players_websockets(tmp_path: Path) -> None:
    """Each of the player's WebSockets here closes with 4401 (the one of the browser that
    changed it too: it connects again with its new token); other players' stay open."""
    with accounts_server(tmp_path) as client:
        first, ana = guest(client, "Ana")
        claim(client, ana)
        second = logged_in(client, "Ana")
        _, bruno = guest(client, "Bruno")
        tid = client.post("/api/tables", json={"variant": "bela2"}, headers=bruno).json()["id"]
        url = f"/ws/tables/{tid}?token="
        with client.websocket_connect(url + first) as mine, \
                client.websocket_connect(url + second) as other_browser, \
                client.websocket_connect(url + bruno["Authorization"][7:]) as brunos:
            for ws in (mine, other_browser, brunos):
                assert ws.receive_json()["type"] == "welcome"
            r = client.post("/api/players/me/password", json={"old": PASSWORD, "new": OTHER},
                            headers=ana)
            assert r.status_code == 200, r.text
            assert closed_with(mine) == closed_with(other_browser) == 4401
            brunos.send_json({"type": "ping"})  # Bruno's connection goes on
            while (msg := brunos.receive_json())["type"] != "pong":
                assert msg["type"] != "error", msg
        with client.websocket_connect(url + r.json()["token"]) as again:
            assert again.receive_json()["type"] == "welcome"


def test_overlong_passwords_and_names_are_told_as_such_and_never_hashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any length up to the body limit is read: a password too long to be anyone's is a weak
    one when chosen and a wrong one at a login (counted, not hashed); a name too long to be
    an account's is a wrong one."""
    hashed: list[int] = []
    verify = Passwords._verify

    def spy(self: Passwords, stored: str, password: str) -> bool:
        hashed.append(len(password))
        return verify(self, stored, password)

    monkeypatch.setattr(Passwords, "_verify", spy)
    huge = "x" * 60_000  # the body stays under its 64 KiB
    with accounts_server(tmp_path, rate_login_attempts="3/hour") as client:
        _, ana = guest(client, "Ana")
        for body in ({"password": "x" * (MAX_PASSWORD + 1)}, {"password": huge}):
            refused(client.post("/api/accounts", json=body, headers=ana), 422, "weak_password")
        claim(client, ana)
        change = "/api/players/me/password"
        refused(client.post(change, json={"old": PASSWORD, "new": huge}, headers=ana),
                422, "weak_password")
        refused(login(client, "Ana", huge), 401, "bad_login")
        refused(client.post(change, json={"old": huge, "new": OTHER}, headers=ana),
                401, "bad_login")
        assert hashed == []  # neither was verified
        refused(login(client, "n" * 60_000), 401, "bad_login")
        refused(login(client, "Ana" + " x" * 40), 401, "bad_login")
        assert hashed == [len(PASSWORD)] * 2  # an unknown name costs a verification
        logged_in(client, "Ana")  # the third attempt of the name: the long ones counted
        assert_too_many(login(client, "Ana"))


def assert_too_many(r: Any) -> None:
    refused(r, 429, "rate_limited")
    assert int(r.headers["Retry-After"]) >= 1


def test_logins_are_limited_per_address(tmp_path: Path) -> None:
    with accounts_server(tmp_path, rate_logins="3/minute") as client:
        _, ana = guest(client, "Ana")
        claim(client, ana)  # a claim counts
        logged_in(client, "Ana")
        refused(login(client, "Ana", OTHER), 401, "bad_login")
        r = login(client, "Ana")
        assert_too_many(r)
        assert "from your address" in r.json()["error"]["message"]
        change = {"old": PASSWORD, "new": OTHER}
        assert_too_many(client.post("/api/players/me/password", json=change, headers=ana))
        logged_in(elsewhere(client, "203.0.113.5"), "Ana")


def test_logins_are_limited_per_name_from_anywhere(tmp_path: Path) -> None:
    """Every login counts for its name, right or wrong: a guesser who changes his address is
    stopped at the name; the other accounts, and this one's open sessions, are not
    concerned."""
    with accounts_server(tmp_path, rate_login_attempts="3/hour") as client:
        token, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        claim(client, ana)
        claim(client, bruno, password=OTHER)
        guessers = [elsewhere(client, f"198.51.100.{i}") for i in range(4)]
        for i, g in enumerate(guessers[:3]):
            refused(login(g, "ANA", f"guess-{i}"), 401, "bad_login")
        r = login(guessers[3], "Ａｎａ")  # the right password too: the name is blocked
        assert_too_many(r)
        assert "logins with this name" in r.json()["error"]["message"]
        assert_too_many(login(client, "ana"))
        assert logged_in(client, "Bruno", OTHER)  # another name still logs in
        assert me(client, token).status_code == 200  # Ana's sessions go on
        assert_too_many(client.post("/api/players/me/password",
                                    json={"old": PASSWORD, "new": "nova-lozinka-1"},
                                    headers=ana))
        # unknown names are counted the same (a block tells nothing about an account)
        for _ in range(3):
            refused(login(client, "Nobody", PASSWORD), 401, "bad_login")
        assert_too_many(login(client, "nobody"))
        # the check of the old password when changing it counts for the name too, and so
        # do right logins (Bruno's above)
        r = client.post("/api/players/me/password", json={"old": OTHER, "new": PASSWORD},
                        headers=bruno)
        assert r.status_code == 200, r.text
        refused(client.post("/api/players/me/password",
                            json={"old": "guessing", "new": "nova-lozinka-1"},
                            headers=bearer(r.json()["token"])), 401, "bad_login")
        assert_too_many(login(client, "Bruno", PASSWORD))


def test_logins_sent_at_once_are_limited_per_name(tmp_path: Path) -> None:
    """Guesses sent all at once from several addresses are counted as they come, before
    their passwords are verified: no more of them are verified than the limit lets
    through."""
    limit = 5
    with accounts_server(tmp_path, rate_login_attempts=f"{limit}/hour") as client:
        _, ana = guest(client, "Ana")
        claim(client, ana)

        async def guess_at_once() -> list[int]:
            clients = [httpx.AsyncClient(
                transport=httpx.ASGITransport(client.app, client=(f"198.51.100.{i}", 40000)),
                base_url="http://testserver") for i in range(8)]
            try:
                answers = await asyncio.gather(*(
                    clients[i % 8].post("/api/login", json={"name": "Ana",
                                                            "password": f"guess-{i}"})
                    for i in range(30)))
            finally:
                for c in clients:
                    await c.aclose()
            return [r.status_code for r in answers]

        assert client.portal is not None  # the app's event loop
        statuses = client.portal.call(guess_at_once)
        assert statuses.count(401) == limit and statuses.count(429) == 30 - limit, statuses
        assert_too_many(login(client, "Ana"))


def test_an_unreachable_limit_storage_lets_logins_through(tmp_path: Path) -> None:
    with accounts_server(tmp_path, rate_limit_storage="redis://127.0.0.1:1/0",
                         rate_logins="1/minute", rate_login_attempts="1/hour") as client:
        _, ana = guest(client, "Ana")
        claim(client, ana)
        for _ in range(2):
            refused(login(client, "Ana", OTHER), 401, "bad_login")
        logged_in(client, "Ana")


def test_passwords_are_never_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with accounts_server(tmp_path) as client:
        _, ana = guest(client, "Ana")
        claim(client, ana)
        logged_in(client, "Ana")
        refused(login(client, "Ana", OTHER), 401, "bad_login")
        r = client.post("/api/players/me/password", json={"old": PASSWORD, "new": OTHER},
                        headers=ana)
        assert r.status_code == 200
    assert any("made an account" in rec.getMessage() for rec in caplog.records)
    for rec in caplog.records:
        text = rec.getMessage()
        assert PASSWORD not in text and OTHER not in text, text


def test_an_unknown_name_costs_a_real_verification() -> None:
    """The hash an unknown name is checked against has today's cost (no new hash would be
    made of it) and reads as a hash: verifying against it runs Argon2 and fails."""
    passwords = Passwords()
    assert not passwords.outdated(passwords.unknown)
    with pytest.raises(VerifyMismatchError):
        passwords.hasher.verify(passwords.unknown, PASSWORD)
    assert passwords.unknown != Passwords().unknown


def test_name_keys_fold_case_spaces_and_compatibility_forms() -> None:
    assert name_key("  Ivan \t Horvat ") == name_key("IVAN HORVAT") == "ivan horvat"
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("Ａｎａ") == name_key("ANA") == name_key("\u1d2c\u207f\u1d43") == "ana"
    assert name_key("Ana\u3000Marija") == "ana marija"  # an ideographic space


def test_look_alike_names_are_one_name(tmp_path: Path) -> None:
    """A name whose Cyrillic or Greek letters look like Latin ones is the Latin name (a
    confusable skeleton, UTS #39): it is refused to a new guest and to a claim while the
    account holds it (before: taken, and shown beside the real one), and it logs in to
    that account; an ordinary distinct name is taken."""
    assert name_key("Мirnаd121") == name_key("mirnad121")  # Cyrillic М and а
    assert name_key("ΑΝΑ") == name_key("ana") != name_key("Anb")  # Greek capitals
    with accounts_server(tmp_path) as client:
        _, h = guest(client, "Mirnad121")
        claim(client, h)
        r = client.post("/api/guests", json={"name": "Мirnаd121"})
        refused(r, 409, "name_taken")
        _, other = guest(client, "Mirnad122")
        refused(client.post("/api/accounts", json={"password": OTHER, "name": "Мirnаd121"},
                            headers=other), 409, "name_taken")
        claim(client, other)  # his own, distinct name
        assert login(client, "Мirnаd121").json()["name"] == "Mirnad121"


def test_a_browser_that_logged_in_before_is_not_locked_out(tmp_path: Path) -> None:
    """20 failed attempts from other addresses lock the name; a browser that logged in to
    the account before (the device secret its login or claim answered) still logs in;
    another one, and a device secret of another account, are refused 429 (before: every
    browser was locked out for the hour)."""
    with accounts_server(tmp_path, rate_login_attempts="20/hour") as client:
        _, ana = guest(client, "Ana")
        device = claim(client, ana)["device"]
        laptop = elsewhere(client, "192.0.2.10")  # the claiming browser, on another network
        _, bo = guest(client, "Bo")
        theirs = claim(client, bo, password=OTHER)["device"]
        for i in range(20):
            refused(login(elsewhere(client, f"198.51.100.{i}"), "ana", f"guess-{i}"),
                    401, "bad_login")
        assert_too_many(login(elsewhere(client, "203.0.113.5"), "Ana"))  # unknown browser
        for _ in range(2):
            r = laptop.post("/api/login",
                            json={"name": "Ana", "password": PASSWORD, "device": device})
            assert r.status_code == 200, r.text
            assert r.json()["device"] == device and me(client, r.json()["token"]).is_success
        for stranger in (theirs, "made-up"):
            assert_too_many(laptop.post("/api/login", json={
                "name": "Ana", "password": PASSWORD, "device": stranger}))
        r = laptop.post("/api/login", json={"name": "Ana", "password": "wrong-one-9",
                                            "device": device})
        refused(r, 401, "bad_login")  # the device opens no lock on the password

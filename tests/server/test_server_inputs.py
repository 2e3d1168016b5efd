"""Input hygiene of the account routes (docs/SECURITY.md "Input"): names and passwords that
UTF-8 cannot write (a lone surrogate) are refused with 422 ``bad_request`` in the documented
shape, not a 500 with a traceback; a password of NUL characters is refused; look-alike names
of other scripts count as the same name."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from server_helpers import guest, server

PASSWORD = "konj-i-kraljica-7"
SURROGATE = "\ud800"


def refused(r: object, status: int, code: str) -> None:
    assert r.status_code == status, r.text  # type: ignore[attr-defined]
    body = r.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body


def raw(text: str) -> bytes:
    """A JSON body with ``\\ud800`` escapes as a client may send them."""
    return text.encode("ascii")


def test_lone_surrogates_in_names_and_passwords_are_refused(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    json = {"Content-Type": "application/json"}
    with server(tmp_path, rate_logins="") as client, caplog.at_level(logging.ERROR):
        _, h = guest(client, "Ana")
        assert client.post("/api/accounts", json={"password": PASSWORD},
                           headers=h).status_code == 200
        for path, body, headers in (
                ("/api/login", r'{"name": "\ud800", "password": "whatever1"}', {}),
                ("/api/login", r'{"name": "Ana", "password": "\ud800\ud800\ud800\ud800\ud800'
                 r'\ud800\ud800\ud800"}', {}),
                ("/api/guests", r'{"name": "A\udfff"}', {}),
                ("/api/players/me/password", r'{"old": "' + PASSWORD + r'", "new": "\ud800'
                 r'\ud800\ud800\ud800\ud800\ud800\ud800\ud800"}', h)):
            refused(client.post(path, content=raw(body), headers={**json, **headers}), 422,
                    "bad_request")
        _, g = guest(client, "Ivo")
        for body in (r'{"password": "\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800"}',
                     r'{"password": "' + PASSWORD + r'", "name": "Iv\ud800"}'):
            refused(client.post("/api/accounts", content=raw(body), headers={**json, **g}),
                    422, "bad_request")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_password_of_nul_characters_is_refused(tmp_path: Path) -> None:
    with server(tmp_path, rate_logins="") as client:
        _, h = guest(client, "Ana")
        refused(client.post("/api/accounts", json={"password": "\x00" * 8}, headers=h), 422,
                "weak_password")
        refused(client.post("/api/accounts", json={"password": "abc\x00defgh"}, headers=h),
                422, "weak_password")
        assert client.post("/api/accounts", json={"password": PASSWORD},
                           headers=h).status_code == 200
        refused(client.post("/api/players/me/password",
                            json={"old": PASSWORD, "new": "\x00" * 8}, headers=h),
                422, "weak_password")

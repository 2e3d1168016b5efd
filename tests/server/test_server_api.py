"""The REST layer's two duties beyond routing: the domain's refusals become HTTP statuses in
one place (app.http_status), and the page learns the table options from the engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_helpers import guest, server, start, table_with

from bela.engine.variants import VARIANTS
from bela.engine.variants.base import OPTION_CHOICES
from bela.server.app import error_body, http_status
from bela.server.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Refused,
    TooLarge,
    Unauthenticated,
)
from bela.server.hub import Hub
from bela.server.lobby import Lobby
from bela.server.model import ServerConfig
from bela.server.store import Store


class _NoSuchSeat(InvalidInput):
    """A finer kind of an invalid input: its status is its parent's."""


@pytest.mark.parametrize("kind,status", [
    (Unauthenticated, 401), (Forbidden, 403), (NotFound, 404), (Conflict, 409),
    (TooLarge, 413), (InvalidInput, 422), (_NoSuchSeat, 422), (Refused, 400)])
def test_each_kind_of_refusal_has_its_status(kind: type[Refused], status: int) -> None:
    exc = kind("some_code", "what went wrong")
    assert http_status(exc) == status
    assert error_body(exc) == {"error": {"code": "some_code", "message": "what went wrong"}}


def test_the_domain_raises_refusals_not_statuses(tmp_path: Path) -> None:
    from bela.storage import Database

    db = Database(f"sqlite:///{tmp_path / 'bela.db'}")
    try:
        lobby = Lobby(Store(db), Hub(), ServerConfig())
        with pytest.raises(NotFound) as missing:
            lobby.require("nope")
        assert missing.value.code == "unknown_table" and not hasattr(missing.value, "status")
        pid, _ = db.players.create_player("Ana")
        with pytest.raises(Forbidden) as seeded:  # allow_seed is off
            lobby.factory.create({"id": pid, "name": "Ana"}, "bela4", {}, "random", 0, seed=3)
        assert seeded.value.code == "seed_not_allowed"
    finally:
        db.close()


def test_refusals_over_http_keep_their_status_and_body(tmp_path: Path) -> None:
    with server(tmp_path, allow_seed=False) as client:
        r = client.get("/api/players/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == "no_token"
        _, ana = guest(client, "Ana")
        _, bruno = guest(client, "Bruno")
        r = client.post("/api/tables", json={"seed": 1}, headers=ana)
        assert r.status_code == 403 and r.json()["error"] == {
            "code": "seed_not_allowed", "message": "this server does not take a seed for a table"}
        r = client.get("/api/tables/nope")
        assert r.status_code == 404 and r.json()["error"] == {
            "code": "unknown_table", "message": "there is no table 'nope'"}
        r = client.post("/api/tables", json={"seat": 9}, headers=ana)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_seat"
        tid = client.post("/api/tables", json={"variant": "bela2"}, headers=ana).json()["id"]
        assert client.post(f"/api/tables/{tid}/sit", json={"seat": 1},
                           headers=bruno).status_code == 200
        start(client, tid, ana)
        r = client.post(f"/api/tables/{tid}/leave", headers=bruno)
        assert r.status_code == 409 and r.json()["error"] == {
            "code": "not_open", "message": f"table {tid} has already started"}
        r = client.post("/api/guests", content=b"x" * 70_000,
                        headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_variants_serve_the_engines_options(tmp_path: Path) -> None:
    """Option names per variant, their defaults and each option's choices come from the
    engine; a table made with every choice is accepted."""
    with server(tmp_path, tables_per_guest=100) as client:
        data = client.get("/api/variants").json()
        assert data["choices"] == {name: [str(c) for c in choices]
                                   for name, choices in OPTION_CHOICES.items()}
        assert [v["id"] for v in data["variants"]] == list(VARIANTS)
        for info in data["variants"]:
            variant = VARIANTS[info["id"]]
            assert info["options"] == list(variant.options)
            assert info["defaults"] == variant.make_options({}).as_dict()
            for name in info["options"]:
                if name in data["choices"]:
                    assert info["defaults"][name] in data["choices"][name]
        _, h = guest(client, "Ana")
        for info in data["variants"]:
            for name in info["options"]:
                for value in data["choices"].get(name, []):
                    tid = table_with(client, info["id"], [h], options={name: value})
                    table = client.get(f"/api/tables/{tid}").json()
                    assert table["options"][name] == value

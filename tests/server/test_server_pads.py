"""Score pads on the server (issue 13): the rules a pad's form is built from, the engine's
sheet of a pad record, and the pads an account keeps (a guest keeps none; at most
``MAX_PADS`` each); the ``pads`` table of migration 0006."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server
from starlette.testclient import TestClient

from bela.engine.pad import Pad, PadDeal, pad_rules
from bela.engine.variants import VARIANTS
from bela.server import pads

PASSWORD = "konj-i-kraljica-7"

RECORD = {"pad": 1, "variant": "bela3", "options": {"target": 701, "tie": "hang"},
          "names": ["Ana", "Ivo", "Mara"],
          "deals": [{"caller": 1, "trump": "D", "points": [40, None, 30]},
                    {"caller": 0, "trump": "H", "points": [81, 40, 41]},  # R22: hangs
                    {"caller": 2, "trump": "S", "points": [10, 20, None],
                     "declarations": [0, 0, 50], "bela": [0, 0, 1]},
                    {"belot": 2}]}


@contextmanager
def pad_server(tmp_path: Path) -> Iterator[TestClient]:
    with server(tmp_path, rate_logins="") as client:
        yield client


def account(client: TestClient, name: str) -> dict[str, str]:
    """A guest who claimed his name with a password: his headers."""
    _, h = guest(client, name)
    r = client.post("/api/accounts", json={"password": PASSWORD}, headers=h)
    assert r.status_code == 200, r.text
    return h


def refused(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code, error
    message: str = error["message"]
    return message


def test_the_rules_of_every_variant(tmp_path: Path) -> None:
    with pad_server(tmp_path) as client:
        got = client.get("/api/pad/rules").json()
    assert set(got["variants"]) == set(VARIANTS)
    for name, v in VARIANTS.items():
        assert got["variants"][name] == pad_rules(v)
    assert got["choices"]["tie"] == ["fall", "hang"] and got["ranges"]["target"] == [1, 5001]
    b2, b3 = got["variants"]["belot2"], got["variants"]["bela3"]
    assert b2["doubled"] == ["BC"] and b2["bela"]["VC"] == 4 and b2["bela"]["BC"] == 0
    assert b3["fall"] == "own" and got["variants"]["bela4"]["fall"] == "others"
    assert b3["all_cards"] and not got["variants"]["bela2"]["all_cards"]


def test_a_pad_record_is_scored_by_the_engine(tmp_path: Path) -> None:
    pad = Pad.from_record(RECORD)
    with pad_server(tmp_path) as client:
        r = client.post("/api/pad/score", json=RECORD)
        assert r.status_code == 200, r.text
        sheet = r.json()["sheet"]
        assert sheet == pad.score()
        assert sheet["rounds"][1]["outcome"] == "hang" and sheet["winner"] == 2
        assert r.json()["record"] == pad.to_record()
        # the options that are the variant's defaults are left out of the record
        plain = {**RECORD, "options": {"target": 701}}
        assert client.post("/api/pad/score", json=plain).json()["record"]["options"] == {}


@pytest.mark.parametrize(("record", "status", "code", "why"), [
    ({**RECORD, "deals": [RECORD["deals"][0], {"caller": 0, "trump": "H",
                                               "points": [100, 100, None]}]},
     422, "bad_pad", "deal 2: the card points add up to 200, more than 162"),
    ({**RECORD, "deals": [{"belot": 0}, {"caller": 0, "trump": "H", "points": [1, 1, None]}]},
     422, "bad_pad", "deal 2 comes after the match was won (R25)"),
    ({**RECORD, "variant": "bela5"}, 422, "bad_pad", "unknown variant"),
    ({**RECORD, "variant": ["bela4"]}, 422, "bad_pad", "unknown variant"),
    ({**RECORD, "options": {"enforce": "off"}}, 422, "bad_pad", "no table option 'enforce'"),
    ({**RECORD, "names": ["Ana", "Ivo"]}, 422, "bad_pad", "give 3 names"),
    ({**RECORD, "names": ["A" * 41, "B", "C"]}, 422, "bad_pad", "at most 40 characters"),
    ({**RECORD, "deals": [{"redeal": True}] * (pads.MAX_DEALS + 1)}, 422, "bad_pad",
     "at most 500 deals"),
    ([RECORD], 422, "bad_pad", '"pad": 1'),
])
def test_a_pad_that_cannot_be_is_refused_with_its_reason(
        tmp_path: Path, record: Any, status: int, code: str, why: str) -> None:
    with pad_server(tmp_path) as client:
        assert why in refused(client.post("/api/pad/score", json=record), status, code)


def test_an_account_keeps_its_pads(tmp_path: Path) -> None:
    with pad_server(tmp_path) as client:
        ana = account(client, "Ana")
        assert client.get("/api/pads", headers=ana).json() == []
        r = client.put("/api/pads/pad-one-1", json=RECORD, headers=ana)
        assert r.status_code == 200, r.text
        first = r.json()
        assert first["record"] == Pad.from_record(RECORD).to_record()
        assert (first["id"], first["variant"], first["names"], first["totals"],
                first["winner"], first["deals"]) == ("pad-one-1", "bela3", ["Ana", "Ivo", "Mara"],
                                                     [50, 152, 354], 2, 4)
        two = {"pad": 1, "variant": "bela2", "deals": [{"caller": 0, "trump": "H",
                                                        "points": [100, 62]}]}
        assert client.put("/api/pads/pad_two_22", json=two, headers=ana).status_code == 200
        listed = client.get("/api/pads", headers=ana).json()
        assert [p["id"] for p in listed] == ["pad_two_22", "pad-one-1"]  # newest first
        assert listed[0]["totals"] == [100, 62] and listed[0]["names"] == ["1", "2"]
        assert listed[0]["updated_at"] >= listed[1]["updated_at"]
        # written again: a deal more, and it is the newest
        more = {**RECORD, "deals": RECORD["deals"][:2]}
        assert client.put("/api/pads/pad-one-1", json=more, headers=ana).json()["deals"] == 2
        assert [p["id"] for p in client.get("/api/pads", headers=ana).json()] == [
            "pad-one-1", "pad_two_22"]
        one = client.get("/api/pads/pad-one-1", headers=ana).json()
        assert one["record"] == Pad.from_record(more).to_record()
        assert one["sheet"] == Pad.from_record(more).score() and one["winner"] is None
        # a refused record changes nothing
        bad = {**RECORD, "deals": [{"caller": 0, "trump": "H", "points": [1, 1, 1]}]}
        refused(client.put("/api/pads/pad-one-1", json=bad, headers=ana), 422, "bad_pad")
        assert client.get("/api/pads/pad-one-1", headers=ana).json()["deals"] == 2
        assert client.delete("/api/pads/pad-one-1", headers=ana).json() == {"ok": True}
        refused(client.get("/api/pads/pad-one-1", headers=ana), 404, "unknown_pad")
        refused(client.delete("/api/pads/pad-one-1", headers=ana), 404, "unknown_pad")
        assert [p["id"] for p in client.get("/api/pads", headers=ana).json()] == ["pad_two_22"]
        for bad_id in ("short", "x" * 41, "has%20space", "semi;colon"):
            refused(client.put(f"/api/pads/{bad_id}", json=RECORD, headers=ana), 422,
                    "bad_pad_id")


def test_an_accounts_pads_are_his_own(tmp_path: Path) -> None:
    with pad_server(tmp_path) as client:
        ana, ivo = account(client, "Ana"), account(client, "Ivo")
        assert client.put("/api/pads/same-id-1", json=RECORD, headers=ana).status_code == 200
        refused(client.get("/api/pads/same-id-1", headers=ivo), 404, "unknown_pad")
        refused(client.delete("/api/pads/same-id-1", headers=ivo), 404, "unknown_pad")
        two = {"pad": 1, "variant": "belot2", "deals": [{"raspas": True, "points": [100, 62]}]}
        assert client.put("/api/pads/same-id-1", json=two, headers=ivo).status_code == 200
        assert client.get("/api/pads/same-id-1", headers=ana).json()["variant"] == "bela3"
        assert client.get("/api/pads/same-id-1", headers=ivo).json()["totals"] == [-100, -62]


def test_a_guest_keeps_no_pads_but_may_score_them(tmp_path: Path) -> None:
    with pad_server(tmp_path) as client:
        _, h = guest(client, "Gost")
        refused(client.get("/api/pads", headers=h), 403, "not_account")
        refused(client.put("/api/pads/pad-one-1", json=RECORD, headers=h), 403, "not_account")
        refused(client.get("/api/pads/pad-one-1", headers=h), 403, "not_account")
        refused(client.delete("/api/pads/pad-one-1", headers=h), 403, "not_account")
        refused(client.get("/api/pads"), 401, "no_token")
        assert client.post("/api/pad/score", json=RECORD).status_code == 200  # no token
        assert client.get("/api/pad/rules").status_code == 200


def test_an_account_keeps_at_most_max_pads(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pads, "MAX_PADS", 3)
    with pad_server(tmp_path) as client:
        ana, ivo = account(client, "Ana"), account(client, "Ivo")
        for i in range(3):
            assert client.put(f"/api/pads/pad-ana-{i}", json=RECORD,
                              headers=ana).status_code == 200
        message = refused(client.put("/api/pads/pad-ana-3", json=RECORD, headers=ana), 409,
                          "too_many_pads")
        assert "at most 3 pads" in message
        assert client.put("/api/pads/pad-ana-0", json=RECORD, headers=ana).status_code == 200
        assert client.put("/api/pads/pad-ivo-0", json=RECORD, headers=ivo).status_code == 200
        assert client.delete("/api/pads/pad-ana-1", headers=ana).status_code == 200
        assert client.put("/api/pads/pad-ana-3", json=RECORD, headers=ana).status_code == 200
        assert len(client.get("/api/pads", headers=ana).json()) == 3


def test_the_migration_adds_and_drops_the_pads_table(tmp_path: Path) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from bela.storage import Database, PadQuota, PadRefused, make_engine
    from bela.storage.db import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    cfg = alembic_config(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005")
    assert "pads" not in inspect(engine).get_table_names()
    engine.dispose()
    db = Database(url)  # to the newest schema
    try:
        pid, _ = db.players.create_player("Ana")
        record = Pad("bela4", deals=[PadDeal(0, "H", (92, None))]).to_record()
        quota = PadQuota(1, 10_000, 10_000)
        db.pads.save_pad(pid, "pad-one-1", "bela4", record, {}, 100, "10.0.0.1", quota)
        with pytest.raises(PadRefused, match="pads"):  # over the limit
            db.pads.save_pad(pid, "pad-two-2", "bela4", record, {}, 100, "10.0.0.1", quota)
        assert [db.pads.pad(pid, p["id"])["record"] for p in db.pads.pads(pid)[0]] == [record]
    finally:
        db.close()
    engine = make_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005")
    assert "pads" not in inspect(engine).get_table_names()
    engine.dispose()


def test_pads_take_at_most_their_bytes_per_account_and_per_address(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    size = len(json.dumps(Pad.from_record(RECORD).to_record(), separators=(",", ":")))
    monkeypatch.setattr(pads, "ACCOUNT_BYTES", 2 * size)
    monkeypatch.setattr(pads, "ADDRESS_BYTES", 3 * size)
    with pad_server(tmp_path) as client:
        ana, ivo = account(client, "Ana"), account(client, "Ivo")
        for i in range(2):
            assert client.put(f"/api/pads/pad-ana-{i}", json=RECORD,
                              headers=ana).status_code == 200
        message = refused(client.put("/api/pads/pad-ana-2", json=RECORD, headers=ana), 409,
                          "pad_quota")
        assert f"at most {2 * size} bytes" in message
        # written again in its place: the same bytes
        assert client.put("/api/pads/pad-ana-1", json=RECORD, headers=ana).status_code == 200
        assert client.put("/api/pads/pad-ivo-0", json=RECORD, headers=ivo).status_code == 200
        # the address wrote 3 pads' bytes: a fourth account's pad is refused too
        message = refused(client.put("/api/pads/pad-ivo-1", json=RECORD, headers=ivo), 409,
                          "pad_quota")
        assert "your address" in message
        elsewhere = TestClient(client.app, client=("10.9.9.9", 50000))  # another address
        assert elsewhere.put("/api/pads/pad-ivo-1", json=RECORD,
                             headers=ivo).status_code == 200
        assert client.delete("/api/pads/pad-ana-0", headers=ana).status_code == 200
        assert client.put("/api/pads/pad-ana-2", json=RECORD, headers=ana).status_code == 200


def test_the_listing_scores_nothing_and_is_paged(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with pad_server(tmp_path) as client:
        ana = account(client, "Ana")
        for i in range(5):
            assert client.put(f"/api/pads/pad-ana-{i}", json=RECORD,
                              headers=ana).status_code == 200
        # a pad written before pads had a summary is scored once, at its first listing
        from sqlalchemy import update

        from bela.storage.models import pads as pad_rows
        with client.app.state.db.begin() as conn:
            conn.execute(update(pad_rows).where(pad_rows.c.id == "pad-ana-0")
                         .values(summary=None))
        first = client.get("/api/pads", headers=ana).json()
        assert [p["totals"] for p in first] == [[50, 152, 354]] * 5
        scored = []
        real = Pad.from_record
        monkeypatch.setattr(Pad, "from_record",
                            staticmethod(lambda r: scored.append(r) or real(r)))
        r = client.get("/api/pads?limit=2&offset=1", headers=ana)
        assert r.headers["X-Total-Count"] == "5"
        assert [p["id"] for p in r.json()] == [p["id"] for p in first[1:3]]
        assert client.get("/api/pads", headers=ana).json() == first
        assert scored == []  # nothing scored, nothing read but the summaries


def test_pad_listings_do_not_hold_up_readiness_or_logins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listings that take long (here: held on an event) run in the heavy requests' own
    threads: ``/readyz`` and a login are answered at once however many are in flight."""
    from bela.storage.repos import Pads

    release = threading.Event()
    real = Pads.pads

    def slow(self: Pads, *args: Any) -> Any:
        release.wait(20)
        return real(self, *args)

    with pad_server(tmp_path) as client:
        ana = account(client, "Ana")
        monkeypatch.setattr(Pads, "pads", slow)
        listings = [threading.Thread(target=client.get, args=("/api/pads",),
                                     kwargs={"headers": ana}) for _ in range(12)]
        for t in listings:
            t.start()
        try:
            time.sleep(0.5)
            began = time.monotonic()
            assert client.get("/readyz").status_code == 200
            assert client.post("/api/login", json={"name": "Ana", "password": PASSWORD}
                               ).status_code == 200
            assert time.monotonic() - began < 5  # before: both waited for the listings
        finally:
            release.set()
            for t in listings:
                t.join()

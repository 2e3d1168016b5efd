"""The tournaments' scheduler reads and writes the database off the event loop: with a
slow database a tournament is paired, its tables made, watched and finished while the
loop stays free (a step holds its lock across its thread hops: one step at a time)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server_helpers import guest, server
from test_server_offloop import loop_lag
from test_server_tournaments_club import until

SLOW = 0.5  # seconds each slowed read of the tournaments takes


def test_a_tournament_is_stepped_off_the_loop(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from bela.storage.repos import Tables, Tournaments

    def slowed(repo: type[Any], name: str) -> Callable[..., Any]:
        original = getattr(repo, name)

        def slow(self: Any, *args: Any, **kwargs: Any) -> Any:
            time.sleep(SLOW)
            return original(self, *args, **kwargs)
        return slow

    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        r = c.post("/api/tournaments", json={"name": "Spori", "variant": "bela2",
                                             "format": "swiss", "rounds": 1,
                                             "options": {"target": 1}, "rated": False},
                   headers=d)
        tid = r.json()["id"]
        for level in ("beginner", "club"):
            assert c.post(f"/api/tournaments/{tid}/entries", json={"bot": level},
                          headers=d).status_code == 200
        for repo, name in ((Tournaments, "get"), (Tournaments, "rounds"),
                           (Tournaments, "entries"), (Tables, "load_table")):
            monkeypatch.setattr(repo, name, slowed(repo, name))
        with loop_lag(c) as lags:
            assert c.post(f"/api/tournaments/{tid}/start", headers=d).status_code == 200
            obj = until(lambda: (lambda o: o if o["status"] == "finished" else None)(
                c.get(f"/api/tournaments/{tid}", headers=d).json()), "the end", 120)
        assert obj["rounds"][0]["games"][0]["result"]["winner"] is not None
        assert lags and max(lags) < 0.3, max(lags)  # on the loop: a read, at least SLOW

"""The tournament object is built once per version of the tournament (docs/TOURNAMENTS.md,
"The tournament object"): pages that poll it ask the database for its row only; any change
(by a route, the scheduler, or another instance writing the database) shows at the next
answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from server_helpers import guest, server
from test_server_tournaments_club import WIN, club_night, record, until


def test_an_unchanged_tournament_is_not_built_again_and_a_change_shows_at_once(
        tmp_path: Path) -> None:
    with server(tmp_path) as c:
        _, d = guest(c, "Sudac")
        _, other = guest(c, "Gost")
        t = club_night(c, d)
        tid = t["id"]
        views = c.app.state.tournament_views  # type: ignore[attr-defined]
        get = lambda h: c.get(f"/api/tournaments/{tid}", headers=h).json()  # noqa: E731
        games = until(lambda: (lambda o: o["rounds"][0]["games"] if all(
            g["status"] == "playing" for g in o["rounds"][0]["games"]) else None)(get(d)),
            "the games playing")
        first = get(d)
        built = views.builds
        for _ in range(5):
            assert get(d) == first
        assert views.builds == built  # the same version: answered from the cache
        seen = get(other)  # another viewer's object is built apart (no scorer links)
        assert views.builds == built + 1 and "scorer" not in seen["rounds"][0]["games"][0]
        assert get(other) == seen and views.builds == built + 1

        # a pad's result: the very next answer has it
        key = parse_qs(urlparse(games[0]["scorer"]).query)["key"][0]
        r = c.post(f"/api/tournaments/{tid}/scorer/1/1", json={"key": key,
                                                                "record": record(WIN)})
        assert r.status_code == 200, r.text
        now: dict[str, Any] = get(d)
        assert now["rounds"][0]["games"][0]["status"] == "finished"
        assert get(other)["rounds"][0]["games"][0]["result"] == now["rounds"][0]["games"][
            0]["result"]
        # a change written by another instance (straight into the database) shows too
        db = c.app.state.db  # type: ignore[attr-defined]
        assert db.tournaments.update_entry(t["entries"][0]["id"], None, name="Novo ime")
        assert get(d)["entries"][0]["name"] == "Novo ime"
        assert get(other)["entries"][0]["name"] == "Novo ime"
        before = views.builds
        get(d)
        assert views.builds == before

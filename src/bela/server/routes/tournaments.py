"""The tournaments' routes (docs/TOURNAMENTS.md): the list, a new tournament, a tournament's
object, registration, the director's actions, the exports, a player's feed and history.

The work is :mod:`bela.server.tournaments`' (the ``Director`` and the ``Scheduler`` the app
puts in ``app.state``); the database's reads and writes run off the event loop, the
changes of tables (a round's start, the end's closings) on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response

from ..auth import Player, Viewer
from ..errors import NotFound
from ..offload import json_bytes
from ..tournaments import Director, Scheduler, qr, results, scorers, views
from ..tournaments.bodies import (
    AcceptIn,
    CorrectionIn,
    EntryIn,
    PairIn,
    PracticeIn,
    RegisterIn,
    ScorerIn,
    TournamentIn,
)
from ..tournaments.practice import start_practice
from . import page_headers

router = APIRouter()

PAGE, MAX_PAGE = 50, 200
LISTED = {"upcoming": ("registering", "closed"), "running": ("running", "paused"),
          "finished": ("finished", "cancelled")}


def _director(request: Request) -> Director:
    director: Director = request.app.state.tournament_director
    return director


def _scheduler(request: Request) -> Scheduler:
    scheduler: Scheduler = request.app.state.tournament_scheduler
    return scheduler


async def _answer(request: Request, tournament_id: str, viewer: dict[str, Any] | None,
                  code: str | None = None) -> dict[str, Any]:
    """The tournament object for ``viewer`` (built once per version of the tournament)."""
    director = _director(request)
    built: views.TournamentViews = request.app.state.tournament_views

    def build() -> dict[str, Any]:
        return built.tournament(director.load(tournament_id, viewer, code), viewer)

    return await asyncio.to_thread(build)


async def _change(request: Request, tournament_id: str, player: dict[str, Any],
                  change: Callable[[], Any]) -> dict[str, Any]:
    """Run a change of the tournament off the loop, then answer its object."""
    await asyncio.to_thread(change)
    return await _answer(request, tournament_id, player)


@router.get("/api/tournaments")
async def list_tournaments(
        request: Request,
        status: Literal["upcoming", "running", "finished"] = "upcoming",
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0)] = 0) -> Response:
    """A page of the public tournaments of a status group."""
    rows = _director(request).rows
    found, total = await asyncio.to_thread(rows.listing, LISTED[status], limit, offset,
                                           status == "upcoming")
    return Response(json_bytes([views.summary(r) for r in found]),
                    media_type="application/json",
                    headers=page_headers("/api/tournaments", limit, offset, total))


@router.post("/api/tournaments")
async def create_tournament(body: TournamentIn, p: Player, request: Request
                            ) -> dict[str, Any]:
    tournament_id = await asyncio.to_thread(_director(request).create, p, body)
    return await _answer(request, tournament_id, p)


@router.post("/api/tournaments/practice")
async def practice(body: PracticeIn, p: Player, request: Request) -> dict[str, Any]:
    """A practice duplicate against bots, started at once (docs/TOURNAMENTS.md)."""
    tournament_id = await asyncio.to_thread(start_practice, _director(request), p, body)
    await _scheduler(request).nudge(tournament_id)
    return await _answer(request, tournament_id, p)


@router.get("/api/tournaments/mine")
async def my_tournaments(p: Player, request: Request) -> dict[str, Any]:
    """The player's live feed: his tournaments not over and his table now."""
    return await asyncio.to_thread(views.feed, _director(request).db, p["id"])


@router.get("/api/tournaments/history/{player_id}")
async def tournament_history(player_id: str, request: Request) -> dict[str, Any]:
    return await asyncio.to_thread(views.history, _director(request).db, player_id[:32])


@router.get("/api/tournaments/{tournament_id}")
async def get_tournament(tournament_id: str, request: Request, v: Viewer,
                         code: Annotated[str | None, Query(max_length=64)] = None
                         ) -> dict[str, Any]:
    return await _answer(request, tournament_id, v, code)


@router.get("/api/tournaments/{tournament_id}/export.json")
async def export_json(tournament_id: str, request: Request, v: Viewer,
                      code: Annotated[str | None, Query(max_length=64)] = None
                      ) -> dict[str, Any]:
    director = _director(request)

    def build() -> dict[str, Any]:
        return views.export(director.db, director.load(tournament_id, v, code))

    return await asyncio.to_thread(build)


@router.get("/api/tournaments/{tournament_id}/export.csv")
async def export_csv(tournament_id: str, request: Request, v: Viewer,
                     code: Annotated[str | None, Query(max_length=64)] = None) -> Response:
    obj = await _answer(request, tournament_id, v, code)
    return Response(views.standings_csv(obj), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="{obj["id"]}.csv"'})


# -- registration ----------------------------------------------------------------------------
@router.post("/api/tournaments/{tournament_id}/register")
async def register(tournament_id: str, body: RegisterIn, p: Player, request: Request
                   ) -> dict[str, Any]:
    d = _director(request)
    await asyncio.to_thread(d.register, tournament_id, p, body.partner, body.seeking,
                            body.code)
    return await _answer(request, tournament_id, p, body.code)


@router.post("/api/tournaments/{tournament_id}/accept")
async def accept(tournament_id: str, body: AcceptIn, p: Player, request: Request
                 ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.accept(tournament_id, p, body.entry))


@router.post("/api/tournaments/{tournament_id}/withdraw")
async def withdraw(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p, lambda: d.withdraw(tournament_id, p))


@router.post("/api/tournaments/{tournament_id}/checkin")
async def checkin(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p, lambda: d.checkin(tournament_id, p))


# -- the director ----------------------------------------------------------------------------
@router.post("/api/tournaments/{tournament_id}/entries")
async def add_entry(tournament_id: str, body: EntryIn, p: Player, request: Request
                    ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.add_entry(tournament_id, p, body.bot, body.players,
                                                     body.name))


@router.delete("/api/tournaments/{tournament_id}/entries/{entry_id}")
async def remove_entry(tournament_id: str, entry_id: int, p: Player, request: Request
                       ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.remove_entry(tournament_id, p, entry_id))


@router.post("/api/tournaments/{tournament_id}/pair")
async def pair(tournament_id: str, body: PairIn, p: Player, request: Request
               ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.pair(tournament_id, p, body.entries))


@router.post("/api/tournaments/{tournament_id}/close")
async def close_registration(tournament_id: str, p: Player, request: Request
                             ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.set_registration(tournament_id, p, False))


@router.post("/api/tournaments/{tournament_id}/open")
async def open_registration(tournament_id: str, p: Player, request: Request
                            ) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.set_registration(tournament_id, p, True))


@router.post("/api/tournaments/{tournament_id}/start")
async def start(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    """Start: round 1 is paired and its tables made before the answer."""
    await asyncio.to_thread(_director(request).start, tournament_id, p)
    await _scheduler(request).nudge(tournament_id)
    return await _answer(request, tournament_id, p)


@router.post("/api/tournaments/{tournament_id}/pause")
async def pause(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    d = _director(request)
    return await _change(request, tournament_id, p,
                         lambda: d.set_paused(tournament_id, p, True))


@router.post("/api/tournaments/{tournament_id}/resume")
async def resume(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    await asyncio.to_thread(_director(request).set_paused, tournament_id, p, False)
    await _scheduler(request).nudge(tournament_id)
    return await _answer(request, tournament_id, p)


@router.post("/api/tournaments/{tournament_id}/end")
async def end(tournament_id: str, p: Player, request: Request) -> dict[str, Any]:
    """End: the tables of its unfinished games are closed."""
    d = _director(request)
    tables = await _scheduler(request).locked(lambda: d.end(tournament_id, p))
    await _scheduler(request).close_tables(tables)
    return await _answer(request, tournament_id, p)


@router.post("/api/tournaments/{tournament_id}/rounds/{rnd}/games/{table_no}/result")
async def correct_result(tournament_id: str, rnd: int, table_no: int, body: CorrectionIn,
                         p: Player, request: Request) -> dict[str, Any]:
    """The director corrects a finished game's result (docs/TOURNAMENTS.md
    "Corrections"): the standings and the next round's plan follow it."""
    d, scheduler = _director(request), _scheduler(request)
    boards = None if body.board_scores is None else [(b, sc) for b, sc in body.board_scores]
    await scheduler.locked(lambda: results.correct(d, tournament_id, p, rnd, table_no,
                                                   body.scores, boards, body.reason))
    scheduler.wake()
    return await _answer(request, tournament_id, p)


# -- real cards: the scorers' pads ------------------------------------------------------------
SCORER = "/api/tournaments/{tournament_id}/scorer/{rnd}/{table_no}"


def _scorer(request: Request, tournament_id: str, rnd: int, table_no: int, key: str
            ) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """The tournament and the game a scorer link names (its key checked)."""
    rows = _director(request).rows
    row = rows.get(tournament_id)
    if row is None:
        raise NotFound("unknown_tournament", f"there is no tournament {tournament_id!r}")
    return row, scorers.scorer_game(row, rows.rounds(tournament_id), rnd, table_no, key)


def _scorer_view(request: Request, tournament_id: str, rnd: int, table_no: int, key: str
                 ) -> dict[str, Any]:
    row, game = _scorer(request, tournament_id, rnd, table_no, key)
    names = {int(e["id"]): str(e["name"]) for e in _director(request).rows.entries(row["id"])}
    return scorers.scorer_view(row, game, names)


@router.get(SCORER)
async def scorer(tournament_id: str, rnd: int, table_no: int, request: Request,
                 key: Annotated[str, Query(max_length=64)] = "") -> dict[str, Any]:
    """What a pad bound to a game of a tournament with real cards is set up from."""
    return await asyncio.to_thread(_scorer_view, request, tournament_id, rnd, table_no, key)


@router.post(SCORER)
async def scorer_result(tournament_id: str, rnd: int, table_no: int, body: ScorerIn,
                        request: Request) -> dict[str, Any]:
    """A bound pad's result: the match totals of its record (scored by the engine) are
    the game's result (409 ``game_over`` the second time)."""
    row, game = await asyncio.to_thread(_scorer, request, tournament_id, rnd, table_no,
                                        body.key)
    scores = await asyncio.to_thread(scorers.pad_scores, row, game, body.record)
    await _scheduler(request).record_result(tournament_id, rnd, table_no, scores)
    return await asyncio.to_thread(_scorer_view, request, tournament_id, rnd, table_no,
                                   body.key)


@router.get(SCORER + "/qr.svg")
async def scorer_qr(tournament_id: str, rnd: int, table_no: int, request: Request,
                    key: Annotated[str, Query(max_length=64)] = "") -> Response:
    """The QR code of a scorer link, for the address the page was asked at (open the
    director's page at the server's address on the room's network)."""
    row, _ = await asyncio.to_thread(_scorer, request, tournament_id, rnd, table_no, key)
    link = str(request.base_url).rstrip("/") + scorers.scorer_link(row, rnd, table_no)
    return Response(qr.svg(link), media_type="image/svg+xml",
                    headers={"Cache-Control": "no-store"})

"""The tables' routes: the variants, the list of tables, a new table, a table's operations
(sit, leave, bots, start, close) and its record."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import Field, StrictBool, StrictInt, StrictStr

from ...engine.variants import TARGET_RANGE, VARIANTS
from ...engine.variants.base import OPTION_CHOICES
from ..answers import TableSummary, Variants
from ..auth import Player, Viewer
from ..hub import variant_facts
from ..protocol import BotsIn, SitIn, TableIn
from ..router import Router

router = APIRouter()

PAGE, MAX_PAGE = 50, 200  # tables in one answer of GET /api/tables: default, most
# a route answering a table summary (a private table's invite code only to its creator)
SUMMARY: dict[str, Any] = {"response_model": TableSummary, "response_model_exclude_unset": True}


def _router(request: Request) -> Router:
    """The app's router of the table operations (here or on another instance)."""
    router_: Router = request.app.state.router
    return router_


class NewTableIn(TableIn):
    """``POST /api/tables``: ``private`` tables are not listed; their seats are taken with
    the invite code the creator gets; ``turn_clock``: seconds a player has per turn (null:
    no clock); ``rated``: its result moves the ratings (never with a ``seed``)."""

    private: StrictBool = False
    turn_clock: StrictInt | None = None
    rated: StrictBool = True


class SitCodeIn(SitIn):
    """``POST /api/tables/{id}/sit``: ``code``, the invite code of a private table."""

    code: StrictStr | None = Field(default=None, max_length=64)


@router.get("/api/variants", response_model=Variants)
async def variants(request: Request) -> dict[str, Any]:
    cfg, lobby = request.app.state.config, request.app.state.lobby
    return {"variants": [{"id": v.name, "options": list(v.options),
                          "defaults": v.make_options({}).as_dict(), **variant_facts(v)}
                         for v in VARIANTS.values()],
            "choices": {name: [str(c) for c in choice]
                        for name, choice in OPTION_CHOICES.items()},
            "ranges": {"target": list(TARGET_RANGE),
                       "turn_clock": [cfg.min_turn_clock, cfg.max_turn_clock],
                       "quick_wait": [cfg.min_quick_wait, cfg.max_quick_wait]},
            "bots": await asyncio.to_thread(lobby.catalog.available_bots),
            "levels": await asyncio.to_thread(lobby.catalog.available_levels)}


@router.get("/api/tables", responses={200: {"model": list[TableSummary]}})
async def list_tables(request: Request,
                      limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
                      offset: Annotated[int, Query(ge=0)] = 0) -> Response:
    """The open and running public tables, newest first, ``limit`` from ``offset``;
    ``X-Total-Count`` counts them all, ``Link`` gives the next and previous pages."""
    body, total = await request.app.state.router.listing(offset, limit)
    links = [f'</api/tables?limit={limit}&offset={offset + limit}>; rel="next"'
             ] if offset + limit < total else []
    if offset:
        links.append(f'</api/tables?limit={limit}&offset={max(0, offset - limit)}>; '
                     'rel="prev"')
    headers = {"X-Total-Count": str(total)}
    if links:
        headers["Link"] = ", ".join(links)
    return Response(body, media_type="application/json", headers=headers)


@router.post("/api/tables", **SUMMARY)
async def create_table(request: Request, body: NewTableIn, p: Player) -> dict[str, Any]:
    return await _router(request).create(
        p, variant=body.variant, options=dict(body.options), bot=body.bot, seat=body.seat,
        seed=body.seed, private=body.private, turn_clock=body.turn_clock, rated=body.rated)


@router.get("/api/tables/{table_id}", **SUMMARY)
async def get_table(request: Request, table_id: str, v: Viewer) -> dict[str, Any]:
    return await _router(request).table_op("summary", table_id, v)


@router.post("/api/tables/{table_id}/sit", **SUMMARY)
async def sit(request: Request, table_id: str, body: SitCodeIn, p: Player) -> dict[str, Any]:
    return await _router(request).table_op(
        "sit", table_id, p, seat=body.seat, code=body.code)


@router.post("/api/tables/{table_id}/leave", **SUMMARY)
async def leave(request: Request, table_id: str, p: Player) -> dict[str, Any]:
    return await _router(request).table_op("leave", table_id, p)


@router.post("/api/tables/{table_id}/bots", **SUMMARY)
async def bots(request: Request, table_id: str, p: Player,
               body: BotsIn | None = None) -> dict[str, Any]:
    return await _router(request).table_op(
        "bots", table_id, p, seats=body.seats if body else None)


@router.post("/api/tables/{table_id}/start", **SUMMARY)
async def start(request: Request, table_id: str, p: Player) -> dict[str, Any]:
    return await _router(request).table_op("start", table_id, p)


@router.post("/api/tables/{table_id}/close", **SUMMARY)
async def close(request: Request, table_id: str, p: Player) -> dict[str, Any]:
    return await _router(request).table_op("close", table_id, p)


@router.get("/api/tables/{table_id}/record")
async def record(request: Request, table_id: str, v: Viewer) -> Response:
    state = request.app.state
    return Response(await state.records.record_json(table_id, v, state.offload),
                    media_type="application/json")

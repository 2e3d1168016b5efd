"""The players' routes: a new guest, the player himself, a new token, his history."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response

from .. import accounts
from ..answers import HistoryEntry, Me, PlayerToken
from ..auth import Player, bearer_token
from ..offload import json_bytes
from ..protocol import GuestIn
from . import page_headers

router = APIRouter()

HISTORY_PAGE, MAX_HISTORY_PAGE = 20, 100  # matches in one answer of the history


@router.post("/api/guests")
async def new_guest(request: Request, body: GuestIn) -> PlayerToken:
    """A new guest; a name an account holds is refused (its owner logs in)."""
    lobby = request.app.state.lobby
    name = accounts.clean_name(body.name)
    if await asyncio.to_thread(lobby.store.db.accounts.name_taken, accounts.name_key(name)):
        raise accounts.name_taken(name)
    pid, token = await asyncio.to_thread(lobby.store.db.players.create_player, name)
    return PlayerToken(player_id=pid, name=name, token=token)


@router.get("/api/players/me")
async def me(p: Player) -> Me:
    return Me(player_id=p["id"], name=p["name"], account=p["account"])


@router.post("/api/players/me/token")
async def new_token(request: Request, p: Player,
                    authorization: Annotated[str | None, Header()] = None) -> PlayerToken:
    """A new token in place of the one sent, which stops working (the player's other
    browsers keep theirs)."""
    token = await asyncio.to_thread(request.app.state.lobby.store.rotate_token,
                                    bearer_token(authorization))
    return PlayerToken(player_id=p["id"], name=p["name"], token=token)


@router.get("/api/players/me/history", responses={200: {"model": list[HistoryEntry]}})
async def history(request: Request, p: Player,
                  limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_PAGE)] = HISTORY_PAGE,
                  offset: Annotated[int, Query(ge=0)] = 0) -> Response:
    """A page of the player's finished matches, newest first, as summaries (each with
    the address of its record); ``X-Total-Count`` and ``Link`` as for the tables."""
    offload = request.app.state.offload
    page, total = await offload.run(request.app.state.records.history, p, limit, offset)
    return Response(await offload.run(json_bytes, page), media_type="application/json",
                    headers=page_headers("/api/players/me/history", limit, offset, total))

"""Who sends a request: the player of its ``Authorization: Bearer <token>`` header.

The dependencies every route module uses (:data:`Player`: a token is required;
:data:`Viewer`: a token is optional), in a module of their own so that the app and the
modules of its routes (accounts, profiles, quick play) share them without importing each
other.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import Depends, Header, Request

from .errors import Unauthenticated
from .ratelimit import address_key


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not authorization or not authorization.startswith("Bearer "):
        raise Unauthenticated("no_token", "send 'Authorization: Bearer <token>' "
                              "(POST /api/guests gives a token)")
    return authorization[7:].strip()


async def current_player(request: Request, authorization: Annotated[str | None, Header()] = None
                         ) -> dict[str, Any]:
    """The player of the request's token: ``id``, ``name``, ``account`` and the
    ``address`` the request came from (:func:`~bela.server.ratelimit.address_key`: the
    fair shares and the rating rules count by it); raises
    :class:`~bela.server.errors.Unauthenticated` without a token or for an unknown or
    expired one."""
    state = request.app.state
    token = bearer_token(authorization)
    player: dict[str, Any] = await asyncio.to_thread(  # a database read: off the loop
        state.lobby.store.player_by_token, token, state.config.token_ttl)
    player["address"] = address_key(request.client.host if request.client else None)
    return player


async def viewer(request: Request, authorization: Annotated[str | None, Header()] = None
                 ) -> dict[str, Any] | None:
    """The player of the request's token, if it sends one."""
    return None if authorization is None else await current_player(request, authorization)


Player = Annotated[dict[str, Any], Depends(current_player)]
Viewer = Annotated[dict[str, Any] | None, Depends(viewer)]

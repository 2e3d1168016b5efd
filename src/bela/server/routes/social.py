"""Friends, blocks, avatars and presence (issue 44): ``/api/friends``, ``/api/blocks``,
``/api/avatars``, ``/api/presence``.  Friends and blocks are accounts' (a guest has none:
his blocks stay in his browser); avatars any player's."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, WebSocket
from pydantic import Field, StrictStr, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocketDisconnect

from ..auth import Player, Viewer
from ..errors import Forbidden, InvalidInput, NotFound, Refused
from ..hub import Conn
from ..protocol import (
    ChatMessage,
    PingMessage,
    ReportMessage,
    SayMessage,
    _Body,
    client_message,
    error,
)
from ..ratelimit import address_key
from ..store import storage_refusal
from ..talk import Speaker
from ..talk.avatars import AVATARS
from ..talk.lobby_room import LobbyRoom, LobbySession
from . import errors_text, http_status

router = APIRouter()
MAX_IDS = 64  # players whose avatars one request asks


class AvatarIn(_Body):
    avatar: StrictStr | None = Field(max_length=32)


class InviteIn(_Body):
    table: StrictStr = Field(min_length=1, max_length=64)


def _account(p: dict[str, Any]) -> None:
    if not p["account"]:
        raise Forbidden("not_account", "friends are for accounts: claim your name first")


@router.get("/api/presence")
async def presence(request: Request, p: Viewer) -> dict[str, int]:
    """How many players are online, at every instance (the asking player counts)."""
    if p is not None:
        await request.app.state.presence.seen(p["id"])
    return {"online": await request.app.state.presence.online()}


@router.get("/api/avatars")
async def avatars(request: Request,
                  ids: Annotated[str, Query(max_length=MAX_IDS * 33)] = "") -> dict[str, Any]:
    """The drawn avatars to choose from, and the chosen ones of the players ``ids``
    (comma-separated; null: not chosen, the client draws one by the id)."""
    wanted = [i for i in ids.split(",") if i][:MAX_IDS]
    chosen = await asyncio.to_thread(request.app.state.db.avatars.avatars, wanted)
    return {"avatars": list(AVATARS), "players": chosen}


@router.put("/api/players/me/avatar")
async def set_avatar(request: Request, p: Player, body: AvatarIn) -> dict[str, str | None]:
    if body.avatar is not None and body.avatar not in AVATARS:
        raise InvalidInput("bad_avatar", f"no avatar {body.avatar!r}")
    await asyncio.to_thread(request.app.state.db.avatars.set_avatar, p["id"], body.avatar)
    return {"avatar": body.avatar}


@router.get("/api/friends")
async def friends(request: Request, p: Player) -> dict[str, Any]:
    """The player's friends (each ``online`` and the ``table`` he is at), the requests to
    him and his own, and the invitations waiting for him."""
    _account(p)
    state = request.app.state
    await state.presence.seen(p["id"])
    listed: dict[str, Any] = await asyncio.to_thread(state.db.friends.of, p["id"])
    found = await state.presence.find([f["player_id"] for f in listed["friends"]])
    for f in listed["friends"]:
        f["online"], f["table"] = found[f["player_id"]]
    listed["invites"] = [{k: i[k] for k in ("from_id", "from_name", "table")}
                         for i in await state.presence.invites(p["id"])]
    return listed


@router.post("/api/friends/{other_id}")
async def follow(request: Request, p: Player, other_id: str) -> dict[str, bool]:
    """Ask ``other_id`` to be friends, or accept his request: whether they are friends."""
    _account(p)
    db = request.app.state.db
    await _other_account(request, p, other_id)
    if await asyncio.to_thread(db.blocks.blockers, p["id"], [other_id]):
        raise Forbidden("blocked", "this player does not take your requests")
    return {"friends": await asyncio.to_thread(db.friends.follow, p["id"], other_id)}


async def _other_account(request: Request, p: dict[str, Any], other_id: str) -> None:
    """Refuse ``other_id`` unless it is another account."""
    if other_id == p["id"]:
        raise InvalidInput("self_friend", "you cannot befriend or block yourself")
    other = await asyncio.to_thread(request.app.state.db.players.player, other_id)
    if other is None or not other["account"]:
        raise NotFound("unknown_player", "no account with that id")


@router.get("/api/blocks")
async def blocked(request: Request, p: Player) -> dict[str, Any]:
    """The players the account blocks: their free text never reaches him."""
    _account(p)
    return {"blocked": await asyncio.to_thread(request.app.state.db.blocks.blocked, p["id"])}


@router.put("/api/blocks/{other_id}")
async def block(request: Request, p: Player, other_id: str) -> dict[str, bool]:
    """Block ``other_id``: his lines are not sent to any of the account's connections, at
    any instance; a friendship or request between the two ends."""
    _account(p)
    await _other_account(request, p, other_id)
    await asyncio.to_thread(request.app.state.db.blocks.block, p["id"], other_id)
    return {"blocked": True}


@router.delete("/api/blocks/{other_id}")
async def unblock(request: Request, p: Player, other_id: str) -> dict[str, bool]:
    _account(p)
    await asyncio.to_thread(request.app.state.db.blocks.unblock, p["id"], other_id)
    return {"blocked": False}


@router.delete("/api/friends/{other_id}")
async def unfollow(request: Request, p: Player, other_id: str) -> dict[str, bool]:
    """Remove a friend, decline his request or take one's own back."""
    _account(p)
    await asyncio.to_thread(request.app.state.db.friends.unfollow, p["id"], other_id)
    return {"friends": False}


@router.post("/api/friends/{other_id}/invite")
async def invite(request: Request, p: Player, other_id: str, body: InviteIn) -> dict[str, bool]:
    """Invite a friend to a table (the one the player is at)."""
    _account(p)
    state = request.app.state
    listed = await asyncio.to_thread(state.db.friends.of, p["id"])
    if other_id not in {f["player_id"] for f in listed["friends"]}:
        raise Forbidden("not_friends", "invite your friends only")
    await state.router.table_op("summary", body.table, p)  # 404 unknown_table
    await state.presence.invite(other_id, p, body.table)
    return {"invited": True}


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket, token: str | None = None) -> None:
    """The lobby's room (docs/PROTOCOL.md, Talk): the last lines, then every new one;
    ``chat`` and ``report`` from accounts, ``ping``."""
    state = websocket.app.state
    await websocket.accept()

    async def close_socket(code: int) -> None:
        with contextlib.suppress(Exception):
            await websocket.close(code=code)

    conn = Conn(websocket.send_text, None, None, close_socket, eager=True)
    sender = asyncio.get_running_loop().create_task(conn.run_sender())
    room: LobbyRoom = state.router.lobby_room
    try:
        try:
            p = (await asyncio.to_thread(state.lobby.store.player_by_token, token,
                                         state.config.token_ttl) if token else None)
        except (Refused, SQLAlchemyError) as exc:
            refusal = exc if isinstance(exc, Refused) else storage_refusal(exc)
            conn.send(error(refusal.code, refusal.message))
            conn.close(4000 + http_status(refusal))
            return
        conn.player_id = p["id"] if p else None
        address = address_key(websocket.client.host if websocket.client else None)
        speaker = Speaker(p, address, state.rate_limits)
        session = LobbySession(room, conn)
        await room.join(conn)
        while not conn.closed:
            try:
                text = await websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                break
            reply = await _lobby_message(text, state.config.max_message, speaker, session)
            if reply is not None:
                conn.send(reply)
    finally:
        room.leave(conn)
        conn.close()
        try:
            await asyncio.wait_for(sender, timeout=1.0)
        except (Exception, asyncio.CancelledError):
            sender.cancel()


async def _lobby_message(text: str, limit: int, speaker: Speaker,
                         session: LobbySession) -> dict[str, Any] | None:
    """One message of a lobby connection: the reply to send (``None``: nothing)."""
    if len(text.encode("utf-8", "surrogatepass")) > limit:
        return error("too_large", f"messages are limited to {limit} bytes")
    try:
        msg = client_message.validate_python(json.loads(text))
    except (ValueError, RecursionError) as exc:
        detail = errors_text(exc) if isinstance(exc, ValidationError) else "one JSON object"
        return error("bad_message", detail)
    if isinstance(msg, PingMessage):
        return {"type": "pong"}
    if isinstance(msg, SayMessage | ChatMessage | ReportMessage):
        return await speaker.handle(msg, session)
    return error("bad_message", "the lobby takes chat, report and ping")

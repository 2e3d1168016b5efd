"""The tables' WebSocket: ``/ws/tables/{id}``, each message of a connection answered."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocketDisconnect

from ..errors import Refused
from ..hub import Conn
from ..model import ServerConfig
from ..protocol import (
    ActMessage,
    ChatMessage,
    PingMessage,
    ReportMessage,
    SayMessage,
    SyncMessage,
    client_message,
    error,
)
from ..ratelimit import address_key
from ..router import Session
from ..store import storage_refusal
from ..talk import Speaker
from . import errors_text, http_status

router = APIRouter()

SYNC_EVERY = 1.0  # seconds: a connection's syncs are answered at most this often


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str,
                       token: str | None = None, code: str | None = None) -> None:
    state = websocket.app.state
    cfg: ServerConfig = state.config
    await websocket.accept()

    async def close_socket(close_code: int) -> None:
        with contextlib.suppress(Exception):
            await websocket.close(code=close_code)

    conn = Conn(websocket.send_text, None, None, close_socket, eager=True)
    loop = asyncio.get_running_loop()
    sender = loop.create_task(conn.run_sender())
    state.metrics.connections.inc()
    session: Session | None = None
    try:
        try:
            p = (await asyncio.to_thread(state.lobby.store.player_by_token, token,
                                         cfg.token_ttl)
                 if token else None)
            conn.player_id = p["id"] if p else None
            session = await state.router.open(table_id, conn, code)
            address = address_key(websocket.client.host if websocket.client else None)
            speaker = Speaker(p or None, address, state.rate_limits)
            if conn.player_id is not None:
                state.presence.enter(conn.player_id, table_id)
        except (Refused, SQLAlchemyError) as exc:  # unknown table or token, private...
            refusal = exc if isinstance(exc, Refused) else storage_refusal(exc)
            conn.send(error(refusal.code, refusal.message))
            conn.close(4000 + http_status(refusal))  # 4404, 4401, 4403, 4503
            return
        await _serve_socket(websocket, session, conn, cfg, speaker)
    finally:
        state.metrics.connections.dec()  # first: the awaits below may be cancelled
        if session is not None and conn.player_id is not None:
            state.presence.leave(conn.player_id, table_id)
        if session is not None:
            await session.close()
        conn.close()
        try:
            await asyncio.wait_for(sender, timeout=1.0)
        except (Exception, asyncio.CancelledError):
            sender.cancel()
        with contextlib.suppress(Exception):
            await websocket.close()


async def _serve_socket(websocket: WebSocket, session: Session, conn: Conn,
                        cfg: ServerConfig, speaker: Speaker) -> None:
    """Read a connection's messages until it closes: each answered (actions, syncs, pings),
    at most ``max_rate`` a second."""
    loop = asyncio.get_running_loop()
    window, count = loop.time(), 0
    synced_at = -SYNC_EVERY

    async def sync() -> dict[str, Any] | None:
        """The state and summary again, at most once every ``SYNC_EVERY`` seconds (every
        change is sent anyway: a second sync in a row is refused)."""
        nonlocal synced_at
        now = loop.time()
        if now - synced_at < SYNC_EVERY:
            return error("too_many", f"at most one sync every {SYNC_EVERY:g} s: the "
                         "state you were sent last is the current one")
        synced_at = now
        await session.sync()
        return None

    while not conn.closed:
        try:
            msg = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            break
        if msg["type"] == "websocket.disconnect":
            break
        now = loop.time()
        if now - window > 1.0:
            window, count = now, 0
        count += 1
        if count > cfg.max_rate:
            if count == cfg.max_rate + 1:
                conn.send(error("too_many", f"at most {cfg.max_rate} messages a second; "
                                "the others were ignored"))
            continue
        reply = await _handle(session, msg, cfg.max_message, sync, speaker)
        if reply is not None:
            conn.send(reply)


async def _handle(session: Session, msg: Mapping[str, Any], limit: int,
                  sync: Callable[[], Awaitable[dict[str, Any] | None]],
                  speaker: Speaker) -> dict[str, Any] | None:
    """One client message: the reply to send (``None``: nothing to say); ``sync`` answers
    a sync, ``speaker`` takes talk (bela.server.talk)."""
    raw = msg.get("text")
    if raw is None:
        data = msg.get("bytes") or b""
        if len(data) > limit:
            return error("too_large", f"messages are limited to {limit} bytes")
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError:
            return error("bad_json", "a message is one JSON object in UTF-8")
    if len(raw) > limit or len(raw.encode("utf-8", "surrogatepass")) > limit:
        return error("too_large", f"messages are limited to {limit} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return error("bad_json", "a message is one JSON object, e.g. "
                     '{"type": "act", "action": "JH", "seq": 12}')
    try:
        parsed = client_message.validate_python(data)
    except ValidationError as exc:
        return error("bad_message", errors_text(exc))
    if isinstance(parsed, PingMessage):
        return {"type": "pong"}
    if isinstance(parsed, ActMessage):
        return await session.act(parsed.action, parsed.seq)
    if isinstance(parsed, SayMessage | ChatMessage | ReportMessage):
        return await speaker.handle(parsed, session)
    assert isinstance(parsed, SyncMessage)
    return await sync()

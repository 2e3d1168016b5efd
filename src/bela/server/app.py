"""The FastAPI application: REST lobby, WebSocket tables, the static UI.

``create_app(db_url)`` builds one; ``bela serve`` runs it with uvicorn.  See docs/PROTOCOL.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import Field, StrictBool, StrictInt, StrictStr, ValidationError
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from ..engine.variants import TARGET_RANGE, VARIANTS
from ..engine.variants.base import OPTION_CHOICES
from ..storage import Database
from . import accounts, analysis, botpool, pads, profiles, quickplay
from .auth import Player, Viewer, bearer_token
from .errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Refused,
    TooLarge,
    TooMany,
    Unauthenticated,
    Unavailable,
)
from .hub import Conn, Hub
from .lobby import Lobby
from .metrics import Metrics, internal_address
from .model import ServerConfig
from .offload import Offload, json_bytes
from .protocol import (
    ActMessage,
    BotsIn,
    GuestIn,
    PingMessage,
    SitIn,
    SyncMessage,
    TableIn,
    client_message,
    error,
)
from .ratelimit import RateLimits, address_key
from .router import Router, Session
from .stopping import STEP_LIMIT, TERMINATION, ended, within
from .store import Store, storage_refusal

log = logging.getLogger("bela.server")

MAX_BODY = 64 * 1024
PAGE, MAX_PAGE = 50, 200  # tables in one answer of GET /api/tables: default, most
HISTORY_PAGE, MAX_HISTORY_PAGE = 20, 100  # matches in one answer of the history
SYNC_EVERY = 1.0  # seconds: a connection's syncs are answered at most this often

# The HTTP status of each kind of refusal (the nearest listed class of an error decides).
HTTP_STATUS: dict[type[Refused], int] = {
    Refused: 400, Unauthenticated: 401, Forbidden: 403, NotFound: 404, Conflict: 409,
    TooLarge: 413, InvalidInput: 422, TooMany: 429, Unavailable: 503,
}

# The requests with a limit of their own besides ServerConfig.rate_requests.
LIMITED_POSTS = {"/api/guests": "guests", "/api/tables": "tables", "/api/quick": "tables",
                 "/api/login": "logins",
                 "/api/accounts": "logins", "/api/players/me/password": "logins",
                 "/api/analysis/play-on": "tables"}


def http_status(exc: Refused) -> int:
    """The HTTP status a refusal is answered with: the one place errors meet HTTP."""
    return next(HTTP_STATUS[c] for c in type(exc).__mro__ if c in HTTP_STATUS)


def page_headers(path: str, limit: int, offset: int, total: int) -> dict[str, str]:
    """``X-Total-Count`` and ``Link`` (the next and previous pages) of a page of a list."""
    links = [f'<{path}?limit={limit}&offset={offset + limit}>; rel="next"'
             ] if offset + limit < total else []
    if offset:
        links.append(f'<{path}?limit={limit}&offset={max(0, offset - limit)}>; rel="prev"')
    headers = {"X-Total-Count": str(total)}
    if links:
        headers["Link"] = ", ".join(links)
    return headers


def error_body(exc: Refused) -> dict[str, Any]:
    """The JSON body of a refused request."""
    return {"error": {"code": exc.code, "message": exc.message}}


def refusal_response(exc: Refused) -> JSONResponse:
    """The answer to a refused request (over a rate limit: with ``Retry-After``)."""
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooMany) else None
    return JSONResponse(error_body(exc), status_code=http_status(exc), headers=headers)


_SECRET = re.compile(r"(?<=[?&;])(token|code)=[^&;\s\"']*")


def redact(text: str) -> str:
    """``text`` with the values of ``token=`` and ``code=`` query parameters hidden.

    >>> redact('"GET /ws/tables/x?token=s3cret&code=abc HTTP/1.1" 101')
    '"GET /ws/tables/x?token=***&code=*** HTTP/1.1" 101'
    """
    return _SECRET.sub(r"\1=***", text)


class RedactSecrets(logging.Filter):
    """Hide tokens and invite codes in log lines: uvicorn logs each request's path with its
    query (``uvicorn.access``) and each WebSocket's (``uvicorn.error``), where a WebSocket
    carries the player's token."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


SECRETS_FILTER = RedactSecrets()
LOGGERS_WITH_URLS = ("uvicorn.access", "uvicorn.error")


class RateLimit:
    """Count every request against its client address's limits: each HTTP request, a new
    guest, a new table, a WebSocket connection.  Over a limit the request is answered 429
    with ``Retry-After`` (a WebSocket handshake is denied with that answer)."""

    def __init__(self, app: ASGIApp, limits: RateLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = address_key((scope.get("client") or (None,))[0])
        try:
            if scope["type"] == "websocket":
                await self.limits.hit("websockets", address)
            else:
                await self.limits.hit("requests", address)
                kind = LIMITED_POSTS.get(scope["path"]) if scope["method"] == "POST" else None
                if kind is not None:
                    await self.limits.hit(kind, address)
        except TooMany as refusal:
            response = refusal_response(refusal)
            if scope["type"] == "http":
                await response(scope, receive, send)
                return
            socket = WebSocket(scope, receive, send)
            try:
                await socket.send_denial_response(response)
            except RuntimeError:  # a server without the denial extension
                await socket.close(code=1013)  # try again later
            return
        await self.app(scope, receive, send)


# The pages load their scripts, styles and pictures from this server only; the hand's cards
# set CSS variables in style attributes (hence 'unsafe-inline' for styles, never scripts).
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [(b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin")]


class SecurityHeaders:
    """Every HTTP answer with :data:`SECURITY_HEADERS`: a Content-Security-Policy (no
    script but the server's, no framing), ``nosniff``, no frames, no referrer elsewhere."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                msg = {**msg, "headers": [*msg.get("headers", []), *SECURITY_HEADERS]}
            await send(msg)

        await self.app(scope, receive, with_headers)


class OpenLimit:
    """At most ``sockets`` WebSockets open and ``requests`` HTTP requests in flight at once
    per client address (in this process): more are refused with 429 (a WebSocket
    handshake is denied with that answer)."""

    def __init__(self, app: ASGIApp, sockets: int, requests: int) -> None:
        self.app = app
        self.most = {"websocket": sockets, "http": requests}
        self.open: dict[tuple[str, str], int] = {}  # (kind, address) -> open now

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in self.most:
            await self.app(scope, receive, send)
            return
        key = (kind, address_key((scope.get("client") or (None,))[0]))
        if self.open.get(key, 0) >= self.most[kind]:
            what = "WebSockets open" if kind == "websocket" else "requests in flight"
            response = refusal_response(TooMany(
                "too_many_open", f"at most {self.most[kind]} {what} at once from your "
                "address", retry_after=1))
            if kind == "http":
                await response(scope, receive, send)
                return
            socket = WebSocket(scope, receive, send)
            try:
                await socket.send_denial_response(response)
            except RuntimeError:  # a server without the denial extension
                await socket.close(code=1013)
            return
        self.open[key] = self.open.get(key, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open[key] -= 1
            if not self.open[key]:
                del self.open[key]


class BodyLimit:
    """Refuse HTTP request bodies larger than ``limit`` bytes (413, and the connection is
    closed): by their ``Content-Length`` before reading them; the body is read before the
    app sees it, and refused once it grows past the limit (a chunked one), or when it has
    not all come within ``timeout`` seconds (408: a client that trickles its body in does
    not hold a connection for long)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY, timeout: float = 10.0) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await self._refuse(scope, receive, send)
            return
        if length is not None and int(length) == 0:
            await self.app(scope, receive, send)
            return
        read: list[Message] = []
        seen = 0
        deadline = asyncio.get_running_loop().time() + self.timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    msg = await receive()
            except TimeoutError:
                response = JSONResponse(
                    {"error": {"code": "slow_body", "message": "the request's body did not "
                               f"arrive within {self.timeout:g} s"}}, status_code=408,
                    headers={"Connection": "close"})
                await response(scope, receive, send)
                return
            read.append(msg)
            if msg["type"] != "http.request":  # the client went away
                break
            seen += len(msg.get("body", b""))
            if seen > self.limit:
                await self._refuse(scope, receive, send)
                return
            if not msg.get("more_body", False):
                break

        async def replay() -> Message:
            return read.pop(0) if read else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = refusal_response(
            TooLarge("too_large", f"request bodies are limited to {self.limit} bytes"))
        response.headers["Connection"] = "close"  # the rest of the body is not read
        await response(scope, receive, send)




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


def create_app(db_url: str | None = None, *, config: ServerConfig | None = None,
               bot_workers: int | None = None, bot_warm: bool = False,
               bot_pool: botpool.BotPool | None = None, **options: Any) -> FastAPI:
    """The server app on the database at ``db_url`` (default: the user's data folder).

    ``options`` set :class:`ServerConfig` fields (``grace``, ``bot_delay``, ``round_pause``,
    ``allow_seed``, ``max_message``, the rate limits, the tables' time limits, and
    ``redis_url`` / ``instance`` / ``lease_ttl`` for one of several instances).  The
    database is migrated to the newest schema here; when the app starts, the tables are
    resumed (one process) or the instance joins the others (its scans take over the tables
    nobody runs), and open tables are swept every ``sweep_every`` seconds while it runs.

    The strong bots of the tables think in ``bot_workers`` worker processes
    (:mod:`bela.server.botpool`; default :func:`~bela.server.botpool.default_workers`, one
    fewer than the CPUs; ``0``: in threads, as the cheap bots), started with their first
    decision, or with the app when ``bot_warm`` (``bela serve``) and stopped with it;
    ``bot_pool``: a pool of the caller's instead, which the app neither starts nor stops.
    """
    cfg = config or ServerConfig(**options)
    if cfg.redis_url and cfg.rate_limit_storage == "memory://":  # shared by the instances
        cfg = replace(cfg, rate_limit_storage=cfg.redis_url)
    rate_limits = RateLimits(cfg)
    for name in LOGGERS_WITH_URLS:  # the same filter once, however many apps are made
        logging.getLogger(name).addFilter(SECRETS_FILTER)
    db = Database(db_url)
    metrics = Metrics()
    own_bots = bot_pool is None
    if bot_pool is None:
        bot_pool = botpool.BotPool(botpool.default_workers() if bot_workers is None
                                   else bot_workers)
    bots_pool = bot_pool
    metrics.watch_bots(lambda: bots_pool.pending)
    lobby = Lobby(Store(db, metrics), Hub(), cfg, bots_pool)
    router = Router(lobby, cfg.redis_url, cfg.instance or default_instance(), cfg.lease_ttl)
    quick = quickplay.QuickPlay(router, cfg)
    analyst = analysis.Analysis(cfg)  # its workers start with the first job or analysis_warm
    offload = Offload()  # the heavy requests' threads (not the default executor's)
    started = asyncio.Event()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(lobby.available_bots)  # imports the bots' modules once
        await router.start()
        await quick.start()
        analyst.start()
        bots_pool.start()
        warming = (asyncio.create_task(bots_pool.warm(), name="bot workers warm-up")
                   if bot_warm else None)  # every worker loads the solver, in the background
        sweeper = asyncio.create_task(lobby.run_sweeps(), name="bela sweep")
        started.set()
        try:
            yield
        finally:  # each step bounded: one that hangs is left behind, logged with its stacks
            started.clear()
            stop_by = time.monotonic() + cfg.shutdown_timeout  # the workers' grace, in all
            await within(ended(sweeper, warming), STEP_LIMIT, "background tasks")
            try:
                await within(quick.stop(), STEP_LIMIT, "quick play")
                await within(router.stop(), cfg.shutdown_timeout,  # the tables stop and
                             "tables and leases")  # their leases are given back
            finally:  # no bot thinks for a table any more: the workers' grace, together
                grace = max(0.0, stop_by - time.monotonic())
                stops = [within(analyst.stop(grace), grace + TERMINATION, "analysis workers")]
                if own_bots:
                    stops.append(within(bots_pool.stop(grace), grace + TERMINATION,
                                        "bot workers"))
                await asyncio.gather(*stops)
                offload.close()
                db.close()

    app = FastAPI(title="Bela", version="1", lifespan=lifespan, docs_url="/api/docs",
                  openapi_url="/api/openapi.json", redoc_url=None)
    app.state.db = db
    app.state.lobby = lobby
    app.state.router = router
    app.state.quick = quick
    app.state.analysis = analyst
    app.state.bots = bots_pool
    app.state.rate_limits = rate_limits
    app.state.config = cfg
    app.state.metrics = metrics
    app.state.offload = offload
    app.add_middleware(BodyLimit, timeout=cfg.body_timeout)
    app.add_middleware(OpenLimit, sockets=cfg.sockets_per_address,
                       requests=cfg.requests_per_address)
    app.add_middleware(RateLimit, limits=rate_limits)  # the outermost: first to count
    app.add_middleware(SecurityHeaders)  # on every answer, refusals too

    @app.exception_handler(Refused)
    async def _refused(_req: Request, exc: Refused) -> JSONResponse:
        return refusal_response(exc)

    @app.exception_handler(SQLAlchemyError)
    async def _storage(_req: Request, exc: SQLAlchemyError) -> JSONResponse:
        cause = exc.orig if isinstance(exc, DBAPIError) else exc  # without the SQL's values
        log.error("a request failed in the database: %s: %s", type(cause).__name__, cause)
        metrics.errors.labels(kind="storage").inc()
        return refusal_response(storage_refusal(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_req: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Starlette's own refusals (an unknown route, a method not allowed, a body that is
        not JSON, too deeply nested) in the documented error shape."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "bad_json" if exc.status_code == 400 else "bad_request")
        return JSONResponse({"error": {"code": code, "message": str(exc.detail)}},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_req: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": {"code": "bad_request", "message": _errors_text(exc)}},
                            status_code=422)

    # -- operations ------------------------------------------------------------------------
    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """The process answers."""
        return {"status": "ok", "instance": router.instance}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """Ready for players: started, the database answers, and (several instances) the
        link to the others works; else 503."""
        checks = {"started": started.is_set(), "database": True, "cluster": True}
        try:
            await asyncio.to_thread(db.ping)
        except SQLAlchemyError:
            checks["database"] = False
        checks["cluster"] = await router.ready()
        ok = all(checks.values())
        return JSONResponse({"status": "ready" if ok else "unavailable",
                             "instance": router.instance, "checks": checks},
                            status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics_text(request: Request) -> Response:
        """The Prometheus metrics of this process (see :mod:`bela.server.metrics`), for this
        machine and private networks unless ``public_metrics``."""
        host = request.client.host if request.client else None
        if not cfg.public_metrics and not internal_address(host):
            raise Forbidden("metrics_private", "the metrics are served to private networks "
                            "only (bela serve --public-metrics serves them to all)")
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    # -- lobby -----------------------------------------------------------------------------
    @app.post("/api/guests")
    async def new_guest(body: GuestIn) -> dict[str, Any]:
        """A new guest; a name an account holds is refused (its owner logs in)."""
        name = accounts.clean_name(body.name)
        if await asyncio.to_thread(lobby.store.db.accounts.name_taken,
                                   accounts.name_key(name)):
            raise accounts.name_taken(name)
        pid, token = await asyncio.to_thread(lobby.store.db.players.create_player, name)
        return {"player_id": pid, "name": name, "token": token}

    @app.get("/api/players/me")
    async def me(p: Player) -> dict[str, Any]:
        return {"player_id": p["id"], "name": p["name"], "account": p["account"]}

    @app.post("/api/players/me/token")
    async def new_token(p: Player, authorization: Annotated[str | None, Header()] = None
                        ) -> dict[str, Any]:
        """A new token in place of the one sent, which stops working (the player's other
        browsers keep theirs)."""
        return {"player_id": p["id"], "name": p["name"],
                "token": await asyncio.to_thread(lobby.store.rotate_token,
                                                 bearer_token(authorization))}

    @app.get("/api/players/me/history")
    async def history(p: Player,
                      limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_PAGE)] = HISTORY_PAGE,
                      offset: Annotated[int, Query(ge=0)] = 0) -> Response:
        """A page of the player's finished matches, newest first, as summaries (each with
        the address of its record); ``X-Total-Count`` and ``Link`` as for the tables."""
        page, total = await offload.run(lobby.history, p, limit, offset)
        return Response(await offload.run(json_bytes, page), media_type="application/json",
                        headers=page_headers("/api/players/me/history", limit, offset, total))

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return {"variants": [{"id": v.name, "seats": v.seats, "options": list(v.options),
                              "defaults": v.make_options({}).as_dict()}
                             for v in VARIANTS.values()],
                "choices": {name: [str(c) for c in choice]
                            for name, choice in OPTION_CHOICES.items()},
                "ranges": {"target": list(TARGET_RANGE),
                           "turn_clock": [cfg.min_turn_clock, cfg.max_turn_clock],
                           "quick_wait": [cfg.min_quick_wait, cfg.max_quick_wait]},
                "bots": await asyncio.to_thread(lobby.available_bots),
                "levels": await asyncio.to_thread(lobby.available_levels)}

    @app.get("/api/tables")
    async def list_tables(limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
                          offset: Annotated[int, Query(ge=0)] = 0) -> Response:
        """The open and running public tables, newest first, ``limit`` from ``offset``;
        ``X-Total-Count`` counts them all, ``Link`` gives the next and previous pages."""
        body, total = await router.listing(offset, limit)
        links = [f'</api/tables?limit={limit}&offset={offset + limit}>; rel="next"'
                 ] if offset + limit < total else []
        if offset:
            links.append(f'</api/tables?limit={limit}&offset={max(0, offset - limit)}>; '
                         'rel="prev"')
        headers = {"X-Total-Count": str(total)}
        if links:
            headers["Link"] = ", ".join(links)
        return Response(body, media_type="application/json", headers=headers)

    @app.post("/api/tables")
    async def create_table(body: NewTableIn, p: Player) -> dict[str, Any]:
        return await router.create(p, variant=body.variant, options=dict(body.options),
                                   bot=body.bot, seat=body.seat, seed=body.seed,
                                   private=body.private, turn_clock=body.turn_clock,
                                   rated=body.rated)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, v: Viewer) -> dict[str, Any]:
        return await router.table_op("summary", table_id, v)

    @app.post("/api/tables/{table_id}/sit")
    async def sit(table_id: str, body: SitCodeIn, p: Player) -> dict[str, Any]:
        return await router.table_op("sit", table_id, p, seat=body.seat, code=body.code)

    @app.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, p: Player) -> dict[str, Any]:
        return await router.table_op("leave", table_id, p)

    @app.post("/api/tables/{table_id}/bots")
    async def bots(table_id: str, p: Player, body: BotsIn | None = None) -> dict[str, Any]:
        return await router.table_op("bots", table_id, p, seats=body.seats if body else None)

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, p: Player) -> dict[str, Any]:
        return await router.table_op("start", table_id, p)

    @app.post("/api/tables/{table_id}/close")
    async def close(table_id: str, p: Player) -> dict[str, Any]:
        return await router.table_op("close", table_id, p)

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, v: Viewer) -> Response:
        return Response(await lobby.record_json(table_id, v, offload),
                        media_type="application/json")

    app.include_router(accounts.router)
    app.include_router(profiles.router)
    app.include_router(quickplay.router)
    app.include_router(pads.router)
    app.include_router(analysis.router)

    # -- play ------------------------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str,
                           token: str | None = None, code: str | None = None) -> None:
        await websocket.accept()

        async def close_socket(close_code: int) -> None:
            with contextlib.suppress(Exception):
                await websocket.close(code=close_code)

        conn = Conn(websocket.send_text, None, None, close_socket)
        loop = asyncio.get_running_loop()
        sender = loop.create_task(conn.run_sender())
        metrics.connections.inc()
        session: Session | None = None
        try:
            try:
                p = (await asyncio.to_thread(lobby.store.player_by_token, token, cfg.token_ttl)
                     if token else None)
                conn.player_id = p["id"] if p else None
                session = await router.open(table_id, conn, code)
            except (Refused, SQLAlchemyError) as exc:  # unknown table or token, private...
                refusal = exc if isinstance(exc, Refused) else storage_refusal(exc)
                conn.send(error(refusal.code, refusal.message))
                conn.close(4000 + http_status(refusal))  # 4404, 4401, 4403, 4503
                return
            await _serve_socket(websocket, session, conn, cfg)
        finally:
            metrics.connections.dec()  # first: the awaits below may be cancelled
            if session is not None:
                await session.close()
            conn.close()
            try:
                await asyncio.wait_for(sender, timeout=1.0)
            except (Exception, asyncio.CancelledError):
                sender.cancel()
            with contextlib.suppress(Exception):
                await websocket.close()

    # -- the UI ----------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return HTMLResponse(_index_html())

    @app.get("/pad", response_class=HTMLResponse)
    async def pad_page() -> HTMLResponse:
        """The score pad (bela blok): a page of its own that works offline."""
        return HTMLResponse(_web_text("pad.html"))

    @app.get("/pad-sw.js")
    async def pad_worker() -> Response:
        """The pad's service worker, served from the root so that it may control /pad."""
        return Response(_web_text("pad-sw.js"), media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})

    @app.get("/analysis", response_class=HTMLResponse)
    async def analysis_page() -> HTMLResponse:
        """The analysis board of finished matches."""
        return HTMLResponse(_web_text("analysis.html"))

    # the browser client's modules, styles and pictures (src/bela/web)
    app.mount("/web", StaticFiles(packages=[("bela", "web")]), name="web")

    return app


def default_instance() -> str:
    """This process's name among the instances of a site: host and process id."""
    return f"{socket.gethostname()}-{os.getpid()}"


async def _serve_socket(websocket: WebSocket, session: Session, conn: Conn,
                        cfg: ServerConfig) -> None:
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
        reply = await _handle(session, msg, cfg.max_message, sync)
        if reply is not None:
            conn.send(reply)


async def _handle(session: Session, msg: Mapping[str, Any], limit: int,
                  sync: Callable[[], Awaitable[dict[str, Any] | None]]
                  ) -> dict[str, Any] | None:
    """One client message: the reply to send (``None``: nothing to say); ``sync`` answers
    a sync."""
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
        return error("bad_message", _errors_text(exc))
    if isinstance(parsed, PingMessage):
        return {"type": "pong"}
    if isinstance(parsed, ActMessage):
        return await session.act(parsed.action, parsed.seq)
    assert isinstance(parsed, SyncMessage)
    return await sync()


def _errors_text(exc: ValidationError | RequestValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
    return "; ".join(parts) or "invalid message"


def _index_html() -> str:
    try:
        return _web_text("index.html")
    except (FileNotFoundError, OSError):
        return "<!doctype html><title>Bela</title><p>The Bela server is running.</p>"


def _web_text(name: str) -> str:
    """A file of the browser client (``bela/web``)."""
    return (resources.files("bela") / "web" / name).read_text(encoding="utf-8")

"""The FastAPI application: REST lobby, WebSocket tables, the static UI.

``create_app(db_url)`` builds one; ``bela serve`` runs it with uvicorn.  See docs/PROTOCOL.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..storage import Database
from . import accounts, analysis, botpool, pads, profiles, quickplay
from .errors import Refused, TooLarge, TooMany
from .hub import Hub
from .lobby import Lobby
from .metrics import Metrics
from .model import ServerConfig
from .offload import Offload
from .ratelimit import RateLimits, address_key
from .records import Records
from .router import Router
from .routes import error_body as error_body  # re-exported: the tests' refusal shape
from .routes import (
    errors_text,
    ops,
    players,
    refusal_response,
    social,
    tables,
    tournaments,
    ui,
    ws,
)
from .routes import http_status as http_status  # re-exported: the one place errors meet HTTP
from .stopping import STEP_LIMIT, TERMINATION, ended, within
from .store import Store, storage_refusal
from .sweep import Sweeper
from .talk.presence import Presence
from .tournaments import Director, Scheduler, TournamentViews

log = logging.getLogger("bela.server")

MAX_BODY = 64 * 1024

# The requests with a limit of their own besides ServerConfig.rate_requests.
LIMITED_POSTS = {"/api/guests": "guests", "/api/tables": "tables", "/api/quick": "tables",
                 "/api/login": "logins",
                 "/api/accounts": "logins", "/api/players/me/password": "logins",
                 "/api/analysis/play-on": "tables", "/api/tournaments": "tables"}


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


GC_YOUNG = 25_000  # new container objects between two young collections (Python's: 700)
GC_MIDDLE = 2  # young collections between two of the middle generation (Python's: 10)
GC_OLD = 80  # middle collections before a full one is considered (Python's: 10)


def settle_gc() -> None:
    """The garbage collector of a server process (``bela serve``: ``settle_gc``, once the
    app has started): what is loaded by then (code, the bots, the tables resumed) is
    frozen, skipped by every later collection, and the generations are collected at
    :data:`GC_YOUNG`, :data:`GC_MIDDLE` and :data:`GC_OLD` instead of Python's 700, 10
    and 10 (docs/CAPACITY.md, Pauses):

    - young collections every 25,000 new objects, not 700: the full collections (which
      walk every table's objects, ~0.2-0.7 s at a few hundred tables) come as seldom as
      every ~6 million new objects, not every ~85,000.  With ``tools/tournament_bench.py
      --under-load``, the load script's p99 during a round of 64 bot tables went from
      ~200-350 ms to ~30 ms, and the server's CPU went down;
    - the middle generation every third young collection, not every eleventh: it holds
      what survived since its last collection (the tables' new history: nearly all of
      it), and its collection stopped the server 250-330 ms at 800 tables with young
      collections every 50,000 and every eleventh; 75,000 objects at most now, under
      100 ms.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> settle_gc(); gc.get_threshold() == (GC_YOUNG, GC_MIDDLE, GC_OLD)
    True
    >>> gc.get_freeze_count() > 0
    True
    >>> gc.unfreeze(); gc.set_threshold(*before)
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, GC_MIDDLE, GC_OLD)


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
    records = Records(lobby)  # the published records and histories
    sweeper = Sweeper(lobby)  # closes the idle tables while the app runs
    router = Router(lobby, cfg.redis_url, cfg.instance or default_instance(), cfg.lease_ttl)
    quick = quickplay.QuickPlay(router, cfg)
    analyst = analysis.Analysis(cfg)  # its workers start with the first job or analysis_warm
    offload = Offload()  # the heavy requests' threads (not the default executor's)
    director = Director(db, cfg, lobby.catalog)  # tournaments: registration, the director's actions
    scheduler = Scheduler(router, director)  # tournaments' rounds, after the tables resumed
    started = asyncio.Event()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(lobby.catalog.available_bots)  # imports the bots' modules once
        await router.start()
        await quick.start()
        await scheduler.start()
        analyst.start()
        bots_pool.start()
        warming = (asyncio.create_task(bots_pool.warm(), name="bot workers warm-up")
                   if bot_warm else None)  # every worker loads the solver, in the background
        sweeping = asyncio.create_task(sweeper.run(), name="bela sweep")
        if cfg.settle_gc:
            settle_gc()
        started.set()
        try:
            yield
        finally:  # each step bounded: one that hangs is left behind, logged with its stacks
            started.clear()
            stop_by = time.monotonic() + cfg.shutdown_timeout  # the workers' grace, in all
            await within(ended(sweeping, warming), STEP_LIMIT, "background tasks")
            try:
                await within(scheduler.stop(), STEP_LIMIT, "tournaments")
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
                lobby.store.close()
                db.close()

    app = FastAPI(title="Bela", version="1", lifespan=lifespan, docs_url="/api/docs",
                  openapi_url="/api/openapi.json", redoc_url=None)
    app.state.db = db
    app.state.lobby = lobby
    app.state.records = records
    app.state.sweeper = sweeper
    app.state.router = router
    app.state.quick = quick
    app.state.analysis = analyst
    app.state.bots = bots_pool
    app.state.rate_limits = rate_limits
    app.state.presence = (router.cluster.presence if router.cluster is not None
                          else Presence())
    app.state.config = cfg
    app.state.metrics = metrics
    app.state.offload = offload
    app.state.tournament_director = director
    app.state.tournament_scheduler = scheduler
    app.state.tournament_views = TournamentViews(db)  # the tournament objects, cached
    app.state.started = started
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
        return JSONResponse({"error": {"code": "bad_request", "message": errors_text(exc)}},
                            status_code=422)

    app.include_router(ops.router)
    app.include_router(players.router)
    app.include_router(tables.router)
    app.include_router(accounts.router)
    app.include_router(profiles.router)
    app.include_router(quickplay.router)
    app.include_router(pads.router)
    app.include_router(analysis.router)
    app.include_router(tournaments.router)
    app.include_router(social.router)

    app.include_router(ws.router)
    app.include_router(ui.router)
    # the browser client's modules, styles and pictures (src/bela/web)
    app.mount("/web", StaticFiles(packages=[("bela", "web")]), name="web")

    return app


def default_instance() -> str:
    """This process's name among the instances of a site: host and process id."""
    return f"{socket.gethostname()}-{os.getpid()}"

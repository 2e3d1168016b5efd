"""``bela serve`` and ``python -m bela.server``: the game server (FastAPI + WebSockets,
uvicorn) with its database; the command's options build the app's configuration."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from types import FrameType

    import uvicorn


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    db: str | None = typer.Option(
        None, "--db", help="SQLAlchemy database URL (default: SQLite in the user's data "
        "folder; BELA_DATA_DIR overrides the folder). PostgreSQL: postgresql://..."),
    grace: float = typer.Option(60.0, "--grace", help="Seconds before a bot plays for a "
                                "disconnected player."),
    bot_delay: float = typer.Option(0.6, "--bot-delay", help="Seconds a bot waits before "
                                    "it acts."),
    round_pause: float = typer.Option(2.0, "--round-pause", help="Seconds between a finished "
                                      "round and the next deal."),
    public_metrics: bool = typer.Option(
        False, "--public-metrics", help="Serve GET /metrics to any address (by default only "
        "to this machine and private networks: its timings tell how long each bot move "
        "took)."),
    allow_seed: bool = typer.Option(False, "--allow-seed", hidden=True,
                                    help="Let clients choose a table's seed (tests only)."),
    rate_limit_storage: str = typer.Option(
        "memory://", "--rate-limit-storage", help="Where the rate limits' counts are kept: "
        "memory:// (this process), or redis://host:6379 shared by several processes "
        "(with --redis: that Redis, unless given)."),
    no_rate_limits: bool = typer.Option(False, "--no-rate-limits", hidden=True,
                                        help="No rate limits per address, nor limits of the "
                                        "sockets open per address (load tests only)."),
    talk_words: Path | None = typer.Option(
        None, "--talk-words", exists=True, dir_okay=False,
        help="A UTF-8 file of words (one a line) masked with * in the tables' free text "
        "(docs/SECURITY.md, Talk)."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1,
                                         help="Seconds a client has to send a request's "
                                         "headers; then the connection is closed."),
    token_ttl: float = typer.Option(30.0, "--token-ttl", min=0.01,
                                    help="Days after which a guest token that was not "
                                    "used expires."),
    redis: str | None = typer.Option(
        None, "--redis", help="Redis URL shared by the instances of one site "
        "(redis://host:6379/0): which instance runs each live table, table updates for "
        "connections held by other instances, the lobby list, the rate limits. Without it: "
        "this process alone. Use a PostgreSQL --db with it."),
    instance: str | None = typer.Option(
        None, "--instance", help="This instance's name among those of the site (default: "
        "host-pid); it appears in the logs, /healthz and Redis keys."),
    lease_ttl: float = typer.Option(
        5.0, "--lease-ttl", min=0.5, help="Seconds a table's lease lasts unrenewed: another "
        "instance takes over the tables of one that died after this long."),
    analysis_workers: int = typer.Option(
        2, "--analysis-workers", min=1, help="Worker processes of the analysis board (values "
        "of positions, reviews of matches); reviews use all but one of them."),
    shutdown_timeout: int = typer.Option(
        5, "--shutdown-timeout", min=0, help="Seconds a stopping server (SIGTERM, "
        "Ctrl-C) gives its connections and requests to end; then its tables stop (stored "
        "action by action; with --redis handed over to the other instances at once) and "
        "its bot and analysis workers get what is left of as long again; what still runs "
        "is cancelled."),
    bot_workers: int | None = typer.Option(
        None, "--bot-workers", min=0, help="Worker processes where the tables' strong bots "
        "(pimc, ismcts, ...) think, so that they never slow other tables (default: one fewer "
        "than the CPUs, at least 1; 0: in threads of the server process)."),
    analysis_share: int = typer.Option(
        4, "--analysis-share", min=0, help="Analysis jobs one address, or one player, may "
        "have under way at once (0: no share)."),
    strong_bot_tables: int = typer.Option(
        2, "--strong-bot-tables", min=0, help="Running tables with strong (pooled) bots one "
        "player, or one address, may start (0: no limit)."),
    bot_answer: str = typer.Option(
        "bid=1,exchange=0.6,discard=3,card=1", "--bot-answer", "--bot-ceiling",
        help="Seconds after its turn began at which a strong bot's move is sent, per "
        "decision kind (at least --bot-delay): never sooner or later, so that its think "
        "time never shows; its search stops in time (if it could not, the heuristic bot's "
        "move is sent)."),
    rated_min_target: int = typer.Option(
        0, "--rated-min-target", min=0, help="The shortest target a rated table plays to "
        "(0: each variant's default target); private tables are never rated."),
    board_opponents: int = typer.Option(
        5, "--board-opponents", min=0, help="Distinct opponents in rated matches before "
        "the leaderboard lists an account."),
    log_format: str = typer.Option("text", "--log-format", help="Logs on stderr as 'text' "
                                   "or 'json' (one object per line, with table ids)."),
    log_level: str = typer.Option("warning", "--log-level", help="Log level (debug, info, "
                                  "warning, error)."),
) -> None:
    """Start the Bela server and print its address."""
    try:
        import uvicorn

        from ..storage import default_db_url
        from .app import create_app
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        typer.echo("the server needs the 'server' extra: pip install 'bela[server]' (in a "
                   f"clone of the repository: pip install -e '.[server]') ({exc})", err=True)
        raise typer.Exit(2) from None
    import socket

    from . import logs
    from .app import default_instance

    if log_format not in ("text", "json"):
        typer.echo(f"--log-format is 'text' or 'json', not {log_format!r}", err=True)
        raise typer.Exit(2)
    url = db or default_db_url()
    if redis is not None and url.startswith("sqlite"):
        typer.echo("several instances (--redis) share one database server: give a "
                   "PostgreSQL --db (postgresql+psycopg://user:password@host/db)", err=True)
        raise typer.Exit(2)
    name = instance or default_instance()
    logs.setup(log_format, log_level, name)
    limits: dict[str, Any] = ({"rate_requests": "", "rate_guests": "", "rate_tables": "",
                               "rate_websockets": "", "rate_logins": "",
                               "rate_login_attempts": "", "rate_talk": "",
                               "rate_talk_address": "",  # and the open sockets'
                               "sockets_per_address": 1 << 20,
                               "requests_per_address": 1 << 20} if no_rate_limits else {})
    if talk_words is not None:
        limits["talk_words"] = tuple(w.strip() for w in talk_words.read_text("utf-8")
                                     .splitlines() if w.strip())
    limits.update(answer_times(bot_answer))
    try:
        app = create_app(url, grace=grace, bot_delay=bot_delay, round_pause=round_pause,
                         allow_seed=allow_seed, public_metrics=public_metrics,
                         rate_limit_storage=rate_limit_storage,
                         token_ttl=token_ttl * 86400, redis_url=redis, instance=name,
                         lease_ttl=lease_ttl, analysis_workers=analysis_workers,
                         analysis_warm=True, bot_workers=bot_workers, bot_warm=True,
                         shutdown_timeout=shutdown_timeout,
                         rated_min_target=rated_min_target or None,
                         analysis_share=analysis_share, strong_bot_tables=strong_bot_tables,
                         board_opponents=board_opponents, settle_gc=True, **limits)
    except ValueError as exc:  # a rate limit storage that cannot be used
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        typer.echo(f"cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    site = f", Redis: {_safe(redis)}, instance {name}" if redis else ""
    typer.echo(f"Bela server on http://{shown}:{bound}/ (database: {_safe(url)}{site})",
               err=False)
    from uvicorn.config import WS_PROTOCOLS

    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"  # lighter
    config = uvicorn.Config(app, log_level=log_level, log_config=None,  # logs.setup's
                            ws=ws, ws_max_size=1024 * 1024,
                            http=header_timeout_protocol(header_timeout),
                            ws_ping_interval=20.0, ws_ping_timeout=20.0,
                            ws_per_message_deflate=False,  # small messages: CPU over bytes
                            timeout_graceful_shutdown=shutdown_timeout, lifespan="on")
    server = bounded_server(config, stop_limit(shutdown_timeout))
    server.run(sockets=[sock])



def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools) that closes a connection whose request headers
    are not all there ``seconds`` after it opened or after the request's first byte:
    uvicorn has no such timeout, and a client sending a header slowly would hold its
    connection forever."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderTimeout(HttpToolsProtocol):
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._timer = self.loop.call_later(seconds, self.transport.close)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._timer is None:
                self._timer = self.loop.call_later(seconds, self.transport.close)

        def on_headers_complete(self) -> None:
            self._headers_done()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._headers_done()
            super().connection_lost(exc)

        def _headers_done(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    return HeaderTimeout


def stop_limit(shutdown_timeout: float) -> float:
    """Seconds a stopping server may take in all before it is ended: the requests' grace,
    then the app's steps, each bounded (:mod:`bela.server.stopping`: at most two short
    steps, the tables' stop and the workers' grace, their termination), with room for the
    stacks of a step that overran.

    >>> stop_limit(5)
    22.0
    """
    from .stopping import STEP_LIMIT, TERMINATION

    return 2 * shutdown_timeout + 2 * STEP_LIMIT + TERMINATION + 3.5


def answer_times(text: str) -> dict[str, float]:
    """The ``--bot-answer`` settings: ``kind=seconds`` pairs, comma-separated.

    >>> answer_times("bid=2,card=1.5")
    {'bot_answer_bid': 2.0, 'bot_answer_card': 1.5}
    """
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, value = part.partition("=")
        if kind not in ("bid", "exchange", "discard", "card"):
            raise typer.BadParameter(f"--bot-answer: a kind is bid, exchange, discard or "
                                     f"card, not {kind!r}")
        try:
            seconds = float(value)
        except ValueError:
            raise typer.BadParameter(f"--bot-answer: {part!r} is not kind=seconds") from None
        if not 0 < seconds <= 60:
            raise typer.BadParameter("--bot-answer: 0 to 60 seconds")
        out[f"bot_answer_{kind}"] = seconds
    return out


def bounded_server(config: uvicorn.Config, limit: float,
                   exit_now: Callable[[int], object] | None = None) -> uvicorn.Server:
    """uvicorn's server whose stop is bounded: ``limit`` seconds after the first stop signal
    (SIGTERM, Ctrl-C) a process that has not exited writes to stderr where each of its
    event loop's tasks waits (the chain of awaits: a shutdown that hangs on an ``await``
    shows only the idle loop in the threads' stacks) and every thread's stack, and exits
    with status 1 (``exit_now``, tests: what is called instead), so that a hung shutdown
    neither holds its port and tables until it is killed nor hides its cause."""
    import faulthandler
    import logging
    import os
    import sys
    import threading

    import uvicorn

    from .stopping import write_task_stacks

    def stuck(loop: asyncio.AbstractEventLoop | None) -> None:
        logging.getLogger("bela.server").error(
            "the server had not stopped %.0f s after the stop signal: exiting; where its "
            "tasks wait and every thread's stack follow on stderr", limit)
        if loop is not None and not loop.is_closed():
            written = threading.Event()

            def write() -> None:
                write_task_stacks(sys.stderr)
                written.set()

            loop.call_soon_threadsafe(write)
            if not written.wait(2.0):
                print("the event loop did not run for 2 s: it is blocked (its thread's "
                      "stack below)", file=sys.stderr)
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        sys.stderr.flush()
        (exit_now or os._exit)(1)

    class BoundedServer(uvicorn.Server):
        watchdog: threading.Timer | None = None

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.watchdog is None:
                try:  # the signal handler runs in the loop's thread
                    loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
                except RuntimeError:
                    loop = None
                self.watchdog = threading.Timer(limit, stuck, (loop,))
                self.watchdog.daemon = True  # it never keeps a process that ended in time
                self.watchdog.start()
            super().handle_exit(sig, frame)

    return BoundedServer(config)


def _safe(url: str) -> str:
    """The URL without its password."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # pragma: no cover
        return url

"""A table as the server keeps it: its settings, seats, status and engine match.

Plain data, changed by the lobby while the table is open and by the table's actor
(:mod:`bela.server.actor`) once it runs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..engine import Match
from ..engine.variants import Deal, get_variant
from ..tournament import Format, Settings, board_deal


@dataclass
class ServerConfig:
    """Timing and limits of a server (seconds)."""

    grace: float = 60.0  # a disconnected player's seat is played by a bot after this
    bot_delay: float = 0.6  # a bot waits this long before it acts (0 in tests)
    round_pause: float = 2.0  # time to look at a finished round before the next deal
    allow_seed: bool = False  # tables may be created with a given seed (tests, tournaments)
    public_metrics: bool = False  # GET /metrics for any address, not only private networks
    max_message: int = 64 * 1024  # bytes of one client WebSocket message
    max_rate: int = 50  # client messages per second and connection; more are refused
    # Rate limits per client address (an IPv6 address counts by its /64), in the notation of
    # the `limits` library ("30/minute;300/hour"; "" for none), kept in a moving window in
    # the storage at `rate_limit_storage` (memory://, or redis://host:6379 when several
    # server processes share the limits).  docs/SECURITY.md gives the reasons of each.
    rate_limit_storage: str = "memory://"
    rate_requests: str = "1200/minute"  # every HTTP request
    rate_guests: str = "30/minute;300/hour"  # POST /api/guests
    rate_tables: str = "20/minute;200/hour"  # POST /api/tables
    rate_websockets: str = "120/minute"  # WebSocket connection attempts
    # logins, account claims and password changes per address; login attempts per account
    # name, right or wrong, from anywhere (a password change's check of the old one too: a
    # guesser spread over many addresses is stopped as well)
    rate_logins: str = "10/minute;60/hour"
    rate_login_attempts: str = "20/hour"
    # Table talk (docs/SECURITY.md, Talk): phrases and lines of free text per player and
    # per address; free text's longest line and the operator's word filter (masked)
    rate_talk: str = "5/10seconds;30/minute"
    rate_talk_address: str = "15/10seconds;120/minute"
    talk_max_length: int = 200
    talk_words: tuple[str, ...] = ()
    tables_per_guest: int = 3  # open or running tables a guest created
    # Per client address and server process: WebSockets open at once, and HTTP requests
    # in flight at once (a slow body holds one); more are refused (429).  A request's body
    # must arrive within body_timeout seconds of its headers (else 408, connection closed).
    sockets_per_address: int = 32
    requests_per_address: int = 64
    body_timeout: float = 10.0
    open_table_ttl: float = 1800.0  # an open table without seat changes this long is closed
    unwatched_bot_table_ttl: float = 300.0  # a running all-bot table nobody watches is closed
    sweep_every: float = 30.0  # how often the two above are checked
    listing_ttl: float = 1.0  # GET /api/tables is rebuilt at most this often (or on change)
    token_ttl: float = 30 * 86400.0  # a guest token unused this long expires
    min_turn_clock: int = 15  # the bounds of a table's turn clock (tests: shorter)
    max_turn_clock: int = 600
    # Quick play: the seconds a player waits for others before bots fill the empty seats
    # (his choice within the range; the default), and the turn clock of its tables.
    quick_wait: int = 30
    min_quick_wait: int = 5
    max_quick_wait: int = 300
    quick_turn_clock: int | None = 60
    # Ratings (docs/SECURITY.md "Fair shares and ratings"): only public tables that play to
    # at least this target (None: the variant's default target) are rated, and quick play.
    rated_min_target: int | None = None
    board_opponents: int = 5  # distinct opponents before the leaderboard lists an account
    # One of several instances of a site (bela.server.cluster): the Redis they share
    # (None: this process alone), this instance's name, and the seconds a table's lease
    # lasts unrenewed (how soon another instance takes over the tables of one that died).
    redis_url: str | None = None
    instance: str = ""
    lease_ttl: float = 5.0
    # The analysis board (bela.server.analysis): its worker processes (reviews use all but
    # one of them, so that positions are answered at once), the jobs that may wait for them
    # beyond one each (more are refused: too_busy), and how long a finished review's result
    # is kept.
    analysis_workers: int = 2
    analysis_warm: bool = False  # start the workers with the app (bela serve), not at first use
    settle_gc: bool = False  # bela serve: the garbage collector settled once started (app.py)
    analysis_queue: int = 8
    analysis_share: int = 4  # jobs in flight of one address, or one player (0: no share):
    # one analysis page asks for up to three at once (the review's check, a position, a bidding)
    analysis_hints: int = 2  # hints running or waiting, places the other jobs never take
    # The bot pool (bela.server.botpool): running tables with strong (pooled) bots a player
    # or an address may start (0: no limit), and a strong bot's answer time per decision
    # kind: its move is sent max(bot_delay, that) seconds after its turn began, never sooner
    # or later (its search stops in time; if it cannot, the heuristic's move is sent then).
    # 0: no answer time, the move comes when decided, at bot_delay at the soonest (tests
    # only: the think time shows).  docs/SECURITY.md, Timing.
    strong_bot_tables: int = 2
    bot_answer_bid: float = 1.0
    bot_answer_exchange: float = 0.6
    bot_answer_discard: float = 3.0
    bot_answer_card: float = 1.0
    review_ttl: float = 3600.0
    # A stopping server (SIGTERM, Ctrl-C) gives its connections and requests this long to
    # end (uvicorn's graceful shutdown, ``bela serve``); then its tables stop and its bot
    # and analysis workers get what is left of as long again (the app's lifespan); what is
    # still running then is cancelled and the process exits.
    shutdown_timeout: float = 5.0


class TableStatus(StrEnum):
    """A table's life: seats are taken, the match is played, it is over (``closed``: ended
    without a result, by its creator or by the server's sweep)."""

    OPEN = "open"
    RUNNING = "running"
    FINISHED = "finished"
    CLOSED = "closed"


@dataclass
class Seat:
    """Who sits in a seat; ``autopilot``: a bot plays for its absent player."""

    player_id: str | None = None
    name: str = ""
    is_bot: bool = False
    autopilot: bool = False
    # the client address the seat was taken from (in memory only: a restart forgets it); two
    # human seats of one address make an unrated match (bela.server.ratings)
    address: str | None = None
    away_until: float | None = None  # the time.monotonic() its grace ends: the bot plays
    bot: str | None = None  # a bot seat's own bot (a tournament's bot entry); None: the table's

    @property
    def free(self) -> bool:
        return self.player_id is None and not self.is_bot

    @property
    def bot_controlled(self) -> bool:
        return self.is_bot or self.autopilot


@dataclass
class Table:
    """One table: settings, seats, and from its start the match with its event count
    (``seq``: deals and actions) and the last action."""

    id: str
    variant: str
    options: dict[str, Any]
    seed: int
    bot: str
    status: TableStatus
    owner_id: str | None
    seats: list[Seat]
    match: Match | None = None
    seq: int = 0
    last: tuple[int, str] | None = None  # (seat, token) of the last action
    result: dict[str, Any] | None = None
    record: dict[str, Any] | None = None
    bot_failures: int = 0  # moves the table's bot failed (a fallback made them)
    private: bool = False  # not listed; seats are taken with the invite code only
    invite_code: str | None = None  # of a private table
    created_at: float = 0.0  # time.time() of the creation (the lobby list's order)
    active_at: float = 0.0  # time.time() of the creation or the last seat change
    watched_at: float = 0.0  # time.time() the table started or a connection came or went
    turn_clock: int | None = None  # seconds a player has per turn (None: no clock)
    clock: tuple[int, float] | None = None  # the running clock: seat, time.monotonic() deadline
    rated: bool = False  # its result moves the players' ratings (see bela.server.ratings)
    origin: str | None = None  # "analysis": a play-on, whose first rounds were played elsewhere
    owner_address: str | None = None  # the creator's client address (in memory only)
    thinking: int | None = None  # the seat whose bot is over its delay (hub.send_thinking)
    ratings: list[dict[str, int]] | None = None  # a rated finish: each seat's before, after
    # a duplicate tournament's table: the boards it deals, in order (board_deal), and its
    # match ends after them; (): a match to its target
    boards: tuple[int, ...] = ()

    def board_deal(self, idx: int) -> Deal:
        """The cards of round ``idx`` of a table with boards: its board's
        (:func:`bela.tournament.board_deal` of the table's seed: every table of a duplicate
        round holds the same cards at the same seats, whoever deals).  A table without
        boards deals :func:`round_deal`.

        >>> t = Table("t", "bela2", {}, 9, "heuristic", TableStatus.OPEN, None, [], boards=(5,))
        >>> u = Table("u", "bela2", {}, 9, "heuristic", TableStatus.OPEN, None, [], boards=(5,))
        >>> t.board_deal(0) == u.board_deal(0) != round_deal("bela2", 9, 0, 1)
        True
        """
        settings = Settings(self.variant, Format.DUPLICATE, rounds=1, boards=len(self.boards),
                            seed=self.seed)
        return board_deal(settings, self.boards[idx])

    @property
    def played_out(self) -> bool:
        """Is the match over: won (R25), or, at a table with boards, its last board played
        (a redealt deal, R35, counts as its board played)."""
        m = self.match
        if m is None:
            return False
        return m.is_over or (bool(self.boards) and len(m.rounds) >= len(self.boards)
                             and m.rounds[-1].is_over)

    def bot_of(self, seat: int) -> str:
        """The spec of the bot that plays ``seat`` (when a bot does): the seat's own, else
        the table's."""
        return self.seats[seat].bot or self.bot

    def seat_of(self, player_id: str | None) -> int | None:
        """The seat of ``player_id`` at this table, if any."""
        if player_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s.player_id == player_id:
                return i
        return None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]


def round_deal(variant: str, seed: int, idx: int, dealer: int) -> Deal:
    """The deal of round ``idx`` of a table with ``seed`` (the same on every run)."""
    return get_variant(variant).shuffle(random.Random(f"bela:{seed}:{idx}"), dealer)


def bot_seed(seed: int, seq: int, seat: int) -> int:
    """The seed a bot decides with at event ``seq``: a restarted server decides the same."""
    return (seed * 1_000_003 + seq) * 8 + seat

"""The analysis board's server side: position values, match reviews, bidding simulations,
going on from a position at a table, and hints at unrated tables against bots.

The work itself (:mod:`bela.server.analysis_work`: the double-dummy solver, sampled deals,
reviews) runs off the event loop in a pool of worker processes (:class:`Pool`,
``ServerConfig.analysis_workers``, started with the app; a worker loads the solver's
compiled kernels when it starts, on the first analysis after a start).  ``analysis_queue``
jobs may wait beyond one per worker; more are refused (429 ``too_busy``).  Each client has
a fair share: at most ``analysis_share`` jobs of one address, and of one player when the
request has a token, in flight at once (more are refused ``too_busy`` before the queue is
looked at).  Hints have their own ``analysis_hints`` places, never taken by the other jobs,
and go to the next free worker before the jobs waiting (docs/SECURITY.md, "Fair shares and
ratings").  A review runs
round by round (its progress is the rounds done), one per worker at a time, the others
queued; at most :data:`REVIEWS_EACH` of one player (or, without a token, one address) are
unfinished at a time, and a finished one is kept ``review_ttl`` seconds.  See
docs/PROTOCOL.md, "Analysis".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from . import analysis_work as work
from .answers import Hint, ReviewStatus, TableSummary
from .auth import Player, Viewer, current_player
from .botpool import stop_workers
from .errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Refused,
    TooMany,
    Unauthenticated,
    Unavailable,
)
from .lobby import Lobby
from .model import ServerConfig, Table, TableStatus, bot_seed
from .ratelimit import address_key
from .stopping import ended
from .store import BrokenLog

log = logging.getLogger("bela.server")

router = APIRouter()

Answer = dict[str, Any]
# the routes answering a review's progress (its plays once done, its error once failed)
REVIEW: dict[str, Any] = {"response_model": ReviewStatus, "response_model_exclude_unset": True}

REVIEWS_EACH = 2  # unfinished reviews of one player or address
MAX_REVIEWS = 1000  # reviews kept in memory; the oldest finished go first
RETRY_AFTER = 2  # seconds: the Retry-After of a too_busy refusal

# the kind of each refusal the work answers with (its HTTP status, bela.server.app)
REFUSALS: dict[str, type[Refused]] = {
    "bad_record": InvalidInput, "bad_position": InvalidInput, "bad_seat": InvalidInput,
    "position_over": Conflict, "no_turn": Conflict}


class Pool:
    """The worker processes of the analysis: ``workers`` jobs run at once, at most ``queue``
    more wait; a crashed worker's pool is replaced (its jobs fail as ``analysis_failed``).
    A client (each of the keys a job names) has at most ``share`` jobs in flight; hints
    have ``hints`` places of their own and are given the next free worker first."""

    def __init__(self, workers: int, queue: int, share: int = 0, hints: int = 1) -> None:
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        self.share = share  # 0: no share per client
        self.hints = max(1, hints)
        self._executor: ProcessPoolExecutor | None = None
        self._jobs: set[Future[Answer]] = set()  # submitted and not done
        self._admitted = {True: 0, False: 0}  # hint or not: jobs running or waiting
        self._clients: Counter[str] = Counter()  # jobs running or waiting of each client
        self._running = 0  # jobs given a worker
        self._turns: dict[bool, deque[asyncio.Future[None]]] = {True: deque(),
                                                                  False: deque()}

    @property
    def pending(self) -> int:
        """Jobs running or waiting."""
        return self._admitted[True] + self._admitted[False]

    def _admit(self, clients: Sequence[str], hint: bool) -> None:
        """Refuse a job (``too_busy``) when one of its clients has his share in flight, or
        the places of its kind are taken."""
        if self.share:
            for key in clients:
                if self._clients[key] >= self.share:
                    raise TooMany("too_busy", f"you have {self.share} analyses under way "
                                  "(the share of one player or address): wait for one",
                                  RETRY_AFTER)
        places = self.hints if hint else self.workers + self.queue
        if self._admitted[hint] >= places:
            raise TooMany("too_busy", "the analysis is busy: try again in a moment",
                          RETRY_AFTER)

    async def _turn(self, hint: bool) -> None:
        """Wait for a free worker: hints first, then the other jobs in their order."""
        if self._running < self.workers and not self._turns[True] and (
                hint or not self._turns[False]):
            self._running += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._turns[hint].append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given a worker it will not use
                self._done()
            raise

    def _done(self) -> None:
        """A worker is free: the next job waiting gets it."""
        self._running -= 1
        while self._running < self.workers:
            waiting = self._turns[True] or self._turns[False]
            if not waiting:
                return
            turn = waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                self._running += 1

    def start(self) -> None:
        """Make the pool (its processes start with the first jobs; ``spawn``: a fresh
        interpreter, never a fork of the server's threads)."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=work.init)

    async def stop(self, grace: float | None = None) -> None:
        """Cancel the waiting jobs, give the running ones ``grace`` seconds to end (None: as
        long as they take) and the processes exit (:func:`~.botpool.stop_workers`)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(stop_workers, executor, grace)

    async def run(self, fn: Callable[..., Answer], *args: Any, admit: bool = True,
                  clients: Sequence[str] = (), hint: bool = False) -> Answer:
        """``fn(*args)`` in a worker: its answer.  ``admit``: refused (``too_busy``) when
        one of ``clients`` has his share in flight or the queue (a ``hint``: the hints'
        places) is full; a job of work already admitted (a review's next round) waits."""
        if admit:
            self._admit(clients, hint)
        if self._executor is None:
            raise Unavailable("analysis_unavailable", "the analysis is not running")
        self._admitted[hint] += 1
        self._clients.update(clients)
        try:
            await self._turn(hint)
            try:
                return await self._submit(fn, *args)
            finally:
                self._done()
        finally:
            self._admitted[hint] -= 1
            self._clients.subtract(clients)
            for key in clients:
                if self._clients[key] <= 0:
                    del self._clients[key]

    async def _submit(self, fn: Callable[..., Answer], *args: Any) -> Answer:
        executor = self._executor
        if executor is None:
            raise Unavailable("analysis_unavailable", "the analysis is not running")
        try:
            job: Future[Answer] = executor.submit(fn, *args)
            self._jobs.add(job)
            job.add_done_callback(self._jobs.discard)
            return await asyncio.wrap_future(job)
        except BrokenProcessPool:  # a worker died (killed, out of memory...)
            log.error("an analysis worker died; its pool is replaced")
            if self._executor is executor:
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None
                self.start()
            raise Unavailable("analysis_failed", "the analysis failed: try again") from None


@dataclass
class Review:
    """One match review: its progress in rounds, and its costly plays once done."""

    id: str
    owner: str
    record: dict[str, Any]
    seats: int
    total: int
    status: str = "queued"  # running, done, failed
    done: int = 0
    plays: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    ended_at: float | None = None  # time.monotonic() it was done or failed
    task: asyncio.Task[None] | None = None

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    def json(self) -> Answer:
        """The answer of ``GET /api/analysis/reviews/{id}``."""
        out: Answer = {"id": self.id, "status": self.status, "done": self.done,
                       "total": self.total}
        if self.status == "done":
            out["plays"] = self.plays
            out.update(work.summary(self.plays, self.seats))
        if self.error is not None:
            out["error"] = self.error
        return out


class Analysis:
    """The analysis of one app: its worker pool and its reviews (event loop only)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.pool = Pool(config.analysis_workers, config.analysis_queue,
                         config.analysis_share, config.analysis_hints)
        self.reviews: dict[str, Review] = {}
        self._slots = asyncio.Semaphore(self.review_slots)
        self._warming: asyncio.Task[None] | None = None
        self.warmed_in: float | None = None  # seconds the warm-up took, once done

    @property
    def review_slots(self) -> int:
        """Reviews running at once: one worker fewer than the pool has (when it has two or
        more), so that a position asked for meanwhile is answered at once."""
        return max(1, self.pool.workers - 1)

    def start(self) -> None:
        self._slots = asyncio.Semaphore(self.review_slots)  # of the app's event loop
        self.pool.start()
        if self.config.analysis_warm:  # every worker loads the solver now, in the background
            self._warming = asyncio.get_running_loop().create_task(self._warm(),
                                                                   name="analysis warm-up")

    async def _warm(self) -> None:
        """Start every worker and let it load (the first time after an install: compile)
        the solver, so the first analysis a player asks for is answered at once."""
        started = time.monotonic()
        try:
            await asyncio.gather(*(self.pool.run(work.ready, admit=False)
                                   for _ in range(self.pool.workers)))
        except Exception:
            log.warning("the analysis workers could not be warmed up", exc_info=True)
            return
        self.warmed_in = time.monotonic() - started
        log.info("analysis workers ready in %.1f s", self.warmed_in)

    async def stop(self, grace: float | None = None) -> None:
        """Stop the reviews and the workers (their running jobs get ``grace`` seconds)."""
        await ended(self._warming, *(review.task for review in self.reviews.values()))
        await self.pool.stop(grace)

    async def run(self, fn: Callable[..., Answer], *args: Any, admit: bool = True,
                  clients: Sequence[str] = (), hint: bool = False) -> Answer:
        """A job's answer; its refusal raised as the domain error of its kind."""
        answer = await self.pool.run(fn, *args, admit=admit, clients=clients, hint=hint)
        problem = answer.get("error")
        if problem is not None:
            raise REFUSALS.get(problem["code"], InvalidInput)(problem["code"],
                                                             problem["message"])
        return answer

    # -- reviews -----------------------------------------------------------------------------
    async def review(self, record: dict[str, Any], owner: str,
                     clients: Sequence[str] = ()) -> Review:
        """Start reviewing a record for ``owner`` (a player's id or an address): refused
        when he has :data:`REVIEWS_EACH` unfinished, when the reviews waiting fill the
        queue, and for an invalid record."""
        self._purge()
        mine = sum(1 for r in self.reviews.values() if r.active and r.owner == owner)
        if mine >= REVIEWS_EACH:
            raise TooMany("too_many_reviews", f"at most {REVIEWS_EACH} reviews at a time: "
                          "wait for one to finish", RETRY_AFTER)
        active = sum(1 for r in self.reviews.values() if r.active)
        if active >= self.pool.workers + self.pool.queue or len(self.reviews) >= MAX_REVIEWS:
            raise TooMany("too_busy", "the analysis is busy: try again in a moment",
                          RETRY_AFTER)
        # counted from now on: requests sent at once cannot all pass the limits above
        review = Review(secrets.token_urlsafe(12), owner, record, 0, 0)
        self.reviews[review.id] = review
        try:
            facts = await self.run(work.check, record, clients=clients)
        except BaseException:
            del self.reviews[review.id]
            raise
        review.seats, review.total = facts["seats"], facts["rounds"]
        review.task = asyncio.get_running_loop().create_task(self._review(review),
                                                             name=f"review {review.id}")
        return review

    def get(self, review_id: str) -> Review:
        self._purge()
        review = self.reviews.get(review_id)
        if review is None:
            raise NotFound("unknown_review", f"there is no review {review_id!r} (a finished "
                           f"review is kept {self.config.review_ttl:g} s)")
        return review

    async def _review(self, review: Review) -> None:
        """Review the rounds one by one (at most :attr:`review_slots` reviews at a time)."""
        try:
            async with self._slots:
                review.status = "running"
                for i in range(review.total):
                    answer = await self.run(work.review_round, review.record, i, admit=False)
                    review.plays.extend(answer["plays"])
                    review.done = i + 1
            review.status = "done"
        except asyncio.CancelledError:
            review.status, review.error = "failed", "the server stopped"
            raise
        except Exception as exc:
            log.exception("review %s failed", review.id)
            review.status = "failed"
            review.error = exc.message if isinstance(exc, Refused) else "the review failed"
        finally:
            review.ended_at = time.monotonic()
            review.record = {}
            review.task = None

    def _purge(self) -> None:
        """Forget the reviews finished ``review_ttl`` ago, and the oldest finished ones
        beyond :data:`MAX_REVIEWS`."""
        now = time.monotonic()
        for rid, r in list(self.reviews.items()):
            if r.ended_at is not None and now - r.ended_at >= self.config.review_ttl:
                del self.reviews[rid]
        ended = sorted((r.ended_at, rid) for rid, r in self.reviews.items()
                       if r.ended_at is not None)
        for _, rid in ended[:max(0, len(self.reviews) - MAX_REVIEWS + 1)]:
            del self.reviews[rid]


# -- requests --------------------------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PositionIn(_Body):
    """``POST /api/analysis/position``."""

    record: dict[str, Any]
    round: StrictInt
    step: StrictInt
    seat: StrictInt | None = None


class ReviewIn(_Body):
    """``POST /api/analysis/reviews``."""

    record: dict[str, Any]


class BiddingIn(_Body):
    """``POST /api/analysis/bidding``."""

    record: dict[str, Any]
    round: StrictInt


class PlayOnIn(_Body):
    """``POST /api/analysis/play-on``: the position, and the seat the player takes."""

    record: dict[str, Any]
    round: StrictInt
    step: StrictInt
    seat: StrictInt = Field(ge=0, le=3)


def _analysis(request: Request) -> Analysis:
    service: Analysis = request.app.state.analysis
    return service


async def clients_of(request: Request, player: dict[str, Any] | None = None) -> list[str]:
    """The clients a request's job counts against: its address, and its player (the one
    given, else the request's token's, when it has a valid one)."""
    address = address_key(request.client.host if request.client else None)
    if player is None and request.headers.get("authorization") is not None:
        with contextlib.suppress(Unauthenticated):
            player = await current_player(request, request.headers.get("authorization"))
    return [f"address:{address}"] + ([f"player:{player['id']}"] if player else [])


@router.post("/api/analysis/position")
async def analyse_position(body: PositionIn, request: Request) -> Answer:
    """A position of a record: hands, view, legal actions, double-dummy and sampled
    values (see :func:`bela.server.analysis_work.position`)."""
    return await _analysis(request).run(work.position, body.record, body.round, body.step,
                                        body.seat, clients=await clients_of(request))


@router.post("/api/analysis/reviews", **REVIEW)
async def start_review(body: ReviewIn, request: Request, v: Viewer) -> Answer:
    """Review a record's card play (progress: rounds done of the total)."""
    owner = v["id"] if v is not None else "address:" + address_key(
        request.client.host if request.client else None)
    return (await _analysis(request).review(body.record, owner,
                                            await clients_of(request, v))).json()


@router.get("/api/analysis/reviews/{review_id}", **REVIEW)
async def get_review(review_id: str, request: Request) -> Answer:
    """A review's progress; once done its costly plays, the points lost by seat and the
    costliest plays."""
    return _analysis(request).get(review_id).json()


@router.post("/api/analysis/bidding")
async def analyse_bidding(body: BiddingIn, request: Request) -> Answer:
    """What the bots' simulation gave each contract at every bid of a round."""
    return await _analysis(request).run(work.bidding, body.record, body.round,
                                        clients=await clients_of(request))


@router.post("/api/analysis/play-on", response_model=TableSummary,
             response_model_exclude_unset=True)
async def play_on(body: PlayOnIn, request: Request, p: Player) -> Answer:
    """A private, unrated table going on from the position, the player in ``seat`` and
    heuristic bots in the others: its summary (the creator's, with its invite code)."""
    answer = await _analysis(request).run(work.log_at, body.record, body.round, body.step,
                                          clients=await clients_of(request, p))
    result: Answer = await request.app.state.router.play_on(p, answer["log"], body.seat)
    return result


@router.get("/api/tables/{table_id}/hint", response_model=Hint)
async def hint(table_id: str, request: Request, p: Player) -> Answer:
    """What the ``pimc`` bot would do in the player's place, at his turn at an unrated table
    where every other seat is a bot (403 ``hint_not_allowed`` elsewhere); ``seq``: the
    state it is for."""
    table = _running_table(request.app.state.lobby, table_id)
    seat = table.seat_of(p["id"])
    if seat is None:
        raise Forbidden("hint_not_allowed", "hints are for the players seated at a table")
    if table.rated:
        raise Forbidden("hint_not_allowed", "no hints at a rated table")
    if any(not s.is_bot for i, s in enumerate(table.seats) if i != seat):
        raise Forbidden("hint_not_allowed", "hints are only given against bots: another "
                        "player sits at this table")
    m = table.match
    if m is None or m.round is None or m.round.is_over or m.round.turn != seat:
        raise Conflict("not_your_turn", "a hint is for your turn")
    seq = table.seq
    answer = await _analysis(request).run(work.hint, work.match_log(m), seat,
                                          bot_seed(table.seed, seq, seat), hint=True,
                                          clients=await clients_of(request, p))
    return {**answer, "seq": seq}


def _running_table(lobby: Lobby, table_id: str) -> Table:
    """A running table: this process's, or one another instance runs, rebuilt from its
    stored log (the log is the truth)."""
    table = lobby.tables.get(table_id)
    if table is None and len(table_id) <= 32:
        row = lobby.store.db.tables.load_table(table_id, with_log=True)
        if row is not None and row["status"] == TableStatus.RUNNING:
            with contextlib.suppress(BrokenLog):
                table = lobby.store.rebuild(row)
    if table is None:
        table = lobby.require(table_id)
    if table.status != TableStatus.RUNNING:
        raise Conflict("not_running", "the match is not being played")
    return table

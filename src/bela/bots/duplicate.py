"""Duplicate-deal evaluation of two bots, in every variant.

Each deal (a seeded shuffle of the variant) is played several times with the same cards at
the same seats, the bots changing seats, so that the luck of the cards cancels out and what
is left is the difference in play:

* ``bela4`` (dealer seat 3): twice, bot A at seats 0 and 2 and bot B at seats 1 and 3, then
  the other way round; a game scores A's side's round score less B's side's.
* ``bela2``, ``belot2`` (dealer seat 1): twice, A at seat 0 and B at seat 1, then swapped; a
  game scores A's round score less B's.
* ``bela3`` (dealer seat 2, each for himself): three times, A taking seat 0 (the caller,
  R26), then seat 1, then seat 2, and B the other two seats; a game scores A's round score
  less the mean of the two B seats' scores.

A deal scores the sum of its games, and the result is the mean of that over the deals, with
its standard deviation and a 95% confidence interval (normal approximation).  Each round is
scored alone (target 5001, the highest, which no round reaches); a redeal (belot2, R35)
scores 0.  A deal is also a *match*: A wins it when its score is above 0, loses it below 0,
and draws at 0; from the score rate
``s = (wins + draws/2) / deals`` comes an Elo estimate (:func:`elo_estimate`).

The bot at a seat gets a seed that depends only on the run seed, the deal and the seat, so in
the two-sided variants ``duplicate_match(a, b)`` and ``duplicate_match(b, a)`` play the very
same games and their means are exact opposites (in bela3 the two runs differ: A holds one
seat, B two).  For the same reason the deals are independent of each other, and
``duplicate_match`` can play them in chunks on several processes (``workers=N``) or on a Ray
cluster (``ray_address=...``) with exactly the serial result.

Every game runs through the one driver (:mod:`bela.bots.driver`): a bot that raises or
chooses an illegal action does not stop the run; the seeded fallback moves for it, and the
result counts those moves per bot (``failures``, out of ``moves``) with each bot's first
failure, for :func:`failure_warning` to tell.

>>> r = duplicate_match("random", "random", deals=3, seed=1)
>>> r.n, r.games, r.diffs == duplicate_match("random", "random", deals=3, seed=1).diffs
(3, 6, True)
>>> duplicate_match("random", "random", deals=2, seed=1, variant="bela3").games
6
>>> round(elo_estimate(wins=3, draws=0, losses=1).elo)
191
"""

from __future__ import annotations

import math
import pickle
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..engine import Match
from ..engine.events import Event
from ..engine.variants import VARIANTS, get_variant
from .base import Bot
from .driver import Driver

BotSpec = str | Callable[[int | None], Bot]
DEALER = 3  # bela4
def first_seat_dealer(variant: str) -> int:
    """The dealer that makes seat 0 the first seat (R5): the last seat."""
    return get_variant(variant).seats - 1

Z95 = 1.96

# (deal index, hands, extra cards): one deal as it travels to a worker
DealCards = tuple[int, list[list[int]], dict[str, list[int]]]
# called with (deal index, game index, RECORD.md object) for every game played
Recorder = Callable[[int, int, dict[str, Any]], None]


@dataclass(frozen=True)
class Elo:
    """An Elo difference estimated from a score rate, with its 95% interval."""

    score: float  # (wins + draws/2) / n, as played
    score_low: float  # Wilson 95% interval of the score rate
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    clamped: bool  # s was 0 or 1: it and an end of its interval were moved off 0 or 1


def _elo(s: float) -> float:
    return 400 * math.log10(s / (1 - s))


def elo_estimate(wins: int, draws: int, losses: int) -> Elo:
    """Elo difference ``400 log10(s / (1 - s))`` from the score rate ``s = (wins + draws/2)
    / n``, with a 95% interval from the Wilson score interval of ``s``.  At a rate of 0 or 1
    the Elo is infinite, so a rate (``s`` or an end of its interval) of 0 is taken as
    ``1/(2n+2)`` and one of 1 as ``1 - 1/(2n+2)`` (about half a game off a clean sweep), and
    ``clamped`` says so; this happens exactly when ``s`` is 0 or 1.

    >>> e = elo_estimate(5, 0, 5)
    >>> e.elo, e.elo_low < 0 < e.elo_high
    (0.0, True)
    >>> elo_estimate(4, 0, 0).clamped
    True
    """
    n = wins + draws + losses
    if n < 1:
        raise ValueError("no games to rate")
    s = (wins + draws / 2) / n
    z2 = Z95 * Z95
    centre = (s + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(s * (1 - s) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if s == 0 else max(0.0, centre - half)
    hi = 1.0 if s == 1 else min(1.0, centre + half)
    eps = 1 / (2 * n + 2)
    clamp = [eps if x <= 0 else 1 - eps if x >= 1 else x for x in (s, lo, hi)]
    return Elo(s, lo, hi, _elo(clamp[0]), _elo(clamp[1]), _elo(clamp[2]), s in (0, 1))


@dataclass(frozen=True)
class DuplicateResult:
    """The result of :func:`duplicate_match`, from bot A's point of view; ``failures``
    counts the moves the driver's fallback made for a failing bot (:func:`failure_warning`)."""

    bot_a: str
    bot_b: str
    n: int  # deals (each played ``per_deal`` times)
    mean: float  # mean point difference per deal, from A's point of view
    sd: float
    ci_low: float
    ci_high: float
    diffs: tuple[float, ...] = field(repr=False)
    seconds: float = 0.0
    variant: str = "bela4"
    per_deal: int = 2
    workers: int = 1
    failures: tuple[int, int] = (0, 0)  # moves the fallback made for A's bot, for B's
    moves: tuple[int, int] = (0, 0)  # all moves at A's seats, at B's (the fallback's too)
    errors: tuple[str | None, str | None] = (None, None)  # each bot's first failure
    seat: int | None = None  # only the games where A held this seat were played

    @property
    def games(self) -> int:
        return self.per_deal * self.n

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)

    @property
    def wins(self) -> int:
        """Deals where A scored more than B over all the deal's games."""
        return sum(1 for d in self.diffs if d > 0)

    @property
    def draws(self) -> int:
        return sum(1 for d in self.diffs if d == 0)

    @property
    def losses(self) -> int:
        return sum(1 for d in self.diffs if d < 0)

    @property
    def win_rate(self) -> float:
        return self.wins / self.n

    @property
    def elo(self) -> Elo:
        return elo_estimate(self.wins, self.draws, self.losses)


def _factory(spec: BotSpec) -> tuple[str, Callable[[int | None], Bot]]:
    if isinstance(spec, str):
        from . import make_bot

        make_bot(spec, 0)  # fail early on an unknown bot or bad settings
        return spec, lambda seed: make_bot(spec, seed)
    return getattr(spec, "name", getattr(spec, "__name__", "bot")), spec


def _seat_seed(seed: int, deal: int, seat: int) -> int:
    return (seed * 1_000_003 + deal) * 8 + seat


def seatings(variant: str, seat: int | None = None) -> list[tuple[int, ...]]:
    """The seats bot A takes in each game of a deal (B takes the others); with ``seat``
    only the games where A holds that seat.

    >>> seatings("bela3"), seatings("bela3", 0), seatings("bela4", 1)
    ([(0,), (1,), (2,)], [(0,)], [(1, 3)])
    """
    v = get_variant(variant)
    if seat is not None and not 0 <= seat < v.seats:
        raise ValueError(f"seat must be 0 .. {v.seats - 1} in {variant}, not {seat}")
    games = [tuple(s for s in range(v.seats) if v.side_of(s) == side)
             for side in range(v.sides)]
    return [g for g in games if seat is None or seat in g]


class _Tally:
    """The moves, the fallback's moves and the first failure of bot A (0) and bot B (1) over
    a deal's games; ``side`` maps the seats of the game being played to 0 or 1."""

    def __init__(self) -> None:
        self.side: list[int] = []
        self.moves = [0, 0]
        self.failures = [0, 0]
        self.errors: list[str | None] = [None, None]

    def moved(self, seat: int, _events: tuple[Event, ...]) -> None:
        self.moves[self.side[seat]] += 1

    def failed(self, seat: int, exc: BaseException) -> None:
        who = self.side[seat]
        self.failures[who] += 1
        if self.errors[who] is None:
            self.errors[who] = f"{type(exc).__name__}: {exc}"


def _play(hands: Sequence[Sequence[int]], bots: list[Bot], variant: str,
          extra: Mapping[str, Sequence[int]] | None, seed: int = 0,
          tally: _Tally | None = None) -> Match:
    """One round of the given cards, played through the driver (``seed`` seeds the
    fallback of a failing bot); ``tally`` counts the moves and failures."""
    m = Match(variant, options={"target": 5001}, first_dealer=first_seat_dealer(variant))
    driver = Driver(m, dict(enumerate(bots)), seed=seed,
                    on_failure=None if tally is None else tally.failed)
    driver.deal(hands, extra)
    driver.run_bots(None if tally is None else tally.moved)
    return m


def play_round(hands: Sequence[Sequence[int]], bots: list[Bot], variant: str = "bela4",
               extra: Mapping[str, Sequence[int]] | None = None) -> tuple[int, ...]:
    """Play one round of the given hands (and extra cards, e.g. ``turned``) with the
    variant's duplicate dealer (seat 0 first); the per-side scores."""
    rnd = _play(hands, bots, variant, extra).rounds[-1]
    assert rnd.result is not None
    return tuple(rnd.result.scores)


def game_score(scores: Sequence[int], a_seats: tuple[int, ...], variant: str) -> float:
    """A game's score from A's point of view (see the module docstring)."""
    v = get_variant(variant)
    a_sides = {v.side_of(s) for s in a_seats}
    b_sides = [v.side_of(s) for s in range(v.seats) if s not in a_seats]
    b_sides = sorted(set(b_sides)) if v.partners else b_sides
    a = sum(scores[s] for s in a_sides)
    return a - sum(scores[s] for s in b_sides) / len(b_sides)


def deal_cards(variant: str, seed: int, deals: int) -> Iterator[DealCards]:
    """The run's deals, in order: all from one generator seeded by ``seed``."""
    v = get_variant(variant)
    rng = random.Random(seed)
    for i in range(deals):
        deal = v.shuffle(rng, first_seat_dealer(variant))
        yield (i, [list(h) for h in deal.hands], {k: list(c) for k, c in deal.extra.items()})


@dataclass(frozen=True)
class DealOutcome:
    """One deal played: its score for A, its games' records when asked for, and bot A's and
    bot B's moves, fallback moves and first failure (see :class:`DuplicateResult`)."""

    index: int
    diff: float
    records: tuple[dict[str, Any], ...] = ()
    failures: tuple[int, int] = (0, 0)
    moves: tuple[int, int] = (0, 0)
    errors: tuple[str | None, str | None] = (None, None)


def play_deals(bot_a: BotSpec, bot_b: BotSpec, variant: str, seed: int,
               chunk: Sequence[DealCards], record: bool = False,
               seat: int | None = None) -> list[DealOutcome]:
    """Play whole deals (a chunk of :func:`deal_cards`; with ``seat`` only the games where
    A holds it): the unit of work of a worker process or a Ray task.  A game's record names
    the bot (spec) at each seat."""
    a, b = _factory(bot_a), _factory(bot_b)
    return [_play_deal(a, b, variant, seed, c, record, seat) for c in chunk]


def _play_deal(a: tuple[str, Callable[[int | None], Bot]],
               b: tuple[str, Callable[[int | None], Bot]], variant: str, seed: int,
               cards: DealCards, record: bool, seat: int | None = None) -> DealOutcome:
    from ..engine.record import to_record

    (name_a, make_a), (name_b, make_b) = a, b
    seats = get_variant(variant).seats
    i, hands, extra = cards
    total = 0.0
    records = []
    tally = _Tally()
    for a_seats in seatings(variant, seat):
        tally.side = [0 if s in a_seats else 1 for s in range(seats)]
        bots = [(make_a if s in a_seats else make_b)(_seat_seed(seed, i, s))
                for s in range(seats)]
        m = _play(hands, bots, variant, extra, seed * 1_000_003 + i, tally)
        rnd = m.rounds[-1]
        assert rnd.result is not None
        total += game_score(tuple(rnd.result.scores), a_seats, variant)
        if record:
            players = [name_a if s in a_seats else name_b for s in range(seats)]
            records.append(to_record(m, players=players))
    diff = int(total) if total == int(total) else total
    return DealOutcome(i, diff, tuple(records), (tally.failures[0], tally.failures[1]),
                       (tally.moves[0], tally.moves[1]), (tally.errors[0], tally.errors[1]))


def chunk_size(deals: int, workers: int) -> int:
    """Deals per task: about 16 tasks per worker for a smooth progress bar and balanced
    load, at most 25 deals a task."""
    return max(1, min(25, math.ceil(deals / (16 * workers))))


def _chunks(cards: Iterable[DealCards], size: int) -> Iterator[list[DealCards]]:
    chunk: list[DealCards] = []
    for c in cards:
        chunk.append(c)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _serial(a: BotSpec, b: BotSpec, variant: str, seed: int, cards: Iterable[DealCards],
            record: bool, seat: int | None) -> Iterator[list[DealOutcome]]:
    fa, fb = _factory(a), _factory(b)
    for c in cards:
        yield [_play_deal(fa, fb, variant, seed, c, record, seat)]


def _processes(a: BotSpec, b: BotSpec, variant: str, seed: int, chunks: list[list[DealCards]],
               record: bool, workers: int, seat: int | None) -> Iterator[list[DealOutcome]]:
    import concurrent.futures as cf
    import multiprocessing as mp

    for spec in (a, b):
        try:
            pickle.dumps(spec)
        except Exception:
            raise ValueError(f"bot {spec!r} cannot be sent to worker processes: give a bot "
                             "spec (a name) or a picklable factory, or workers=1") from None
    with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        futures = [pool.submit(play_deals, a, b, variant, seed, c, record, seat)
                   for c in chunks]
        try:
            for f in cf.as_completed(futures):
                yield f.result()
        finally:
            for f in futures:
                f.cancel()


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def init_ray(address: str, **kwargs: Any) -> bool:
    """Connect to the Ray cluster at ``address`` (``"auto"``: the one running on this
    machine, ``ray://HOST:10001`` or ``HOST:6379``), or start a one-machine cluster in this
    process with ``"local"``; nothing when Ray is initialized already.  True when this call
    initialized Ray (the caller then shuts it down)."""
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'bela[dist]' (in a clone: pip install "
                         "-e '.[dist]'; or 'ray[default]')"
                         ) from None
    if ray.is_initialized():
        return False
    _check_reachable(address)
    kwargs.setdefault("include_dashboard", False)
    try:
        if address == "local":
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except Exception as exc:  # ConnectionError, ValueError, RuntimeError...
        raise ValueError(f"cannot start or reach the Ray cluster {address!r}: {exc}") from None
    return True


def _check_reachable(address: str) -> None:
    """Fail fast on a ``HOST:PORT`` nobody listens on (Ray itself retries for minutes)."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: {exc}") from None


def ray_workers() -> int:
    """The CPUs of the Ray cluster this process is connected to."""
    import ray

    # ray.cluster_resources is unannotated (unused-ignore: ray missing, or typed some day)
    resources = ray.cluster_resources()  # type: ignore[no-untyped-call,unused-ignore]
    return max(1, int(resources.get("CPU", 1)))


def _ray(a: BotSpec, b: BotSpec, variant: str, seed: int, chunks: list[list[DealCards]],
         record: bool, seat: int | None) -> Iterator[list[DealOutcome]]:
    import ray

    # all seven parameters: else ray.remote's overloads take a shorter form (``record`` and
    # ``seat`` have defaults) and type ``task.remote`` with fewer
    fn: Callable[[BotSpec, BotSpec, str, int, Sequence[DealCards], bool, int | None],
                 list[DealOutcome]] = play_deals
    task = ray.remote(fn)
    pending = [task.remote(a, b, variant, seed, c, record, seat) for c in chunks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        for ref in pending:
            ray.cancel(ref)


def duplicate_match(bot_a: BotSpec, bot_b: BotSpec, deals: int, seed: int,
                    progress: Callable[[int, int], None] | None = None,
                    variant: str = "bela4", *, workers: int = 1,
                    ray_address: str | None = None,
                    recorder: Recorder | None = None,
                    seat: int | None = None) -> DuplicateResult:
    """Play ``deals`` duplicate deals of ``variant`` between two bots (specs for
    :func:`bela.bots.make_bot`, or factories taking a seed); see the module docstring.

    ``workers=1`` plays in this process, deal after deal; ``workers=N`` plays chunks of deals
    (:func:`chunk_size`) on N spawned processes; ``ray_address`` plays them as Ray tasks
    (:func:`init_ray`; ``workers`` is then the cluster's CPUs).  The result is the same
    either way.  ``progress(done, deals)`` is called as deals finish; ``recorder(deal, game,
    record)`` gets every game's RECORD.md object (deal and game 0-based).  With ``seat``
    only the games where A holds that seat are played (bela3 ``seat=0``: A's games as the
    caller, R26), each exactly as in the full run.  A bot that fails is replaced for that
    move by the driver's fallback, and counted (``failures``)."""
    if deals < 1:
        raise ValueError("deals must be at least 1")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    seatings(variant, seat)  # a seat the variant has not: refused before any deal
    name_a, _ = _factory(bot_a)
    name_b, _ = _factory(bot_b)
    record = recorder is not None
    start = time.perf_counter()
    started_ray = False
    cards = deal_cards(variant, seed, deals)
    batches: Iterator[list[DealOutcome]]
    if ray_address is not None:
        started_ray = init_ray(ray_address)
        workers = ray_workers()
        size = chunk_size(deals, workers)
        batches = _ray(bot_a, bot_b, variant, seed, list(_chunks(cards, size)), record, seat)
    elif workers > 1 and deals > 1:
        chunks = list(_chunks(cards, chunk_size(deals, workers)))
        workers = min(workers, len(chunks))
        batches = _processes(bot_a, bot_b, variant, seed, chunks, record, workers, seat)
    else:
        workers = 1
        batches = _serial(bot_a, bot_b, variant, seed, cards, record, seat)
    outcomes: list[DealOutcome | None] = [None] * deals  # without their records
    done = 0
    try:
        for batch in batches:
            for o in batch:
                outcomes[o.index] = replace(o, records=())
                if recorder is not None:
                    for g, rec in enumerate(o.records):
                        recorder(o.index, g, rec)
            done += len(batch)
            if progress is not None:
                progress(done, deals)
    finally:
        if started_ray:
            import ray

            ray.shutdown()
    played = [o for o in outcomes if o is not None]
    assert len(played) == deals
    diffs = [o.diff for o in played]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    failures = (sum(o.failures[0] for o in played), sum(o.failures[1] for o in played))
    moves = (sum(o.moves[0] for o in played), sum(o.moves[1] for o in played))
    first = [next((o.errors[k] for o in played if o.errors[k]), None) for k in (0, 1)]
    return DuplicateResult(name_a, name_b, n, mean, sd, mean - half, mean + half,
                           tuple(diffs), time.perf_counter() - start, variant,
                           len(seatings(variant, seat)), workers, failures, moves,
                           (first[0], first[1]), seat)


def format_result(r: DuplicateResult) -> str:
    """One line, e.g. ``heuristic vs random (bela4): +95.3 points per deal (95% CI ...)``,
    ending with the fallback's moves per bot when a bot failed."""
    line = (f"{r.bot_a} vs {r.bot_b} ({r.variant}): {r.mean:+.1f} points per deal "
            f"(95% CI {r.ci_low:+.1f} .. {r.ci_high:+.1f}, sd {r.sd:.1f}, "
            f"{r.n} deals = {r.games} games, {r.seconds:.1f} s)")
    if any(r.failures):
        line += f", bot failures A {r.failures[0]} / B {r.failures[1]} moves"
    return line


def failure_warning(r: DuplicateResult) -> str | None:
    """A warning when a bot failed (raised, or chose an illegal action): how many of its
    moves the driver's fallback made instead, and its first failure; ``None`` when neither
    bot failed.

    >>> r = DuplicateResult("x", "random", 1, 0.0, 0.0, 0.0, 0.0, (0,), failures=(3, 0),
    ...                     moves=(40, 40), errors=("RuntimeError: boom", None))
    >>> print(failure_warning(r).replace(". ", ".\\n"))
    Warning: bot A (x) failed on 3 of its 40 moves (7.5%), first failure RuntimeError: boom.
    The fallback (the heuristic bot) made those moves: the result does not measure x alone.
    """
    failed = [(label, name, n, moves, error) for label, name, n, moves, error
              in zip("AB", (r.bot_a, r.bot_b), r.failures, r.moves, r.errors) if n]
    if not failed:
        return None
    what = "; ".join(f"bot {label} ({name}) failed on {n} of its {moves} moves "
                     f"({100 * n / max(moves, 1):.1f}%), first failure {error}"
                     for label, name, n, moves, error in failed)
    names = " and ".join(name for _, name, *_ in failed)
    return (f"Warning: {what}. The fallback (the heuristic bot) made those moves: the result "
            f"does not measure {names} alone.")

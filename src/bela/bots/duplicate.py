"""Duplicate-deal evaluation of two bots in bela4.

Each deal (a seeded bela4 shuffle, dealer seat 3) is played twice with the same hands: once
with bot A at seats 0 and 2 and bot B at seats 1 and 3, once with the seats swapped.  The luck
of the cards cancels out; what is left is the difference in play.  A deal scores

    (A's round score in game 1 + A's round score in game 2) - (B's round scores in both)

and the result is the mean of that over the deals, with its standard deviation and a 95%
confidence interval (normal approximation).  Each round is scored alone (target 10**9).

The bot at a seat gets a seed that depends only on the run seed, the deal and the seat, so
``duplicate_match(a, b)`` and ``duplicate_match(b, a)`` play the very same games and their
means are exact opposites.

>>> r = duplicate_match("random", "random", deals=3, seed=1)
>>> r.n, r.games, r.diffs == duplicate_match("random", "random", deals=3, seed=1).diffs
(3, 6, True)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import Match
from ..engine.variants.bela4 import BELA4
from ..engine.views import seat_view
from .base import Bot

BotSpec = str | Callable[[int | None], Bot]
DEALER = 3


@dataclass(frozen=True)
class DuplicateResult:
    bot_a: str
    bot_b: str
    n: int  # deals (each played twice)
    mean: float  # mean point difference per deal, from A's point of view
    sd: float
    ci_low: float
    ci_high: float
    diffs: tuple[int, ...] = field(repr=False)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return 2 * self.n

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)


def _factory(spec: BotSpec) -> tuple[str, Callable[[int | None], Bot]]:
    if isinstance(spec, str):
        from . import BOTS

        if spec not in BOTS:
            raise ValueError(f"unknown bot {spec!r} (known: {', '.join(BOTS)})")
        return spec, BOTS[spec]
    return getattr(spec, "name", getattr(spec, "__name__", "bot")), spec


def _seat_seed(seed: int, deal: int, seat: int) -> int:
    return (seed * 1_000_003 + deal) * 8 + seat


def play_round(hands: Sequence[Sequence[int]], bots: list[Bot]) -> tuple[int, ...]:
    """Play one bela4 round of the given hands (dealer seat 3); the per-side scores."""
    m = Match("bela4", options={"target": 10**9}, first_dealer=DEALER)
    rnd = m.deal(hands=hands)
    while not rnd.is_over:
        seat = rnd.turn
        m.apply(bots[seat].act(seat_view(m, seat)))
    assert rnd.result is not None
    return tuple(rnd.result.scores)


def duplicate_match(bot_a: BotSpec, bot_b: BotSpec, deals: int, seed: int,
                    progress: Callable[[int, int], None] | None = None) -> DuplicateResult:
    """Play ``deals`` duplicate deals of bela4 between two bots (names from
    :data:`bela.bots.BOTS`, or factories taking a seed); see the module docstring."""
    if deals < 1:
        raise ValueError("deals must be at least 1")
    name_a, make_a = _factory(bot_a)
    name_b, make_b = _factory(bot_b)
    rng = random.Random(seed)
    diffs: list[int] = []
    start = time.perf_counter()
    for i in range(deals):
        hands = [list(h) for h in BELA4.shuffle(rng, DEALER).hands]
        total = 0
        for a_seats in ((0, 2), (1, 3)):
            bots = [(make_a if s in a_seats else make_b)(_seat_seed(seed, i, s))
                    for s in range(4)]
            scores = play_round(hands, bots)
            a_side = a_seats[0] % 2
            total += scores[a_side] - scores[1 - a_side]
        diffs.append(total)
        if progress is not None:
            progress(i + 1, deals)
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return DuplicateResult(name_a, name_b, n, mean, sd, mean - half, mean + half,
                           tuple(diffs), time.perf_counter() - start)


def format_result(r: DuplicateResult) -> str:
    """One line, e.g. ``heuristic vs random: +95.3 points per deal (95% CI ...)``."""
    return (f"{r.bot_a} vs {r.bot_b}: {r.mean:+.1f} points per deal "
            f"(95% CI {r.ci_low:+.1f} .. {r.ci_high:+.1f}, sd {r.sd:.1f}, "
            f"{r.n} deals = {r.games} games, {r.seconds:.1f} s)")

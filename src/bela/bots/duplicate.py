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
scored alone (target 10**9); a redeal (belot2, R35) scores 0.

The bot at a seat gets a seed that depends only on the run seed, the deal and the seat, so in
the two-sided variants ``duplicate_match(a, b)`` and ``duplicate_match(b, a)`` play the very
same games and their means are exact opposites (in bela3 the two runs differ: A holds one
seat, B two).

>>> r = duplicate_match("random", "random", deals=3, seed=1)
>>> r.n, r.games, r.diffs == duplicate_match("random", "random", deals=3, seed=1).diffs
(3, 6, True)
>>> duplicate_match("random", "random", deals=2, seed=1, variant="bela3").games
6
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..engine import Match
from ..engine.variants import VARIANTS, get_variant
from ..engine.views import seat_view
from .base import Bot

BotSpec = str | Callable[[int | None], Bot]
DEALER = 3  # bela4
DEALERS = {"bela4": 3, "bela3": 2, "bela2": 1, "belot2": 1}  # seat 0 is always the first


@dataclass(frozen=True)
class DuplicateResult:
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

    @property
    def games(self) -> int:
        return self.per_deal * self.n

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.ci_low, self.ci_high)


def _factory(spec: BotSpec) -> tuple[str, Callable[[int | None], Bot]]:
    if isinstance(spec, str):
        from . import make_bot

        make_bot(spec, 0)  # fail early on an unknown bot or bad settings
        return spec, lambda seed: make_bot(spec, seed)
    return getattr(spec, "name", getattr(spec, "__name__", "bot")), spec


def _seat_seed(seed: int, deal: int, seat: int) -> int:
    return (seed * 1_000_003 + deal) * 8 + seat


def seatings(variant: str) -> list[tuple[int, ...]]:
    """The seats bot A takes in each game of a deal (B takes the others)."""
    v = get_variant(variant)
    if v.seats == 4:
        return [(0, 2), (1, 3)]
    return [(s,) for s in range(v.seats)]


def play_round(hands: Sequence[Sequence[int]], bots: list[Bot], variant: str = "bela4",
               extra: Mapping[str, Sequence[int]] | None = None) -> tuple[int, ...]:
    """Play one round of the given hands (and extra cards, e.g. ``turned``) with the
    variant's duplicate dealer (seat 0 first); the per-side scores."""
    m = Match(variant, options={"target": 10**9}, first_dealer=DEALERS[variant])
    rnd = m.deal(hands=hands, extra=extra)
    while not rnd.is_over:
        seat = rnd.turn
        m.apply(bots[seat].act(seat_view(m, seat)))
    assert rnd.result is not None
    return tuple(rnd.result.scores)


def game_score(scores: Sequence[int], a_seats: tuple[int, ...], variant: str) -> float:
    """A game's score from A's point of view (see the module docstring)."""
    v = get_variant(variant)
    a_sides = {v.side_of(s) for s in a_seats}
    b_sides = [v.side_of(s) for s in range(v.seats) if s not in a_seats]
    b_sides = sorted(set(b_sides)) if v.seats == 4 else b_sides
    a = sum(scores[s] for s in a_sides)
    return a - sum(scores[s] for s in b_sides) / len(b_sides)


def duplicate_match(bot_a: BotSpec, bot_b: BotSpec, deals: int, seed: int,
                    progress: Callable[[int, int], None] | None = None,
                    variant: str = "bela4") -> DuplicateResult:
    """Play ``deals`` duplicate deals of ``variant`` between two bots (names from
    :data:`bela.bots.BOTS`, or factories taking a seed); see the module docstring."""
    if deals < 1:
        raise ValueError("deals must be at least 1")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    v = get_variant(variant)
    name_a, make_a = _factory(bot_a)
    name_b, make_b = _factory(bot_b)
    rng = random.Random(seed)
    games = seatings(variant)
    diffs: list[float] = []
    start = time.perf_counter()
    for i in range(deals):
        deal = v.shuffle(rng, DEALERS[variant])
        hands = [list(h) for h in deal.hands]
        extra = {k: list(c) for k, c in deal.extra.items()}
        total = 0.0
        for a_seats in games:
            bots = [(make_a if s in a_seats else make_b)(_seat_seed(seed, i, s))
                    for s in range(v.seats)]
            scores = play_round(hands, bots, variant, extra)
            total += game_score(scores, a_seats, variant)
        diffs.append(int(total) if total == int(total) else total)
        if progress is not None:
            progress(i + 1, deals)
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return DuplicateResult(name_a, name_b, n, mean, sd, mean - half, mean + half,
                           tuple(diffs), time.perf_counter() - start, variant, len(games))


def format_result(r: DuplicateResult) -> str:
    """One line, e.g. ``heuristic vs random (bela4): +95.3 points per deal (95% CI ...)``."""
    return (f"{r.bot_a} vs {r.bot_b} ({r.variant}): {r.mean:+.1f} points per deal "
            f"(95% CI {r.ci_low:+.1f} .. {r.ci_high:+.1f}, sd {r.sd:.1f}, "
            f"{r.n} deals = {r.games} games, {r.seconds:.1f} s)")

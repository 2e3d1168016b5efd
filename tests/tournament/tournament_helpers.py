"""Shared helpers of the tournament tests: an independent tally, brute-force pairings, and
random results for whole simulated tournaments."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bela.tournament import Entry, Game, Result, RoundPlan


def can_pair(people: Sequence[int], met: set[frozenset[int]]) -> bool:
    """Can ``people`` all be paired with no pair in ``met`` (brute force)?"""
    if not people:
        return True
    if len(people) % 2:
        return False
    x, rest = people[0], people[1:]
    return any(frozenset((x, y)) not in met
               and can_pair([z for z in rest if z != y], met) for y in rest)


def can_seat_threes(people: Sequence[int], met: set[frozenset[int]]) -> bool:
    """Can ``people`` all sit at tables of three where no two have met (brute force)?"""
    if not people:
        return True
    x, rest = people[0], people[1:]
    for i, y in enumerate(rest):
        for z in rest[i + 1:]:
            if {frozenset((x, y)), frozenset((x, z)), frozenset((y, z))} & met:
                continue
            if can_seat_threes([v for v in rest if v not in (y, z)], met):
                return True
    return False


def met_pairs(results: Iterable[Result]) -> set[frozenset[int]]:
    return {frozenset((a, b)) for r in results for a in r.entries for b in r.entries if a != b}


def match_points(plans: Iterable[RoundPlan], results: Iterable[Result]) -> dict[int, float]:
    """Match points counted independently of the core: 2 a win or bye, 1 a draw; at a
    table of three 2 per opponent outscored, 1 per equal, over the 2 opponents."""
    mp: dict[int, float] = {}
    for p in plans:
        for b in p.byes:
            mp[b] = mp.get(b, 0) + 2
    for r in results:
        n = len(r.entries)
        for i, a in enumerate(r.entries):
            if n == 2:
                got = 1.0 if r.winner is None else 2.0 if r.winner == a else 0.0
            else:
                got = sum(2 if r.scores[i] > r.scores[j] else 1 if r.scores[i] == r.scores[j]
                          else 0 for j in range(n) if j != i) / 2
            mp[a] = mp.get(a, 0) + got
    return mp


def random_result(rng: random.Random, round_: int, game: Game, draws: bool = True) -> Result:
    """A plausible random result of ``game`` (a winner, sometimes a draw)."""
    scores = tuple(rng.choice((0, 300, 600, 1001)) for _ in game.entries)
    best = max(scores)
    winner: int | None = game.entries[scores.index(best)]
    if draws and len(game.entries) == 2 and scores[0] == scores[1]:
        winner = None
    return Result(round_, game.table, game.entries, scores, winner, leg=game.leg)


def entries(ratings: Sequence[int]) -> list[Entry]:
    return [Entry(i + 1, r) for i, r in enumerate(ratings)]

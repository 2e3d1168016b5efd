"""Timing the double-dummy solver on random bela4 deals (``bench_solver``)."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from ..engine.rules import bela_duties, play_table, trick_winner_index
from .dd import Position, Solver


def random_bela4_position(rng: random.Random, cards_per_hand: int = 8) -> Position:
    """A random bela4 deal with a random trump and leader, after ``8 - cards_per_hand``
    tricks of random legal cards (the points of those tricks are in ``taken``)."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[8 * s:8 * s + 8]) for s in range(4)]
    trump = rng.randrange(4)
    leader = rng.randrange(4)
    table = play_table(trump)
    taken = [0, 0]
    for _ in range(8 - cards_per_hand):
        trick: list[int] = []
        for i in range(4):
            seat = (leader + i) % 4
            lead = trick[0] >> 3 if trick else -1
            win = trick[trick_winner_index(trick, table)] if trick else -1
            legal = [c for c in range(32) if bela_duties(hands[seat], lead, win, table) >> c & 1]
            c = rng.choice(legal)
            hands[seat] ^= 1 << c
            trick.append(c)
        leader = (leader + trick_winner_index(trick, table)) % 4
        taken[leader % 2] += sum(table.points[c] for c in trick) + (0 if hands[0] else 10)
    return Position("bela4", trump, tuple(hands), leader, (), (0, 1, 0, 1),
                    (taken[0], taken[1]))


def _stats(times: list[float], prefix: str = "") -> dict[str, float]:
    times = sorted(times)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return {f"{prefix}median_ms": statistics.median(times),
            f"{prefix}mean_ms": statistics.fmean(times), f"{prefix}p99_ms": p99,
            f"{prefix}max_ms": times[-1]}


def bench_solver(deals: int = 1000, cards_per_hand: int = 8, seed: int = 0,
                 values: bool = True, warmup: int = 20) -> dict[str, Any]:
    """Solve ``deals`` random bela4 positions (see :func:`random_bela4_position`) one at a
    time on one core and report the times in milliseconds: ``median_ms``, ``mean_ms``,
    ``p99_ms`` and ``max_ms`` of the wall-clock time, the same of the thread's CPU time
    (``cpu_median_ms``... less sensitive to other processes on a busy machine), ``n`` and
    ``mean_nodes``.  ``values``: the value of every legal card of the seat to play
    (:meth:`Solver.solve`, what a PIMC bot needs); otherwise only the position's value
    (:meth:`Solver.value`).  A warm-up of ``warmup`` deals (other seeds) keeps the JIT
    compile time out."""
    solver = Solver()
    warm = random.Random(seed + 10**9)
    for _ in range(warmup):
        pos = random_bela4_position(warm, cards_per_hand)
        solver.solve(pos) if values else solver.value(pos)
    rng = random.Random(seed)
    positions = [random_bela4_position(rng, cards_per_hand) for _ in range(deals)]
    wall: list[float] = []
    cpu: list[float] = []
    nodes = 0
    for pos in positions:
        t0 = time.perf_counter()
        c0 = time.thread_time()
        if values:
            solver.solve(pos)
        else:
            solver.value(pos)
        cpu.append((time.thread_time() - c0) * 1000.0)
        wall.append((time.perf_counter() - t0) * 1000.0)
        nodes += solver.nodes
    return {"n": len(wall), "cards_per_hand": cards_per_hand, "values": values,
            **_stats(wall), **_stats(cpu, "cpu_"), "mean_nodes": nodes / len(wall)}

"""``bela bench``: engine, solver, sampler, self-play and bot decision speed on one core."""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

import typer

from ..bots.base import Bot
from ..bots.driver import Driver
from ..engine import Match
from ..engine.actions import Action, Play
from ..engine.cards import Card
from ..engine.enums import Phase
from ..engine.variants import DEFAULT_VARIANT, VARIANTS
from ..engine.views import SeatView, seat_view

RUNS = ("engine", "solver", "sampler", "selfplay", "latency", "decisions", "vecenv")


def bench_rounds(variant: str, seconds: float, seed: int) -> dict[str, Any]:
    """Play random rounds (bids, declarations, every card, scoring) for ``seconds``; every
    action goes through :meth:`Match.apply`, which verifies it."""
    rng = random.Random(seed)
    match = Match(variant, seed=seed)
    rounds = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        if match.is_over:  # the target (R25) or a belot (R10): the next match
            match = Match(variant, seed=rng.randrange(2**32))
        rnd = match.deal()
        while not rnd.is_over:
            legal = rnd.legal_actions()
            match.apply(legal[int(rng.random() * len(legal))])
        rounds += 1
        actions += len(rnd.log)
        if rounds % 64 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {"variant": variant, "rounds": rounds, "actions": actions, "seconds": elapsed,
            "rounds_per_s": rounds / elapsed}


def _views(variant: str, n: int, seed: int) -> list[SeatView]:
    """``n`` views of the seat to play, at random points of random rounds' play."""
    rng = random.Random(seed)
    views: list[SeatView] = []
    g = 0
    while len(views) < n:
        m = Match(variant, seed=seed * 7919 + g)
        g += 1
        rnd = m.deal()
        stop = rng.randrange(40)
        while not rnd.is_over:
            if rnd.phase == Phase.PLAY and len(rnd.log) >= stop:
                views.append(seat_view(m, rnd.turn))
                break
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
    return views


def bench_sampler(variant: str, views: int, deals: int, seed: int) -> dict[str, Any]:
    """Time drawing ``deals`` deals consistent with each of ``views`` random play views."""
    from ..solver.sampler import sample_deals

    rng = random.Random(seed)
    times = []
    for view in _views(variant, views, seed):
        t0 = time.perf_counter()
        sample_deals(view, deals, rng)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {"variant": variant, "views": len(times), "deals_per_view": deals,
            "median_ms": statistics.median(times), "mean_ms": statistics.fmean(times),
            "p99_ms": times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]}


def bench_selfplay(variant: str, deals: int, seed: int) -> dict[str, Any]:
    """Time the compiled self-play simulator (:mod:`bela.training.selfplay`, random legal
    cards) playing ``deals`` fresh random deals in one batch on the calling thread's core,
    after a warm-up that compiles or loads its kernel; drawing the deals is not timed."""
    from ..training.selfplay import play_batch, random_batch

    play_batch(random_batch(variant, 16, seed), seed=seed)  # the compile is not timed
    batch = random_batch(variant, deals, seed)
    start = time.perf_counter()
    res = play_batch(batch, seed=seed)
    elapsed = max(time.perf_counter() - start, 1e-9)
    return {"variant": variant, "policy": "random", "deals": deals, "actions": res.actions,
            "seconds": elapsed, "actions_per_s": res.actions / elapsed}


def bench_aec(variant: str, seconds: float, seed: int) -> dict[str, Any]:
    """Step the PettingZoo AEC environment (:class:`bela.rl.env.BelaEnv`) with uniform random
    legal actions, observations and masks included, for ``seconds``."""
    from ..rl.env import BelaEnv

    env = BelaEnv(variant)
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=rng.randrange(2**31))
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
        if steps % 256 == 0 and time.perf_counter() - start >= seconds:
            break
    return {"steps": steps, "seconds": time.perf_counter() - start,
            "steps_per_s": steps / (time.perf_counter() - start),
            "steps_per_cpu_s": steps / max(time.process_time() - cpu, 1e-9)}


def bench_vector(variant: str, envs: int, seconds: float, seed: int) -> dict[str, Any]:
    """Step the compiled vector environment (:class:`bela.rl.vector.VecGames`, ``envs``
    matches) with uniform random legal actions (drawn by its compiled sampler), every step
    writing the next seat's observation and mask, for ``seconds`` on the calling thread's
    core; the compile (or the cache's load) is not timed.  ``steps_per_cpu_s`` counts this
    process's CPU time only (a loaded machine lends it less than the wall clock)."""
    from ..rl.vector import VecGames

    games = VecGames(variant, envs)
    games.reset(seed=seed)
    games.step(games.sample())  # compiled or loaded now
    steps = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while time.perf_counter() - start < seconds:
        games.step(games.sample())
        steps += envs
    wall = time.perf_counter() - start
    return {"envs": envs, "steps": steps, "seconds": wall, "steps_per_s": steps / wall,
            "steps_per_cpu_s": steps / max(time.process_time() - cpu, 1e-9)}


def bench_vecenv(seconds: float, envs: int, seed: int) -> list[dict[str, Any]]:
    """Per variant, environment steps a second of the AEC environment and of the compiled
    vector environment."""
    return [{"variant": variant, "aec": bench_aec(variant, seconds, seed),
             "vector": bench_vector(variant, envs, seconds, seed)} for variant in VARIANTS]


def _vecenv_line(r: dict[str, Any]) -> str:
    aec = r["aec"]
    head = (f"vecenv, {r['variant']}: AEC env {aec['steps_per_s']:,.0f} steps/s "
            f"({aec['steps_per_cpu_s']:,.0f} per CPU second)")
    vec = r["vector"]
    return (head + f"; vector env {vec['steps_per_s']:,.0f} steps/s "
            f"({vec['steps_per_cpu_s']:,.0f} per CPU second; {vec['envs']:,} matches, "
            f"observations included)")


class _Timed:
    """A bot whose decision times (ms) are kept."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []

    def act(self, view: SeatView) -> Action:
        start = time.perf_counter()
        try:
            return self.bot.act(view)
        finally:
            self.times.append((time.perf_counter() - start) * 1000)


def _ms(ms: float) -> str:
    """Milliseconds to read: one decimal below 10 ms (a quick decision is not "0 ms").

    >>> _ms(0.43), _ms(16.4), _ms(397.0)
    ('0.4 ms', '16 ms', '397 ms')
    """
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


def bench_latency(variant: str, bot: str, rounds: int, seed: int) -> dict[str, Any]:
    """Decision latency of a bot at one seat (others heuristic) over whole rounds, played
    through the driver; ``failures``: its moves the driver's fallback made instead."""
    from ..bots import make_bot

    tested = _Timed(make_bot(bot, seed))
    other = make_bot("heuristic", seed + 1)
    failures = 0
    for g in range(rounds):
        m = Match(variant, seed=seed * 1009 + g)
        seat = g % m.variant.seats
        driver = Driver(m, {s: tested if s == seat else other for s in range(m.variant.seats)})
        driver.play_round()
        failures += driver.failures[seat]
    times = sorted(tested.times)
    return {"variant": variant, "bot": bot, "decisions": len(times),
            "median_ms": statistics.median(times), "mean_ms": statistics.fmean(times),
            "p99_ms": times[min(len(times) - 1, round(0.99 * (len(times) - 1)))],
            "max_ms": times[-1], "failures": failures}


def decision_positions(variant: str, n: int, seed: int) -> list[tuple[SeatView, dict[Card, int]]]:
    """``n`` card decisions (two or more legal cards) at random points of heuristic play,
    each with the double-dummy value of every legal card in the true deal."""
    from ..bots.heuristic import HeuristicBot
    from ..solver.dd import Position, default_solver

    rng = random.Random(seed)
    solver = default_solver()
    out: list[tuple[SeatView, dict[Card, int]]] = []
    g = 0
    while len(out) < n:
        m = Match(variant, seed=seed * 7919 + g)
        bot = HeuristicBot(g)
        g += 1
        rnd = m.deal()
        stop = rng.randrange(40)
        while not rnd.is_over:
            view = seat_view(m, rnd.turn)
            if (rnd.phase == Phase.PLAY and len(rnd.log) >= stop
                    and all(isinstance(a, Play) for a in view.legal)
                    and len({a.card for a in view.legal if isinstance(a, Play)}) > 1):
                out.append((view, solver.solve(Position.from_round(rnd), line=False).values))
                break
            m.apply(bot.act(view))
    return out


def bench_decisions(variant: str, bots: list[str], positions: int, seed: int
                    ) -> list[dict[str, Any]]:
    """The quality of bots' card choices: on the same positions of heuristic play, the mean
    double-dummy points a choice loses against the best card of the true deal (no player
    who cannot see the cards loses nothing), the share of best choices, and the decision
    times."""
    from ..bots import make_bot

    cases = decision_positions(variant, positions, seed)
    out = []
    for spec in bots:
        bot = make_bot(spec, seed)
        lost, best, times = 0.0, 0, []
        for view, values in cases:
            start = time.perf_counter()
            action = bot.act(view)
            times.append((time.perf_counter() - start) * 1000)
            if not isinstance(action, Play):
                raise ValueError(f"{spec} did not play a card")
            top = (min if view.raspas else max)(values.values())
            loss = abs(top - values[action.card])
            lost += loss
            best += loss == 0
        times.sort()
        out.append({"variant": variant, "bot": spec, "positions": len(cases),
                    "points_lost": lost / len(cases), "best_share": best / len(cases),
                    "median_ms": statistics.median(times),
                    "p99_ms": times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]})
    return out


def bench(
    variant: str = typer.Option(DEFAULT_VARIANT, help=f"Variant ({', '.join(VARIANTS)})."),
    run: str = typer.Option("engine", help=f"What to time, comma separated: {', '.join(RUNS)}"
                            " or all."),
    seconds: float = typer.Option(5.0, min=0.1, help="engine: how long to play rounds."),
    deals: int = typer.Option(300, min=1, help="solver, decisions: positions per run."),
    batch: int = typer.Option(200_000, min=1, help="selfplay: deals to play in one batch."),
    envs: int = typer.Option(4096, min=1, help="vecenv: matches the vector env steps at once."),
    bot: str = typer.Option("pimc", help="latency: the bot to time (a bot spec); decisions: "
                            "the bots to compare, comma separated."),
    rounds: int = typer.Option(20, min=1, help="latency: rounds to play."),
    seed: int = typer.Option(0, help="Seed for the deals and the random choices."),
    as_json: bool = typer.Option(False, "--json", help="Print the numbers as JSON."),
) -> None:
    """Speed on one core: engine rounds/s, solver and sampler times, self-play card
    actions/s, bot decision latency, environment steps/s (vecenv: every variant)."""
    if variant not in VARIANTS:
        typer.echo(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})", err=True)
        raise typer.Exit(2)
    runs = RUNS if run == "all" else tuple(r.strip() for r in run.split(","))
    unknown = [r for r in runs if r not in RUNS]
    if unknown:
        typer.echo(f"unknown run {', '.join(unknown)} (known: {', '.join(RUNS)}, all)",
                   err=True)
        raise typer.Exit(2)
    results: dict[str, Any] = {}
    for name in runs:
        if name == "engine":
            r = results["engine"] = bench_rounds(variant, seconds, seed)
            line = (f"{variant}: {r['rounds_per_s']:.0f} rounds/s ({r['rounds']} rounds, "
                    f"{r['actions']} actions in {r['seconds']:.1f} s)")
        elif name == "solver":
            from ..solver.bench import bench_solver

            full = bench_solver(deals, 8, seed)
            value = bench_solver(deals, 8, seed, values=False)
            five = bench_solver(deals, 5, seed)
            results["solver"] = {"8_cards_all_values": full, "8_cards_value": value,
                                 "5_cards_all_values": five}
            line = "\n".join(
                f"solver, bela4, {label}: median {r['median_ms']:.2f} ms, mean "
                f"{r['mean_ms']:.2f} ms, p99 {r['p99_ms']:.1f} ms ({r['n']} deals)"
                for label, r in (("8 cards, every card's value", full),
                                 ("8 cards, position value", value),
                                 ("5 cards left, every card's value", five)))
        elif name == "sampler":
            r = results["sampler"] = bench_sampler(variant, 100, 100, seed)
            line = (f"sampler, {variant}: 100 deals per view in median {r['median_ms']:.1f} "
                    f"ms, p99 {r['p99_ms']:.1f} ms ({r['views']} views)")
        elif name == "selfplay":
            r = results["selfplay"] = bench_selfplay(variant, batch, seed)
            line = (f"selfplay, {variant}: {r['actions_per_s']:,.0f} card actions/s on one core "
                    f"({r['deals']:,} deals, {r['actions']:,} cards in {r['seconds']:.2f} s)")
        elif name == "decisions":
            from .arena import split_bots

            rows = results["decisions"] = bench_decisions(
                variant, [b for b in split_bots(bot) if b], deals, seed)
            line = "\n".join(
                f"decisions, {variant}, {r['bot']}: {r['points_lost']:.2f} points lost a "
                f"decision against the true deal's best card, best {100 * r['best_share']:.1f}%"
                f", median {r['median_ms']:.1f} ms ({r['positions']} positions)" for r in rows)
        elif name == "vecenv":
            rows = results["vecenv"] = bench_vecenv(seconds, envs, seed)
            line = "\n".join(_vecenv_line(r) for r in rows)
        else:
            r = results["latency"] = bench_latency(variant, bot, rounds, seed)
            line = (f"latency, {variant}, {bot}: median {_ms(r['median_ms'])}, p99 "
                    f"{_ms(r['p99_ms'])}, max {_ms(r['max_ms'])} ({r['decisions']} decisions)")
            if r["failures"]:
                line += f"; the bot failed {r['failures']} times (the fallback moved)"
        if not as_json:
            typer.echo(line)
    if as_json:
        typer.echo(json.dumps(results if len(runs) > 1 else results[runs[0]]))

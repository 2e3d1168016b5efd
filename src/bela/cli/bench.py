"""``bela bench``: how fast the engine plays random rounds through its public API."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import typer

from ..engine import Match
from ..engine.variants import VARIANTS


def bench_rounds(variant: str, seconds: float, seed: int) -> dict[str, Any]:
    """Play random rounds (bids, declarations, every card, scoring) for ``seconds``; every
    action goes through :meth:`Match.apply`, which verifies it."""
    rng = random.Random(seed)
    match = Match(variant, options={"target": 10**12}, seed=seed)
    rounds = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
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


def bench(
    variant: str = typer.Option("bela4", help=f"Variant ({', '.join(VARIANTS)})."),
    seconds: float = typer.Option(5.0, min=0.1, help="How long to run."),
    seed: int = typer.Option(0, help="Seed for the deals and the random choices."),
    as_json: bool = typer.Option(False, "--json", help="Print the numbers as JSON."),
) -> None:
    """Random rounds through the public engine API on one core; prints rounds per second."""
    if variant not in VARIANTS:
        typer.echo(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})", err=True)
        raise typer.Exit(2)
    result = bench_rounds(variant, seconds, seed)
    if as_json:
        typer.echo(json.dumps(result))
    else:
        typer.echo(f"{variant}: {result['rounds_per_s']:.0f} rounds/s "
                   f"({result['rounds']} rounds, {result['actions']} actions in "
                   f"{result['seconds']:.1f} s)")

"""``bela arena``: two bots over duplicate deals of a variant (:mod:`bela.bots.duplicate`)."""

from __future__ import annotations

import json
import sys

import typer

from ..bots import BOTS
from ..bots.duplicate import DuplicateResult, duplicate_match, format_result
from ..engine.variants import VARIANTS


def parse_bots(text: str) -> tuple[str, str]:
    """``"A,B"`` into two known bot names."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names):
        raise typer.BadParameter(f"give two bots as A,B, not {text!r}", param_hint="--bots")
    for n in names:
        if n not in BOTS:
            raise typer.BadParameter(f"unknown bot {n!r} (known: {', '.join(BOTS)})",
                                     param_hint="--bots")
    return names[0], names[1]


def result_json(r: DuplicateResult) -> dict[str, object]:
    return {"mean": r.mean, "ci95": [r.ci_low, r.ci_high], "deals": r.n, "variant": r.variant,
            "bots": [r.bot_a, r.bot_b], "sd": r.sd, "seconds": r.seconds, "games": r.games}


def _run(a: str, b: str, variant: str, deals: int, seed: int, bar: bool) -> DuplicateResult:
    if not bar:
        return duplicate_match(a, b, deals, seed, variant=variant)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn(f"{a} vs {b} ({variant})"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("deals", total=deals)

        def update(done: int, _total: int) -> None:
            progress.update(task, completed=done)

        return duplicate_match(a, b, deals, seed, progress=update, variant=variant)


def arena(
    bots: str = typer.Option("heuristic,random", "--bots",
                             help=f"Two bots, A,B ({', '.join(BOTS)})."),
    variant: str = typer.Option("bela4", help=f"Variant ({', '.join(VARIANTS)})."),
    deals: int = typer.Option(2000, min=1, help="Duplicate deals to play."),
    seed: int = typer.Option(0, help="Seed for the deals and the bots: same seed, same games."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Duplicate deals between two bots: each deal is replayed with the bots changing seats
    (bela4 sides and 2-player seats swapped, bela3 bot A in each seat in turn), so the luck
    of the cards cancels out.  Prints bot A's mean points per deal over bot B, with a 95%
    confidence interval."""
    if variant not in VARIANTS:
        raise typer.BadParameter(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})",
                                 param_hint="--variant")
    a, b = parse_bots(bots)
    r = _run(a, b, variant, deals, seed, bar=not as_json and sys.stderr.isatty())
    if as_json:
        typer.echo(json.dumps(result_json(r)))
    else:
        typer.echo(format_result(r))

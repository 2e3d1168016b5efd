"""``bela arena``: two bots over duplicate deals of a variant (:mod:`bela.bots.duplicate`),
in parallel over the cores (or on a Ray cluster), with a result table or JSON and,
optionally, every game saved as a RECORD.md record.  A bot that fails (raises, or chooses an
illegal action) is replaced for that move by the driver's fallback; the moves so made are
counted per bot, and a warning on stderr says so."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from ..bots import BOTS, make_bot
from ..bots.duplicate import (
    DuplicateResult,
    Recorder,
    duplicate_match,
    failure_warning,
    format_result,
    init_ray,
    ray_available,
)
from ..engine.variants import DEFAULT_VARIANT, VARIANTS
from .progress import ProgressLines
from .text import install_extra

HELP = ("Bots against bots on duplicate deals: mean points per deal, 95% CI, wins, Elo.\n\n"
        "Each deal is replayed with the bots changing seats (bela4 sides and 2-player seats "
        "swapped, bela3 bot A in each seat in turn), so the luck of the cards cancels out.  "
        "Deals are played in parallel (same results as one process), or on Ray with --ray.")


def split_bots(text: str) -> list[str]:
    """Split ``--bots`` into bot specs: ``A,B``, where a spec may carry settings with commas
    (``pimc:samples=8,inference=off,heuristic``): a piece with ``=`` and no ``:`` continues
    the spec before it.  ``;`` also separates the two specs.

    >>> split_bots("pimc:samples=8,inference=off,heuristic")
    ['pimc:samples=8,inference=off', 'heuristic']
    >>> split_bots("random ; ismcts:iterations=50")
    ['random', 'ismcts:iterations=50']
    """
    if ";" in text:
        return [p.strip() for p in text.split(";")]
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def parse_bots(text: str) -> tuple[str, str]:
    """``"A,B"`` into two valid bot specs (names with optional ``:KEY=VALUE`` settings)."""
    specs = split_bots(text)
    if len(specs) != 2 or not all(specs):
        raise typer.BadParameter(f"give two bots as A,B, not {text!r}", param_hint="--bots")
    for spec in specs:
        try:
            make_bot(spec, 0)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--bots") from None
        except Exception as exc:  # e.g. a search bot without numba installed
            raise typer.BadParameter(f"cannot make bot {spec!r}: {exc}",
                                     param_hint="--bots") from None
    return specs[0], specs[1]


def result_json(r: DuplicateResult, seed: int | None = None) -> dict[str, Any]:
    """The ``--json`` object: A's mean points per deal over B with its 95% CI, match wins
    (per deal, A scoring more over the deal's games), the Elo estimate, per bot (A, B)
    its moves, the fallback's moves among them (``failures``) and its first failure, the
    ``seat`` the run was limited to (or null), and each deal's score for A (``diffs``, in
    deal order: two runs on the same seed compare deal by deal)."""
    elo = r.elo
    out: dict[str, Any] = {
        "mean": r.mean, "ci95": [r.ci_low, r.ci_high], "deals": r.n, "variant": r.variant,
        "bots": [r.bot_a, r.bot_b], "sd": r.sd, "seconds": r.seconds, "games": r.games,
        "per_deal": r.per_deal, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "win_rate": r.win_rate, "score_rate": elo.score, "elo": elo.elo,
        "elo_ci95": [elo.elo_low, elo.elo_high], "elo_clamped": elo.clamped,
        "workers": r.workers, "moves": list(r.moves), "failures": list(r.failures),
        "first_failures": list(r.errors), "seat": r.seat, "diffs": list(r.diffs),
    }
    if seed is not None:
        out["seed"] = seed
    return out


def result_table(r: DuplicateResult, ray: str | None = None) -> Any:
    """The Rich table of a result."""
    from rich.table import Table

    elo = r.elo
    half = (r.ci_high - r.ci_low) / 2
    t = Table(title=f"{r.bot_a} vs {r.bot_b} ({r.variant}), duplicate deals",
              show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    t.add_row("bots", f"A = {r.bot_a}, B = {r.bot_b}")
    t.add_row("variant", r.variant)
    how = (f"only A's games at seat {r.seat}" if r.seat is not None
           else "A in each seat in turn" if r.per_deal == 3 else "seats swapped")
    t.add_row("deals", f"{r.n} deals = {r.games} games ({r.per_deal} per deal, {how})")
    t.add_row("mean (A - B)", f"{r.mean:+.1f} ± {half:.1f} points per deal "
              f"(95% CI {r.ci_low:+.1f} .. {r.ci_high:+.1f})")
    t.add_row("sd", f"{r.sd:.1f}")
    t.add_row("match wins", f"A {r.wins} / draws {r.draws} / B {r.losses} "
              f"(A wins {100 * r.win_rate:.1f}% of deals, scores {100 * elo.score:.1f}%)")
    note = " (score rate clamped off 0/1)" if elo.clamped else ""
    t.add_row("Elo (A - B)", f"{elo.elo:+.0f} (95% CI {elo.elo_low:+.0f} .. "
              f"{elo.elo_high:+.0f}){note}")
    t.add_row("bot failures", f"A {r.failures[0]} / B {r.failures[1]} moves made by the "
              f"fallback (of {r.moves[0]} / {r.moves[1]})")
    t.add_row("seconds", f"{r.seconds:.1f}")
    t.add_row("workers", f"{r.workers}" + (f" (Ray {ray})" if ray else " (processes)"
                                           if r.workers > 1 else " (this process)"))
    return t


def record_writer(directory: Path) -> Recorder:
    """Write each game to ``DIR/deal-NNNNN-game-G.json`` (deal and game from 1)."""
    def write(deal: int, game: int, record: dict[str, Any]) -> None:
        path = directory / f"deal-{deal + 1:05d}-game-{game + 1}.json"
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")

    return write


def _run(a: str, b: str, variant: str, deals: int, seed: int, bar: bool, workers: int = 1,
         ray_address: str | None = None, recorder: Recorder | None = None,
         seat: int | None = None) -> DuplicateResult:
    """Play the match with a progress bar on the terminal (``bar``), else progress lines."""
    def play(progress: Callable[[int, int], None] | None) -> DuplicateResult:
        return duplicate_match(a, b, deals, seed, progress=progress, variant=variant,
                               workers=workers, ray_address=ray_address, recorder=recorder,
                               seat=seat)

    if not bar:
        return play(ProgressLines(f"{a} vs {b} ({variant})",
                                  lambda line: typer.echo(line, err=True), unit="deals"))
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
                  TextColumn("deals"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("deals", total=deals)

        def update(done: int, _total: int) -> None:
            progress.update(task, completed=done)

        return play(update)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(1)


def arena(
    bots: str = typer.Option("heuristic,random", "--bots",
                             help=f"Two bot specs, A,B ({', '.join(BOTS)}; settings as "
                             "pimc:samples=8,inference=off)."),
    variant: str = typer.Option(DEFAULT_VARIANT, help=f"Variant ({', '.join(VARIANTS)})."),
    deals: int = typer.Option(2000, min=1, help="Duplicate deals to play."),
    seed: int = typer.Option(0, help="Seed for the deals and the bots: same seed, same games."),
    workers: int | None = typer.Option(
        None, "--workers", min=1,
        help="Worker processes (default: all cores); 1 plays in this process."),
    ray: str | None = typer.Option(
        None, "--ray", metavar="ADDRESS",
        help="Play on a Ray cluster: 'auto' (the cluster running here), HOST:PORT or "
        "ray://HOST:10001, or 'local' for a one-machine cluster started here. "
        "Needs pip install 'bela\\[dist]'; every node needs bela installed."),
    record: Path | None = typer.Option(
        None, "--record", metavar="DIR", file_okay=False,
        help="Save every game as a RECORD.md record, DIR/deal-NNNNN-game-G.json."),
    seat: int | None = typer.Option(
        None, "--seat", min=0,
        help="Play only the games where bot A holds this seat, each as in the full run "
        "(bela3 0: A's games as the caller)."),
    as_json: bool = typer.Option(False, "--json",
                                 help="Print the result as JSON (with each deal's score)."),
) -> None:
    """Bots against bots on duplicate deals: mean points per deal, 95% CI, wins, Elo.

    (The help shows :data:`HELP`, whose paragraphs are single lines: the terminal wraps
    them.)"""
    if variant not in VARIANTS:
        raise typer.BadParameter(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})",
                                 param_hint="--variant")
    a, b = parse_bots(bots)
    seats = VARIANTS[variant].seats
    if seat is not None and seat >= seats:
        raise typer.BadParameter(f"{variant} has seats 0 .. {seats - 1}", param_hint="--seat")
    if ray is not None and not ray_available():
        raise typer.BadParameter(f"Ray is not installed: {install_extra('dist')} "
                                 "(or 'ray[default]>=2.9,<3')", param_hint="--ray")
    recorder = None
    if record is not None:
        try:
            record.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise typer.BadParameter(f"cannot create {str(record)!r}: {exc}",
                                     param_hint="--record") from None
        recorder = record_writer(record)
    started_ray = False
    if ray is not None:
        kwargs: dict[str, Any] = {"log_to_driver": not as_json}
        if ray == "local" and workers is not None:
            kwargs["num_cpus"] = workers
        try:
            started_ray = init_ray(ray, **kwargs)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--ray") from None
    try:
        r = _run(a, b, variant, deals, seed, bar=sys.stderr.isatty(),
                 workers=workers or os.cpu_count() or 1, ray_address=ray, recorder=recorder,
                 seat=seat)
    except (typer.Exit, KeyboardInterrupt):
        raise
    except Exception as exc:  # a worker or a bot's factory failing: a message, no traceback
        raise _fail(f"the arena stopped: {type(exc).__name__}: {exc}") from None
    finally:
        if started_ray:
            import ray as ray_module

            ray_module.shutdown()
    out = result_json(r, seed)
    if record is not None:
        (record / "arena.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(out))
    else:
        from rich.console import Console

        console = Console(highlight=False)
        console.print(result_table(r, ray))
        console.print(format_result(r), soft_wrap=True)
    warning = failure_warning(r)
    if warning is not None:
        typer.echo(warning, err=True)

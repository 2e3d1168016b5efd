"""``bela train``: train the learned bot (self-play positions, double-dummy labels, numpy)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import typer

from ..bots.duplicate import init_ray, ray_available
from ..engine.variants import VARIANTS
from .progress import ProgressLines
from .text import install_extra

HELP = (
    "Train the learned bot's network for one variant.\n\n"
    "Each iteration plays --deals rounds (the first with the heuristic bot, then with the "
    "network trained so far), labels every card decision with the double-dummy value of each "
    "legal card in the true deal (--target score: the round's score margin it gives), and "
    "fits the network to the positions of the last --window iterations for --epochs passes. "
    "Everything is kept in FOLDER: run the same command again to resume after a stop, or "
    "with a larger --iterations to go on (the schedule may change; the variant, network, "
    "window, seed and target stay the folder's; a folder of an older feature layout is "
    "refused). The model to play is "
    "FOLDER/model.npz: bela play --bot learned:model=FOLDER/model.npz, or "
    "bela arena --bots learned:model=FOLDER/model.npz,pimc. --source vector plays the deals "
    "in the compiled vector environment (random, greedy or a policy network at every seat) "
    "and replays them through the engine to label them.")


def train(
    folder: Path = typer.Argument(..., file_okay=False, help="The training folder (made if "
                                  "missing; resumed if it holds a training)."),
    variant: str | None = typer.Option(
        None, help=f"Variant ({', '.join(VARIANTS)}); default bela4 (a new folder)."),
    iterations: int | None = typer.Option(None, min=1,
                                          help="Self-play iterations in all (default 4)."),
    deals: int | None = typer.Option(None, min=1,
                                     help="Rounds played per iteration (default 2000)."),
    epochs: int | None = typer.Option(None, min=1,
                                      help="Passes over the positions per iteration (default 6)."),
    hidden: str | None = typer.Option(
        None, help="Hidden layer sizes, e.g. 512,256 (a new folder; default 256,256)."),
    explore: float | None = typer.Option(
        None, min=0.0, max=1.0, help="Share of the cards played at random (default 0.1)."),
    window: int | None = typer.Option(
        None, min=1, help="Iterations whose positions are trained on (a new folder; "
        "default 3)."),
    seed: int | None = typer.Option(None, help="Seed of the deals and the network (a new "
                                    "folder; default 0)."),
    target: str | None = typer.Option(
        None, help="What a card's label is (a new folder): 'points', the card points its "
        "side takes (default), or 'score', the round's score margin (two sides: pass or "
        "fall, declarations, bela)."),
    source: str | None = typer.Option(
        None, help="Who plays the deals (a new folder): 'bots' (the heuristic, then the "
        "network; default) or 'vector' (the compiled vector environment, every iteration by "
        "--vector-players; needs pip install 'bela\\[rl]')."),
    vector_players: str | None = typer.Option(
        None, help="--source vector: the players, 'random' (default), 'greedy' or a policy "
        "file of python -m bela.rl.vector.a2c --out."),
    vector_batch: int | None = typer.Option(
        None, min=1, help="--source vector: matches stepped at once (default 256)."),
    workers: int | None = typer.Option(
        None, "--workers", min=1, help="Processes playing deals (default: all cores)."),
    ray: str | None = typer.Option(
        None, "--ray", metavar="ADDRESS",
        help="Play deals on a Ray cluster: 'auto', HOST:PORT, ray://HOST:10001, or 'local'. "
        "Needs pip install 'bela\\[dist]'."),
) -> None:
    from ..training.train import Trainer, TrainingError, resolve_config

    if variant is not None and variant not in VARIANTS:
        raise typer.BadParameter(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})",
                                 param_hint="--variant")
    sizes = None
    if hidden is not None:
        try:
            sizes = [int(h) for h in hidden.split(",") if h.strip()]
        except ValueError:
            raise typer.BadParameter(f"{hidden!r} is not a list of numbers",
                                     param_hint="--hidden") from None
    if source == "vector" and importlib.util.find_spec("numba") is None:
        raise typer.BadParameter(f"the vector environment needs Numba: {install_extra('rl')}",
                                 param_hint="--source")
    if ray is not None and not ray_available():
        raise typer.BadParameter(f"Ray is not installed: {install_extra('dist')}",
                                 param_hint="--ray")
    try:
        config = resolve_config(folder, {
            "variant": variant, "iterations": iterations, "deals": deals, "epochs": epochs,
            "hidden": sizes, "explore": explore, "window": window, "seed": seed,
            "target": target, "source": source, "vector_players": vector_players,
            "vector_batch": vector_batch})
        config.check()
    except TrainingError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    started_ray = False
    if ray is not None:
        try:
            started_ray = init_ray(ray, **({"num_cpus": workers} if ray == "local" and workers
                                           else {}))
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--ray") from None
    reporter = _Bars() if sys.stderr.isatty() else _Lines()
    try:
        with reporter:
            trainer = Trainer(folder, config, workers=workers or os.cpu_count() or 1,
                              ray=ray is not None, reporter=reporter)
            if trainer.iteration >= trainer.config.iterations:
                typer.echo(f"{folder} has done its {trainer.config.iterations} iterations; "
                           "give a larger --iterations to go on")
                return
            if trainer.iteration or trainer.epoch:
                reporter.note(f"resuming {folder}: iteration {trainer.iteration + 1}, "
                              f"epoch {trainer.epoch + 1}")
            trainer.run()
    except TrainingError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        if started_ray:
            import ray as ray_module

            ray_module.shutdown()
    typer.echo(f"model: {trainer.model_path} (play it with --bot "
               f"learned:model={trainer.model_path})")


class _Lines:
    """Progress as plain lines (not a terminal): each task's name, then a line at each tenth
    of it once a minute has passed (:class:`~bela.cli.progress.ProgressLines`)."""

    def __init__(self) -> None:
        self.lines: ProgressLines | None = None
        self.done = self.total = 0

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def task(self, name: str, total: int) -> None:
        typer.echo(name, err=True)
        self.lines = ProgressLines(name, lambda line: typer.echo(line, err=True))
        self.done, self.total = 0, total

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.lines is not None:
            self.lines(self.done, self.total)

    def note(self, text: str) -> None:
        typer.echo(text, err=True)


class _Bars:
    """Progress bars on the terminal."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TimeRemainingColumn(), transient=False)
        self.current: Any = None

    def __enter__(self) -> _Bars:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def task(self, name: str, total: int) -> None:
        if self.current is not None:
            self.progress.update(self.current, visible=False)
        self.current = self.progress.add_task(name, total=total)

    def advance(self, n: int = 1) -> None:
        if self.current is not None:
            self.progress.advance(self.current, n)

    def note(self, text: str) -> None:
        self.progress.console.print(text)

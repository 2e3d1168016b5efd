"""``bela``: play, score and benchmark Bela from the terminal."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from ..server.run import serve
from . import analysis, arena, bench, play, score, train


def _flags_without_metavar(params: list[Any]) -> list[Any]:
    """On/off flags take no value, so ``--help`` shows no ``<bool>`` after them (Typer 0.29
    prints the type of every option, flags and ``--help`` included, unless it has a metavar;
    its parameters come from its own copy of Click, so this goes by attributes)."""
    for param in params:
        if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
            param.metavar = ""
    return params


class Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_metavar(super().get_params(ctx))


class Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_metavar(super().get_params(ctx))


app = typer.Typer(
    cls=Group,
    help="Bela (Croatian Belot): play in the terminal or the browser, score and analyse game "
    "records, pit bots against each other, benchmark.",
    no_args_is_help=True,
    add_completion=False,
)
COMMANDS: dict[str, Any] = {
    "play": play.play, "score": score.score, "bench": bench.bench, "arena": arena.arena,
    "solve": analysis.solve, "review": analysis.review, "serve": serve,
    "train": train.train,
}
HELP = {"arena": arena.HELP, "train": train.HELP}  # paragraphs without hard line breaks
for _name, _function in COMMANDS.items():
    # a one-paragraph docstring as one line: the terminal wraps it, never mid-sentence
    _help = HELP.get(_name) or " ".join((_function.__doc__ or "").split()) or None
    app.command(_name, cls=Command, help=_help)(_function)


if __name__ == "__main__":
    app()

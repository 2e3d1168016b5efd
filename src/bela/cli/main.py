"""``bela``: play, score and benchmark Bela from the terminal."""

from __future__ import annotations

import typer

from . import analysis, arena, bench, play, score

app = typer.Typer(
    help="Bela (Croatian Belot): play in the terminal, score game records, pit bots against each "
    "other, benchmark the engine.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("play")(play.play)
app.command("score")(score.score)
app.command("bench")(bench.bench)
app.command("arena")(arena.arena)
app.command("solve")(analysis.solve)
app.command("review")(analysis.review)


if __name__ == "__main__":
    app()

"""``bela``: play, score and benchmark Bela from the terminal."""

from __future__ import annotations

import typer

from . import analysis, arena, bench, play, score, serve

app = typer.Typer(
    help="Bela (Croatian Belot): play in the terminal or the browser, score and analyse game "
    "records, pit bots against each other, benchmark.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("play")(play.play)
app.command("score")(score.score)
app.command("bench")(bench.bench)
app.command("arena")(arena.arena)
app.command("solve")(analysis.solve)
app.command("review")(analysis.review)
app.command("serve")(serve.serve)


if __name__ == "__main__":
    app()

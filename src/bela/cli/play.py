"""``bela play`` (placeholder until the terminal game lands)."""

import typer


def play(seed: int = typer.Option(None, help="Seed for the shuffle and the bots.")) -> None:
    """Play a match in the terminal."""
    raise typer.Exit(2)

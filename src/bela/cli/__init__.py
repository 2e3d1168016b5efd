"""The ``bela`` command line (Typer + Rich)."""

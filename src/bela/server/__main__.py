"""``python -m bela.server``: the same as ``bela serve``."""

from __future__ import annotations

import typer

from .run import serve


def main() -> None:
    typer.run(serve)


if __name__ == "__main__":
    main()

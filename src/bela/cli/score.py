"""`bela score` (being written)."""


def score() -> None:
    """Being written."""

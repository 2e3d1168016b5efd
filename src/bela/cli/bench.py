"""`bela bench` (being written)."""


def bench() -> None:
    """Being written."""

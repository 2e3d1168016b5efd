"""CLI tests: ``bela play`` does not warm the solver up in a background thread here (one
process runs many matches; the tests of the warm-up install their own, see
``test_play_terminal.py``).  A hint still works: the solver gets ready when it is asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.console import Console

from bela.cli import play


class NoWarmUp(play.SolverWarmUp):
    def start(self) -> None:
        return None

    def wait(self, console: Console) -> None:
        return None


@pytest.fixture(autouse=True)
def no_background_warm_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(play, "SOLVER", NoWarmUp())
    yield

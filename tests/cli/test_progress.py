"""Progress as plain lines (``bela.cli.progress``) for ``bela arena`` and ``bela train`` when
stderr is a log: a line at each tenth, at most once a minute."""

from __future__ import annotations

import pytest

from bela.cli import train as train_module
from bela.cli.progress import ProgressLines


def test_a_line_at_each_tenth_once_a_minute_has_passed() -> None:
    now = [0.0]
    lines: list[str] = []
    progress = ProgressLines("master vs pimc (bela3)", lines.append, unit="deals",
                             clock=lambda: now[0])
    for done, at in [(20, 30.0), (40, 70.0), (41, 200.0), (60, 230.0), (80, 250.0),
                     (100, 300.0)]:
        now[0] = at
        progress(done, 100)
    assert lines == [
        "master vs pimc (bela3): 40/100 deals (40%), 1m 10s, about 1m 45s left",
        "master vs pimc (bela3): 60/100 deals (60%), 3m 50s, about 2m 33s left",
        "master vs pimc (bela3): 100/100 deals (100%), 5m 00s",
    ]


def test_a_short_task_says_nothing() -> None:
    lines: list[str] = []
    progress = ProgressLines("quick", lines.append)
    for done in range(1, 11):
        progress(done, 10)
    assert lines == []


def test_the_trainers_plain_reporter_says_each_task_and_its_progress(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    now = [0.0]
    monkeypatch.setattr("bela.cli.progress.time.monotonic", lambda: now[0])
    with train_module._Lines() as report:
        report.task("iteration 1/4: playing deals", 1000)
        for _ in range(10):
            now[0] += 30.0
            report.advance(100)
        report.note("iteration 1 done")
    assert capsys.readouterr().err.splitlines() == [
        "iteration 1/4: playing deals",
        "iteration 1/4: playing deals: 200/1000 (20%), 1m 00s, about 4m 00s left",
        "iteration 1/4: playing deals: 400/1000 (40%), 2m 00s, about 3m 00s left",
        "iteration 1/4: playing deals: 600/1000 (60%), 3m 00s, about 2m 00s left",
        "iteration 1/4: playing deals: 800/1000 (80%), 4m 00s, about 1m 00s left",
        "iteration 1/4: playing deals: 1000/1000 (100%), 5m 00s",
        "iteration 1 done",
    ]

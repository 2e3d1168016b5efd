"""Progress of long commands (``bela arena``, ``bela train``) as plain lines, for a stderr
that is not a terminal (a log, ``nohup``); on a terminal they show Rich progress bars."""

from __future__ import annotations

import time
from collections.abc import Callable


def duration(seconds: float) -> str:
    """``seconds`` as a short duration.

    >>> duration(42.4), duration(754), duration(7380)
    ('42s', '12m 34s', '2h 03m')
    """
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


class ProgressLines:
    """``label: done/total unit (pct%), elapsed, about ... left`` at each tenth of the work,
    but none before ``every`` seconds have passed since the start or the last line, so a
    short task says nothing."""

    def __init__(self, label: str, echo: Callable[[str], None], unit: str = "",
                 every: float = 60.0, clock: Callable[[], float] | None = None) -> None:
        self.label, self.echo, self.unit, self.every = label, echo, unit, every
        self.clock = clock or time.monotonic
        self.start = self.last = self.clock()
        self.tenth = 0

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        tenth = done * 10 // total
        now = self.clock()
        if tenth <= self.tenth or now - self.last < self.every:
            return
        self.tenth, self.last = tenth, now
        elapsed = now - self.start
        left = (f", about {duration(elapsed * (total - done) / done)} left"
                if done < total else "")
        unit = f" {self.unit}" if self.unit else ""
        self.echo(f"{self.label}: {done}/{total}{unit} ({100 * done // total}%), "
                  f"{duration(elapsed)}{left}")

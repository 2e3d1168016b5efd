"""Duplicate: every table of a round plays the same boards, and an entry's result on a
board is compared with every entry that held the same cards.

**Movement** (Mitchell): the entries by rating (then entry id) are dealt alternately to
side 0 (first, third, ...) and side 1; side-0 entries keep their table, side-1 entries
move up one table each round (``side1[(table + round) % tables]``), so no two entries
meet twice while ``rounds <= tables`` (``ceil(entries / 2)``); after that the movement
starts again.  With an odd field a phantom takes the last side-1 place, and the side-0
entry it meets sits out with a bye (each side-0 entry once per ``tables`` rounds).

**Boards** of round ``r`` are ``(r - 1) * boards + 1 .. r * boards``; every table plays all
of them, each with the deal :func:`board_deal` makes from the seed (the same for every
table: the server deals the same cards at each).

**Matchpoints**: on a board played at ``n`` tables, an entry scores 2 for each other entry
that held the same cards (same board, same side) and did worse, 1 for each that did the
same, compared by the score margin (own points less the other side's); the top is
``2 * (n - 1)``.  A side-0 and a side-1 result on the same table share the top.  An
entry's percentage is its matchpoints over the tops of the boards it played.  A table with
a forfeit has no board results: the forfeiting entry scores 0 of the top on each of its
boards, its opponent is not scored on them.

The worked example: one board at 4 tables, side 0's margins +50, +20, +20, -30:

>>> rs = [Result(1, t, (t, 10 + t), (0, 0), None, board_scores=((1, (p, 0)),))
...       for t, p in enumerate((50, 20, 20, -30), 1)]
>>> table = board_tables(rs)[0]
>>> table.top, [(f.margin, f.count, f.matchpoints) for f in table.frequencies]
(6, [(50, 1, (6, 0)), (20, 2, (3, 3)), (-30, 1, (0, 6))])
>>> [ln.matchpoints for ln in table.lines]
[(6, 0), (3, 3), (3, 3), (0, 6)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..engine.variants import Deal, get_variant
from .model import Entry, Game, Result, RoundPlan, Settings, TournamentError

Rounds = Sequence[tuple[RoundPlan, Sequence[Result]]]


@dataclass(frozen=True)
class BoardLine:
    """One table's result on a board: ``points`` per side, ``margin`` side 0's points less
    side 1's, ``matchpoints`` per side."""

    table: int
    entries: tuple[int, ...]
    points: tuple[int, ...]
    margin: int
    matchpoints: tuple[int, int]


@dataclass(frozen=True)
class Frequency:
    """How many tables got a margin (side 0's), and the matchpoints it earned each side."""

    margin: int
    count: int
    matchpoints: tuple[int, int]


@dataclass(frozen=True)
class BoardTable:
    """A board's frequency table (best margin for side 0 first) and its tables' lines."""

    board: int
    top: int
    frequencies: tuple[Frequency, ...]
    lines: tuple[BoardLine, ...]


def movement(entries: Sequence[Entry]) -> tuple[list[int], list[int | None]]:
    """The side-0 (stationary) and side-1 (moving) entries; ``None`` is the phantom."""
    order = [e.id for e in sorted(entries, key=lambda e: (-e.rating, e.id))]
    moving: list[int | None] = list(order[1::2])
    if len(moving) < len(order[0::2]):
        moving.append(None)
    return order[0::2], moving


def next_round(settings: Settings, entries: Sequence[Entry], rounds: Rounds
               ) -> RoundPlan | None:
    """The next duplicate round (see the module docstring), ``None`` after the last."""
    k = len(rounds)
    if k >= settings.rounds:
        return None
    still, moving = movement(entries)
    boards = tuple(range(k * settings.boards + 1, (k + 1) * settings.boards + 1))
    games: list[Game] = []
    byes: list[int] = []
    for i, a in enumerate(still):
        b = moving[(i + k) % len(still)]
        if b is None:
            byes.append(a)
        else:
            games.append(Game(len(games) + 1, (a, b), boards=boards))
    return RoundPlan(k + 1, tuple(games), tuple(byes), "duplicate")


def check_boards(game: Game, result: Result, where: str) -> None:
    """Refuse board results that do not fit the game's boards."""
    boards = [b for b, _ in result.board_scores]
    if len(set(boards)) != len(boards):
        raise TournamentError(f"{where}: a board scored twice")
    if any(len(points) != 2 for _, points in result.board_scores):
        raise TournamentError(f"{where}: each board needs the points of both sides")
    if result.forfeit:
        if boards:
            raise TournamentError(f"{where}: a forfeited table has no board results")
    elif sorted(boards) != sorted(game.boards):
        raise TournamentError(f"{where}: boards {sorted(boards)}, but the table plays "
                              f"{list(game.boards)}")


def board_seed(settings: Settings, board: int) -> int:
    """The shuffle seed of a board: the same for every table, from ``settings.seed``."""
    return settings.seed * 1_000_003 + board


def board_deal(settings: Settings, board: int) -> Deal:
    """The cards of a board, dealt with seat 0 first (the dealer is the last seat).

    >>> from bela.tournament import Format
    >>> s = Settings("bela4", Format.DUPLICATE, rounds=1, boards=2, seed=9)
    >>> board_deal(s, 1) == board_deal(s, 1) != board_deal(s, 2)
    True
    """
    variant = get_variant(settings.variant)
    return variant.shuffle(random.Random(board_seed(settings, board)), variant.seats - 1)


def board_tables(results: Iterable[Result]) -> list[BoardTable]:
    """Each board's table over ``results`` (by board number)."""
    lines: dict[int, list[tuple[Result, tuple[int, ...]]]] = {}
    for r in results:
        for board, points in r.board_scores:
            lines.setdefault(board, []).append((r, points))
    out = []
    for board in sorted(lines):
        played = lines[board]
        margins = [p[0] - p[1] for _, p in played]
        top = 2 * (len(played) - 1)

        def mp(m: int, margins: list[int] = margins) -> int:
            return sum(2 if m > o else 1 if m == o else 0 for o in margins) - 1

        table_lines = tuple(BoardLine(r.table, r.entries, p, m, (mp(m), top - mp(m)))
                            for (r, p), m in zip(played, margins))
        freq = tuple(Frequency(m, margins.count(m), (mp(m), top - mp(m)))
                     for m in sorted(set(margins), reverse=True))
        out.append(BoardTable(board, top, freq, table_lines))
    return out


def matchpoints(rounds: Rounds) -> dict[int, tuple[int, int]]:
    """Each entry's matchpoints and the sum of the tops of its boards."""
    out: dict[int, tuple[int, int]] = {}
    results = [r for _, rs in rounds for r in rs]
    tables = {t.board: t for t in board_tables(results)}

    def add(entry: int, got: int, top: int) -> None:
        mp, tops = out.get(entry, (0, 0))
        out[entry] = (mp + got, tops + top)

    for table in tables.values():
        for ln in table.lines:
            for side, entry in enumerate(ln.entries):
                add(entry, ln.matchpoints[side], table.top)
    for plan, rs in rounds:
        games = {(g.table, g.leg): g for g in plan.games}
        for r in rs:
            for f in r.forfeit:
                for b in games[(r.table, r.leg)].boards:
                    add(f, 0, tables[b].top if b in tables else 0)
    return out

"""Tournaments: Swiss, knockout, round robin (in groups, then a knockout) and duplicate.

A pure core (standard library and :mod:`bela.engine` only) that the server asks, after each
round, what to play next.  Nothing is stored here: every function takes the settings, the
entries and every result so far, replays the tournament from the start and answers, so the
same input always gives the same plan (ties broken by rating, then entry id; duplicate deals
from ``Settings.seed``) and a restarted server replans identically.  Inconsistent input (an
unknown entry, a result for a game never planned, a result given twice) raises
:class:`TournamentError` and nothing is planned.

A Swiss of five pairs of bela4, two rounds:

>>> s = Settings("bela4", Format.SWISS, rounds=2)
>>> es = [Entry(i, 1600 - 10 * i) for i in range(1, 6)]
>>> r1 = plan_round(s, es, [])
>>> [g.entries for g in r1.games], r1.byes
([(1, 3), (2, 4)], (5,))
>>> res = [Result(1, 1, (1, 3), (1001, 500), winner=3), Result(1, 2, (2, 4), (1001, 800), 2)]
>>> plan_round(s, es, res[:1]) is None          # round 1 is still being played
True
>>> r2 = plan_round(s, es, res)
>>> [g.entries for g in r2.games], r2.byes
([(2, 3), (5, 1)], (4,))
>>> [(x.rank, x.entry, x.match_points) for x in standings(s, es, res)]
[(1, 2, 2.0), (2, 5, 2.0), (3, 3, 2.0), (4, 1, 0.0), (5, 4, 0.0)]
>>> is_complete(s, es, res)
False
>>> plan_round(s, es, [Result(2, 1, (1, 3), (1001, 0), winner=1)])
Traceback (most recent call last):
...
bela.tournament.model.TournamentError: results for round 2, but round 1 is not finished
"""

from __future__ import annotations

from collections.abc import Sequence

from .duplicate import BoardLine, BoardTable, Frequency, board_deal, board_seed, board_tables
from .history import replay
from .model import (
    Entry,
    Format,
    Game,
    Result,
    RoundPlan,
    Settings,
    Standing,
    TournamentError,
)
from .robin import groups
from .standings import standings


def plan_round(settings: Settings, entries: Sequence[Entry], results: Sequence[Result]
               ) -> RoundPlan | None:
    """The next round to play given every result so far: the first round without any
    result (asked again, the same plan); ``None`` when the tournament is over or the
    current round has some results but not all (it is being played)."""
    h = replay(settings, entries, results)
    return None if h.current is None or h.current_results else h.current


def plans(settings: Settings, entries: Sequence[Entry], results: Sequence[Result]
          ) -> tuple[RoundPlan, ...]:
    """Every round planned so far: the finished ones and the one being played or next
    (what a restarted server needs to show the round in progress)."""
    h = replay(settings, entries, results)
    return tuple(p.plan for p in h.done) + (() if h.current is None else (h.current,))


def is_complete(settings: Settings, entries: Sequence[Entry], results: Sequence[Result]
                ) -> bool:
    """Has every round been played?"""
    return replay(settings, entries, results).current is None


def board_table(settings: Settings, results: Sequence[Result], round: int
                ) -> tuple[BoardTable, ...]:
    """Duplicate: each board of ``round`` with its frequency table and each table's
    matchpoints (from the results of that round given), for publishing after the round."""
    if settings.format != Format.DUPLICATE:
        raise TournamentError(f"board tables belong to duplicate, not {settings.format}")
    first = (round - 1) * settings.boards + 1
    mine = [r for r in results if r.round == round]
    for r in mine:
        for b, _ in r.board_scores:
            if not first <= b < first + settings.boards:
                raise TournamentError(f"result of round {round} table {r.table}: board {b} "
                                      f"is not played in round {round}")
    return tuple(board_tables(mine))


def robin_groups(settings: Settings, entries: Sequence[Entry]) -> tuple[tuple[int, ...], ...]:
    """Round robin: the entry ids of each group (snake by rating), group 1 first."""
    return tuple(tuple(e.id for e in g) for g in groups(settings, entries))


__all__ = ["BoardLine", "BoardTable", "Entry", "Format", "Frequency", "Game", "Result",
           "RoundPlan", "Settings", "Standing", "TournamentError", "board_deal", "board_seed",
           "board_table", "is_complete", "plan_round", "plans", "robin_groups", "standings"]

"""Duplicate (issue 41): the Mitchell movement, the same boards at every table, and
matchpoints against a worked bridge-style example."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bela.tournament import (
    Entry,
    Format,
    Result,
    Settings,
    TournamentError,
    board_deal,
    board_table,
    is_complete,
    plan_round,
    standings,
)


def test_a_board_at_four_tables() -> None:
    """One board at 4 tables; side 0's margins +50, +20, +20, -30.

    side 0 margin   beats  ties   matchpoints        side 1 (margin negated)
       +50            3      0    2*3      = 6 (100%)    0 (0%)
       +20            1      1    2*1 + 1  = 3 (50%)     3 (50%)
       +20            1      1    3          (50%)       3 (50%)
       -30            0      0    0          (0%)        6 (100%)
    top = 2 * (4 - 1) = 6
    """
    s = Settings("bela4", Format.DUPLICATE, rounds=1, boards=1)
    es = [Entry(i, 2000 - i) for i in range(1, 9)]  # side 0: 1 3 5 7, side 1: 2 4 6 8
    plan = plan_round(s, es, [])
    assert plan is not None
    assert [g.entries for g in plan.games] == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert all(g.boards == (1,) for g in plan.games)
    points = [(90, 40), (81, 61), (101, 81), (46, 76)]  # margins +50 +20 +20 -30
    rs = [Result(1, g.table, g.entries, p, None, board_scores=((1, p),))
          for g, p in zip(plan.games, points)]
    (table,) = board_table(s, rs, 1)
    assert table.board == 1 and table.top == 6
    assert [(f.margin, f.count, f.matchpoints) for f in table.frequencies] == [
        (50, 1, (6, 0)), (20, 2, (3, 3)), (-30, 1, (0, 6))]
    assert [(ln.table, ln.margin, ln.matchpoints) for ln in table.lines] == [
        (1, 50, (6, 0)), (2, 20, (3, 3)), (3, 20, (3, 3)), (4, -30, (0, 6))]
    result = {x.entry: (x.match_points, x.percentage) for x in standings(s, es, rs)}
    assert result == {1: (6, 100.0), 3: (3, 50.0), 5: (3, 50.0), 7: (0, 0.0),
                      2: (0, 0.0), 4: (3, 50.0), 6: (3, 50.0), 8: (6, 100.0)}
    assert is_complete(s, es, rs)


def test_percentages_over_two_boards() -> None:
    """Board 1 as above; board 2 margins 0, 0, +10, -10: side 0 gets 3, 3, 6, 0.
    Entry 1: 6 + 3 = 9 of 12 = 75%; entry 7: 0 + 0 = 0%; entry 5: 3 + 6 = 75%; entry 8
    (side 1 at table 4): 6 + 6 = 100%."""
    s = Settings("bela4", Format.DUPLICATE, rounds=1, boards=2)
    es = [Entry(i, 2000 - i) for i in range(1, 9)]
    plan = plan_round(s, es, [])
    assert plan is not None
    b1 = [50, 20, 20, -30]
    b2 = [0, 0, 10, -10]
    rs = [Result(1, g.table, g.entries, (m1 + m2, 0), None,
                 board_scores=((1, (m1, 0)), (2, (m2, 0))))
          for g, m1, m2 in zip(plan.games, b1, b2)]
    table = standings(s, es, rs)
    pct = {x.entry: x.percentage for x in table}
    assert pct[1] == 75.0 and pct[5] == 75.0 and pct[3] == 50.0 and pct[7] == 0.0
    assert pct[8] == 100.0  # side 1 at table 4: 6 and 6 (board 2's -10 is its +10)
    assert [x.entry for x in table][:3] == [8, 1, 5]  # 1 and 5 equal: 1 is rated higher


@pytest.mark.parametrize("n", range(2, 31))
def test_nobody_meets_an_opponent_twice(n: int) -> None:
    tables = (n + 1) // 2
    es = [Entry(i, 1000 + (i * 37) % 101) for i in range(1, n + 1)]
    s = Settings("bela2", Format.DUPLICATE, rounds=tables, boards=3)
    results: list[Result] = []
    met: set[frozenset[int]] = set()
    byes: list[int] = []
    while (plan := plan_round(s, es, results)) is not None:
        seated = [e for g in plan.games for e in g.entries] + list(plan.byes)
        assert sorted(seated) == list(range(1, n + 1))
        first = (plan.round - 1) * 3 + 1
        assert all(g.boards == (first, first + 1, first + 2) for g in plan.games)
        for g in plan.games:
            assert frozenset(g.entries) not in met
            met.add(frozenset(g.entries))
        byes += plan.byes
        results += [Result(plan.round, g.table, g.entries, (0, 0), None,
                           board_scores=tuple((b, (b % 7, 3)) for b in g.boards))
                    for g in plan.games]
    assert len(byes) == len(set(byes)) == n % 2 * tables  # each sits out at most once


def test_the_deals_come_from_the_seed() -> None:
    a = Settings("bela4", Format.DUPLICATE, rounds=1, boards=2, seed=1)
    b = Settings("bela4", Format.DUPLICATE, rounds=1, boards=2, seed=2)
    assert board_deal(a, 1) == board_deal(a, 1)
    assert board_deal(a, 1) != board_deal(b, 1) and board_deal(a, 1) != board_deal(a, 2)
    assert len(board_deal(a, 1).hands) == 4
    assert len(board_deal(Settings("belot2", Format.DUPLICATE, rounds=1, boards=1), 1
                          ).hands) == 2


def test_a_table_must_score_exactly_its_boards() -> None:
    s = Settings("bela4", Format.DUPLICATE, rounds=1, boards=2)
    es = [Entry(1, 1500), Entry(2, 1400)]
    with pytest.raises(TournamentError, match="boards"):
        plan_round(s, es, [Result(1, 1, (1, 2), (0, 0), None, board_scores=((1, (5, 0)),))])
    with pytest.raises(TournamentError, match="not played in round 2"):
        board_table(s, [Result(2, 1, (1, 2), (0, 0), None, board_scores=((1, (5, 0)),))], 2)


def test_a_forfeit_scores_zero_on_its_boards() -> None:
    s = Settings("bela4", Format.DUPLICATE, rounds=1, boards=1)
    es = [Entry(i, 2000 - i) for i in range(1, 7)]
    rs = [Result(1, 1, (1, 2), (10, 0), None, board_scores=((1, (10, 0)),)),
          Result(1, 2, (3, 4), (0, 10), None, board_scores=((1, (0, 10)),)),
          Result(1, 3, (5, 6), (0, 0), 6, forfeit=(5,))]
    pct = {x.entry: x.percentage for x in standings(s, es, rs)}
    assert pct == {1: 100.0, 2: 0.0, 3: 0.0, 4: 100.0, 5: 0.0, 6: None}


def test_bela3_duplicate_is_refused() -> None:
    with pytest.raises(TournamentError, match="two sides"):
        Settings("bela3", Format.DUPLICATE, rounds=1, boards=1)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 14), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**32))
def test_random_duplicate_tournaments(n: int, rounds: int, boards: int, seed: int) -> None:
    """Whole random tournaments: on every board the two sides of a table share the top,
    all matchpoints of a side add up to ``n (n - 1)`` over ``n`` tables (each comparison
    gives out 2), the frequencies count every table, percentages lie in 0..100."""
    rng = random.Random(seed)
    es = [Entry(i, rng.randint(1000, 1100)) for i in range(1, n + 1)]
    s = Settings("bela2", Format.DUPLICATE, rounds=rounds, boards=boards, seed=seed)
    results: list[Result] = []
    while (plan := plan_round(s, es, results)) is not None:
        round_results = [Result(plan.round, g.table, g.entries, (0, 0), None, board_scores=tuple(
            (b, (rng.choice((0, 10, 20, 162)), rng.choice((0, 10, 20, 162)))) for b in g.boards))
            for g in plan.games]
        results += round_results
        tables = board_table(s, results, plan.round)
        assert [t.board for t in tables] == list(plan.games[0].boards)
        for t in tables:
            k = len(plan.games)
            assert t.top == 2 * (k - 1) and len(t.lines) == k
            assert sum(f.count for f in t.frequencies) == k
            assert all(sum(ln.matchpoints) == t.top for ln in t.lines)
            assert sum(ln.matchpoints[0] for ln in t.lines) == k * (k - 1)
    assert is_complete(s, es, results)
    for x in standings(s, es, results):
        assert x.percentage is None or 0 <= x.percentage <= 100

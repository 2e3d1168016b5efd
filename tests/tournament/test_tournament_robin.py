"""Round robin in groups (issue 41): snake groups, Berger rounds where everyone meets
everyone in the group exactly once, and the knockout of the group winners."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tournament_helpers import random_result

from bela.tournament import (
    Entry,
    Format,
    Result,
    RoundPlan,
    Settings,
    is_complete,
    plan_round,
    robin_groups,
    standings,
)
from bela.tournament.robin import berger


@pytest.mark.parametrize("n", range(2, 24))
def test_everyone_meets_everyone_in_the_group_once(n: int) -> None:
    rng = random.Random(n)
    es = [Entry(50 + i, rng.randint(1000, 2000)) for i in range(n)]
    for groups in range(1, min(4, n // 2) + 1):
        s = Settings("bela4", Format.ROUND_ROBIN, groups=groups)
        gs = robin_groups(s, es)
        assert sorted(e for g in gs for e in g) == sorted(e.id for e in es)
        sizes = [len(g) for g in gs]
        assert max(sizes) - min(sizes) <= 1
        group_of = {e: i for i, g in enumerate(gs) for e in g}
        results: list[Result] = []
        plans: list[RoundPlan] = []
        while (plan := plan_round(s, es, results)) is not None:
            plans.append(plan)
            seated = Counter(e for g in plan.games for e in g.entries) + Counter(plan.byes)
            assert max(seated.values()) == 1
            assert [g.table for g in plan.games] == list(range(1, len(plan.games) + 1))
            results += [random_result(rng, plan.round, g) for g in plan.games]
        met = Counter(frozenset(r.entries) for r in results)
        assert all(v == 1 for v in met.values())
        expected = {frozenset((a, b)) for g in gs for a in g for b in g if a != b}
        assert set(met) == expected
        assert len(plans) == max(len(g) - (len(g) % 2 == 0) for g in gs)
        assert is_complete(s, es, results)
        assert all(sum(e in p.byes for p in plans) == len(gs[group_of[e]]) % 2
                   for e in group_of)


def test_snake_groups() -> None:
    es = [Entry(i, 2000 - i) for i in range(1, 10)]
    s = Settings("bela2", Format.ROUND_ROBIN, groups=3)
    assert robin_groups(s, es) == ((1, 6, 7), (2, 5, 8), (3, 4, 9))


def test_berger_schedule_of_six() -> None:
    rounds = berger([1, 2, 3, 4, 5, 6])
    assert len(rounds) == 5 and all(bye is None for _, bye in rounds)
    pairs = [frozenset(p) for r, _ in rounds for p in r]
    assert len(pairs) == len(set(pairs)) == 15


@pytest.mark.parametrize("best_of", [1, 3])
def test_group_winners_play_a_knockout(best_of: int) -> None:
    rng = random.Random(best_of)
    es = [Entry(i, rng.randint(1000, 2000)) for i in range(1, 20)]
    s = Settings("bela2", Format.ROUND_ROBIN, groups=4, knockout_after=True, best_of=best_of)
    results: list[Result] = []
    plans = []
    group_rounds = 5  # groups of 5, 5, 5, 4
    while (plan := plan_round(s, es, results)) is not None:
        plans.append(plan)
        if plan.round == group_rounds + 1:
            table = standings(s, es, results)
            winners = {x.entry for x in table if x.rank == 1}
            assert len(winners) == 4 and plan.stage == "semi-final"
            assert {e for g in plan.games for e in g.entries} == winners
        results += [random_result(rng, plan.round, g, draws=plan.round <= group_rounds)
                    for g in plan.games]
    assert [p.stage for p in plans][:group_rounds] == ["groups"] * group_rounds
    assert plans[-1].stage == "final"
    table = standings(s, es, results)
    assert [x.place for x in table].count(1) == 1
    assert sorted(x.place for x in table if x.place is not None) == [1, 2, 3, 3]
    assert [x.group for x in table] == sorted(x.group or 0 for x in table)

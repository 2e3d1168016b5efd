"""Knockout brackets (issue 41) for every field of 2 to 129 entries, best of 1 and of 3."""

from __future__ import annotations

import math
import random

import pytest
from tournament_helpers import random_result

from bela.tournament import (
    Entry,
    Format,
    Result,
    RoundPlan,
    Settings,
    TournamentError,
    is_complete,
    plan_round,
    standings,
)
from bela.tournament.knockout import seeding


def play_out(s: Settings, es: list[Entry], rng: random.Random
             ) -> tuple[list[RoundPlan], list[Result]]:
    plans: list[RoundPlan] = []
    results: list[Result] = []
    while (plan := plan_round(s, es, results)) is not None:
        plans.append(plan)
        results += [random_result(rng, plan.round, g, draws=False) for g in plan.games]
    assert is_complete(s, es, results)
    return plans, results


def bracket_rounds(plans: list[RoundPlan]) -> list[list[RoundPlan]]:
    """The plans grouped by bracket round (a new one starts at each leg 1)."""
    out: list[list[RoundPlan]] = []
    for p in plans:
        if p.games[0].leg == 1:
            out.append([])
        out[-1].append(p)
    return out


@pytest.mark.parametrize("best_of", [1, 3])
def test_every_bracket_from_2_to_129(best_of: int) -> None:
    rng = random.Random(best_of)
    for n in range(2, 130):
        es = [Entry(100 + i, rng.randint(1000, 2000)) for i in range(n)]
        seed_of = {e.id: i for i, e in enumerate(sorted(es, key=lambda e: (-e.rating, e.id)),
                                                 1)}
        s = Settings("bela2", Format.KNOCKOUT, best_of=best_of)
        plans, results = play_out(s, es, rng)
        rounds = bracket_rounds(plans)
        assert len(rounds) == math.ceil(math.log2(n)), n
        first = rounds[0][0]
        seated = [e for g in first.games for e in g.entries] + list(first.byes)
        assert sorted(seated) == sorted(seed_of), "every entry appears once in round 1"
        size = 2 ** len(rounds)
        assert sorted(seed_of[b] for b in first.byes) == list(range(1, size - n + 1))
        assert all(p.byes == () for p in plans[1:])
        alive = set(seed_of)
        for legs in rounds:
            ties = {g.table: g.entries for g in legs[0].games}
            wins: dict[int, list[int]] = {t: [0, 0] for t in ties}
            for plan in legs:
                for g in plan.games:
                    assert g.entries == ties[g.table] and g.leg == legs.index(plan) + 1
                    assert max(wins[g.table]) < (best_of + 1) // 2, "a decided tie played on"
                    if g.leg == 3:
                        assert wins[g.table] == [1, 1], "a third leg only at 1-1"
                for r in (r for r in results if r.round == plan.round):
                    assert r.winner is not None
                    wins[r.table][ties[r.table].index(r.winner)] += 1
            assert all(max(w) == (best_of + 1) // 2 for w in wins.values())
            losers = {ties[t][w.index(min(w))] for t, w in wins.items()}
            winners = {ties[t][w.index(max(w))] for t, w in wins.items()}
            assert winners <= alive and losers <= alive
            alive -= losers
            if legs is not rounds[-1]:
                nxt = rounds[rounds.index(legs) + 1][0]
                assert {e for g in nxt.games for e in g.entries} == alive, "winners advance"
        assert len(alive) == 1
        table = standings(s, es, results)
        champion = next(iter(alive))
        assert [x.place for x in table].count(1) == 1 and table[0].entry == champion
        assert table[0].place == 1 and table[0].eliminated_in is None
        assert all(x.place is not None and x.place > 1 for x in table[1:])


def test_standard_seeding() -> None:
    assert seeding(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    order = seeding(64)
    assert all(order[i] + order[i + 1] == 65 for i in range(0, 64, 2))
    assert 2 in order[32:] and 1 in order[:32]  # 1 and 2 meet only in the final


def test_places_and_stages_of_an_eight_bracket() -> None:
    es = [Entry(i, 2000 - i) for i in range(1, 9)]
    s = Settings("bela4", Format.KNOCKOUT)
    results: list[Result] = []
    stages = []
    while (plan := plan_round(s, es, results)) is not None:
        stages.append(plan.stage)
        # the higher seed (side 0) always wins
        results += [Result(plan.round, g.table, g.entries, (1001, 500), g.entries[0])
                    for g in plan.games]
    assert stages == ["quarter-final", "semi-final", "final"]
    table = standings(s, es, results)
    # equal places by match points, then Buchholz: 4 lost to 1 (6 points), 3 to 2 (4); 8,
    # 7, 5, 6 lost to 1, 2, 4 and 3, whose points are 6, 4, 2 and 2 (5 above 6 by rating)
    assert [(x.entry, x.place, x.eliminated_in, x.buchholz) for x in table] == [
        (1, 1, None, 6.0), (2, 2, 3, 8.0), (4, 3, 2, 6.0), (3, 3, 2, 4.0), (8, 5, 1, 6.0),
        (7, 5, 1, 4.0), (5, 5, 1, 2.0), (6, 5, 1, 2.0)]


def test_a_knockout_partija_needs_a_winner() -> None:
    s = Settings("bela4", Format.KNOCKOUT)
    es = [Entry(1, 1500), Entry(2, 1400)]
    with pytest.raises(TournamentError, match="needs a winner"):
        plan_round(s, es, [Result(1, 1, (1, 2), (1001, 1001), None)])


def test_bela3_knockout_is_refused() -> None:
    with pytest.raises(TournamentError, match="two sides"):
        Settings("bela3", Format.KNOCKOUT)

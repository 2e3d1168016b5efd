"""Swiss pairing (issue 41): whole tournaments simulated with random fields and results,
every round checked against brute force on small fields.

The properties, for every round of every simulated tournament:

* everyone is seated exactly once or has the bye; ``count % sides`` byes;
* byes rotate: a bye goes to the entries with the fewest byes so far, the lowest ranked of
  them first (so nobody gets a second bye while someone has none);
* no repeat while avoidable: when a table seats two entries that met before, brute force
  finds no way to seat that round's players without a repeat;
* score groups (two sides, rounds without a repeat): going down the score groups (entries
  with equal match points, by rank), let ``U`` be a group's members not already paired with
  a higher group and ``B`` the entries below it not already paired with a higher group.  If
  ``U`` can pair among itself without a repeat and ``B`` can too, every member of ``U``
  meets a member of its own group.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tournament_helpers import (
    can_pair,
    can_seat_threes,
    entries,
    match_points,
    met_pairs,
    random_result,
)

from bela.tournament import (
    Entry,
    Format,
    Result,
    RoundPlan,
    Settings,
    is_complete,
    plan_round,
    standings,
)
from bela.tournament.swiss import pair_two


def check_round(s: Settings, es: list[Entry], plans: list[RoundPlan], results: list[Result],
                plan: RoundPlan) -> None:
    sides = s.sides
    rating = {e.id: e.rating for e in es}
    mp = match_points(plans, results)
    rank = sorted(rating, key=lambda e: (-mp.get(e, 0), -rating[e], e))
    pos = {e: i for i, e in enumerate(rank)}
    seated = [e for g in plan.games for e in g.entries] + list(plan.byes)
    assert sorted(seated) == sorted(rating), "everyone seated exactly once or a bye"
    assert all(len(g.entries) == sides for g in plan.games)
    assert len(plan.byes) == len(es) % sides
    assert [g.table for g in plan.games] == list(range(1, len(plan.games) + 1))
    byes_before = {e: sum(e in p.byes for p in plans) for e in rating}
    for b in plan.byes:
        for x in rating:
            if x not in plan.byes:
                assert (byes_before[b], -pos[b]) < (byes_before[x], -pos[x]), (b, x)
    met = met_pairs(results)
    playing = [e for e in rank if e not in plan.byes]
    repeats = [g for g in plan.games
               if any(frozenset((a, b)) in met for a in g.entries for b in g.entries if a != b)]
    if repeats:
        possible = can_pair(playing, met) if sides == 2 else can_seat_threes(playing, met)
        assert not possible, f"repeat {repeats[0].entries} while a repeat-free round exists"
    if sides == 2 and not repeats:
        partner = {a: b for g in plan.games for a, b in (g.entries, g.entries[::-1])}
        taken: set[int] = set()
        groups: list[list[int]] = []
        for e in playing:
            if groups and mp.get(groups[-1][0], 0) == mp.get(e, 0):
                groups[-1].append(e)
            else:
                groups.append([e])
        for i, group in enumerate(groups):
            free = [e for e in group if e not in taken]
            below = [e for g in groups[i + 1:] for e in g if e not in taken]
            if free and can_pair(free, met) and can_pair(below, met):
                assert all(partner[e] in group for e in free), (group, plan.games)
            for e in group:
                taken |= {e, partner[e]}


def simulate(s: Settings, es: list[Entry], rng: random.Random) -> list[Result]:
    plans: list[RoundPlan] = []
    results: list[Result] = []
    while (plan := plan_round(s, es, results)) is not None:
        assert plan.round == len(plans) + 1 and plan.stage == "swiss"
        assert plan_round(s, es, results) == plan  # asked again: the same plan
        check_round(s, es, plans, results, plan)
        plans.append(plan)
        results += [random_result(rng, plan.round, g) for g in plan.games]
    assert len(plans) == s.rounds and is_complete(s, es, results)
    return results


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1000, 1010), min_size=2, max_size=10), st.integers(1, 10),
       st.sampled_from(["bela4", "bela2", "belot2"]), st.integers(0, 2**32))
def test_two_sided_swiss_rounds(ratings: list[int], rounds: int, variant: str,
                                seed: int) -> None:
    s = Settings(variant, Format.SWISS, rounds=rounds)
    simulate(s, entries(ratings), random.Random(seed))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1000, 1010), min_size=3, max_size=11), st.integers(1, 6),
       st.integers(0, 2**32))
def test_bela3_swiss_tables_of_three(ratings: list[int], rounds: int, seed: int) -> None:
    s = Settings("bela3", Format.SWISS, rounds=rounds)
    simulate(s, entries(ratings), random.Random(seed))


def test_a_repeat_is_made_only_when_no_round_avoids_it() -> None:
    """Four entries, four rounds: after three rounds everyone has met everyone, so round 4
    repeats; the first three have none."""
    s = Settings("bela2", Format.SWISS, rounds=4)
    es = entries([1500, 1400, 1300, 1200])
    rng = random.Random(3)
    results = simulate(s, es, rng)
    firsts = [frozenset(r.entries) for r in results if r.round <= 3]
    assert len(set(firsts)) == 6
    assert all(frozenset(r.entries) in firsts for r in results if r.round == 4)


def test_the_first_round_folds_by_rating() -> None:
    """Round 1 is one score group: the upper half meets the lower half, 1 v 5, 2 v 6 ..."""
    es = [Entry(10 + i, 2000 - i) for i in range(8)]
    plan = plan_round(Settings("bela4", Format.SWISS, rounds=3), es, [])
    assert plan is not None
    assert [g.entries for g in plan.games] == [(10, 14), (11, 15), (12, 16), (13, 17)]


def test_the_same_input_gives_the_same_rounds() -> None:
    s = Settings("bela4", Format.SWISS, rounds=5)
    es = entries([random.Random(1).randint(1000, 2000) for _ in range(33)])
    a = simulate(s, es, random.Random(5))
    b = simulate(s, list(reversed(es)), random.Random(5))  # the order given does not matter
    assert a == b
    assert standings(s, es, a) == standings(s, list(reversed(es)), a)


def test_a_128_entry_swiss_plays_through() -> None:
    s = Settings("bela4", Format.SWISS, rounds=7)
    rng = random.Random(11)
    es = [Entry(i, rng.uniform(1000, 2000)) for i in range(1, 129)]
    results = simulate_fast(s, es, rng)
    met = [frozenset(r.entries) for r in results]
    assert len(met) == len(set(met)) == 7 * 64


def simulate_fast(s: Settings, es: list[Entry], rng: random.Random) -> list[Result]:
    results: list[Result] = []
    while (plan := plan_round(s, es, results)) is not None:
        assert sorted(e for g in plan.games for e in g.entries) == sorted(e.id for e in es)
        results += [random_result(rng, plan.round, g) for g in plan.games]
    return results


@pytest.mark.parametrize("n", [4, 5, 7])
def test_bela3_byes_go_lowest_first_and_rotate(n: int) -> None:
    s = Settings("bela3", Format.SWISS, rounds=6)
    es = entries([1500 - 10 * i for i in range(n)])
    results = simulate(s, es, random.Random(n))
    assert len({r.round for r in results}) == 6


def test_a_group_that_can_pair_among_itself_does() -> None:
    """Group 0 1 2 3 (2 points) above 4 5; 1 and 3 met.  The fold would pair 0-2 and
    leave 1 to float down (1-4, 3-5 is a valid round), but 0-3, 1-2 keeps the group
    closed, so that is the pairing."""
    assert pair_two([2, 2, 2, 2, 0, 0], lambda a, b: {a, b} != {1, 3}) == [
        (0, 3), (1, 2), (4, 5)]

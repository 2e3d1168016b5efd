"""The double-dummy solver (bela.solver.dd) against plain minimax on thousands of small
endings of every variant (R16-R20, R36, last trick +10), mid-trick positions, raspas, bela3's
caller against the two defenders, principal variations played out through the engine, and
full bela4 deals solved the same way by every search method."""

from __future__ import annotations

import doctest
import random

import pytest
from dd_reference import (
    VARIANTS,
    engine_values,
    random_round,
    ref_round_values,
    ref_values,
    round_teams_taken,
    side_points,
)

from bela.engine import Card, Match, Play
from bela.engine.cards import HEARTS, SPADES, CardSet
from bela.engine.rules import ALL_TRUMPS, NO_TRUMPS
from bela.solver import Position, Solver, solve, solve_position, value
from bela.solver import dd as dd_module
from bela.solver import kernels as K
from bela.solver.bench import bench_solver, random_bela4_position

pytest.importorskip("numba")


def hands_of(*texts: str) -> list[int]:
    return [CardSet.parse(t).mask for t in texts]


def check_solution(rnd_values: dict[int, int], sol_values: dict[Card, int]) -> None:
    assert {int(c): v for c, v in sol_values.items()} == rnd_values


@pytest.mark.parametrize("variant", VARIANTS)
def test_values_match_plain_minimax_on_small_endings(variant: str) -> None:
    """500 random endings per variant (2000 in all), 1-3 cards a hand, a third mid-trick:
    the value of every legal card equals plain minimax."""
    rng = random.Random(20260 + VARIANTS.index(variant))
    solver = Solver()
    for _ in range(500):
        rnd = random_round(variant, rng, rng.choice([1, 2, 2, 3, 3, 3]))
        sol = solver.solve(Position.from_round(rnd))
        check_solution(ref_round_values(rnd), sol.values)
        assert sol.seat == rnd.turn
        assert set(sol.values) == {Card.ALL[c] for c in range(32) if rnd.legal_cards() >> c & 1}
        pick = min if rnd.raspas else max
        assert sol.value == pick(sol.values.values()) == sol.values[sol.best]
        assert sol.minimize == rnd.raspas


@pytest.mark.parametrize("variant", VARIANTS)
def test_values_match_minimax_through_the_engine(variant: str) -> None:
    """Tiny endings played card by card through Round.apply / Round.undo."""
    rng = random.Random(7 + VARIANTS.index(variant))
    for _ in range(25):
        rnd = random_round(variant, rng, rng.choice([1, 2]))
        check_solution(engine_values(rnd), solve(rnd, line=False).values)


def test_four_card_endings_and_every_contract() -> None:
    """Bigger endings (4 cards a hand) and the belot2 contracts VC, BC and raspas."""
    rng = random.Random(4)
    solver = Solver()
    seen: set[tuple[str, int, bool]] = set()
    for i in range(80):
        variant = VARIANTS[i % 4]
        rnd = random_round(variant, rng, 4, mid_trick=i % 3 == 0)
        seen.add((variant, rnd.contract, rnd.raspas))
        check_solution(ref_round_values(rnd), solver.solve(Position.from_round(rnd)).values)
    for contract in (ALL_TRUMPS, NO_TRUMPS, SPADES):
        for raspas in (False, True):
            if raspas and contract != SPADES:
                continue
            for _ in range(40):
                deck = rng.sample(range(32), 8)
                hands = [sum(1 << c for c in deck[:4]), sum(1 << c for c in deck[4:])]
                leader = rng.randrange(2)
                taken = (rng.randrange(60), rng.randrange(60))
                sol = solve_position(hands, contract, "belot2", leader, (), taken,
                                     raspas=raspas)
                ref = ref_values("belot2", contract, hands, leader, (), (0, 1), taken, raspas)
                check_solution(ref, sol.values)


def test_the_line_played_through_the_engine_reaches_the_value() -> None:
    rng = random.Random(11)
    for i in range(60):
        variant = VARIANTS[i % 4]
        rnd = random_round(variant, rng, rng.choice([2, 3, 4, 5]))
        sol = solve(rnd)
        seat = rnd.turn
        assert sol.line[0] == sol.best
        n_cards = sum(h.bit_count() for h in rnd.hands)
        assert len(sol.line) == n_cards
        for card in sol.line:
            rnd.apply(Play(card))
        assert rnd.is_over
        assert side_points(rnd, seat) == sol.value
        for _ in sol.line:
            rnd.undo()


def test_bela3_defenders_play_together_against_the_caller() -> None:
    """Seat 0 calls hearts; a defender's value counts both defenders' points.  Seat 1 leads
    AS: seat 2 must follow with TS, the caller must trump (R18) and takes 21, but the
    defenders take the last trick (9C must beat 8C, R17): 50 + 10.  Leading 7C instead,
    seat 2 takes it with 9C, then leads TS into the caller's 7H: 50 + 0."""
    hands = hands_of("7H 8C", "AS 7C", "TS 9C")
    sol = solve_position(hands, HEARTS, "bela3", leader=1, taken=(40, 30, 20), caller=0)
    assert sol.seat == 1
    assert {str(c): v for c, v in sol.values.items()} == {"AS": 60, "7C": 50}
    assert sol.best == Card.from_code("AS")
    check_solution(ref_values("bela3", HEARTS, hands, 1, (), (0, 1, 1), (40, 50)),
                   sol.values)
    # seat 2 playing after the AS lead: same side as seat 1
    mid = solve_position([hands[0], hands[1] & ~Card.from_code("AS").mask, hands[2]], HEARTS,
                         "bela3", leader=1, trick=[Card.from_code("AS")],
                         taken=(40, 30, 20), caller=0)
    assert mid.seat == 2 and mid.value == 60
    as_caller = solve_position(hands, HEARTS, "bela3", leader=0, taken=(40, 30, 20), caller=0)
    assert as_caller.seat == 0
    check_solution(ref_values("bela3", HEARTS, hands, 0, (), (0, 1, 1), (40, 50)),
                   as_caller.values)


def test_mid_trick_positions_and_from_round_with_other_hands() -> None:
    rng = random.Random(5)
    solver = Solver()
    for i in range(40):
        variant = VARIANTS[i % 4]
        rnd = random_round(variant, rng, 3, mid_trick=True)
        assert rnd.trick
        # the same cards dealt otherwise among the seats still to play
        hands = list(rnd.hands)
        n = len(hands)
        movers = [(rnd.turn + k) % n for k in range(n - len(rnd.trick))]
        pool = [c for s in movers for c in range(32) if hands[s] >> c & 1]
        rng.shuffle(pool)
        for s in movers:
            k = hands[s].bit_count()
            hands[s] = sum(1 << c for c in pool[:k])
            pool = pool[k:]
        pos = Position.from_round(rnd, hands)
        assert pos.hands == tuple(hands) and pos.trick == tuple(rnd.trick)
        teams, taken = round_teams_taken(rnd)
        ref = ref_values(variant, rnd.contract, hands, pos.leader, rnd.trick, teams, taken,
                         rnd.raspas)
        check_solution(ref, solver.solve(pos).values)


def test_value_is_the_best_card_value() -> None:
    rng = random.Random(6)
    for i in range(40):
        rnd = random_round(VARIANTS[i % 4], rng, rng.choice([2, 3, 4]))
        sol = solve(rnd, line=False)
        assert value(rnd) == sol.value


def test_full_bela4_deals_agree_across_search_methods() -> None:
    rng = random.Random(8)
    solvers = [Solver(method=K.METHOD_FULL, sure_bounds=False, tt_bits=12),
               Solver(method=K.METHOD_BISECT), Solver(method=K.METHOD_GALLOP)]
    for _ in range(12):
        pos = random_bela4_position(rng, rng.choice([6, 7, 8]))
        sols = [s.solve(pos) for s in solvers]
        assert sols[0].values == sols[1].values == sols[2].values
        assert all(0 <= v <= 162 for v in sols[0].values.values())
        assert solvers[2].value(pos) == sols[2].value


def test_full_deal_line_through_the_engine() -> None:
    m = Match("bela4", seed=3)
    rnd = m.deal()
    m.apply(m.round.legal_actions()[1])  # type: ignore[union-attr]
    while rnd.phase != "play":
        m.apply(rnd.legal_actions()[0])
    seat = rnd.turn
    sol = solve(rnd)
    assert len(sol.line) == 32
    for card in sol.line:
        rnd.apply(Play(card))
    assert side_points(rnd, seat) == sol.value


def test_bad_positions_are_refused() -> None:
    with pytest.raises(ValueError):
        solve_position(hands_of("7H 8H", "7H 9H", "TH JH", "QH KH"), HEARTS)
    with pytest.raises(ValueError):
        solve_position(hands_of("7H 8H", "9H", "TH JH", "QH KH"), HEARTS)
    with pytest.raises(ValueError):
        solve_position(hands_of("7H", "9H", "TH"), HEARTS, "bela3")  # no caller
    with pytest.raises(ValueError):
        solve_position(hands_of("7H", "9H"), HEARTS, "bela4")
    rnd = Match("bela4", seed=1).deal()
    with pytest.raises(ValueError):
        Position.from_round(rnd)  # bidding


def test_bench_solver_reports_times() -> None:
    out = bench_solver(deals=5, cards_per_hand=5, seed=1, warmup=1)
    assert out["n"] == 5 and out["median_ms"] > 0 and out["p99_ms"] >= out["median_ms"]


def test_module_doctests() -> None:
    assert doctest.testmod(dd_module).failed == 0


def test_pure_python_fallback_gives_the_same_values() -> None:
    """With the JIT off (as without Numba) the kernels run as plain Python."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import random, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from dd_reference import VARIANTS, random_round, ref_round_values\n"
        "from bela.solver import solve\n"
        "rng = random.Random(3)\n"
        "for i in range(12):\n"
        "    rnd = random_round(VARIANTS[i % 4], rng, 2)\n"
        "    got = {int(c): v for c, v in solve(rnd, line=False).values.items()}\n"
        "    assert got == ref_round_values(rnd), i\n"
        "print('ok')\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr

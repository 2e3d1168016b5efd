"""Inconsistent settings, entries and results are refused with a clear TournamentError
(issue 41), and the same input always gives the same plan."""

from __future__ import annotations

import pytest

from bela.tournament import (
    Entry,
    Format,
    Result,
    Settings,
    TournamentError,
    board_table,
    plan_round,
    plans,
    standings,
)

SWISS = Settings("bela2", Format.SWISS, rounds=2)
ES = [Entry(1, 1500), Entry(2, 1400), Entry(3, 1300), Entry(4, 1200)]
ROUND1 = [Result(1, 1, (1, 3), (1001, 500), 1), Result(1, 2, (2, 4), (1001, 500), 2)]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"variant": "bela5", "format": Format.SWISS, "rounds": 1}, "unknown variant"),
    ({"variant": "bela4", "format": "ladder"}, "unknown format"),
    ({"variant": "bela4", "format": Format.SWISS}, "rounds >= 1"),
    ({"variant": "bela4", "format": Format.KNOCKOUT, "rounds": 3}, "rounds must be 0"),
    ({"variant": "bela4", "format": Format.KNOCKOUT, "best_of": 2}, "best_of must be 1 or 3"),
    ({"variant": "bela4", "format": Format.SWISS, "rounds": 1, "best_of": 3}, "only to a knockout"),
    ({"variant": "bela4", "format": Format.SWISS, "rounds": 1, "groups": 2}, "only to a round"),
    ({"variant": "bela4", "format": Format.ROUND_ROBIN, "knockout_after": True}, "2 groups"),
    ({"variant": "bela4", "format": Format.DUPLICATE, "rounds": 1}, "boards >= 1"),
    ({"variant": "bela4", "format": Format.SWISS, "rounds": 1, "boards": 2}, "only to duplicate"),
    ({"variant": "bela3", "format": Format.ROUND_ROBIN}, "two sides"),
])
def test_impossible_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_the_format_may_be_given_as_its_word() -> None:
    assert Settings("bela4", "knockout").format is Format.KNOCKOUT  # type: ignore[arg-type]


@pytest.mark.parametrize(("results", "message"), [
    ([Result(1, 1, (1, 9), (1001, 0), 1)], "unknown entries \\[9\\]"),
    ([Result(1, 3, (1, 3), (1001, 0), 1)], "table 3 leg 1: no such game was planned"),
    ([Result(1, 1, (3, 1), (1001, 0), 3)], "but the plan seats \\[1, 3\\]"),
    ([ROUND1[0], ROUND1[0]], "given twice"),
    ([Result(1, 1, (1, 3), (1001,), 1)], "1 scores for 2 sides"),
    ([Result(1, 1, (1, 3), (1001, 0), 2)], "the winner 2 did not play there"),
    ([Result(1, 1, (1, 3), (0, 0), 1, forfeit=(1,))], "the winner 1 forfeited"),
    ([Result(1, 1, (1, 3), (0, 0), None, forfeit=(1,))], "the winner must be 3"),
    ([Result(1, 1, (1, 3), (0, 0), 1, forfeit=(4,))], "must be entries of the table"),
    ([*ROUND1, Result(0, 1, (1, 2), (1001, 0), 1)], "round 0, which was never planned"),
    ([*ROUND1, Result(3, 1, (1, 2), (1001, 0), 1)], "round 3, but round 2 is not finished"),
    ([ROUND1[0], Result(2, 1, (1, 2), (1001, 0), 1)], "round 2, but round 1 is not finished"),
])
def test_inconsistent_results(results: list[Result], message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        plan_round(SWISS, ES, results)
    with pytest.raises(TournamentError, match=message):
        standings(SWISS, ES, results)


def test_inconsistent_entries() -> None:
    with pytest.raises(TournamentError, match="entries given twice: \\[2\\]"):
        plan_round(SWISS, [*ES, Entry(2, 1000)], [])
    with pytest.raises(TournamentError, match="entries \\[5\\]: a rating must be a finite"):
        plan_round(SWISS, [*ES, Entry(5, float("nan"))], [])
    with pytest.raises(TournamentError, match="at least 3 entries"):
        plan_round(Settings("bela3", Format.SWISS, rounds=1), ES[:2], [])
    with pytest.raises(TournamentError, match="at least 4 entries"):
        plan_round(Settings("bela4", Format.ROUND_ROBIN, groups=2), ES[:3], [])


def test_results_after_the_last_round() -> None:
    s = Settings("bela2", Format.SWISS, rounds=1)
    with pytest.raises(TournamentError, match="round 2, which was never planned"):
        plan_round(s, ES, [*ROUND1, Result(2, 1, (1, 2), (1001, 0), 1)])


def test_board_tables_belong_to_duplicate() -> None:
    with pytest.raises(TournamentError, match="duplicate"):
        board_table(SWISS, ROUND1, 1)


def test_a_round_is_planned_once_and_the_same_way() -> None:
    """Asked again with the same results, the same plan (what a restarted server needs);
    asked while a round is being played, nothing new; ``plans`` lists every round so far."""
    first = plan_round(SWISS, ES, [])
    assert first is not None and first == plan_round(SWISS, ES, [])
    assert plan_round(SWISS, ES, ROUND1[:1]) is None
    assert plans(SWISS, ES, ROUND1[:1]) == (first,)
    second = plan_round(SWISS, ES, ROUND1)
    assert second is not None and second.round == 2
    assert plans(SWISS, ES, ROUND1) == (first, second)
    assert plan_round(SWISS, ES, list(reversed(ROUND1))) == second

"""Standings and tie-breaks (issue 41) against hand-worked examples.

Order: match points (2 a win or bye, 1 a draw), then Buchholz (the sum of the opponents'
match points), points difference (own points less the opponent's, summed), head to head
(match points won against the entries with the same match points), rating, entry id.
"""

from __future__ import annotations

from bela.tournament import Entry, Format, Result, Settings, plan_round, standings

# ratings: entry 1 the highest
ES4 = [Entry(1, 1600), Entry(2, 1500), Entry(3, 1400), Entry(4, 1300)]
ES6 = ES4 + [Entry(5, 1200), Entry(6, 1100)]


def row(x: object) -> tuple[object, ...]:
    return tuple(getattr(x, f) for f in ("entry", "match_points", "buchholz", "points_diff",
                                         "head_to_head"))


def test_a_swiss_where_buchholz_and_head_to_head_decide() -> None:
    """Six entries, two rounds of bela2 Swiss, every win 1001-500.

    round 1 (fold 1v4 2v5 3v6):  1 beats 4, 2 beats 5, 6 beats 3
    round 2 (1 2 6 on 2 points): 1 beats 2, 6 floats to 4 (6 met 3), 4 beats 6, 3 beats 5

    entry  met (result)   mp  buchholz         diff   head to head (among mp 2: 2 3 4 6)
      1    4 W  2 W       4   2 + 2 = 4        +1002  0 (nobody else has 4)
      4    1 L  6 W       2   4 + 2 = 6        0      2 (beat 6)
      6    3 W  4 L       2   2 + 2 = 4        0      2 (beat 3)
      2    5 W  1 L       2   0 + 4 = 4        0      0 (beat 5, who has 0)
      3    6 L  5 W       2   2 + 0 = 2        0      0
      5    2 L  3 L       0   2 + 2 = 4        -1002  0
    6 and 2: equal points, Buchholz and difference; 6 is ahead by head to head.
    """
    s = Settings("bela2", Format.SWISS, rounds=2)
    r1 = [Result(1, 1, (1, 4), (1001, 500), 1), Result(1, 2, (2, 5), (1001, 500), 2),
          Result(1, 3, (3, 6), (500, 1001), 6)]
    plan = plan_round(s, ES6, r1)
    assert plan is not None and [g.entries for g in plan.games] == [(1, 2), (6, 4), (3, 5)]
    r2 = [Result(2, 1, (1, 2), (1001, 500), 1), Result(2, 2, (6, 4), (500, 1001), 4),
          Result(2, 3, (3, 5), (1001, 500), 3)]
    table = standings(s, ES6, r1 + r2)
    assert [row(x) for x in table] == [
        (1, 4.0, 4.0, 1002, 0.0),
        (4, 2.0, 6.0, 0, 2.0),
        (6, 2.0, 4.0, 0, 2.0),
        (2, 2.0, 4.0, 0, 0.0),
        (3, 2.0, 2.0, 0, 0.0),
        (5, 0.0, 4.0, -1002, 0.0),
    ]
    assert [x.rank for x in table] == [1, 2, 3, 4, 5, 6]
    assert [(x.played, x.wins, x.draws, x.losses) for x in table][:2] == [(2, 2, 0, 0),
                                                                          (2, 1, 0, 1)]


def test_a_round_robin_where_the_points_difference_decides() -> None:
    """Four entries, one group (Berger: 1v4 3v2 | 4v2 3v1 | 3v4 2v1).

    entry  results                               mp  buchholz     diff
      1    4 W 1001-700, 3 L 600-1001, 2 W 1001-400   4   12-4 = 8   +301 -401 +601 = +501
      4    1 L, 2 W 1001-950, 3 W 1001-980            4   8          -301 +51 +21 = -229
      3    2 D 900-900, 1 W, 4 L                      3   9          0 +401 -21 = +380
      2    3 D, 4 L, 1 L                              1   11         0 -51 -601 = -652
    1 and 4: equal points and Buchholz; 1 is ahead on the difference (and beat 4: head to
    head 2 against 0).
    """
    s = Settings("bela4", Format.ROUND_ROBIN)
    rs = [Result(1, 1, (1, 4), (1001, 700), 1), Result(1, 2, (3, 2), (900, 900), None),
          Result(2, 1, (4, 2), (1001, 950), 4), Result(2, 2, (3, 1), (1001, 600), 3),
          Result(3, 1, (3, 4), (980, 1001), 4), Result(3, 2, (2, 1), (400, 1001), 1)]
    table = standings(s, ES4, rs)
    assert [row(x) for x in table] == [
        (1, 4.0, 8.0, 501, 2.0),
        (4, 4.0, 8.0, -229, 0.0),
        (3, 3.0, 9.0, 380, 0.0),
        (2, 1.0, 11.0, -652, 0.0),
    ]
    assert [(x.wins, x.draws, x.losses, x.group) for x in table] == [
        (2, 0, 1, 1), (2, 0, 1, 1), (1, 1, 1, 1), (0, 1, 2, 1)]


def test_head_to_head_before_rating() -> None:
    """The same group: 1 and 2 both 4 points, Buchholz 8, difference +100; 2 beat 1 in
    round 3, so 2 is ahead of the higher rated 1."""
    s = Settings("bela4", Format.ROUND_ROBIN)
    rs = [Result(1, 1, (1, 4), (1001, 901), 1), Result(1, 2, (3, 2), (901, 1001), 2),
          Result(2, 1, (4, 2), (1001, 901), 4), Result(2, 2, (3, 1), (901, 1001), 1),
          Result(3, 1, (3, 4), (1001, 901), 3), Result(3, 2, (2, 1), (1001, 901), 2)]
    table = standings(s, ES4, rs)
    assert [row(x) for x in table[:2]] == [(2, 4.0, 8.0, 100, 2.0), (1, 4.0, 8.0, 100, 0.0)]


def test_tables_of_three_share_the_points() -> None:
    """bela3, three entries at one table: 1001, 640, 1001.  Pairwise 2 for each opponent
    outscored, 1 for each equal, over the 2 opponents: (2 + 1) / 2 = 1.5 for the two with
    1001, 0 for 640.  Difference: 1 and 3 each 0 + 361; 2: -361 -361."""
    s = Settings("bela3", Format.SWISS, rounds=1)
    es = ES4[:3]
    rs = [Result(1, 1, (1, 2, 3), (1001, 640, 1001), 1)]
    table = standings(s, es, rs)
    assert [(x.entry, x.match_points, x.points_diff, x.wins, x.draws, x.losses)
            for x in table] == [(1, 1.5, 361, 1, 0, 0), (3, 1.5, 361, 0, 0, 1),
                                (2, 0.0, -722, 0, 0, 1)]


def test_a_bye_is_a_win_without_buchholz() -> None:
    s = Settings("bela2", Format.SWISS, rounds=1)
    es = ES4[:3]
    rs = [Result(1, 1, (1, 2), (1001, 400), 1)]
    table = standings(s, es, rs)
    assert [(x.entry, x.match_points, x.byes, x.played, x.wins, x.buchholz)
            for x in table] == [(1, 2.0, 0, 1, 1, 0.0), (3, 2.0, 1, 0, 1, 0.0),
                                (2, 0.0, 0, 1, 0, 2.0)]


def test_a_forfeit_loses() -> None:
    s = Settings("bela2", Format.SWISS, rounds=1)
    es = ES4[:2]
    table = standings(s, es, [Result(1, 1, (1, 2), (0, 0), 2, forfeit=(1,))])
    assert [(x.entry, x.match_points, x.losses) for x in table] == [(2, 2.0, 0), (1, 0.0, 1)]

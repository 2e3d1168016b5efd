"""What a table gives each entry: match points against each opponent, and the running tally
of a field (played, wins, match points, opponents, points difference).

Two sides: a win is worth 2, a draw 1, a loss 0; a forfeit loses (both forfeiting: both lose).
A table of three (bela3) compares each pair of entries by their scores: 2 to the higher, 1
each when equal; an entry's match points at the table are its pairwise points divided by
its 2 opponents (so 2 for the best, 0 for the worst), a forfeit being outscored by all.

>>> r = Result(1, 1, (7, 8, 9), (1001, 640, 1001), winner=7)
>>> pairwise(r)[(7, 8)], pairwise(r)[(7, 9)], table_points(r)
(2, 1, {7: 1.5, 8: 0.0, 9: 1.5})
>>> table_points(Result(1, 1, (1, 2), (1001, 950), winner=1, forfeit=()))
{1: 2.0, 2: 0.0}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .model import Entry, Result, RoundPlan


def pairwise(result: Result) -> dict[tuple[int, int], int]:
    """For each ordered pair of entries at the table, the points the first won against the
    second (2 / 1 / 0)."""
    out: dict[tuple[int, int], int] = {}
    es = result.entries
    for i, a in enumerate(es):
        for j, b in enumerate(es):
            if i == j:
                continue
            fa, fb = a in result.forfeit, b in result.forfeit
            if fa or fb:
                out[(a, b)] = 2 if fb and not fa else 0
            elif len(es) == 2:
                out[(a, b)] = 1 if result.winner is None else 2 if result.winner == a else 0
            else:
                sa, sb = result.scores[i], result.scores[j]
                out[(a, b)] = 2 if sa > sb else 1 if sa == sb else 0
    return out


def table_points(result: Result) -> dict[int, float]:
    """Each entry's match points at the table (pairwise points over its opponents)."""
    pw = pairwise(result)
    others = len(result.entries) - 1
    return {a: sum(pw[(a, b)] for b in result.entries if b != a) / others
            for a in result.entries}


@dataclass
class Tally:
    """One entry's record so far."""

    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    match_points: float = 0.0
    points_diff: int = 0
    opponents: list[int] = field(default_factory=list)  # once per table met
    against: dict[int, int] = field(default_factory=dict)  # pairwise points won vs each


def tally(entries: Sequence[Entry], rounds: Iterable[tuple[RoundPlan, Sequence[Result]]]
          ) -> dict[int, Tally]:
    """Every entry's tally over the given rounds (byes count as wins worth 2)."""
    out = {e.id: Tally() for e in entries}
    for plan, results in rounds:
        for b in plan.byes:
            t = out[b]
            t.byes += 1
            t.wins += 1
            t.match_points += 2
        for r in results:
            pw = pairwise(r)
            mp = table_points(r)
            for i, a in enumerate(r.entries):
                t = out[a]
                t.played += 1
                t.match_points += mp[a]
                if r.winner == a:
                    t.wins += 1
                elif r.winner is None and a not in r.forfeit:
                    t.draws += 1
                else:
                    t.losses += 1
                for j, b in enumerate(r.entries):
                    if b != a:
                        t.opponents.append(b)
                        t.points_diff += r.scores[i] - r.scores[j]
                        t.against[b] = t.against.get(b, 0) + pw[(a, b)]
    return out


def ranked(entries: Sequence[Entry], tallies: dict[int, Tally]
           ) -> list[tuple[Entry, float, float]]:
    """``entries`` best first, each with its Buchholz and head-to-head: by match points,
    then Buchholz (the opponents' match points), points difference, head to head (match
    points won against the entries with equal match points), rating, entry id.

    >>> es = [Entry(1, 1500), Entry(2, 1600), Entry(3, 1400)]
    >>> plan = RoundPlan(1, (), ())
    >>> rs = [Result(1, 1, (1, 2), (1001, 900), winner=1),
    ...       Result(1, 2, (2, 3), (1001, 800), winner=2),
    ...       Result(1, 3, (3, 1), (1001, 700), winner=3)]
    >>> [(e.id, b, h) for e, b, h in ranked(es, tally(es, [(plan, rs)]))]
    [(2, 4.0, 2.0), (3, 4.0, 2.0), (1, 4.0, 2.0)]
    """
    buchholz = {e.id: float(sum(tallies[o].match_points for o in tallies[e.id].opponents))
                for e in entries}
    h2h: dict[int, float] = {}
    ids = {e.id for e in entries}
    for e in entries:
        mp = tallies[e.id].match_points
        h2h[e.id] = float(sum(p for o, p in tallies[e.id].against.items()
                              if o in ids and tallies[o].match_points == mp))
    order = sorted(entries, key=lambda e: (-tallies[e.id].match_points, -buchholz[e.id],
                                           -tallies[e.id].points_diff, -h2h[e.id],
                                           -e.rating, e.id))
    return [(e, buchholz[e.id], h2h[e.id]) for e in order]

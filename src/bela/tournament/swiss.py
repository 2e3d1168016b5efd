"""Swiss pairing: each round brings together entries with the same or a similar score.

The field is ordered by match points, then rating, then entry id (highest first).

**Byes.**  With ``count % sides`` entries left over, they sit out with a bye (a win): the
entries with the fewest byes so far, the lowest of them first, so nobody gets a second bye
while another entry has none.

**Two sides** (bela4 pairs, bela2, belot2).  The score groups (entries with equal match
points) are paired top down.  Before a group is paired, the pairing checks whether its
unpaired members can all meet each other, without a repeat, while everybody below can still
be paired too; if so the group is closed (nobody floats out of it).  Inside a group the
upper half meets the lower half by rating (1 v 5, 2 v 6, ... in a group of eight); an entry
that cannot be paired inside its group meets the highest entry below that it may.  Every
pair is taken only if the rest can still be paired (a perfect matching remains,
:class:`~bela.tournament.matching.Matching`), so **no two entries meet twice while a
pairing without a repeat exists**; only when none exists are repeats allowed (the pairing
then prefers new opponents entry by entry, without a guarantee of the fewest repeats).

**Three sides** (bela3, tables of three).  The top unseated entry takes the two next
entries it has not yet shared a table with (and who have not with each other), searching
depth first; when no table set without a shared table repeated exists (or the search
passes :data:`SEARCH_BUDGET` steps, which fields of up to 12 entries never do) the tables
are made greedily with the fewest repeats at each table.

>>> from bela.tournament import Entry, Format, Settings
>>> s = Settings("bela2", Format.SWISS, rounds=3)
>>> plan = next_round(s, [Entry(i, 1500 - i) for i in range(1, 8)], [])
>>> [g.entries for g in plan.games], plan.byes
([(1, 4), (2, 5), (3, 6)], (7,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .matching import Matching
from .model import Entry, Game, Result, RoundPlan, Settings
from .scoring import tally

SEARCH_BUDGET = 50_000  # tables tried by bela3's depth-first search before it gives up

Rounds = Sequence[tuple[RoundPlan, Sequence[Result]]]
Callable2 = Callable[[int, int], bool]


def met_pairs(rounds: Rounds) -> set[frozenset[int]]:
    """Every two entries that have shared a table."""
    met: set[frozenset[int]] = set()
    for _, results in rounds:
        for r in results:
            for i, a in enumerate(r.entries):
                for b in r.entries[i + 1:]:
                    met.add(frozenset((a, b)))
    return met


def next_round(settings: Settings, entries: Sequence[Entry], rounds: Rounds
               ) -> RoundPlan | None:
    """The next Swiss round, or ``None`` after ``settings.rounds`` rounds."""
    if len(rounds) >= settings.rounds:
        return None
    t = tally(entries, rounds)
    order = sorted(entries, key=lambda e: (-t[e.id].match_points, -e.rating, e.id))
    ids = [e.id for e in order]
    rank = {e: i for i, e in enumerate(ids)}
    extra = len(ids) % settings.sides
    byes = sorted(sorted(ids, key=lambda e: (t[e].byes, -rank[e]))[:extra], key=rank.__getitem__)
    playing = [e for e in ids if e not in byes]
    met = met_pairs(rounds)

    def new(a: int, b: int) -> bool:
        return frozenset((playing[a], playing[b])) not in met

    tables: list[tuple[int, ...]]
    if settings.sides == 2:
        score = [t[e].match_points for e in playing]
        tables = [(playing[a], playing[b]) for a, b in pair_two(score, new)]
    else:
        tables = [tuple(playing[i] for i in tri) for tri in tables_of_three(len(playing), new)]
    games = tuple(Game(n, tuple(tab)) for n, tab in enumerate(tables, 1))
    return RoundPlan(len(rounds) + 1, games, tuple(byes), "swiss")


def score_groups(score: Sequence[float]) -> list[list[int]]:
    """The runs of equal scores in ``score`` (which is in descending order)."""
    groups: list[list[int]] = []
    for i, s in enumerate(score):
        if groups and score[groups[-1][0]] == s:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def pair_two(score: Sequence[float], new: Callable2) -> list[tuple[int, int]]:
    """Pairs of the positions ``0 .. n-1`` (ordered best first, ``score`` descending,
    ``n`` even); ``new(a, b)``: ``a`` and ``b`` have not met (see the module docstring).

    >>> pair_two([2, 2, 2, 2, 0, 0], lambda a, b: {a, b} != {0, 2})
    [(0, 3), (1, 2), (4, 5)]
    >>> pair_two([2, 2, 0, 0], lambda a, b: {a, b} != {0, 1})   # 0-1 met: both float
    [(0, 2), (1, 3)]
    """
    n = len(score)
    groups = score_groups(score)
    hint = [(g[i], g[i + len(g) // 2]) for g in groups for i in range(len(g) // 2)]
    m = Matching(n, new)
    repeats = not m.complete(hint)
    if repeats:  # no round without a repeat exists: any two may meet
        m = Matching(n, lambda a, b: True)
        m.complete(hint)
    pairs: list[tuple[int, int]] = []
    for group in groups:
        members = [x for x in group if m.alive[x]]
        below = [x for x in range(group[-1] + 1, n) if m.alive[x]]
        m.open()
        if members and below and len(members) % 2 == 0:
            m.close(set(members))  # the group pairs among itself if it and the rest can
        pos = {x: i for i, x in enumerate(members)}
        half = len(members) // 2
        for p, x in enumerate(members):
            if not m.alive[x]:
                continue
            target = p + half if p < half else p
            inner = sorted((y for y in members if y != x and m.alive[y]),
                           key=lambda y: (abs(pos[y] - target), -pos[y]))
            cands = inner + [y for y in below if m.alive[y]]
            if repeats:
                cands.sort(key=lambda y: not new(x, y))
            y = next(y for y in cands if m.fix(x, y))
            pairs.append((x, y))
    return pairs


def tables_of_three(n: int, new: Callable2) -> list[tuple[int, int, int]]:
    """Tables of three of the positions ``0 .. n-1`` (best first, ``n % 3 == 0``) where no
    two share a table again while that can be avoided (see the module docstring).

    >>> tables_of_three(6, lambda a, b: {a, b} != {0, 1})
    [(0, 2, 3), (1, 4, 5)]
    """
    steps = [0]

    def search(left: list[int]) -> list[tuple[int, int, int]] | None:
        if not left:
            return []
        x, rest = left[0], left[1:]
        for j, y in enumerate(rest):
            if not new(x, y):
                continue
            for z in rest[j + 1:]:
                if not (new(x, z) and new(y, z)):
                    continue
                steps[0] += 1
                if steps[0] > SEARCH_BUDGET:
                    return None
                tail = search([v for v in rest if v not in (y, z)])
                if tail is not None:
                    return [(x, y, z), *tail]
        return None

    found = search(list(range(n)))
    if found is not None:
        return found
    left = list(range(n))
    tables = []
    while left:
        x, rest = left[0], left[1:]
        y, z = min(((y, z) for i, y in enumerate(rest) for z in rest[i + 1:]),
                   key=lambda yz: (not new(x, yz[0])) + (not new(x, yz[1]))
                   + (not new(yz[0], yz[1])))
        tables.append((x, y, z))
        left = [v for v in rest if v not in (y, z)]
    return tables

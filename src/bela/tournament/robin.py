"""Round robin in groups, optionally followed by a knockout of the group winners.

The entries, by rating (then entry id), are dealt into the groups in snake order (1 2 3 3
2 1 1 2 3 ... for three groups), so the groups are equally strong and differ in size by one
at most.  Each group plays a Berger schedule made by the circle method: one entry stays,
the others turn one place a round, so in ``n - 1`` rounds (``n`` when the group is odd,
one entry sitting out with a bye each round) everyone meets everyone in the group exactly
once.  All groups play their round ``k`` together (tables numbered through the groups); a
smaller group is done earlier.  With ``knockout_after`` the winner of each group (the
standings' order: match points, Buchholz, points difference, head to head, rating, id)
goes on to a knockout seeded by rating (:mod:`bela.tournament.knockout`), its rounds
numbered after the groups'.

>>> snake(7, 3)
[0, 1, 2, 2, 1, 0, 0]
>>> [[p for p in r[0]] for r in berger([1, 2, 3])]
[[(3, 2)], [(3, 1)], [(2, 1)]]
"""

from __future__ import annotations

from collections.abc import Sequence

from . import knockout
from .model import Entry, Game, Result, RoundPlan, Settings
from .scoring import ranked, tally

Rounds = Sequence[tuple[RoundPlan, Sequence[Result]]]
STAGES = ("round robin", "groups")  # the group rounds' stage (one group, several)


def snake(n: int, groups: int) -> list[int]:
    """The group (0-based) of the ``i``-th entry by rating, in snake order."""
    return [i % groups if (i // groups) % 2 == 0 else groups - 1 - i % groups
            for i in range(n)]


def groups(settings: Settings, entries: Sequence[Entry]) -> list[list[Entry]]:
    """The groups, each by rating (then entry id)."""
    order = sorted(entries, key=lambda e: (-e.rating, e.id))
    out: list[list[Entry]] = [[] for _ in range(min(settings.groups, len(order)))]
    for e, g in zip(order, snake(len(order), len(out))):
        out[g].append(e)
    return out


def berger(ids: Sequence[int]) -> list[tuple[list[tuple[int, int]], int | None]]:
    """The rounds of a round robin of ``ids`` (circle method): each round's pairs and the
    entry with a bye (``None`` when the group is even)."""
    slots: list[int | None] = [*ids, None] if len(ids) % 2 else list(ids)
    m = len(slots)
    fixed, turning = slots[-1], slots[:-1]
    rounds = []
    for r in range(m - 1):
        arr = turning[r:] + turning[:r] + [fixed]
        pairs, bye = [], None
        for i in range(m // 2):
            a, b = arr[i], arr[m - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
            else:
                pairs.append((a, b) if (i + r) % 2 == 0 else (b, a))
        rounds.append((pairs, bye))
    return rounds


def group_rounds(settings: Settings, entries: Sequence[Entry]) -> int:
    """How many rounds the group stage has (its largest group's schedule)."""
    return max(len(berger([e.id for e in g])) for g in groups(settings, entries))


def winners(settings: Settings, entries: Sequence[Entry], rounds: Rounds) -> list[Entry]:
    """The winner of each group after the group ``rounds``."""
    t = tally(entries, rounds)
    return [ranked(g, t)[0][0] for g in groups(settings, entries)]


def schedule(settings: Settings, entries: Sequence[Entry]) -> knockout.Plans:
    """The rounds one at a time (each yielded, its results sent back): the group rounds,
    then (``knockout_after``) the knockout's."""
    gs = groups(settings, entries)
    schedules = [berger([e.id for e in g]) for g in gs]
    total = max(len(s) for s in schedules)
    rounds: list[tuple[RoundPlan, Sequence[Result]]] = []
    for k in range(total):
        games: list[Game] = []
        byes: list[int] = []
        for s in schedules:
            if k < len(s):
                pairs, bye = s[k]
                games += [Game(len(games) + i, p) for i, p in enumerate(pairs, 1)]
                byes += [] if bye is None else [bye]
        plan = RoundPlan(k + 1, tuple(games), tuple(byes), STAGES[len(gs) > 1])
        rounds.append((plan, (yield plan)))
    if settings.knockout_after:
        yield from knockout.bracket(settings, winners(settings, entries, rounds), total + 1,
                                    knockout.Bracket())


def next_round(settings: Settings, entries: Sequence[Entry], rounds: Rounds
               ) -> RoundPlan | None:
    """The next round: a group round, then (``knockout_after``) a knockout round."""
    return knockout.drive(schedule(settings, entries), rounds)

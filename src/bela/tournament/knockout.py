"""Knockout: a bracket seeded by rating, byes for the top seeds, ties of 1 or 3 partije.

The bracket has the next power of two of slots; the entries are seeded by rating (then
entry id), and in the first round seed ``s`` meets seed ``size + 1 - s`` in the standard
order (1 v 16, 8 v 9, 4 v 13, 5 v 12, ... so seeds 1 and 2 can meet only in the final).  A
seed whose opponent slot is empty has a bye: byes go to the top seeds only.  A best-of-3
tie plays leg 1 and leg 2, and a third leg only when they are 1-1; each leg is a round of
its own (``Game.leg``), and a round with only finished ties is skipped.  The higher seed
of a tie sits at side 0 and the ties keep their table numbers through the legs.

>>> seeding(8)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> from bela.tournament import Entry, Format, Settings
>>> plan = next_round(Settings("bela4", Format.KNOCKOUT), [Entry(i, -i) for i in range(1, 6)],
...                   [], first=1)
>>> plan.stage, [g.entries for g in plan.games], plan.byes
('quarter-final', [(4, 5)], (1, 2, 3))
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field

from .model import Entry, Game, Result, RoundPlan, Settings

Rounds = Sequence[tuple[RoundPlan, Sequence[Result]]]
STAGES = {2: "final", 4: "semi-final", 8: "quarter-final"}


def seeding(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for ``size`` slots (a power of two)."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for x in order for s in (x, n + 1 - x)]
    return order


def stage(slots: int) -> str:
    """The name of a bracket round with ``slots`` places."""
    return STAGES.get(slots, f"round of {slots}")


@dataclass
class Bracket:
    """Where a knockout stands: the next round to play (``None`` when it is over), and for
    each entry knocked out the round that did it and the place it shares."""

    next: RoundPlan | None = None
    out: dict[int, tuple[int, int]] = field(default_factory=dict)
    champion: int | None = None


Plans = Generator[RoundPlan, Sequence[Result], None]


def bracket(settings: Settings, entries: Sequence[Entry], first: int, state: Bracket
            ) -> Plans:
    """The bracket's rounds (numbered from ``first``), one at a time: each is yielded and
    its results are sent back; ``state`` records who goes out and the champion."""
    seeds = [e.id for e in sorted(entries, key=lambda e: (-e.rating, e.id))]
    size = 1
    while size < len(seeds):
        size *= 2
    slots: list[int | None] = [seeds[s - 1] if s <= len(seeds) else None
                               for s in seeding(size)]
    need = (settings.best_of + 1) // 2
    number = first
    while len(slots) > 1:
        pairs = [(slots[i], slots[i + 1]) for i in range(0, len(slots), 2)]
        ties = [(a, b) for a, b in pairs if a is not None and b is not None]
        byes = tuple(x for a, b in pairs if (a is None) != (b is None)
                     for x in (a, b) if x is not None)
        wins = [[0, 0] for _ in ties]
        leg = 1
        while open_ties := [i for i, w in enumerate(wins) if max(w) < need]:
            results = yield RoundPlan(number, tuple(Game(i + 1, ties[i], leg) for i in open_ties),
                                      byes if leg == 1 else (), stage(len(slots)))
            for r in results:
                i = r.table - 1
                wins[i][ties[i].index(r.winner)] += 1
            number += 1
            leg += 1
        winners = {}
        for (a, b), w in zip(ties, wins):
            won, lost = (a, b) if w[0] > w[1] else (b, a)
            winners[(a, b)] = won
            state.out[lost] = (number - 1, len(slots) // 2 + 1)
        slots = [a if b is None else b if a is None else winners[(a, b)] for a, b in pairs]
    state.champion = slots[0]


def drive(plans: Plans, rounds: Rounds) -> RoundPlan | None:
    """Send ``rounds``' results to ``plans``; the round after them (``None``: no more)."""
    try:
        plan = next(plans)
        for _, results in rounds:
            plan = plans.send(results)
    except StopIteration:
        return None
    return plan


def walk(settings: Settings, entries: Sequence[Entry], rounds: Rounds, first: int) -> Bracket:
    """Follow the bracket through ``rounds`` (numbered from ``first``)."""
    state = Bracket()
    state.next = drive(bracket(settings, entries, first, state), rounds)
    return state


def next_round(settings: Settings, entries: Sequence[Entry], rounds: Rounds, first: int
               ) -> RoundPlan | None:
    """The next knockout round (numbered from ``first``), or ``None`` after the final."""
    return walk(settings, entries, rounds, first).next

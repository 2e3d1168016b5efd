"""The standings: every entry ranked, with the numbers that ranked it.

Swiss: by match points, then Buchholz, points difference, head to head, rating, entry id
(:func:`~bela.tournament.scoring.ranked`).  Round robin: the same order inside each group,
ranks restarting in each group (``Standing.group``), and with a knockout after the groups
``place`` / ``eliminated_in`` for the group winners.  Knockout: by place (the entries still
in first, then the later an entry went out the better), then as Swiss.  Duplicate: by
matchpoint percentage, then matchpoints, rating, entry id.

The standings count every finished round and the results already in of the round being
played (its byes only once it is finished).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import duplicate, knockout, robin
from .history import replay
from .model import Entry, Format, Result, RoundPlan, Settings, Standing
from .scoring import Tally, ranked, tally


def standings(settings: Settings, entries: Sequence[Entry], results: Sequence[Result]
              ) -> tuple[Standing, ...]:
    """Every entry's standing, best first (see the module docstring)."""
    h = replay(settings, entries, results)
    rounds: list[tuple[RoundPlan, Sequence[Result]]] = [(p.plan, p.results) for p in h.done]
    if h.current is not None and h.current_results:
        rounds.append((RoundPlan(h.current.round, h.current.games, (), h.current.stage),
                       h.current_results))
    t = tally(entries, rounds)
    if settings.format == Format.DUPLICATE:
        return _duplicate(entries, t, rounds)
    if settings.format == Format.KNOCKOUT:
        bracket = knockout.walk(settings, entries, rounds, first=1)
        order = ranked(entries, t)
        place = _places(bracket)
        order.sort(key=lambda x: place.get(x[0].id, (0, None))[0])
        return tuple(_standing(i, e, t[e.id], b, h2h, out=place.get(e.id))
                     for i, (e, b, h2h) in enumerate(order, 1))
    if settings.format == Format.ROUND_ROBIN:
        return _robin(settings, entries, rounds, t)
    return tuple(_standing(i, e, t[e.id], b, h2h)
                 for i, (e, b, h2h) in enumerate(ranked(entries, t), 1))


def _places(bracket: knockout.Bracket) -> dict[int, tuple[int, int | None]]:
    """For each entry out of the bracket (or its champion): its place and round."""
    out: dict[int, tuple[int, int | None]] = {e: (place, rnd)
                                              for e, (rnd, place) in bracket.out.items()}
    if bracket.champion is not None:
        out[bracket.champion] = (1, None)
    return out


def _robin(settings: Settings, entries: Sequence[Entry],
           rounds: list[tuple[RoundPlan, Sequence[Result]]], t: dict[int, Tally]
           ) -> tuple[Standing, ...]:
    total = robin.group_rounds(settings, entries)
    place: dict[int, tuple[int, int | None]] = {}
    if settings.knockout_after and len(rounds) >= total:
        won = robin.winners(settings, entries, rounds[:total])
        place = _places(knockout.walk(settings, won, rounds[total:], first=total + 1))
    out = []
    for g, members in enumerate(robin.groups(settings, entries), 1):
        for i, (e, b, h2h) in enumerate(ranked(members, t), 1):
            out.append(_standing(i, e, t[e.id], b, h2h, group=g, out=place.get(e.id)))
    return tuple(out)


def _duplicate(entries: Sequence[Entry], t: dict[int, Tally],
               rounds: list[tuple[RoundPlan, Sequence[Result]]]) -> tuple[Standing, ...]:
    mps = duplicate.matchpoints(rounds)
    pct = {e.id: (100 * mps[e.id][0] / mps[e.id][1] if mps.get(e.id, (0, 0))[1] else None)
           for e in entries}
    order = sorted(ranked(entries, t), key=lambda x: (
        pct[x[0].id] is None, -(pct[x[0].id] or 0.0), -mps.get(x[0].id, (0, 0))[0],
        -x[0].rating, x[0].id))
    return tuple(_standing(i, e, t[e.id], b, h2h, points=float(mps.get(e.id, (0, 0))[0]),
                           percentage=pct[e.id])
                 for i, (e, b, h2h) in enumerate(order, 1))


def _standing(rank: int, e: Entry, t: Tally, buchholz: float, h2h: float, *,
              group: int | None = None, out: tuple[int, int | None] | None = None,
              points: float | None = None, percentage: float | None = None) -> Standing:
    return Standing(rank=rank, entry=e.id, played=t.played, wins=t.wins, draws=t.draws,
                    losses=t.losses,
                    match_points=t.match_points if points is None else points,
                    buchholz=buchholz, points_diff=t.points_diff, head_to_head=h2h,
                    byes=t.byes, percentage=percentage, group=group,
                    eliminated_in=None if out is None else out[1],
                    place=None if out is None else out[0])

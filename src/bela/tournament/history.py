"""The tournament so far: every round replanned from the results before it and checked
against the results given for it.

Planning is a pure function of the settings, the entries and the results of the earlier
rounds, so :func:`replay` rebuilds the whole history from scratch: round 1 is planned, the
results of round 1 are matched to its games (each must fit a planned game exactly), round 2
is planned from them, and so on until a round is not yet finished.  Any result that fits
no planned game is refused with :class:`TournamentError`, as are unknown or repeated
entries and a result given twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import duplicate, knockout, robin, swiss
from .knockout import Plans, Rounds
from .model import Entry, Format, Result, RoundPlan, Settings, TournamentError


@dataclass(frozen=True)
class Played:
    """A finished round: its plan and its results in the order of its games."""

    plan: RoundPlan
    results: tuple[Result, ...]


@dataclass(frozen=True)
class History:
    """The finished rounds, and the round planned next (``None`` when the tournament is
    over) with the results it already has."""

    done: tuple[Played, ...]
    current: RoundPlan | None
    current_results: tuple[Result, ...]


def schedule(settings: Settings, entries: Sequence[Entry]) -> Plans:
    """The rounds of the settings' format one at a time: each is yielded and its results
    are sent back."""
    if settings.format == Format.KNOCKOUT:
        return knockout.bracket(settings, entries, 1, knockout.Bracket())
    if settings.format == Format.ROUND_ROBIN:
        return robin.schedule(settings, entries)
    return _stepwise(swiss.next_round if settings.format == Format.SWISS
                     else duplicate.next_round, settings, entries)


def _stepwise(plan: Callable[[Settings, Sequence[Entry], Rounds], RoundPlan | None],
              settings: Settings, entries: Sequence[Entry]) -> Plans:
    """The rounds of a format planned from all the rounds before (``plan``)."""
    rounds: list[tuple[RoundPlan, Sequence[Result]]] = []
    while (nxt := plan(settings, entries, rounds)) is not None:
        rounds.append((nxt, (yield nxt)))


def next_round(plans: Plans, results: Sequence[Result]) -> RoundPlan | None:
    """Send a round's results to ``plans``; the next round (``None``: no more)."""
    try:
        return plans.send(results)
    except StopIteration:
        return None


def check_entries(settings: Settings, entries: Sequence[Entry]) -> None:
    """Refuse a field that cannot play: an id twice, a rating that is not a number, too
    few entries."""
    ids = [e.id for e in entries]
    bad = [e.id for e in entries if not math.isfinite(e.rating)]
    if bad:
        raise TournamentError(f"entries {bad}: a rating must be a finite number")
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise TournamentError(f"entries given twice: {twice}")
    if len(ids) < settings.sides:
        raise TournamentError(f"{settings.variant} needs at least {settings.sides} entries, "
                              f"not {len(ids)}")
    if settings.format == Format.ROUND_ROBIN and len(ids) < 2 * settings.groups:
        raise TournamentError(f"{settings.groups} groups need at least {2 * settings.groups} "
                              f"entries (2 a group), not {len(ids)}")


def replay(settings: Settings, entries: Sequence[Entry], results: Sequence[Result]
           ) -> History:
    """Rebuild the history from the results (see the module docstring)."""
    check_entries(settings, entries)
    known = {e.id for e in entries}
    by_round: dict[int, list[Result]] = {}
    for r in results:
        unknown = [e for e in r.entries if e not in known]
        if unknown:
            raise TournamentError(f"result of round {r.round} table {r.table}: unknown "
                                  f"entries {unknown}")
        by_round.setdefault(r.round, []).append(r)
    done: list[Played] = []
    plans = schedule(settings, entries)
    current = next(plans, None)
    got: tuple[Result, ...] = ()
    while current is not None:
        got = _match(settings, current, by_round.pop(current.round, []))
        if len(got) < len(current.games):
            break
        done.append(Played(current, got))
        current, got = next_round(plans, got), ()
    if by_round:
        late = min(by_round)
        if current is not None and late > current.round:
            raise TournamentError(f"results for round {late}, but round {current.round} is "
                                  "not finished")
        raise TournamentError(f"results for round {late}, which was never planned")
    return History(tuple(done), current, got)


def _match(settings: Settings, plan: RoundPlan, results: list[Result]) -> tuple[Result, ...]:
    """The results of ``plan``'s games in game order (those given), each checked."""
    games = {(g.table, g.leg): g for g in plan.games}
    found: dict[tuple[int, int], Result] = {}
    for r in results:
        where = f"result of round {r.round} table {r.table} leg {r.leg}"
        game = games.get((r.table, r.leg))
        if game is None:
            raise TournamentError(f"{where}: no such game was planned")
        if (r.table, r.leg) in found:
            raise TournamentError(f"{where}: given twice")
        if tuple(r.entries) != game.entries:
            raise TournamentError(f"{where}: entries {list(r.entries)}, but the plan seats "
                                  f"{list(game.entries)}")
        if len(r.scores) != len(game.entries):
            raise TournamentError(f"{where}: {len(r.scores)} scores for "
                                  f"{len(game.entries)} sides")
        if r.winner is not None and r.winner not in r.entries:
            raise TournamentError(f"{where}: the winner {r.winner} did not play there")
        if any(f not in r.entries for f in r.forfeit) or len(set(r.forfeit)) != len(r.forfeit):
            raise TournamentError(f"{where}: forfeits {list(r.forfeit)} must be entries of "
                                  "the table, each once")
        if r.winner in r.forfeit:
            raise TournamentError(f"{where}: the winner {r.winner} forfeited")
        if len(game.entries) == 2 and r.forfeit and settings.format != Format.DUPLICATE:
            other = [e for e in r.entries if e not in r.forfeit]
            if r.winner != (other[0] if other else None):
                raise TournamentError(f"{where}: after a forfeit the winner must be "
                                      f"{other[0] if other else None}, not {r.winner}")
        if settings.format == Format.KNOCKOUT or (
                settings.format == Format.ROUND_ROBIN and plan.stage not in robin.STAGES):
            if r.winner is None:
                raise TournamentError(f"{where}: a knockout partija needs a winner")
        if settings.format == Format.DUPLICATE:
            duplicate.check_boards(game, r, where)
        found[(r.table, r.leg)] = r
    return tuple(found[(g.table, g.leg)] for g in plan.games if (g.table, g.leg) in found)

"""The review of a record (``bela review``, the server's analysis board): every card play
that lost double-dummy value, with the value of each legal card there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.actions import Play, parse_action
from ..engine.record import Record, replay, skip_declined_exchanges
from ..engine.state import Match, Round


@dataclass
class CostlyPlay:
    round: int
    action: int
    seat: int
    trick: int
    played: str
    best: str
    loss: int
    values: dict[str, int]


def review_match(record: Record, progress: Any = None) -> list[CostlyPlay]:
    """Every card play that lost double-dummy value, in the order played."""
    from ..solver import dd

    out: list[CostlyPlay] = []
    replayed = replay(record)  # validates the whole record first
    match = Match(replayed.variant, record.options, first_dealer=replayed.first_dealer)
    for i, rr in enumerate(record.rounds):
        rnd: Round = match.deal(rr.hands, rr.deal_extra, dealer=rr.dealer)
        for j, token in enumerate(rr.actions):
            action = parse_action(token)
            skip_declined_exchanges(rnd, action)
            if isinstance(action, Play) and len({a.card for a in rnd.legal_actions()
                                                 if isinstance(a, Play)}) > 1:
                sol = dd.solve(rnd, line=False)
                if action.card not in sol.values:  # a revoke at an enforce = off table (R24)
                    match.apply(action)
                    if progress is not None:
                        progress()
                    continue
                chosen = sol.values[action.card]
                loss = (chosen - sol.value) if sol.minimize else (sol.value - chosen)
                if loss > 0:
                    out.append(CostlyPlay(i, j, rnd.turn, len(rnd.tricks) + 1,
                                          str(action.card), str(sol.best), loss,
                                          {str(c): v for c, v in sol.values.items()}))
            match.apply(action)
            if progress is not None:
                progress()
    return out

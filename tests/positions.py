"""Seeded positions and solved lines, shared by the search-bot and training tests."""

from __future__ import annotations

import random

from bela.engine import Match, Play
from bela.engine.state import Round
from bela.solver.dd import solve


def played_to(variant: str, seed: int, stop: int, rng: random.Random) -> Match:
    """A seeded round of random legal actions, stopped ``stop`` cards into the play (or
    over)."""
    m = Match(variant, seed=seed, options={"target": 5001})
    rnd = m.deal()
    while not rnd.is_over and (rnd.phase != "play" or len(rnd.log) - len(rnd.bids) < stop):
        acts = rnd.legal_actions()
        m.apply(acts[rng.randrange(len(acts))])
    return m


def play_card(rnd: Round, card: object) -> None:
    """Play ``card``, announcing bela with it when it may be (R14)."""
    plays = [a for a in rnd.legal_actions() if isinstance(a, Play) and a.card == card]
    rnd.apply(max(plays, key=lambda a: a.bela))


def solved_margin(rnd: Round, card: object, seat: int) -> int:
    """Play ``card``, then the solver's line to the end: ``seat``'s side's score less the
    other side's, as the engine scores the finished round."""
    play_card(rnd, card)
    if not rnd.is_over:
        for c in solve(rnd, line=True).line:
            play_card(rnd, c)
    assert rnd.result is not None
    side = rnd.variant.side_of(seat)
    return rnd.result.scores[side] - rnd.result.scores[1 - side]

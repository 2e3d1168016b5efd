"""Seeded positions and solved lines, shared by the search-bot and training tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bela.engine import Match, Play
from bela.engine.state import Round
from bela.engine.variants import get_variant
from bela.engine.views import SeatView, seat_view
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


def choices_after_the_first_trick(variant: str, seeds: int, rng: random.Random, tricks: int
                                  ) -> Iterator[tuple[int, Round, SeatView]]:
    """For each of ``seeds`` seeded rounds of random play stopped up to ``tricks`` tricks
    in, the seed, the round and the view of the seat to play, where that seat chooses
    among two or more cards after the first trick (every declaration announced)."""
    n = get_variant(variant).seats
    for seed in range(seeds):
        m = played_to(variant, seed, rng.randrange(n, tricks * n), rng)
        rnd = m.round
        assert rnd is not None
        if rnd.is_over or len({a.card for a in rnd.legal_actions()
                               if isinstance(a, Play)}) < 2:
            continue
        view = seat_view(m, rnd.turn)
        if view.tricks:
            assert all(d is not None for d in view.declared)
            yield seed, rnd, view


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

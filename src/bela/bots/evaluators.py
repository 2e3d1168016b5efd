"""What a search asks of a prior: one small interface, :class:`Evaluator`.

The sampled-deal search (:mod:`bela.bots.search`, :class:`~bela.bots.pimc.PimcBot`) takes
an evaluator as its prior, as OpenSpiel's ``MCTSBot(game, ..., evaluator)`` does: it asks
for

- the value of each legal card in a view (:meth:`Evaluator.card_values`: the prior mixed
  into the search's mean, and the cards of the first tricks played without search),
- the margin of each contract the seat may order (:meth:`Evaluator.call_margins`),
- how likely each of the other seats' plays was in the views they played from
  (:meth:`Evaluator.play_likelihoods`: the opponent model that weighs the sampled deals).

The implementations: :data:`UNIFORM` (knows nothing: no values, no margins, every play as
likely as another; ``pimc`` as it was first written) and the learned network
(:class:`bela.bots.learned.Network`, ``prior=learned``).  The heuristic joins the bots as
their rule-based part (:class:`~bela.bots.heuristic.HeuristicBot`: whether to order at all,
declarations, swaps and discards), not as a prior: it gives no card values.

>>> UNIFORM.informed, UNIFORM.card_values, UNIFORM.target("bela4")
(False, <bound method Uniform.card_values of Uniform()>, 'points')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..engine.actions import Call
from ..engine.cards import Card
from ..engine.views import SeatView


class Evaluator(Protocol):
    """A prior for the search (see the module docstring)."""

    @property
    def informed(self) -> bool:
        """False where the evaluator knows nothing (the search then runs without it)."""
        ...

    def target(self, variant: str) -> str:
        """What :meth:`card_values` gives in ``variant``: ``points`` (the card points the
        seat's side takes from here) or ``score`` (the round's score margin)."""
        ...

    def card_values(self, view: SeatView) -> dict[Card, float]:
        """The value of each legal card of ``view`` (lower is better in raspas)."""
        ...

    def call_margins(self, view: SeatView) -> dict[Call, float]:
        """The margin of each contract the seat may order (empty: no opinion)."""
        ...

    def play_likelihoods(self, plays: Sequence[tuple[SeatView, Card]]) -> list[float]:
        """For each view and the card its seat played there, how likely that play was."""
        ...


class Uniform:
    """The prior that knows nothing (:data:`UNIFORM`)."""

    informed = False

    def __repr__(self) -> str:
        return "Uniform()"

    def target(self, variant: str) -> str:
        return "points"

    def card_values(self, view: SeatView) -> dict[Card, float]:
        return {}

    def call_margins(self, view: SeatView) -> dict[Call, float]:
        return {}

    def play_likelihoods(self, plays: Sequence[tuple[SeatView, Card]]) -> list[float]:
        return [1.0] * len(plays)


UNIFORM: Evaluator = Uniform()

"""The advice a hint gives at a bid, shared by ``bela play``'s ``hint`` and the server's
hint (:func:`bela.server.analysis_work.hint`): the heuristic's estimate of every bid the
seat may make, and the bid those estimates rank first, so the bid named is always the best
of the values shown.

A call is valued by the heuristic's fitted estimate of the caller's margin on the cards
the seat sees (bela4: :meth:`~bela.bots.heuristic.HeuristicBot.suit_scores`; the other
variants: :func:`~bela.bots.contracts.estimates`), which decide the heuristic's and the
search bots' call or pass (``pimc``'s and the learned bot's bidding read them too); a pass
is valued at the margin from which the heuristic calls (its threshold), so the seat passes
exactly when no call reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.actions import Action, Call, Pass
from ..engine.variants import get_variant
from ..engine.views import SeatView
from . import contracts
from .heuristic import HeuristicBot
from .profiles import profile


@dataclass(frozen=True)
class BidAdvice:
    """``values``: each legal bid (calls, and a pass where allowed) with its estimated
    margin in points (a pass: the margin a call must reach); ``choice``: the bid of the
    highest value (of equal values a call before a pass, the lower contract first), the
    heuristic bot's own bid."""

    values: dict[Action, float]
    choice: Action

    def ranked(self) -> list[tuple[Action, float]]:
        """The bids best first, as :attr:`choice` ranks them."""
        return sorted(self.values.items(), key=lambda av: _rank(av[0], av[1]), reverse=True)


def _rank(action: Action, value: float) -> tuple[float, bool, int]:
    return value, isinstance(action, Call), -action.contract if isinstance(action, Call) else 0


def bid_advice(view: SeatView) -> BidAdvice:
    """The estimates of the seat's legal bids and the best of them (see the module).

    >>> from bela.engine import Match
    >>> from bela.engine.views import seat_view
    >>> m = Match("belot2", seed=5); rnd = m.deal()
    >>> advice = bid_advice(seat_view(m, rnd.turn))
    >>> advice.choice == advice.ranked()[0][0]
    True
    """
    calls = [a for a in view.legal if isinstance(a, Call)]
    if view.phase != "bidding" or not calls:
        raise ValueError("not a bid with a call to make")
    params = profile(view.variant).heuristic
    hand = view.hand.mask
    partners = get_variant(view.variant).partners
    values: dict[Action, float] = {}
    if partners:  # bela4: the partnership estimate (R7)
        scores = HeuristicBot(params=params).suit_scores(hand)
        values.update((c, scores[c.contract]) for c in calls)
    else:  # bela3 (R26), bela2 (R31), belot2 (R34)
        turned = view.public.get("turned")
        est = contracts.estimates(view.variant, [c.contract for c in calls], hand,
                                  view.seat == view.first,
                                  -1 if turned is None else int(turned))
        values.update(zip(calls, est, strict=True))
    for a in view.legal:
        if isinstance(a, Pass):  # the margin from which the heuristic calls
            values[a] = (params.bid_threshold if partners else contracts.order_threshold(
                params, len(view.bids) >= 2, view.seat == view.dealer))
    choice = max(values, key=lambda a: _rank(a, values[a]))
    return BidAdvice(values, choice)

"""The hint, shared by ``bela play``'s ``hint`` and the server's hint
(:func:`bela.server.analysis_work.hint`): what the best bot would do in a seat's place, from
that seat's view (:func:`advise`).

At a bid with a call to make, the heuristic's estimate of every bid the seat may make, and
the bid those estimates rank first, so the bid named is always the best of the values shown
(:func:`bid_advice`).  A call is valued by the heuristic's fitted estimate of the caller's
margin on the cards the seat sees (bela4: :meth:`~bela.bots.heuristic.HeuristicBot.suit_scores`;
the other variants: :func:`~bela.bots.contracts.estimates`), which decide the heuristic's and
the search bots' call or pass (``pimc``'s and the learned bot's bidding read them too); a pass
is valued at the margin from which the heuristic calls (its threshold), so the seat passes
exactly when no call reaches it.

Every other decision: the ``pimc`` bot's choice and, for a card, the values it chose from
(:meth:`~bela.bots.pimc.PimcBot.advise`: sampled deals solved double-dummy).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..bots import contracts
from ..bots.heuristic import BID_THRESHOLD, HeuristicBot
from ..bots.profiles import profile
from ..engine.actions import Action, Call, Pass
from ..engine.cards import Card
from ..engine.variants import get_variant
from ..engine.views import SeatView


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
            values[a] = (BID_THRESHOLD if partners else contracts.order_threshold(
                params, len(view.bids) >= 2, view.seat == view.dealer))
    choice = max(values, key=lambda a: _rank(a, values[a]))
    return BidAdvice(values, choice)


@dataclass(frozen=True)
class Hint:
    """What a hint says: ``choice``, the action the best bot would take; at a bid with a
    call to make, ``bid``, the estimates that choice is the best of (:func:`bid_advice`);
    otherwise ``cards``, the sampled values of the legal cards the ``pimc`` bot chose from
    (empty for a decision that is not a choice among two or more cards)."""

    choice: Action
    bid: BidAdvice | None = None
    cards: dict[Card, float] = field(default_factory=dict)


def searches(view: SeatView) -> bool:
    """Whether the hint at ``view`` searches sampled deals with the solver (every decision
    but a bid with a call to make, which the heuristic's estimates answer at once)."""
    return not (view.phase == "bidding" and any(isinstance(a, Call) for a in view.legal))


def advise(view: SeatView, seed: int, samples: int, budget: float,
           min_samples: int = 6) -> Hint:
    """The hint at ``view`` (see the module): a bid's :func:`bid_advice`, or the ``pimc``
    bot's advice with ``samples`` deals, at least ``min_samples`` and then until ``budget``
    seconds are spent.  Raises ``ValueError`` when the seat has nothing to decide, and
    ``ImportError`` when the search is needed and the solver (numba, numpy) cannot load."""
    if not view.legal:
        raise ValueError("nothing to decide")
    if not searches(view):
        advice = bid_advice(view)
        return Hint(advice.choice, bid=advice)
    from ..bots.pimc import PimcBot  # the solver: only where the hint searches

    bot = PimcBot(seed=seed, samples=samples, budget=budget, min_samples=min_samples)
    choice, cards = bot.advise(view)
    return Hint(choice, cards=cards)

"""``pimc``: Perfect Information Monte Carlo, sampled deals x the double-dummy solver.

For a card decision the bot draws deals consistent with its view (:mod:`bela.solver.sampler`,
with the inferences from voids, duties, declarations and bids, or only the cards seen with
``inference=False``), solves each deal double-dummy (:mod:`bela.solver.dd`) and plays the
card with the best mean value (the search: :class:`~bela.bots.search.DealSearch`).  Bidding
is simulated the same way: for every contract it may order, the deal is solved from the
first lead and scored as the round would be (declarations, bela, pass or fall).  With
``bidding=hybrid`` (the default) the heuristic's fitted estimates decide whether to order
at all and the simulation chooses the contract; ``heuristic`` bids as the heuristic bot
does; ``learned`` (with ``prior=learned``) as the learned bot does, the heuristic deciding
whether to order and the prior's bid margins which contract.
Declarations, bela, swaps and redeals follow the heuristic; so do bela3's discards (R27),
unless ``discard=search``: then of the heuristic's first :data:`DISCARD_CANDIDATES` the bot
keeps the one that does clearly best over ``bid_samples`` deals of the others' cards, each
solved from its first lead with every candidate and valued by the round's score (the kept
declarations count, which the heuristic's discards do not weigh).

:meth:`PimcBot.advise` gives the choice together with the values it was made from (a hint:
the card shown as best is always the card played).  The bot solves with the calling
thread's own solver (:func:`bela.solver.dd.default_solver`), so bots thinking at the same
time in different threads never share the solver's tables.

The strength is the number of sampled deals per decision (``samples``; the default, 16,
answers well within the latency target, see docs/experiments/2026-12.md), with two optional caps per
decision: a time budget (``budget`` seconds) and a work budget (``nodes``: the search nodes
the solves of this decision may visit, about 12 million a second on one core).  It stops
sampling at whichever comes first, after at least ``min_samples`` deals.  With
``prior=learned`` and no ``samples`` given, the search is the variant profile's
``learned_search`` (:meth:`PimcBot.search`).  Without a time budget the play
depends only on the seed and the view, so arena results are reproducible; the work budget
keeps that while it bounds the slow decisions (the first tricks of a full deal).  The live
server decides under a deadline (:mod:`bela.bots.clock`): card play, simulated bids and
bela3's discard simulation then stop drawing deals once the next would end past it, and
decide with those they have (at least one; two for a discard), so the move is ready at
the table's answer time; such a search is not reproducible, as with a time budget.

What a deal's card is worth (``objective``): ``points``, the card points the seat's side
takes in the solved line; or ``score`` (the variants of two sides, not in raspas), what the
round then writes for that side less what it writes for the other (R21-R23, belot2 R34-R37):
the declarations and bela of the view, or at the first trick those of the deal's hands, and
a fall when the caller does not pass.  The solved line stays the best (more points never
score less, but for the first points of a side without a trick, R15); the mean weighs the
few points that decide a fall as what they are worth, and points that change nothing as
nothing.  Equal scores go to the card with more points.  In bela3 the card play keeps the
points: valued by the round's score (:func:`seat_scorer`) its searches played no better
(docs/experiments/2026-12.md); the discards are valued so (``discard=search``).

The bot is a composition (:class:`~bela.bots.settings.PimcConfig` says which parts): the
search, a prior (an :class:`~bela.bots.evaluators.Evaluator`: with ``prior=learned`` the
learned bot's network, :class:`~bela.bots.learned.Network`, ``model=PATH`` for another model
file; else :data:`~bela.bots.evaluators.UNIFORM`) and the heuristic for what it does not
search.  An informed prior joins the search twice.  As the *opponent model*: each sampled
deal is weighted by how likely the other seats' last plays (up to :data:`WEIGH` cards: the
current trick's, else the last trick's) are under the network for the hands that deal
gives them, each seat's view rebuilt at the moment it played
(:meth:`~bela.bots.evaluators.Evaluator.play_likelihoods`).  As the *prior*: the network's
value of each card (the mean over the side suits' namings, as the learned bot plays; its
differences from the other cards, around each drawn deal's mean, valued as that deal's
cards are) counts as :data:`~bela.bots.search.PRIOR_WEIGHT` further deals in the mean,
which steadies the estimate when few deals are drawn.  (The experiments' switches of these
parts, ``reach``, ``weigh``, ``temperature``, ``prior_weight``, and ``bidding=sim`` with its
``threshold``, are gone: docs/experiments/2026-12.md says at which commit their rows
replay.)
A model trained on the score (``bela train --target score``) gives score margins,
placed around each deal's mean score; it serves as a prior only with ``objective=score``.
And the network alone plays the first ``opening`` tricks (its best card, no search; by
default the variant profile's ``opening``): there, with the most cards unseen, its values,
learned from the true deals of its own games, beat the search's sampled deals, and the
search plays the rest, where the sampled deals are nearly determined; ``bidding=learned``
takes its contract choice too (measured with ``bela arena``, docs/experiments/2026-12.md:
in bela4 the contracts are most of the gain, the opening a little more and much less time).
Where the heuristic decides whether to order at all, the first bidder of the second round
(bela2 and belot2) orders from an estimated margin of ``order`` points: by default the
heuristic's own, and with ``prior=learned`` the variant profile's ``learned_order``.

The card play's sampled deals read the bids (``bids``) by the hand-made
:class:`~bela.solver.inference.BidModel` (``model``), or in bela3, bela2 and belot2 as the
heuristic bids (``estimate``, :class:`~bela.bots.contracts.EstimateBids`): a bidder orders
when the best fitted estimate of the cards it saw reaches its threshold, and orders the
contract estimated best more often than the others.  Every bot of this package decides to
order or pass so, which makes the reading sharp between them; with ``prior=learned`` the
variant profile's ``learned_bids``.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..engine.actions import Action, Call, Play
from ..engine.cards import Card, iter_cards
from ..engine.rules import NO_TRUMPS, play_table
from ..engine.state import Match
from ..engine.variants import get_variant
from ..engine.views import SeatView, seat_view
from ..solver.dd import Position, Solver, default_solver
from ..solver.sampler import DealSampler, SampledDeal, to_round
from . import clock
from .contracts import ranked_discards
from .evaluators import UNIFORM, Evaluator
from .heuristic import HeuristicBot
from .learned import Network, bid_by_margins
from .profiles import PROFILES, HeuristicParams, profile
from .search import (
    SAMPLES,
    TIE_BREAK,
    DealSearch,
    Scorer,
    all_declared,
    round_scorer,
    seat_scorer,
)
from .settings import Bidding, Bids, Discard, PimcConfig, Prior

# ``bids=estimate``: the variants whose bids the sampler can read as the heuristic's
# estimates (:class:`~bela.bots.contracts.EstimateBids`): those the estimates were fitted
# for (bela3, bela2, belot2); bela4 keeps the hand-made model
ESTIMATED_BIDS = frozenset(name for name, p in PROFILES.items() if p.weights)

# ``discard=search``: the heuristic's best bela3 discards that the simulation compares
DISCARD_CANDIDATES = 8

# With ``prior=learned`` the first tricks the network plays alone, the search when
# ``samples`` is not given, the second round's order threshold and the reading of the bids
# are the variant's profile's (:class:`~bela.bots.profiles.VariantProfile`).
# SAMPLES (bela.bots.search): the deals per decision otherwise

# The opponent model's reach: the other seats' last plays, up to this many cards of the
# current trick (else of the last one)
WEIGH = 3

__all__ = ["DISCARD_CANDIDATES", "SAMPLES", "TIE_BREAK", "WEIGH", "PimcBot", "Scorer",
           "all_declared", "order_tuning", "round_scorer", "seat_scorer"]


def order_tuning(order: float | None, learned: bool) -> dict[str, HeuristicParams]:
    """The heuristic's knobs per variant with the threshold of the second round's first
    bidder (bela2 R31 naming a suit, belot2 R34 the non-dealer's order) at ``order``, or
    where it is None and ``learned`` at the profile's ``learned_order``, else the
    heuristic's own.

    >>> tuned = order_tuning(None, learned=True)
    >>> tuned["belot2"].order, tuned["bela2"].order
    ((-10.0, 0.0), (0.0, 0.0))
    >>> order_tuning(5.0, learned=False)["bela2"].order
    (5.0, 0.0)
    """
    tuned = {}
    for variant, p in PROFILES.items():
        params = p.heuristic
        at = (p.learned_order if learned else None) if order is None else float(order)
        tuned[variant] = params if at is None else replace(params, order=(at, params.order[1]))
    return tuned


class PimcBot:
    """Sampled deals x double-dummy solver (see the module docstring): the search
    (:class:`~bela.bots.search.DealSearch`) with a prior (:mod:`bela.bots.evaluators`), the
    heuristic for what it does not search, composed by a :class:`~bela.bots.settings.
    PimcConfig`."""

    name = "pimc"

    def __init__(self, seed: int | None = None, config: PimcConfig | None = None,
                 evaluator: Evaluator | None = None, **settings: object) -> None:
        """``config``, or the spec's ``settings`` parsed into one; ``evaluator`` the
        search's prior (None: the config's, the learned network for ``prior=learned``,
        else :data:`~bela.bots.evaluators.UNIFORM`)."""
        if config is None:
            config = PimcConfig.parse(settings)
        elif settings:
            raise ValueError("give a config or settings, not both")
        self.config = config
        if evaluator is None:
            evaluator = Network(config.model) if config.prior == Prior.LEARNED else UNIFORM
        self.prior = prior = evaluator
        self.rng = random.Random(seed)
        self.deals = DealSearch(self.rng, config.min_samples, config.budget, config.inference,
                                config.objective, prior)
        tuning = order_tuning(config.order, prior.informed)
        self.fallback = HeuristicBot(seed, tuning=tuning)
        # bidding=learned: the learned bot's bids (its own heuristic, the same seed)
        self.bid_fallback = (HeuristicBot(seed, tuning=tuning)
                             if config.bidding == Bidding.LEARNED else None)

    # the settings, as the tests and the tools read them
    @property
    def samples(self) -> int | None:
        return self.config.samples

    @property
    def objective(self) -> str:
        return self.config.objective

    @property
    def bidding(self) -> str:
        return self.config.bidding

    @property
    def discard(self) -> str:
        return self.config.discard

    @property
    def solver(self) -> Solver:
        """The calling thread's solver (:func:`~bela.solver.dd.default_solver`): never
        shared with a bot thinking at the same time in another thread."""
        return default_solver()

    def opening_tricks(self, variant: str) -> int:
        """How many first tricks the network plays alone in ``variant``: none without
        ``prior=learned``, else the ``opening`` setting or the variant profile's."""
        if not self.prior.informed:
            return 0
        opening = self.config.opening
        return profile(variant).opening if opening is None else opening

    def search(self, variant: str) -> tuple[int, int | None]:
        """The deals drawn per decision in ``variant`` and the work budget (solver nodes, or
        none): ``samples`` and ``nodes`` as given; with ``prior=learned`` and no ``samples``
        the variant profile's ``learned_search`` (``nodes`` still overrides its budget); else
        :data:`SAMPLES` deals.

        >>> PimcBot(samples=8).search("belot2")
        (8, None)
        >>> PimcBot().search("belot2")
        (16, None)
        """
        if self.config.samples is not None:
            return self.config.samples, self.config.nodes
        if self.prior.informed:
            samples, nodes = profile(variant).learned_search
            return samples, self.config.nodes or nodes or None
        return SAMPLES, self.config.nodes

    # -- the protocol ------------------------------------------------------------------------
    def act(self, view: SeatView) -> Action:
        return self.advise(view)[0]

    def advise(self, view: SeatView) -> tuple[Action, dict[Card, float]]:
        """The bot's action (what :meth:`act` returns) and, when it chooses a card among
        two or more, the values it chose from: the mean double-dummy value of each legal
        card over one set of sampled deals (as :meth:`card_values`; in the first tricks
        of :meth:`opening_tricks` the network's values, :meth:`Evaluator.card_values
        <bela.bots.evaluators.Evaluator.card_values>`); the action plays the
        card with the best value (:meth:`best_card`: the highest, the lowest in raspas,
        ties to the first card in card order).  The values are empty for any other
        decision (a bid, a single legal card, a declaration...)."""
        if not view.legal:
            raise ValueError("it is not this seat's turn")
        if view.phase == "play" and all(isinstance(a, Play) for a in view.legal):
            return self._play(view)
        if view.phase == "discard" and self.config.discard == Discard.SEARCH:
            return self._discard(view), {}
        if view.phase == "bidding" and self.bid_fallback is not None:  # bidding=learned
            return bid_by_margins(self.prior.call_margins(view), self.bid_fallback, view), {}
        if (view.phase == "bidding" and self.config.bidding == Bidding.HYBRID
                and not get_variant(view.variant).discards  # the simulation has no discards
                and any(isinstance(a, Call) for a in view.legal)):
            choice = self.fallback.act(view)  # hybrid: the heuristic decides to call or pass,
            if isinstance(choice, Call):
                return self._bid(view), {}
            return choice, {}
        return self.fallback.act(view), {}

    @staticmethod
    def best_card(values: dict[Card, float], raspas: bool = False) -> Card:
        """The card with the best value: the highest (the lowest in raspas); of equal
        values the first in card order."""
        pick = min if raspas else max
        return pick(sorted(values), key=values.__getitem__)

    def card_values(self, view: SeatView) -> dict[Card, float]:
        """Mean value of each legal card over the sampled deals: the double-dummy points the
        seat's side takes over the whole round (in raspas lower is better), or with
        ``objective=score`` the round's score margin they give (:class:`~bela.bots.search.
        DealSearch`), the deals weighed by the opponent model and the prior mixed in where
        the prior is informed.  Each call draws its own deals: :meth:`advise` gives a
        choice with the values it came from."""
        samples, nodes = self.search(view.variant)
        weigh = self._weights if self.prior.informed else None
        return self.deals.card_values(view, samples, nodes, Bids(self.reading(view.variant)),
                                      weigh)

    def _scorer(self, view: SeatView
                ) -> Callable[[SampledDeal], Callable[[float], float]] | None:
        """With ``objective=score``: :func:`round_scorer` for the sampled deals."""
        return self.deals.scorer(view)

    def _weights(self, view: SeatView, deals: list[SampledDeal]) -> list[float]:
        """The opponent model: each deal's likelihood of the other seats' last plays (up to
        :data:`WEIGH` cards of the current trick, else of the last) under the prior, every
        such seat's view rebuilt at the moment it played."""
        me = view.seat
        recent = list(view.trick) or (list(view.tricks[-1][0]) if view.tricks else [])
        plays = [(s, c) for s, c in recent if s != me][-WEIGH:]
        if not plays:
            return [1.0] * len(deals)
        seen_plays: list[tuple[SeatView, Card]] = []
        owners: list[int] = []
        for i, deal in enumerate(deals):
            rnd = to_round(view, deal)
            match = Match(rnd.variant, {k: v for k, v in view.options.items()
                                        if k in rnd.variant.options})
            match.rounds.append(rnd)
            wanted = list(plays)
            while wanted and rnd.log:
                last = rnd.log[-1]
                rnd.undo()
                if isinstance(last, Play) and (rnd.turn, last.card) == wanted[-1]:
                    wanted.pop()
                    seen_plays.append((seat_view(match, rnd.turn, rnd), last.card))
                    owners.append(i)
        weights = np.ones(len(deals))
        if seen_plays:
            for i, likely in zip(owners, self.prior.play_likelihoods(seen_plays), strict=True):
                weights[i] *= likely
        return [float(w) for w in weights / weights.max()]

    # -- card play ---------------------------------------------------------------------------
    def _play(self, view: SeatView) -> tuple[Action, dict[Card, float]]:
        cards = {a.card for a in view.legal if isinstance(a, Play)}
        values: dict[Card, float] = {}
        if len(cards) == 1:
            card = next(iter(cards))
        else:
            if len(view.tricks) < self.opening_tricks(view.variant):  # the network alone
                values = self.prior.card_values(view)
            else:
                values = self.card_values(view)
            card = self.best_card(values, view.raspas)
        bela = [a for a in view.legal if isinstance(a, Play) and a.card == card and a.bela]
        return (bela[0] if bela else next(a for a in view.legal
                                          if isinstance(a, Play) and a.card == card)), values

    def reading(self, variant: str) -> str:
        """How the sampler reads the bids in ``variant``: ``bids`` as given, else with
        ``prior=learned`` the variant profile's ``learned_bids``, else ``model``; bela4 always
        ``model``.

        >>> PimcBot().reading("belot2"), PimcBot(prior="learned").reading("belot2")
        ('model', 'estimate')
        >>> PimcBot(bids="estimate").reading("bela4")
        'model'
        """
        if variant not in ESTIMATED_BIDS:
            return "model"
        if self.config.bids is not None:
            return self.config.bids.value
        return profile(variant).learned_bids if self.prior.informed else "model"

    def _sampler(self, view: SeatView) -> DealSampler:
        return self.deals.sampler(view, Bids(self.reading(view.variant)))

    # -- bela3 discards ----------------------------------------------------------------------
    def _discard(self, view: SeatView) -> Action:
        """``discard=search``: the heuristic's first :data:`DISCARD_CANDIDATES` discards
        (R27), each kept hand solved from the caller's first lead (R16) over the same
        ``bid_samples`` deals of the others' cards and valued by the round's score that
        line gives (:func:`seat_scorer`: the discards' points, the kept declarations and
        bela, pass or fall).  A candidate replaces the heuristic's first only when its mean
        gain over it, less one standard error of that gain over the deals, is above 0; of
        those, the largest.  With a work budget (``nodes``) it stops drawing deals at
        :data:`DISCARD_CANDIDATES` times that many solver nodes, with a time budget
        (``budget``) at that many seconds, after ``min_samples`` deals (at least 2, for the
        standard error)."""
        me, contract = view.seat, view.contract
        assert me is not None and contract is not None and view.first == me
        params = profile(view.variant).heuristic
        candidates = ranked_discards(view, params)[:DISCARD_CANDIDATES]
        if len(candidates) < 2 or self.config.bid_samples < 2:
            return candidates[0] if candidates else self.fallback.act(view)
        scorer = seat_scorer(view)
        sampler = self._sampler(view)
        values: list[list[float]] = [[] for _ in candidates]
        nodes = 0
        node_cap = self.search(view.variant)[1]
        start = time.perf_counter()
        longest = 0.0
        for drawn in range(self.config.bid_samples):
            if drawn >= max(2, self.config.min_samples) and (
                    (node_cap is not None and nodes >= DISCARD_CANDIDATES * node_cap)
                    or (self.config.budget is not None
                        and time.perf_counter() - start > self.config.budget)):
                break
            if clock.stop(drawn, 2, longest):  # the server's deadline is near
                break
            began = time.perf_counter()
            deal = sampler.draw(self.rng)
            for candidate, row in zip(candidates, values, strict=True):
                hands = list(deal.hands)
                for card in candidate.cards:
                    hands[me] &= ~(1 << card)
                pos = Position.make(hands, contract, view.variant, me, (), None, me)
                taken = self.solver.value(pos)  # the caller leads: his points
                nodes += self.solver.nodes
                kept = tuple(hands)
                row.append(scorer(kept, kept)(taken) + TIE_BREAK * taken)
            longest = max(longest, time.perf_counter() - began)
        best, best_gain = 0, 0.0
        for i in range(1, len(candidates)):
            gains = [v - b for v, b in zip(values[i], values[0], strict=True)]
            gain = statistics.fmean(gains) - statistics.stdev(gains) / math.sqrt(len(gains))
            if gain > best_gain:
                best, best_gain = i, gain
        return candidates[best]

    # -- bidding -----------------------------------------------------------------------------
    def _bid(self, view: SeatView) -> Call:
        """The contract with the best mean margin over ``bid_samples`` simulated deals."""
        calls = [a for a in view.legal if isinstance(a, Call)]
        sampler = self._sampler(view)
        margins: dict[Call, float] = defaultdict(float)
        start = time.perf_counter()
        drawn, longest = 0, 0.0
        for drawn in range(1, self.config.bid_samples + 1):  # the time budget caps bids too
            began = time.perf_counter()
            deal = sampler.draw(self.rng)
            for call in calls:
                margins[call] += self.margin(view, deal.start, call.contract)
            longest = max(longest, time.perf_counter() - began)
            if ((drawn >= self.config.min_samples and self.config.budget is not None
                    and time.perf_counter() - start > self.config.budget)
                    or clock.stop(drawn, 1, longest)):  # the server's deadline is near
                break
        return max(calls, key=lambda c: (margins[c], -c.contract))

    def margin(self, view: SeatView, hands: tuple[int, ...], contract: int) -> float:
        """The caller's side score minus the other side's for one deal solved double-dummy
        from the first lead, scored as the round would be (R12, R14, R21-R22, R34, R36)."""
        variant = get_variant(view.variant)
        me = view.seat
        assert me is not None
        pos = Position.make(list(hands), contract, view.variant, view.first, (), None, me)
        lead_side_points = self.solver.value(pos)
        table = play_table(contract)
        in_play = 0
        for h in hands:
            in_play |= h
        card_total = sum(table.points[c] for c in iter_cards(in_play)) + \
            variant.last_trick_bonus
        same = pos.teams[view.first] == pos.teams[me]
        mine = lead_side_points if same else card_total - lead_side_points
        theirs = card_total - mine
        bonus_mine, bonus_theirs = all_declared(view, hands, contract)
        factor = 2 if contract == NO_TRUMPS else 1
        mine, theirs = factor * (mine + bonus_mine), factor * (theirs + bonus_theirs)
        total = mine + theirs  # R22, R34: more than half, else the other side takes all
        return mine - theirs if 2 * mine > total else -total

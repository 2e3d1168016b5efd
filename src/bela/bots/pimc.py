"""``pimc``: Perfect Information Monte Carlo, sampled deals x the double-dummy solver.

For a card decision the bot draws deals consistent with its view (:mod:`bela.solver.sampler`,
with the inferences from voids, duties, declarations and bids, or only the cards seen with
``inference=False``), solves each deal double-dummy (:mod:`bela.solver.dd`) and plays the
card with the best mean value.  Bidding is simulated the same way: for every contract it may
order, the deal is solved from the first lead and scored as the round would be (declarations,
bela, pass or fall).  With ``bidding="hybrid"`` (the default) the heuristic's fitted
estimates decide whether to order at all and the simulation chooses the contract; with
``"sim"`` it orders the best contract when its mean margin reaches ``threshold`` and passes
otherwise; ``"heuristic"`` bids as the heuristic bot does; ``"learned"`` (with
``prior=learned``) as the learned bot does, the heuristic deciding whether to order and the
learned bid network which contract.
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

With ``prior=learned`` the learned bot's network (:mod:`bela.bots.learned`, ``model=PATH``
for another model file) joins the search twice.  As the *opponent model*: each sampled deal
is weighted by how likely the other seats' last plays (up to ``weigh`` cards: the current
trick's, else the last trick's; with ``reach=round`` the last of the whole round) are under
the network for the hands that deal gives them, each seat's view rebuilt at the moment it
played (a softmax of its card values, ``temperature`` points; one pass of the network per
row, ``learned:symmetric=off``, as the rows are many).  Reaching back over the round did not
make belot2's master stronger (docs/experiments/2026-12.md), so the default stays the trick.
As the *prior*: the network's value of each card (the mean over the side suits' namings, as
the learned bot plays; its differences from the other
cards, around each drawn deal's mean, valued as that deal's cards are) counts as
``prior_weight`` further deals in the mean, which steadies the estimate when few deals are
drawn.  A model trained on the score (``bela train --target score``) gives score margins,
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

from ..engine.actions import Action, Call, Pass, Play
from ..engine.cards import FULL_DECK, Card, iter_cards
from ..engine.declarations import declaration_value, find_declarations
from ..engine.rules import NO_TRUMPS, play_table
from ..engine.scoring import declaration_standing
from ..engine.state import Match
from ..engine.variants import TableOptions, get_variant
from ..engine.views import SeatView, seat_view
from ..solver.dd import Position, Solver, default_solver
from ..solver.inference import InconsistentView
from ..solver.sampler import DealSampler, SampledDeal, to_round
from . import clock
from .contracts import EstimateBids, ranked_discards
from .heuristic import HeuristicBot
from .profiles import PROFILES, HeuristicParams, profile

# ``bids=estimate``: the variants whose bids the sampler can read as the heuristic's
# estimates (:class:`~bela.bots.contracts.EstimateBids`): those the estimates were fitted
# for (bela3, bela2, belot2); bela4 keeps the hand-made model
ESTIMATED_BIDS = frozenset(name for name, p in PROFILES.items() if p.weights)

TIE_BREAK = 1e-3  # objective=score: points per point of the card's mean, to break ties

# ``discard=search``: the heuristic's best bela3 discards that the simulation compares
DISCARD_CANDIDATES = 8

# With ``prior=learned`` the first tricks the network plays alone, the search when
# ``samples`` is not given, the second round's order threshold and the reading of the bids
# are the variant's profile's (:class:`~bela.bots.profiles.VariantProfile`).
SAMPLES = 16  # the deals per decision otherwise


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
    """Sampled deals x double-dummy solver (see the module docstring)."""

    name = "pimc"

    def __init__(self, seed: int | None = None, samples: int | None = None,
                 budget: float | None = None, min_samples: int = 6, inference: bool = True,
                 bid_samples: int = 10, threshold: float = 0.0, bidding: str = "hybrid",
                 prior: str | bool = "off", model: str | None = None,
                 prior_weight: float = 4.0, weigh: int = 3, temperature: float = 10.0,
                 nodes: int | None = None, objective: str = "points", opening: int | None = None,
                 reach: str = "trick", discard: str = "heuristic",
                 order: float | None = None, bids: str | None = None) -> None:
        if bids not in (None, "model", "estimate"):
            raise ValueError(f"bids must be 'model' or 'estimate', not {bids!r}")
        if discard not in ("heuristic", "search"):
            raise ValueError(f"discard must be 'heuristic' or 'search', not {discard!r}")
        if reach not in ("trick", "round"):
            raise ValueError(f"reach must be 'trick' or 'round', not {reach!r}")
        if bidding not in ("hybrid", "sim", "heuristic", "learned"):
            raise ValueError("bidding must be 'hybrid', 'sim', 'heuristic' or 'learned', not "
                             f"{bidding!r}")
        if objective not in ("points", "score"):
            raise ValueError(f"objective must be 'points' or 'score', not {objective!r}")
        if prior is False:  # a spec's ``prior=off`` reads as the switch off
            prior = "off"
        if prior not in ("off", "learned"):
            raise ValueError(f"prior must be 'off' or 'learned', not {prior!r}")
        if prior_weight < 0 or weigh < 0 or temperature <= 0:
            raise ValueError("prior_weight and weigh must be >= 0 and temperature > 0")
        if ((samples is not None and samples < 1) or min_samples < 1
                or (nodes is not None and nodes < 1)):
            raise ValueError("samples, min_samples and nodes must be >= 1")
        if opening is not None and (not isinstance(opening, int) or isinstance(opening, bool)
                                    or opening < 0):
            raise ValueError("opening must be a whole number >= 0 (the first tricks played "
                             "by the network)")
        if prior != "learned" and (opening or bidding == "learned"):
            raise ValueError("opening and bidding=learned play by the learned network: "
                             "give prior=learned")
        self.rng = random.Random(seed)
        self.samples = samples
        self.budget = budget
        self.min_samples = min_samples
        self.nodes = nodes
        self.objective = objective
        self.inference = inference
        self.bid_samples = bid_samples
        self.threshold = threshold
        self.bidding = bidding
        self.discard = discard
        self.bids = bids
        if order is not None and (isinstance(order, bool) or not isinstance(order, int | float)
                                  or not math.isfinite(order)):
            raise ValueError(f"order must be a number of points (the estimated margin from "
                             f"which to order in the second round), not {order!r}")
        tuning = order_tuning(order, prior == "learned")
        self.fallback = HeuristicBot(seed, tuning=tuning)
        self.learned = None
        if prior == "learned":
            from .learned import LearnedBot

            self.learned = LearnedBot(seed, model=model, tuning=tuning)
        self.prior_weight = prior_weight
        self.weigh = weigh
        self.reach = reach
        self.temperature = temperature
        self.opening = opening

    def opening_tricks(self, variant: str) -> int:
        """How many first tricks the network plays alone in ``variant``: none without
        ``prior=learned``, else the ``opening`` setting or the variant profile's."""
        if self.learned is None:
            return 0
        return profile(variant).opening if self.opening is None else self.opening

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
        if self.samples is not None:
            return self.samples, self.nodes
        if self.learned is not None:
            samples, nodes = profile(variant).learned_search
            return samples, self.nodes or nodes or None
        return SAMPLES, self.nodes

    @property
    def solver(self) -> Solver:
        """The calling thread's solver (:func:`~bela.solver.dd.default_solver`): never
        shared with a bot thinking at the same time in another thread."""
        return default_solver()

    # -- the protocol ------------------------------------------------------------------------
    def act(self, view: SeatView) -> Action:
        return self.advise(view)[0]

    def advise(self, view: SeatView) -> tuple[Action, dict[Card, float]]:
        """The bot's action (what :meth:`act` returns) and, when it chooses a card among
        two or more, the values it chose from: the mean double-dummy value of each legal
        card over one set of sampled deals (as :meth:`card_values`; in the first tricks
        of :meth:`opening_tricks` the network's values, :meth:`LearnedBot.card_values
        <bela.bots.learned.LearnedBot.card_values>`); the action plays the
        card with the best value (:meth:`best_card`: the highest, the lowest in raspas,
        ties to the first card in card order).  The values are empty for any other
        decision (a bid, a single legal card, a declaration...)."""
        if not view.legal:
            raise ValueError("it is not this seat's turn")
        if view.phase == "play" and all(isinstance(a, Play) for a in view.legal):
            return self._play(view)
        if view.phase == "discard" and self.discard == "search":
            return self._discard(view), {}
        if view.phase == "bidding" and self.bidding == "learned":
            assert self.learned is not None
            return self.learned.act(view), {}
        if (view.phase == "bidding" and self.bidding != "heuristic"
                and not get_variant(view.variant).discards  # the simulation has no discards
                and any(isinstance(a, Call) for a in view.legal)):
            if self.bidding == "sim":
                return self._bid(view), {}
            choice = self.fallback.act(view)  # hybrid: the heuristic decides to call or pass,
            if isinstance(choice, Call):
                return self._bid(view, must_call=True), {}
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
        ``objective=score`` the round's score margin they give.  Each call draws its own
        deals: :meth:`advise` gives a choice with the values it came from."""
        legal = sorted({a.card for a in view.legal if isinstance(a, Play)})
        start = time.perf_counter()
        sampler = self._sampler(view)
        solver = self.solver
        deals: list[SampledDeal] = []
        solved: list[dict[Card, int]] = []
        nodes = 0
        samples, node_cap = self.search(view.variant)
        longest = 0.0  # seconds of the slowest deal drawn and solved so far
        for _ in range(samples):  # the time budget counts drawing and solving
            if len(deals) >= self.min_samples and (
                    (self.budget is not None and time.perf_counter() - start > self.budget)
                    or (node_cap is not None and nodes >= node_cap)):
                break
            if clock.stop(len(deals), 1, longest):  # the server's deadline is near
                break
            began = time.perf_counter()
            deal = sampler.draw(self.rng)
            deals.append(deal)
            solution = solver.solve(self._position(view, deal.hands), line=False)
            solved.append(solution.values)
            nodes += solution.nodes
            longest = max(longest, time.perf_counter() - began)
        # the cards every deal's search valued: those the duties allow (R17-R19), also where
        # ``enforce = off`` makes every card legal (R24: a bot plays by the duties)
        legal = [c for c in legal if all(c in values for values in solved)] or legal
        weights = (self._weights(view, deals) if self.learned is not None and sampler.inference
                   else [1.0] * len(deals))
        worth = self._scorer(view)
        scales = [worth(deal) if worth else float for deal in deals]
        weight = sum(weights)
        mean = dict.fromkeys(legal, 0.0)
        for scale, values, w in zip(scales, solved, weights, strict=True):
            for card in legal:
                mean[card] += w * scale(values[card])
        mean = {c: v / weight for c, v in mean.items()}
        if self.learned is not None and self.prior_weight > 0:
            # the prior: the network's differences between the cards around each deal's
            # mean points (it fits the differences more closely than the level: training.train),
            # valued as that deal's cards
            prior = self.learned.card_values(view)
            centre = sum(prior.values()) / len(prior)
            scored = self.learned.target(view.variant) == "score" and not view.raspas
            if scored and not worth:
                raise ValueError("the prior's model values the round's score: use it with "
                                 "objective=score")
            guess = dict.fromkeys(legal, 0.0)
            for scale, values, w in zip(scales, solved, weights, strict=True):
                if scored:  # the model's differences around the deal's mean score
                    level = sum(scale(values[c]) for c in legal) / len(legal) - centre
                    for card in legal:
                        guess[card] += w * (prior[card] + level)
                    continue
                level = sum(values[c] for c in legal) / len(legal) - centre
                for card in legal:
                    guess[card] += w * scale(prior[card] + level)
            n_eff = weight * weight / sum(w * w for w in weights)
            k = self.prior_weight
            mean = {c: (n_eff * mean[c] + k * guess[c] / weight) / (n_eff + k) for c in legal}
        if worth:  # equal scores: the card with more points
            for values, w in zip(solved, weights, strict=True):
                for card in legal:
                    mean[card] += TIE_BREAK * w * values[card] / weight
        return mean

    def _scorer(self, view: SeatView
                ) -> Callable[[SampledDeal], Callable[[float], float]] | None:
        """With ``objective=score``: :func:`round_scorer` for the sampled deals."""
        if self.objective != "score":
            return None
        scorer = round_scorer(view)
        if scorer is None:
            return None
        return lambda deal: scorer(deal.hands, deal.start)

    def _weights(self, view: SeatView, deals: list[SampledDeal]) -> list[float]:
        """The opponent model: each deal's likelihood of the other seats' last plays under
        the learned network, every such seat's view rebuilt at the moment it played."""
        assert self.learned is not None
        me = view.seat
        if self.reach == "round":
            recent = [p for trick, _ in view.tricks for p in trick] + list(view.trick)
        else:
            recent = list(view.trick) or (list(view.tricks[-1][0]) if view.tricks else [])
        plays = [(s, c) for s, c in recent if s != me][-self.weigh:] if self.weigh else []
        if not plays:
            return [1.0] * len(deals)
        from .learned.features import turn_card

        rows, picks = [], []
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
                    seen = seat_view(match, rnd.turn, rnd)
                    if sum(isinstance(a, Play) for a in seen.legal) > 1:
                        x, turn = self.learned.features(seen)
                        legal = np.zeros(32, dtype=bool)
                        for a in seen.legal:
                            if isinstance(a, Play):
                                legal[turn_card(a.card, turn)] = True
                        rows.append((x, legal, -1.0 if seen.raspas else 1.0))
                        picks.append((i, turn_card(last.card, turn)))
        weights = np.ones(len(deals))
        if rows:
            from .learned import model_for

            net = model_for(view.variant, self.learned.model)["play"]
            out = net.forward(np.stack([r[0] for r in rows])) * float(
                net.meta.get("scale", 100.0))
            for (_x, legal, sign), (i, pick), values in zip(rows, picks, out, strict=True):
                z = np.where(legal, sign * values / self.temperature, -np.inf)
                p = np.exp(z - z.max())
                p /= p.sum()
                weights[i] *= 0.9 * p[pick] + 0.1 / legal.sum()
        return [float(w) for w in weights / weights.max()]

    # -- card play ---------------------------------------------------------------------------
    def _play(self, view: SeatView) -> tuple[Action, dict[Card, float]]:
        cards = {a.card for a in view.legal if isinstance(a, Play)}
        values: dict[Card, float] = {}
        if len(cards) == 1:
            card = next(iter(cards))
        else:
            if len(view.tricks) < self.opening_tricks(view.variant):  # the network alone
                assert self.learned is not None
                values = self.learned.card_values(view)
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
        if self.bids is not None:
            return self.bids
        return profile(variant).learned_bids if self.learned is not None else "model"

    def _sampler(self, view: SeatView) -> DealSampler:
        bids = None
        if self.reading(view.variant) == "estimate":
            bids = EstimateBids(profile(view.variant).heuristic)
        try:
            return DealSampler(view, inference=self.inference, bids=bids)
        except InconsistentView:  # only possible when an opponent broke a duty unseen
            return DealSampler(view, inference=False)

    @staticmethod
    def _position(view: SeatView, hands: tuple[int, ...] | list[int]) -> Position:
        leader = view.trick[0][0] if view.trick else view.turn
        assert leader is not None and view.contract is not None
        return Position.make(list(hands), view.contract, view.variant, leader,
                             [c for _, c in view.trick], view.card_points,
                             view.caller, view.raspas)

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
        if len(candidates) < 2 or self.bid_samples < 2:
            return candidates[0] if candidates else self.fallback.act(view)
        scorer = seat_scorer(view)
        sampler = self._sampler(view)
        values: list[list[float]] = [[] for _ in candidates]
        nodes = 0
        node_cap = self.search(view.variant)[1]
        start = time.perf_counter()
        longest = 0.0
        for drawn in range(self.bid_samples):
            if drawn >= max(2, self.min_samples) and (
                    (node_cap is not None and nodes >= DISCARD_CANDIDATES * node_cap)
                    or (self.budget is not None
                        and time.perf_counter() - start > self.budget)):
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
    def _bid(self, view: SeatView, must_call: bool = False) -> Action:
        calls = [a for a in view.legal if isinstance(a, Call)]
        sampler = self._sampler(view)
        margins: dict[Call, float] = defaultdict(float)
        start = time.perf_counter()
        drawn, longest = 0, 0.0
        for drawn in range(1, self.bid_samples + 1):  # the time budget caps bids too
            began = time.perf_counter()
            deal = sampler.draw(self.rng)
            for call in calls:
                margins[call] += self.margin(view, deal.start, call.contract)
            longest = max(longest, time.perf_counter() - began)
            if ((drawn >= self.min_samples and self.budget is not None
                    and time.perf_counter() - start > self.budget)
                    or clock.stop(drawn, 1, longest)):  # the server's deadline is near
                break
        best = max(calls, key=lambda c: (margins[c], -c.contract))
        can_pass = not must_call and any(isinstance(a, Pass) for a in view.legal)
        if can_pass and margins[best] / max(drawn, 1) < self.threshold:
            return next(a for a in view.legal if isinstance(a, Pass))
        return best

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


def all_declared(view: SeatView, hands: tuple[int, ...], contract: int
                  ) -> tuple[int, int]:
    """Declaration and bela points of the seat's side and of the other, if every seat of
    the deal ``hands`` announced everything (R12, R14; R37 in belot2)."""
    variant = get_variant(view.variant)
    me = view.seat
    assert me is not None
    n = variant.seats
    best: dict[bool, tuple[int, int]] = {}
    points = {True: 0, False: 0}
    bela = {True: 0, False: 0}
    suits = variant.bela_suits(contract)
    for seat, hand in enumerate(hands):
        ours = variant.side_of(seat) == variant.side_of(me)
        for d in find_declarations(hand, variant.belot_wins):
            points[ours] += declaration_value(d, variant.declaration_values)
            key = (d.strength, -((seat - view.first) % n))
            if ours not in best or key > best[ours]:
                best[ours] = key
        for s in range(4):
            pair = hand >> (8 * s + 5) & 3
            if suits >> s & 1 and pair == 3:
                bela[ours] += 20
    winner = max(best, key=lambda k: best[k]) if best else None
    mine = bela[True] + (points[True] if winner is True else 0)
    theirs = bela[False] + (points[False] if winner is False else 0)
    return mine, theirs


Scorer = Callable[[tuple[int, ...], tuple[int, ...]], Callable[[float], float]]


def round_scorer(view: SeatView) -> Scorer | None:
    """What the card points of a round score, for the variants of two sides (None in raspas
    and bela3, whose card play keeps the points: :func:`seat_scorer`): for a deal consistent
    with ``view`` (each seat's cards now and at the start of play), the function from the
    points the seat's side ends the round with to the round's score for that side less the
    other's, as the variant scores it (R21-R23, R34-R37).  Declarations and bela are the
    view's once every seat has announced (a bela still held in the deal's hands too), else
    those of the deal's starting hands; a side that takes every point while the other has
    no trick takes every trick (R23)."""
    if view.raspas or view.sides != 2 or view.contract is None:
        return None
    variant = get_variant(view.variant)
    options = TableOptions(**view.options)
    me, caller, contract = view.seat, view.caller, view.contract
    assert me is not None and caller is not None
    mine = variant.side_of(me)
    theirs = 1 - mine
    points = play_table(contract).points
    taken = sum(view.card_points) + sum(points[c] for _, c in view.trick) + \
        variant.last_trick_bonus
    announced = all(d is not None for d in view.declared)
    declared = [0, 0]
    if announced and view.declarations_side is not None:
        for infos in view.declared:
            for d in infos or ():
                if variant.side_of(d.seat) == view.declarations_side:
                    declared[view.declarations_side] += d.value
    belas = [0, 0]
    announced_belas = set(view.belas)
    for seat, _suit in view.belas:
        belas[variant.side_of(seat)] += 20
    suits = variant.bela_suits(contract)

    def worth(hands: tuple[int, ...], start: tuple[int, ...]) -> Callable[[float], float]:
        if announced:
            decl, bela = declared, list(belas)
            for seat, hand in enumerate(hands):
                for s in range(4):
                    if (suits >> s & 1 and hand >> (8 * s + 5) & 3 == 3
                            and (seat, s) not in announced_belas):
                        bela[variant.side_of(seat)] += 20
        else:
            ours, others = all_declared(view, start, contract)
            decl = [0, 0]
            bela = [0, 0]
            decl[mine], decl[theirs] = ours, others
        total = taken + sum(points[c] for hand in hands for c in iter_cards(hand))
        low, high = view.card_points[mine], total - view.card_points[theirs]

        def score(value: float) -> float:
            cards = [0, 0]  # a prior's guess may lie outside what the sides can take
            cards[mine] = min(max(round(value), low), high)
            cards[theirs] = total - cards[mine]
            capot = None
            if cards[theirs] == 0 and view.tricks_won[theirs] == 0:
                capot = mine
            elif cards[mine] == 0 and view.tricks_won[mine] == 0:
                capot = theirs
            counted, belas_counted = decl, bela
            if capot is not None:  # R15: the side without a trick (R37: bela counts)
                counted = list(decl)
                counted[1 - capot] = 0
                if variant.bela_needs_trick:
                    belas_counted = list(bela)
                    belas_counted[1 - capot] = 0
            scores = variant.score_points(options, caller, contract, cards, counted,
                                          belas_counted, capot).scores
            return float(scores[mine] - scores[theirs])

        return score

    return worth


def seat_scorer(view: SeatView) -> Scorer:
    """:func:`round_scorer` for bela3, where each seat is his own side (R28) and the solver
    plays the caller against the two others together: the points of the seat's team (the
    caller, or the two others) give the caller's own points, the caller's discards added
    (R27), and the round's score as the engine writes it (pass or fall, declarations, bela,
    štiglja: R12-R15, R21-R23, R28).  What the two others take from here is split evenly
    between them (the solver does not tell which of them takes it).  The value is the
    seat's score less the mean of the two others' scores, as ``bela arena`` counts a bela3
    game: a defender gains from the caller's fall, and a caller's points are worth the
    most where they decide it."""
    variant = get_variant(view.variant)
    options = TableOptions(**view.options)
    me, caller, contract = view.seat, view.caller, view.contract
    assert me is not None and caller is not None and contract is not None
    others = [s for s in range(3) if s != caller]
    points = play_table(contract).points
    played = 0
    for trick in [t[0] for t in view.tricks] + [view.trick]:
        for _seat, card in trick:
            played |= 1 << card
    taken = sum(view.card_points) + sum(points[c] for _, c in view.trick) + \
        variant.last_trick_bonus
    announced = all(d is not None for d in view.declared)
    declared = [0, 0, 0]
    if announced and view.declarations_side is not None:
        for infos in view.declared:
            for d in infos or ():
                if d.seat == view.declarations_side:
                    declared[d.seat] += d.value
    announced_belas = set(view.belas)
    suits = variant.bela_suits(contract)

    def worth(hands: tuple[int, ...], start: tuple[int, ...]) -> Callable[[float], float]:
        held = 0
        for hand in hands:
            held |= hand
        discards = FULL_DECK & ~(held | played)  # R27: the caller's, counted for him
        banked = sum(points[c] for c in iter_cards(discards))
        decl = declared
        if not announced:
            standing = declaration_standing(
                variant, [find_declarations(h, variant.belot_wins) for h in start],
                view.first, contract, options.equal_declarations)
            decl = [0, 0, 0]
            if standing.seat is not None:
                decl[standing.seat] = sum(
                    declaration_value(d, variant.declaration_values)
                    for d in find_declarations(start[standing.seat], variant.belot_wins))
        bela = [0, 0, 0]
        for seat, _suit in view.belas:
            bela[seat] += 20
        for seat, hand in enumerate(hands):
            for s in range(4):
                if (suits >> s & 1 and hand >> (8 * s + 5) & 3 == 3
                        and (seat, s) not in announced_belas):
                    bela[seat] += 20
        total = taken + sum(points[c] for c in iter_cards(held))
        caller_low = view.card_points[caller]
        caller_high = total - sum(view.card_points[s] for s in others)

        def score(value: float) -> float:
            own = round(value) if me == caller else total - round(value)
            cards = [0, 0, 0]
            cards[caller] = min(max(own, caller_low), caller_high)
            capot = caller if cards[caller] == total and not any(
                view.tricks_won[s] for s in others) else None
            counted, belas_counted = decl, bela
            if capot is not None:  # R15: the others took no trick
                counted = [d if s == caller else 0 for s, d in enumerate(decl)]
                belas_counted = [b if s == caller else 0 for s, b in enumerate(bela)]
            rest = total - cards[caller] - sum(view.card_points[s] for s in others)
            cards[caller] += banked
            value = 0.0
            for first, second in (others, others[::-1]):  # an odd point to either
                cards[first] = view.card_points[first] + rest // 2
                cards[second] = view.card_points[second] + rest - rest // 2
                scores = variant.score_points(options, caller, contract, cards, counted,
                                              belas_counted, capot).scores
                value += (scores[me] - (sum(scores) - scores[me]) / 2) / 2
            return value

        return score

    return worth

"""The sampled-deal search: deals drawn consistent with a seat's view, each solved
double-dummy, each legal card valued by its mean over them (:class:`DealSearch`), with a
prior (:mod:`bela.bots.evaluators`) mixed in; and what a solved line scores
(:func:`round_scorer`, :func:`seat_scorer`).

``pimc`` (:mod:`bela.bots.pimc`) plays its cards by this search; the learned bot
(:mod:`bela.bots.learned`) its last tricks.  What the values are (``objective``): the card
points the seat's side takes in the solved line, or with ``score`` what the round then
writes for that side less what it writes for the other (R21-R23, belot2 R34-R37).  With an
informed prior, the prior's value of each card (its differences from the other cards,
around each drawn deal's mean, valued as that deal's cards are) counts as
:data:`PRIOR_WEIGHT` further deals in the mean, which steadies the estimate when few deals
are drawn; a prior trained on the score serves only with ``objective=score``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..engine.actions import Play
from ..engine.cards import FULL_DECK, Card, iter_cards
from ..engine.declarations import declaration_value, find_declarations
from ..engine.rules import play_table
from ..engine.scoring import declaration_standing
from ..engine.variants import TableOptions, get_variant
from ..engine.views import SeatView
from ..solver.dd import Position, Solver, default_solver
from ..solver.inference import InconsistentView
from ..solver.sampler import DealSampler, SampledDeal
from . import clock
from .contracts import EstimateBids
from .evaluators import UNIFORM, Evaluator
from .profiles import profile
from .settings import Bids, Objective

TIE_BREAK = 1e-3  # objective=score: points per point of the card's mean, to break ties

# The prior's weight: the deals its values count as in the mean (informed priors only)
PRIOR_WEIGHT = 4.0

SAMPLES = 16  # the deals per decision where nothing else says


def position(view: SeatView, hands: tuple[int, ...] | list[int]) -> Position:
    """The solver's position of ``view`` with the deal ``hands``."""
    leader = view.trick[0][0] if view.trick else view.turn
    assert leader is not None and view.contract is not None
    return Position.make(list(hands), view.contract, view.variant, leader,
                         [c for _, c in view.trick], view.card_points,
                         view.caller, view.raspas)


Weigh = Callable[[SeatView, list[SampledDeal]], list[float]]


@dataclass
class DealSearch:
    """Sampled deals x the double-dummy solver for a card decision: the search part of
    ``pimc`` and of the learned bot's endgame.  It draws with ``rng`` (its owner's), stops
    at the sample count, the work budget or the time ``budget`` (after ``min_samples``
    deals) or the server's deadline (:mod:`bela.bots.clock`), and solves with the calling
    thread's solver."""

    rng: random.Random
    min_samples: int = 6
    budget: float | None = None
    inference: bool = True
    objective: Objective = Objective.POINTS
    prior: Evaluator = field(default=UNIFORM)

    @property
    def solver(self) -> Solver:
        """The calling thread's solver (:func:`~bela.solver.dd.default_solver`)."""
        return default_solver()

    def sampler(self, view: SeatView, bids: Bids = Bids.MODEL) -> DealSampler:
        """The deals consistent with ``view``, the bids read by ``bids``."""
        read = EstimateBids(profile(view.variant).heuristic) if bids == Bids.ESTIMATE else None
        try:
            return DealSampler(view, inference=self.inference, bids=read)
        except InconsistentView:  # only possible when an opponent broke a duty unseen
            return DealSampler(view, inference=False)

    def scorer(self, view: SeatView
               ) -> Callable[[SampledDeal], Callable[[float], float]] | None:
        """With ``objective=score``: :func:`round_scorer` for the sampled deals."""
        if self.objective != Objective.SCORE:
            return None
        scorer = round_scorer(view)
        if scorer is None:
            return None
        return lambda deal: scorer(deal.hands, deal.start)

    def card_values(self, view: SeatView, samples: int = SAMPLES, nodes: int | None = None,
                    bids: Bids = Bids.MODEL, weigh: Weigh | None = None
                    ) -> dict[Card, float]:
        """Mean value of each legal card over up to ``samples`` sampled deals (at most
        ``nodes`` solver nodes): the double-dummy points the seat's side takes over the
        whole round (in raspas lower is better), or with ``objective=score`` the round's
        score margin they give; each deal weighed by ``weigh`` (the opponent model, where
        the sampler reads the inferences), the prior mixed in where it is informed."""
        legal = sorted({a.card for a in view.legal if isinstance(a, Play)})
        start = time.perf_counter()
        sampler = self.sampler(view, bids)
        solver = self.solver
        deals: list[SampledDeal] = []
        solved: list[dict[Card, int]] = []
        spent = 0
        longest = 0.0  # seconds of the slowest deal drawn and solved so far
        for _ in range(samples):  # the time budget counts drawing and solving
            if len(deals) >= self.min_samples and (
                    (self.budget is not None and time.perf_counter() - start > self.budget)
                    or (nodes is not None and spent >= nodes)):
                break
            if clock.stop(len(deals), 1, longest):  # the server's deadline is near
                break
            began = time.perf_counter()
            deal = sampler.draw(self.rng)
            deals.append(deal)
            solution = solver.solve(position(view, deal.hands), line=False)
            solved.append(solution.values)
            spent += solution.nodes
            longest = max(longest, time.perf_counter() - began)
        # the cards every deal's search valued: those the duties allow (R17-R19), also where
        # ``enforce = off`` makes every card legal (R24: a bot plays by the duties)
        legal = [c for c in legal if all(c in values for values in solved)] or legal
        weights = (weigh(view, deals) if weigh is not None and sampler.inference
                   else [1.0] * len(deals))
        worth = self.scorer(view)
        scales = [worth(deal) if worth else float for deal in deals]
        weight = sum(weights)
        mean = dict.fromkeys(legal, 0.0)
        for scale, values, w in zip(scales, solved, weights, strict=True):
            for card in legal:
                mean[card] += w * scale(values[card])
        mean = {c: v / weight for c, v in mean.items()}
        if self.prior.informed:
            # the prior: its differences between the cards around each deal's mean points
            # (a network fits the differences more closely than the level:
            # training.train), valued as that deal's cards
            prior = self.prior.card_values(view)
            centre = sum(prior.values()) / len(prior)
            scored = self.prior.target(view.variant) == "score" and not view.raspas
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
            k = PRIOR_WEIGHT
            mean = {c: (n_eff * mean[c] + k * guess[c] / weight) / (n_eff + k) for c in legal}
        if worth:  # equal scores: the card with more points
            for values, w in zip(solved, weights, strict=True):
                for card in legal:
                    mean[card] += TIE_BREAK * w * values[card] / weight
        return mean


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

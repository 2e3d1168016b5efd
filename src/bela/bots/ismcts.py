"""``ismcts``: Information Set Monte Carlo Tree Search (single observer) for the card play.

Each iteration draws one deal consistent with the view (:mod:`bela.solver.sampler`), walks
the tree from the bot's information set choosing among the cards that are legal in that deal
by UCB1 with availability counts (Cowling, Powley and Whitehouse, 2012), adds one node, plays
the rest of the round at random under the variant's duties (the engine's own tables and
duty functions) and backs up each mover's share of the card points.  Bidding, declarations,
bela, discards, swaps and redeals follow the heuristic bot.

``iterations`` and an optional ``budget`` (seconds per decision;
:class:`~bela.bots.settings.IsmctsConfig`) set the strength; it stops at whichever comes
first (without a budget, play depends only on the seed and the view).
"""

from __future__ import annotations

import math
import random
import time

from ..engine.actions import Action, Play
from ..engine.rules import play_table
from ..engine.variants import get_variant
from ..engine.views import SeatView
from ..solver.inference import InconsistentView
from ..solver.sampler import DealSampler
from . import clock
from .heuristic import HeuristicBot
from .settings import IsmctsConfig


class _Node:
    __slots__ = ("children", "visits", "reward", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 0


class IsmctsBot:
    name = "ismcts"

    def __init__(self, seed: int | None = None, config: IsmctsConfig | None = None) -> None:
        config = config or IsmctsConfig()
        self.rng = random.Random(seed)
        self.iterations = config.iterations
        self.budget = config.budget
        self.c = config.exploration
        self.inference = config.inference
        self.fallback = HeuristicBot(seed)

    def act(self, view: SeatView) -> Action:
        if not view.legal:
            raise ValueError("it is not this seat's turn")
        if view.phase != "play" or not all(isinstance(a, Play) for a in view.legal):
            return self.fallback.act(view)
        cards = {a.card for a in view.legal if isinstance(a, Play)}
        card = next(iter(cards)) if len(cards) == 1 else self._search(view)
        plays = [a for a in view.legal if isinstance(a, Play) and a.card == card]
        return max(plays, key=lambda a: a.bela)  # always announce bela (R14)

    def _ucb(self, child: _Node) -> float:
        """UCB1 with the availability count in place of the parent's visits."""
        return (child.reward / child.visits
                + self.c * math.sqrt(math.log(max(1, child.avail)) / child.visits))

    def _search(self, view: SeatView) -> int:
        variant = get_variant(view.variant)
        assert view.contract is not None and view.seat is not None
        table = play_table(view.contract)
        duties = variant.duties
        n = variant.seats
        teams = variant.play_teams(view.caller)
        sign = -1.0 if view.raspas else 1.0
        try:
            sampler = DealSampler(view, inference=self.inference)
        except InconsistentView:
            sampler = DealSampler(view, inference=False)
        trick0: list[int] = [c for _, c in view.trick]
        leader0 = view.trick[0][0] if view.trick else view.turn
        assert leader0 is not None
        root = _Node()
        rng = self.rng
        beats, points = table.beats, table.points
        start = time.perf_counter()
        for it in range(self.iterations):
            if ((self.budget is not None and it >= 32
                    and time.perf_counter() - start > self.budget)
                    or clock.stop(it, 1, 0.0)):  # the server's deadline (bela.bots.clock)
                break
            hands = list(sampler.draw(rng).hands)
            trick = list(trick0)
            leader = leader0
            gained = [0.0, 0.0]
            path: list[tuple[_Node, int]] = []  # (child node, seat that moved into it)
            node = root
            expanding = True
            while any(hands):
                seat = (leader + len(trick)) % n
                if trick:
                    lead = trick[0] >> 3
                    win = trick[0]
                    for c in trick[1:]:
                        if beats[win] >> c & 1:
                            win = c
                    legal = duties(hands[seat], lead, win, table)
                else:
                    legal = hands[seat]
                moves = [c for c in range(32) if legal >> c & 1]
                if expanding:
                    for c in moves:
                        child = node.children.get(c)
                        if child is not None:
                            child.avail += 1
                    untried = [c for c in moves if c not in node.children]
                    if untried:
                        card = untried[rng.randrange(len(untried))]
                        child = node.children[card] = _Node()
                        child.avail = 1
                        expanding = False
                    else:
                        card = max(moves, key=lambda c: self._ucb(node.children[c]))
                        child = node.children[card]
                    path.append((child, seat))
                    node = child
                else:
                    card = moves[rng.randrange(len(moves))]
                hands[seat] &= ~(1 << card)
                trick.append(card)
                if len(trick) == n:
                    win_i = 0
                    for i in range(1, n):
                        if beats[trick[win_i]] >> trick[i] & 1:
                            win_i = i
                    winner = (leader + win_i) % n
                    pts = sum(points[c] for c in trick)
                    if not hands[winner]:
                        pts += variant.last_trick_bonus
                    gained[teams[winner]] += pts
                    leader = winner
                    trick = []
            total = (gained[0] + gained[1]) or 1.0
            root.visits += 1
            for child, seat in path:
                child.visits += 1
                child.reward += sign * gained[teams[seat]] / total
        legal_now = {a.card for a in view.legal if isinstance(a, Play)}
        return max((c for c in root.children if c in legal_now),
                   key=lambda c: (root.children[c].visits, -c))

"""The learned bot's training positions from the compiled vector environment
(``bela train --source vector``).

:func:`play_games` plays ``deals`` deals in :class:`bela.rl.vector.VecGames` (``batch``
matches stepped in one compiled call), every seat choosing by one compiled ``policy``:
``"random"`` (a uniform legal action), ``"greedy"`` (the vector environment's greedy
opponents: the compiled self-play's greedy card, every held declaration announced, the
other choices random) or a policy network of :mod:`bela.rl.vector.a2c` (``--out FILE``, the
observation to one output per action; :func:`load_policy`).  A share ``explore`` of the
card-play actions is a uniform random legal action instead.  It keeps each deal as dealt
(:meth:`~bela.rl.vector.VecGames.deal_of`) and the actions played, grouped in chunks of
deals (:class:`Chunk`).

:func:`label_chunk` replays a chunk's matches through the engine (:meth:`Match.deal` with the
vector environment's deal, :meth:`Match.apply` with each action, as
``tests/rl/test_vector_equivalence.py`` replays them: no second copy of the rules) and keeps
every decision's position with the trainer's labels (:class:`bela.training.data.Labeller`:
the seat's features from its :func:`~bela.engine.views.seat_view`, each legal card's
double-dummy value in the true deal, each contract's margin).  Labelling is the slow part
(the solver); the trainer runs it in its worker processes.

>>> chunks, speed = play_games("bela2", deals=3, batch=4, policy="greedy", seed=1, chunk=2)
>>> [len(c.labelled) for c in chunks], speed["deals"]
([2, 1], 3)
>>> s = label_chunk("bela2", chunks[0], seed=1)
>>> len(s) > 0, s.values.shape[1]
(True, 32)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..bots.learned.network import Mlp
from ..engine import Match
from ..engine.views import seat_view
from .data import Labeller, Samples

if TYPE_CHECKING:
    from ..rl.vector import VecGames

POLICIES = ("random", "greedy")


@dataclass(frozen=True)
class Deal:
    """One deal of a vector-environment match: each seat's cards (in the order dealt), the
    extra cards, the dealer, and every action played in it (action indices of
    :class:`~bela.rl.spaces.ActionSpace`)."""

    hands: tuple[tuple[int, ...], ...]
    extra: dict[str, tuple[int, ...]]
    dealer: int
    actions: tuple[int, ...]


@dataclass(frozen=True)
class Chunk:
    """Matches to replay, each from its first deal: ``matches[i]`` up to its last labelled
    deal; ``labelled`` the (match, deal) pairs whose positions are kept."""

    matches: tuple[tuple[Deal, ...], ...]
    labelled: tuple[tuple[int, int], ...]


def load_policy(policy: str) -> str | Mlp:
    """``"random"``, ``"greedy"``, or the network of an :mod:`bela.rl.vector.a2c` policy
    file (raises ``ValueError`` when it is neither)."""
    if policy in POLICIES:
        return policy
    if not Path(policy).is_file():
        raise ValueError(f"the vector players are random, greedy or a policy file "
                         f"(python -m bela.rl.vector.a2c --out FILE), not {policy!r}")
    from ..rl.vector.a2c import load_policy as read

    try:
        return read(policy)
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"cannot read the policy {policy}: {exc}") from None


def play_games(variant: str, deals: int, batch: int, policy: str | Mlp, seed: int,
               explore: float = 0.0, chunk: int = 25) -> tuple[list[Chunk], dict[str, float]]:
    """Play ``deals`` deals of ``variant`` in ``batch`` vector-environment matches at a time
    (see the module's docstring), in chunks of ``chunk`` deals in the order they ended; and
    the generation's speed: ``deals``, ``steps`` (actions), ``seconds``."""
    from ..rl.vector import VecGames
    from ..rl.vector import kernels as K
    from ..rl.vector.tables import PH_PLAY

    began = time.perf_counter()
    g = VecGames(variant, batch)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    history: list[np.ndarray] = []
    # per game: its deals so far (what deal_of gave, the step it began), where its match began
    dealt: list[list[tuple[tuple[list[list[int]], dict[str, list[int]], int], int]]] = [
        [(_deal_of(g, b), 0)] for b in range(batch)]
    match_start = [0] * batch
    ended: list[tuple[int, int, int]] = []  # (game, deal index, its match's first deal)
    rounds = g.state[:, K.ROUNDS].copy()
    while len(ended) < deals:
        acts = g.act(policy)
        if explore > 0:
            rows = (g.state[:, K.PHASE] == PH_PLAY) & (rng.random(batch) < explore)
            acts[rows] = g.sample()[rows]
        history.append(acts)
        step = g.step(acts)
        now = g.state[:, K.ROUNDS]
        over = step.terminated | step.truncated
        for b in np.flatnonzero(over | (now != rounds)).tolist():
            ended.append((b, len(dealt[b]) - 1, match_start[b]))
            if over[b]:
                match_start[b] = len(dealt[b])
            dealt[b].append((_deal_of(g, b), len(history)))
        rounds = now.copy()
    played = np.stack(history)
    steps = len(history) * batch

    made: dict[tuple[int, int], Deal] = {}  # a match's first deals recur in later chunks

    def deal(b: int, i: int) -> Deal:
        if (b, i) not in made:
            (hands, extra, dealer), start = dealt[b][i]
            end = dealt[b][i + 1][1]
            made[b, i] = Deal(tuple(tuple(h) for h in hands),
                              {k: tuple(x) for k, x in extra.items()}, dealer,
                              tuple(played[start:end, b].tolist()))
        return made[b, i]

    chunks = []
    for k in range(0, deals, chunk):
        part = ended[k:min(k + chunk, deals)]
        keys = sorted({(b, first) for b, _, first in part})
        last = {key: max(i for b, i, first in part if (b, first) == key) for key in keys}
        matches = tuple(tuple(deal(b, i) for i in range(first, last[(b, first)] + 1))
                        for b, first in keys)
        labelled = tuple(sorted((keys.index((b, first)), i - first) for b, i, first in part))
        chunks.append(Chunk(matches, labelled))
    return chunks, {"deals": deals, "steps": steps, "seconds": time.perf_counter() - began}


def _deal_of(g: VecGames, b: int) -> tuple[list[list[int]], dict[str, list[int]], int]:
    hands, extra, dealer = g.deal_of(b)
    return ([[int(c) for c in h] for h in hands],
            {k: [int(c) for c in x] for k, x in extra.items()}, dealer)


def label_chunk(variant: str, chunk: Chunk, seed: int, target: str = "points") -> Samples:
    """The labelled positions of a chunk's deals, replayed through the engine (see the
    module's docstring); ``seed``: the bidding judge's."""
    from ..rl.spaces import ActionSpace

    space = ActionSpace.for_variant(variant)
    labels = Labeller(variant, seed, target)
    keep = set(chunk.labelled)
    for m, deals in enumerate(chunk.matches):
        match = Match(variant)
        for i, d in enumerate(deals):
            rnd = match.deal(d.hands, d.extra, dealer=d.dealer)
            for a in d.actions:
                view = seat_view(match, rnd.turn)
                if (m, i) in keep:
                    labels.record(rnd, view)
                match.apply(space.action(a, view))
            if not rnd.is_over:
                raise ValueError(f"deal {i} of match {m} does not end with its actions")
    return labels.samples()

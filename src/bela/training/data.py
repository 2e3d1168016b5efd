"""Training positions for the learned bot: card-play and bidding positions, labelled by the
double-dummy solver.

Bots play whole rounds (the heuristic, or the learned bot itself for self-play); at every
card decision with a choice, the seat's feature vector (:mod:`bela.bots.learned.features`,
its view only) is kept together with the double-dummy value (:mod:`bela.solver.dd`) of each
legal card in the *true* deal (:func:`card_labels`): the card points its side takes from
there to the end of the round with best play; with ``target="score"`` (the variants of two
sides), the round's score margin that line gives instead, what the round writes for the
seat's side less what it writes for the other (:func:`bela.bots.pimc.round_scorer`, the
quantity ``pimc``'s ``objective=score`` estimates; raspas positions keep their points).
Over many deals a network fitted to these labels learns their mean over the deals the view
allows, which is what ``pimc`` estimates by sampling.  With ``explore`` some cards are
played at random, so the positions also cover what the players would not choose.

Bidding (variants without discards, as ``pimc``'s simulation): at every bid with a contract
to order, each contract the seat may order is kept with its features
(:func:`~bela.bots.learned.features.bid_features`) and its margin in the true deal: the
caller's side score minus the other side's, the deal played double-dummy from the first lead
(:meth:`bela.bots.pimc.PimcBot.margin`).

>>> s = play_samples("bela2", deals=1, seed=3)
>>> s.x.shape[1] == feature_size("bela2"), s.values.shape[1], len(s.bid_y) > 0
(True, 32, True)
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..bots import make_bot
from ..bots.base import Bot, with_settings
from ..bots.learned.features import (
    bid_feature_size,
    bid_features,
    feature_size,
    play_features,
    turn_card,
)
from ..bots.pimc import PimcBot, round_scorer
from ..engine import Match
from ..engine.actions import Call, Play
from ..engine.cards import Card
from ..engine.state import Round
from ..engine.variants import get_variant
from ..engine.views import SeatView, seat_view
from ..solver.dd import Position, default_solver


@dataclass
class Samples:
    """Card play: feature rows ``x`` and, per row, the value of each turned card (NaN: not
    legal).  Bidding: feature rows ``bid_x`` (one per contract the seat could order) and
    each one's margin ``bid_y``."""

    variant: str
    x: npt.NDArray[np.float16]
    values: npt.NDArray[np.float32]
    bid_x: npt.NDArray[np.float16]
    bid_y: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.x)

    @staticmethod
    def empty(variant: str) -> Samples:
        return Samples(variant, np.zeros((0, feature_size(variant)), np.float16),
                       np.zeros((0, 32), np.float32),
                       np.zeros((0, bid_feature_size(variant)), np.float16),
                       np.zeros(0, np.float32))

    @staticmethod
    def join(parts: list[Samples]) -> Samples:
        if not parts:
            raise ValueError("nothing to join")
        return Samples(parts[0].variant, np.concatenate([p.x for p in parts]),
                       np.concatenate([p.values for p in parts]),
                       np.concatenate([p.bid_x for p in parts]),
                       np.concatenate([p.bid_y for p in parts]))

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, variant=np.asarray(self.variant), x=self.x,
                                values=self.values, bid_x=self.bid_x, bid_y=self.bid_y)
        tmp.replace(path)

    @staticmethod
    def load(path: Path) -> Samples:
        with np.load(path, allow_pickle=False) as d:
            variant = str(d["variant"])
            if "bid_x" not in d.files:  # card play only
                empty = Samples.empty(variant)
                return Samples(variant, d["x"], d["values"], empty.bid_x, empty.bid_y)
            return Samples(variant, d["x"], d["values"], d["bid_x"], d["bid_y"])


def play_samples(variant: str, deals: int, seed: int, bot: str = "heuristic",
                 explore: float = 0.1, model: bytes | None = None,
                 target: str = "points") -> Samples:
    """Play ``deals`` rounds of ``variant`` with ``bot`` at every seat (a bot spec) and keep
    every card decision with a choice, labelled by the solver (see the module docstring).
    ``model``: a learned model file's bytes for ``bot`` (``learned`` or a level), so a
    worker on another machine needs no access to the trainer's files.
    ``target``: what a card's label is, ``points`` or ``score``."""
    check_target(variant, target)
    if model is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "model.npz"
            path.write_bytes(model)
            return play_samples(variant, deals, seed, with_settings(bot, f"model={path}"),
                                explore, target=target)
    rng = random.Random(seed)
    labels = Labeller(variant, seed, target)
    match: Match | None = None
    played = 0
    while played < deals:
        if match is None or match.is_over:
            match = Match(variant, seed=rng.randrange(1 << 31))
            bots: list[Bot] = [make_bot(bot, rng.randrange(1 << 31))
                               for _ in range(match.variant.seats)]
        rnd = match.deal()
        while not rnd.is_over:
            view = seat_view(match, rnd.turn)
            if labels.record(rnd, view) and rng.random() < explore:
                plays = [a for a in view.legal if isinstance(a, Play)]
                card = rng.choice(sorted({a.card for a in plays}))
                match.apply(next(a for a in plays if a.card == card))
                continue
            match.apply(bots[rnd.turn].act(view))
        played += 1
    return labels.samples()


class Labeller:
    """Collects the labelled positions of the decisions it is shown (:meth:`record`): what
    :func:`play_samples` keeps of the rounds it plays, and what the trainer keeps of the
    vector environment's games (:mod:`bela.training.vector`) replayed through the engine.
    ``seed``: the bidding judge's (:class:`~bela.bots.pimc.PimcBot`)."""

    def __init__(self, variant: str, seed: int, target: str = "points") -> None:
        check_target(variant, target)
        self.variant, self.target = variant, target
        self.judge = PimcBot(seed)
        self.bids = not get_variant(variant).discards
        self.xs: list[npt.NDArray[np.float32]] = []
        self.vals: list[npt.NDArray[np.float32]] = []
        self.bid_xs: list[npt.NDArray[np.float32]] = []
        self.bid_ys: list[float] = []

    def record(self, rnd: Round, view: SeatView) -> bool:
        """Keep the decision of the seat to act in ``rnd`` (``view``: its view): each
        contract it may order, with its margin in the true deal; a card to choose (no
        declaration pending), with each legal card's label (:func:`card_labels`).  True
        when a card decision was kept."""
        calls = [a for a in view.legal if isinstance(a, Call)]
        if self.bids and rnd.phase == "bidding" and calls:
            for call in calls:
                self.bid_xs.append(bid_features(view, call.contract))
                self.bid_ys.append(self.judge.margin(view, tuple(rnd.hands), call.contract))
        plays = [a for a in view.legal if isinstance(a, Play)]
        if rnd.phase != "play" or len({a.card for a in plays}) < 2 or (
                len(plays) != len(view.legal)):
            return False
        x, turn = play_features(view)
        row = np.full(32, np.nan, dtype=np.float32)
        for card, value in card_labels(rnd, view, self.target).items():
            row[turn_card(card, turn)] = value
        self.xs.append(x)
        self.vals.append(row)
        return True

    def samples(self) -> Samples:
        """Everything kept so far."""
        empty = Samples.empty(self.variant)
        return Samples(self.variant,
                       np.asarray(self.xs, dtype=np.float16) if self.xs else empty.x,
                       np.asarray(self.vals) if self.vals else empty.values,
                       np.asarray(self.bid_xs, dtype=np.float16) if self.bid_xs
                       else empty.bid_x,
                       np.asarray(self.bid_ys, dtype=np.float32))


TARGETS = ("points", "score")


def check_target(variant: str, target: str) -> None:
    """Refuse a label ``target`` that is unknown or that ``variant`` cannot score (``score``
    needs two sides).

    >>> check_target("bela3", "score")
    Traceback (most recent call last):
    ...
    ValueError: target 'score' needs a variant of two sides; bela3 has 3
    """
    if target not in TARGETS:
        raise ValueError(f"target must be 'points' or 'score', not {target!r}")
    sides = get_variant(variant).sides
    if target == "score" and sides != 2:
        raise ValueError(f"target 'score' needs a variant of two sides; {variant} has {sides}")


def card_labels(rnd: Round, view: SeatView, target: str = "points") -> dict[Card, float]:
    """Each legal card's label for the seat to play in the round ``rnd`` (its true deal;
    ``view`` that seat's view): the card points its side takes from here to the end with
    double-dummy play, or with ``target="score"`` the round's score margin that line gives
    (raspas: points)."""
    pos = Position.from_round(rnd)
    values = default_solver().solve(pos, line=False).values
    scorer = round_scorer(view) if target == "score" else None
    if scorer is not None:
        worth = scorer(tuple(rnd.hands), _start_of_play(view, rnd.hands))
        return {card: worth(value) for card, value in values.items()}
    assert view.seat is not None
    already = pos.taken[pos.teams[view.seat]]
    return {card: float(value - already) for card, value in values.items()}


def _start_of_play(view: SeatView, hands: list[int]) -> tuple[int, ...]:
    """Each seat's cards at the start of play: what it holds now and what it has played."""
    start = list(hands)
    for trick in [t[0] for t in view.tricks] + [view.trick]:
        for seat, card in trick:
            start[seat] |= 1 << card
    return tuple(start)

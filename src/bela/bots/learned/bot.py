"""``learned``: the card play of a trained network, run with numpy.

The network (:mod:`.network`) reads the seat's view (:mod:`.features`) and gives every card
the points its side is expected to take from here to the end of the round if it plays that
card.  It was trained on the double-dummy values of the true deals (what ``pimc`` estimates
by sampling deals), from positions of its own play (:mod:`bela.training.train`), so a forward
pass replaces the sampling and the search.  By default (``symmetric``) a card's value is the
mean over the six namings of the side suits, the renamings the network was trained on (one
batch of six rows), so no one naming's error decides; the bid margins alike;
``symmetric=off`` takes the single pass.  The bot plays the legal card with the highest
value (the lowest in raspas, R34).  A model trained with ``--target score`` gives instead
the round's score margin the card leads to (:func:`model_target`): what ``pimc`` estimates
with ``objective=score``, the few points that decide a fall weighed as the whole round.

The last tricks (``endgame``: when the seat holds that many cards or fewer; by default the
variant profile's ``endgame``) are played by search instead: ``pimc``'s mean double-dummy value
of each card over deals sampled from the view (:meth:`LearnedBot.search_values`).  There a
decision costs a few milliseconds and the deals left are nearly determined by what was
played, while the network's values, good for the opening, miss the exact play of the end
in bela4 and bela3 (in belot2 a little); in bela2, where 11 cards stay out of play, it plays
the end better and the default is none.  ``endgame=0`` is the network alone.  A search
stops drawing deals once it has solved :data:`ENDGAME_NODES` solver nodes (``nodes=N``;
``nodes=0``: no cap), after six deals at least: in bela3, whose first tricks are searched
with nine cards in hand, about one search in 40 takes more over 16 deals (up to a hundred
million, seconds); in bela4 and belot2 none came near (docs/experiments/2026-12.md).

Bidding: a second network gives the margin of each contract the seat may order (the
caller's side score minus the other side's, trained on the true deals played double-dummy,
what ``pimc`` simulates).  With ``bidding=hybrid`` (the default, as ``pimc``) the heuristic
decides whether to order at all and the network chooses the contract; with ``bidding=net``
the network orders its best contract when the margin reaches ``threshold`` points and
passes otherwise; ``bidding=heuristic`` bids as the heuristic.  Declarations, bela, discards
and exchanges follow the heuristic bot (so does bela3's bidding, as ``pimc``'s); ``tuning``
(per variant, in code: ``pimc``'s ``order``) gives that bot other knobs.

``learned:model=PATH`` plays a model file written by ``bela train``; without it the model
shipped with the package for the variant is used.

Human-like mistakes, for the levels people play against (:mod:`bela.bots.levels`):
``temperature=T`` (points, in the model's values) draws the card from the softmax of the
values instead of always taking the best, so a card close to the best is often kept and a
bad one almost never;
``forget=P`` misses a count with probability P a decision: the cards of one suit played in
the earlier tricks are forgotten (they look unplayed, and what they showed about voids is
lost), as a player who lost track of the trumps (the network's decisions only: the levels
that make mistakes play without the endgame search);
``revoke=P`` breaks a duty (R17-R19) with probability P at each card where the duties
refuse a card and the table lets it be played (``enforce = off``, R24, and a table where
revokes are allowed, :func:`bela.bots.driver.bot_view`): a card of those drawn uniformly,
from its own seeded draw, as a player who overlooked a card of the led suit or a trump.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...engine.actions import Action, Call, Pass, Play
from ...engine.cards import SUIT_MASKS, Card, CardSet
from ...engine.enums import Phase
from ...engine.views import SeatView
from ..heuristic import HeuristicBot
from ..profiles import HeuristicParams, profile
from .features import (
    FEATURES_VERSIONS,
    bid_feature_size,
    bid_features,
    feature_size,
    play_features,
    suit_orders,
    unturn_card,
)
from .network import Mlp, ModelError, load_models

if TYPE_CHECKING:
    from ..pimc import PimcBot


def shipped_model_path(variant: str) -> Path:
    """Where the package's model for ``variant`` lies (its profile's ``model``)."""
    return Path(str(resources.files(__package__).joinpath("models", profile(variant).model)))


@cache
def load_model(path: str) -> dict[str, Mlp]:
    """A model file's networks, read once per process."""
    return load_models(path)


def features_version(net: Mlp) -> int:
    """The layout of a network's inputs (models written before versions were kept: 1)."""
    return int(net.meta.get("features", 1))


def model_target(net: Mlp) -> str:
    """What a card-play network's values are: ``points`` (the card points the side takes
    from here, as every model before targets were kept) or ``score`` (the round's score
    margin, :mod:`bela.training.data`)."""
    return str(net.meta.get("target", "points"))


def model_for(variant: str, path: str | None = None) -> dict[str, Mlp]:
    """The networks to play ``variant`` with (``play``, and ``bid`` where trained): the
    model file ``path``, else the one shipped; checked to fit the variant."""
    where = path or str(shipped_model_path(variant))
    if path is None and not Path(where).exists():
        raise ModelError(f"no learned model is shipped for {variant}")
    nets = load_model(where)
    for name, net in nets.items():
        version = features_version(net)
        if version not in FEATURES_VERSIONS:
            raise ModelError(f"the model {where} was trained on features of version "
                             f"{version}, this bela reads {FEATURES_VERSIONS}")
        sizes = {"play": (feature_size(variant, version), 32),
                 "bid": (bid_feature_size(variant), 1)}
        inputs, outputs = sizes.get(name, (-1, -1))
        if (net.meta.get("variant") != variant or net.sizes[0] != inputs
                or net.sizes[-1] != outputs):
            raise ModelError(f"the {name!r} network of {where} is for "
                             f"{net.meta.get('variant')!r} with {net.sizes[0]} inputs, not "
                             f"{variant} ({inputs})")
    return nets


# The endgame search's work budget per decision (solver nodes, about 12 million a second on
# one core): it bounds the slowest decisions (docs/experiments/2026-12.md, Performance) and
# leaves the others alone.
ENDGAME_NODES = 8_000_000


class LearnedBot:
    """The network's card play (see the module docstring)."""

    name = "learned"

    def __init__(self, seed: int | None = None, model: str | None = None,
                 bidding: str = "hybrid", threshold: float = 0.0, temperature: float = 0.0,
                 forget: float = 0.0, symmetric: bool = True, revoke: float = 0.0,
                 endgame: int | None = None, nodes: int = ENDGAME_NODES,
                 tuning: Mapping[str, HeuristicParams] | None = None) -> None:
        if bidding not in ("hybrid", "net", "heuristic"):
            raise ValueError(f"bidding must be 'hybrid', 'net' or 'heuristic', not {bidding!r}")
        if temperature < 0 or not 0 <= forget <= 1 or not 0 <= revoke <= 1:
            raise ValueError("temperature must be >= 0, forget and revoke between 0 and 1")
        if endgame is not None and (not isinstance(endgame, int) or isinstance(endgame, bool)
                                    or endgame < 0):
            raise ValueError("endgame must be a whole number >= 0 (the last tricks played "
                             "by search)")
        if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 0:
            raise ValueError("nodes must be a whole number >= 0 (the endgame search's solver "
                             "nodes per decision; 0: no cap)")
        if not isinstance(symmetric, bool):
            raise ValueError(f"symmetric must be on or off, not {symmetric!r}")
        if model is not None and not Path(model).is_file():
            raise ValueError(f"no model file {model!r} (bela train writes FOLDER/model.npz)")
        self.rng = random.Random(seed)
        self.temperature = temperature
        self.forget = forget
        self.revoke = revoke
        # the revokes' own draw: the other choices draw the same with or without them
        self.revoke_rng = random.Random(None if seed is None else f"revoke {seed}")
        self.model = model
        self.bidding = bidding
        self.threshold = threshold
        self.symmetric = symmetric
        self.endgame = endgame
        self.nodes = nodes
        self.fallback = HeuristicBot(seed, tuning=tuning)
        self._search: PimcBot | None = None

    def card_values(self, view: SeatView) -> dict[Card, float]:
        """The network's value of each legal card: the points the seat's side takes from
        here to the end of the round (lower is better in raspas), or with a score model
        (:meth:`target`) the round's score margin for the seat's side."""
        net = model_for(view.variant, self.model)["play"]
        x, turn = self.features(view)
        out = self.forward(net, view.variant, "play", x[None, :])[0]
        cards = sorted({a.card for a in view.legal if isinstance(a, Play)})
        values = {}
        for i in range(32):
            card = unturn_card(i, turn)
            if card in cards:
                values[Card(card)] = float(out[i])
        return values

    def endgame_tricks(self, variant: str) -> int:
        """How many last tricks the bot plays by search in ``variant``: its ``endgame``
        setting, else the variant profile's."""
        return profile(variant).endgame if self.endgame is None else self.endgame

    def search_values(self, view: SeatView) -> dict[Card, float]:
        """The endgame's values: each legal card's mean double-dummy value over deals
        sampled from the view (``pimc``'s :meth:`~bela.bots.pimc.PimcBot.card_values`),
        valued as the model values cards (points, or the round's score margin)."""
        if self._search is None:
            from ..pimc import PimcBot  # the solver needs numba: imported only when asked for

            self._search = PimcBot(self.rng.randrange(1 << 31), nodes=self.nodes or None,
                                   objective=self.target(view.variant))
        return self._search.card_values(view)

    def target(self, variant: str) -> str:
        """What :meth:`card_values` gives in ``variant``: ``points`` or ``score``."""
        return model_target(model_for(variant, self.model)["play"])

    def features(self, view: SeatView) -> tuple[np.ndarray, int]:
        """The card-play network's inputs for ``view`` (in its model's layout) and the
        suit turn (:func:`~.features.play_features`)."""
        net = model_for(view.variant, self.model)["play"]
        return play_features(view, features_version(net))

    def call_margins(self, view: SeatView) -> dict[Call, float]:
        """The bid network's margin of each contract the seat may order (points: the
        caller's side score minus the other side's); empty without a bid network."""
        nets = model_for(view.variant, self.model)
        calls = [a for a in view.legal if isinstance(a, Call)]
        if "bid" not in nets or not calls:
            return {}
        out = self.forward(nets["bid"], view.variant, "bid",
                           np.stack([bid_features(view, c.contract) for c in calls]))
        return {c: float(v) for c, v in zip(calls, out[:, 0], strict=True)}

    def forward(self, net: Mlp, variant: str, name: str, x: np.ndarray) -> np.ndarray:
        """Network ``name``'s outputs for rows ``x``, in points: with ``symmetric`` the mean
        over the six orders of the side suits (:func:`~.features.suit_orders`), the
        renamings it was trained on, so no one naming's error decides."""
        scale = float(net.meta.get("scale", 100.0))
        if not self.symmetric:
            return net.forward(x) * scale
        orders = suit_orders(variant, name, features_version(net))
        out = net.forward(np.concatenate([x[:, cols] for cols, _ in orders]))
        mean = np.zeros((len(x), out.shape[1]), dtype=np.float32)
        for k, (_, outs) in enumerate(orders):
            mean[:, outs] += out[k * len(x):(k + 1) * len(x)]
        return mean * (scale / len(orders))

    def _bid(self, view: SeatView) -> Action:
        margins = self.call_margins(view) if self.bidding != "heuristic" else {}
        if not margins:
            return self.fallback.act(view)
        best = max(margins, key=lambda c: (margins[c], -c.contract))
        if self.bidding == "hybrid":  # the heuristic decides whether to order at all
            choice = self.fallback.act(view)
            return best if isinstance(choice, Call) else choice
        passes = [a for a in view.legal if isinstance(a, Pass)]
        return passes[0] if passes and margins[best] < self.threshold else best

    def act(self, view: SeatView) -> Action:
        if view.phase == Phase.BIDDING:
            return self._bid(view)
        plays = [a for a in view.legal if isinstance(a, Play)]
        if view.phase != Phase.PLAY or len(plays) != len(view.legal):
            return self.fallback.act(view)
        if self.revoke and view.refusals and self.revoke_rng.random() < self.revoke:
            return Play(self.revoke_rng.choice(sorted(r.card for r in view.refusals)))
        cards = sorted({a.card for a in plays})
        if len(cards) == 1:
            card = cards[0]
        elif len(view.hand) <= self.endgame_tricks(view.variant):
            card = self.choose(self.search_values(view), view.raspas)
        else:
            if self.forget and self.rng.random() < self.forget:
                view = self.forgetful(view)
            card = self.choose(self.card_values(view), view.raspas)
        bela = [a for a in plays if a.card == card and a.bela]
        return bela[0] if bela else next(a for a in plays if a.card == card)

    def choose(self, values: dict[Card, float], raspas: bool) -> Card:
        """The best card (the lowest value in raspas), or with a temperature a card drawn
        from the softmax of the values."""
        cards = sorted(values)
        sign = -1.0 if raspas else 1.0
        if not self.temperature:
            return max(cards, key=lambda c: sign * values[c])
        top = max(sign * values[c] for c in cards)
        weights = [math.exp((sign * values[c] - top) / self.temperature) for c in cards]
        return self.rng.choices(cards, weights)[0]

    def forgetful(self, view: SeatView) -> SeatView:
        """The view with the cards of one suit played in the earlier tricks forgotten (a
        missed count): they and the voids they showed are gone from it."""
        earlier = 0
        for cards, _ in view.tricks:
            for _, c in cards:
                earlier |= 1 << c
        suits = [s for s in range(4) if earlier & SUIT_MASKS[s]]
        if not suits:
            return view
        lost = SUIT_MASKS[self.rng.choice(suits)]
        tricks = tuple((tuple((s, c) for s, c in cards if not lost >> c & 1), winner)
                       for cards, winner in view.tricks)
        ruled_out = tuple(CardSet(m.mask & ~lost) for m in view.ruled_out)
        return dataclasses.replace(view, tricks=tricks, ruled_out=ruled_out)

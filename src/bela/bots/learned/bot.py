"""``learned``: the card play of a trained network, run with numpy.

The network (:mod:`.network`) reads the seat's view (:mod:`.features`) and gives every card
the points its side is expected to take from here to the end of the round if it plays that
card.  It was trained on the double-dummy values of the true deals (what ``pimc`` estimates
by sampling deals), from positions of its own play (:mod:`bela.training.train`), so a forward
pass replaces the sampling and the search.  The network is an evaluator
(:class:`Network`, :mod:`bela.bots.evaluators`): the part ``pimc`` takes as its prior too.
A card's value is the mean over the six namings of the side suits, the renamings the
network was trained on (one batch of six rows), so no one naming's error decides; the bid
margins alike; ``symmetric=off`` takes the single pass (as ``bela train`` plays its
deals).  The bot plays the legal card with the highest
value (the lowest in raspas, R34).  A model trained with ``--target score`` gives instead
the round's score margin the card leads to (:func:`model_target`): what ``pimc`` estimates
with ``objective=score``, the few points that decide a fall weighed as the whole round.

The last tricks (``endgame``: when the seat holds that many cards or fewer; by default the
variant profile's ``endgame``) are played by search instead: the mean double-dummy value
of each card over deals sampled from the view, by the sampled-deal search composed in
(:class:`~bela.bots.search.DealSearch`, ``pimc``'s; :meth:`LearnedBot.search_values`).  There a
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
decides whether to order at all and the network chooses the contract
(:func:`bid_by_margins`); ``bidding=heuristic`` bids as the heuristic.  Declarations, bela, discards
and exchanges follow the heuristic bot (so does bela3's bidding, as ``pimc``'s); ``tuning``
(per variant, in code: ``pimc``'s ``order``) gives that bot other knobs.

The settings are a :class:`~bela.bots.settings.LearnedConfig`.  ``learned:model=PATH`` plays a
model file written by ``bela train``; without it the model
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
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.actions import Action, Call, Play
from ...engine.cards import SUIT_MASKS, Card, CardSet
from ...engine.enums import Phase
from ...engine.views import SeatView
from ..heuristic import HeuristicBot
from ..profiles import HeuristicParams, profile
from ..search import DealSearch
from ..settings import LearnedBidding, LearnedConfig, Objective
from .features import (
    FEATURES_VERSION,
    bid_feature_size,
    bid_features,
    feature_size,
    play_features,
    suit_orders,
    turn_card,
    unturn_card,
)
from .network import Mlp, ModelError, load_models


def shipped_model_path(variant: str) -> Path:
    """Where the package's model for ``variant`` lies (its profile's ``model``)."""
    return Path(str(resources.files(__package__).joinpath("models", profile(variant).model)))


@cache
def load_model(path: str) -> dict[str, Mlp]:
    """A model file's networks, read once per process."""
    return load_models(path)


def features_version(net: Mlp) -> int:
    """The layout version a network's inputs were trained on (models written before
    versions were kept: 1); :func:`model_for` refuses any but
    :data:`~.features.FEATURES_VERSION`."""
    return int(net.meta.get("features", 1))


def model_target(net: Mlp) -> str:
    """What a card-play network's values are: ``points`` (the card points the side takes
    from here, as every model before targets were kept) or ``score`` (the round's score
    margin, :mod:`bela.training.data`)."""
    return str(net.meta.get("target", "points"))


def bid_by_margins(margins: Mapping[Call, float], heuristic: HeuristicBot, view: SeatView
                   ) -> Action:
    """``bidding=hybrid``: the heuristic decides whether to order at all and the margins
    (a network's) which contract; without margins the heuristic bids."""
    if not margins:
        return heuristic.act(view)
    best = max(margins, key=lambda c: (margins[c], -c.contract))
    choice = heuristic.act(view)
    return best if isinstance(choice, Call) else choice


def model_for(variant: str, path: str | None = None) -> dict[str, Mlp]:
    """The networks to play ``variant`` with (``play``, and ``bid`` where trained): the
    model file ``path``, else the one shipped; checked to fit the variant."""
    where = path or str(shipped_model_path(variant))
    if path is None and not Path(where).exists():
        raise ModelError(f"no learned model is shipped for {variant}")
    nets = load_model(where)
    for name, net in nets.items():
        version = features_version(net)
        if version != FEATURES_VERSION:
            raise ModelError(f"the {name!r} network of {where} was trained on feature layout "
                             f"{version}; this bela reads only layout {FEATURES_VERSION}: "
                             "retrain it with bela train")
        sizes = {"play": (feature_size(variant), 32),
                 "bid": (bid_feature_size(variant), 1)}
        inputs, outputs = sizes.get(name, (-1, -1))
        if (net.meta.get("variant") != variant or net.sizes[0] != inputs
                or net.sizes[-1] != outputs):
            raise ModelError(f"the {name!r} network of {where} is for "
                             f"{net.meta.get('variant')!r} with {net.sizes[0]} inputs, not "
                             f"{variant} ({inputs})")
    return nets


# The opponent model's softmax temperature (points) and its mix with a uniform draw
OPPONENT_TEMPERATURE = 10.0


class Network:
    """The learned network as an evaluator (:class:`bela.bots.evaluators.Evaluator`): the
    model file ``model`` (None: the one shipped for the variant), its card values and bid
    margins the mean over the six namings of the side suits (``symmetric``; else one
    pass), its opponent model one pass per row (the rows are many): a softmax of the card
    values (:data:`OPPONENT_TEMPERATURE` points), mixed 9:1 with a uniform draw."""

    informed = True

    def __init__(self, model: str | None = None, symmetric: bool = True) -> None:
        self.model = model
        self.symmetric = symmetric

    def __repr__(self) -> str:
        return f"Network({self.model!r})"

    def nets(self, variant: str) -> dict[str, Mlp]:
        return model_for(variant, self.model)

    def target(self, variant: str) -> str:
        """What :meth:`card_values` gives in ``variant``: ``points`` or ``score``."""
        return model_target(self.nets(variant)["play"])

    def features(self, view: SeatView) -> tuple[np.ndarray, int]:
        """The card-play network's inputs for ``view`` and the suit turn
        (:func:`~.features.play_features`)."""
        return play_features(view)

    def card_values(self, view: SeatView) -> dict[Card, float]:
        """The network's value of each legal card: the points the seat's side takes from
        here to the end of the round (lower is better in raspas), or with a score model
        (:meth:`target`) the round's score margin for the seat's side."""
        net = self.nets(view.variant)["play"]
        x, turn = self.features(view)
        out = self.forward(net, view.variant, "play", x[None, :])[0]
        cards = sorted({a.card for a in view.legal if isinstance(a, Play)})
        values = {}
        for i in range(32):
            card = unturn_card(i, turn)
            if card in cards:
                values[Card(card)] = float(out[i])
        return values

    def call_margins(self, view: SeatView) -> dict[Call, float]:
        """The bid network's margin of each contract the seat may order (points: the
        caller's side score minus the other side's); empty without a bid network."""
        nets = self.nets(view.variant)
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
        orders = suit_orders(variant, name)
        out = net.forward(np.concatenate([x[:, cols] for cols, _ in orders]))
        mean = np.zeros((len(x), out.shape[1]), dtype=np.float32)
        for k, (_, outs) in enumerate(orders):
            mean[:, outs] += out[k * len(x):(k + 1) * len(x)]
        return mean * (scale / len(orders))

    def play_likelihoods(self, plays: Sequence[tuple[SeatView, Card]]) -> list[float]:
        """How likely each view's seat was to play its card: the softmax of the play
        network's values (one pass) over its legal cards, mixed 9:1 with a uniform draw;
        1 where it had one card."""
        rows, picks = [], []
        for seen, card in plays:
            if sum(isinstance(a, Play) for a in seen.legal) > 1:
                x, turn = self.features(seen)
                legal = np.zeros(32, dtype=bool)
                for a in seen.legal:
                    if isinstance(a, Play):
                        legal[turn_card(a.card, turn)] = True
                rows.append((x, legal, -1.0 if seen.raspas else 1.0))
                picks.append(turn_card(card, turn))
        likely: list[Any] = [1.0] * len(plays)
        if not rows:
            return likely
        kept = [i for i, (seen, _) in enumerate(plays)
                if sum(isinstance(a, Play) for a in seen.legal) > 1]
        net = self.nets(plays[0][0].variant)["play"]
        out = net.forward(np.stack([r[0] for r in rows])) * float(net.meta.get("scale", 100.0))
        for i, (_x, legal, sign), pick, values in zip(kept, rows, picks, out, strict=True):
            z = np.where(legal, sign * values / OPPONENT_TEMPERATURE, -np.inf)
            p = np.exp(z - z.max())
            p /= p.sum()
            likely[i] = 0.9 * p[pick] + 0.1 / legal.sum()
        return likely


class LearnedBot:
    """The network's card play (see the module docstring): a :class:`Network`, the
    heuristic (bids, declarations, discards), the endgame's :class:`~bela.bots.search.
    DealSearch`, composed by its :class:`~bela.bots.settings.LearnedConfig`."""

    name = "learned"

    def __init__(self, seed: int | None = None, config: LearnedConfig | None = None,
                 tuning: Mapping[str, HeuristicParams] | None = None,
                 network: Network | None = None, **settings: object) -> None:
        """``config``, or the spec's ``settings`` parsed into one; ``tuning`` (per variant,
        in code: ``pimc``'s ``order``) gives the heuristic other knobs; ``network`` another
        evaluator than the config's model."""
        if config is None:
            config = LearnedConfig.parse(settings)
        elif settings:
            raise ValueError("give a config or settings, not both")
        self.config = config
        self.rng = random.Random(seed)
        # the revokes' own draw: the other choices draw the same with or without them
        self.revoke_rng = random.Random(None if seed is None else f"revoke {seed}")
        self.network = network or Network(config.model, config.symmetric)
        self.fallback = HeuristicBot(seed, tuning=tuning)
        self._search: DealSearch | None = None

    # the settings, as the levels and the tests read them
    @property
    def model(self) -> str | None:
        return self.config.model

    @property
    def temperature(self) -> float:
        return self.config.temperature

    @property
    def forget(self) -> float:
        return self.config.forget

    @property
    def revoke(self) -> float:
        return self.config.revoke

    @property
    def symmetric(self) -> bool:
        return self.config.symmetric

    @property
    def endgame(self) -> int | None:
        return self.config.endgame

    @property
    def nodes(self) -> int:
        return self.config.nodes

    def card_values(self, view: SeatView) -> dict[Card, float]:
        """The network's value of each legal card (:meth:`Network.card_values`)."""
        return self.network.card_values(view)

    def endgame_tricks(self, variant: str) -> int:
        """How many last tricks the bot plays by search in ``variant``: its ``endgame``
        setting, else the variant profile's."""
        return profile(variant).endgame if self.endgame is None else self.endgame

    def search_values(self, view: SeatView) -> dict[Card, float]:
        """The endgame's values: each legal card's mean double-dummy value over deals
        sampled from the view (:meth:`DealSearch.card_values
        <bela.bots.search.DealSearch.card_values>`, as ``pimc`` plays), valued as the model
        values cards (points, or the round's score margin)."""
        if self._search is None:  # seeded by the bot's draw at its first search
            self._search = DealSearch(random.Random(self.rng.randrange(1 << 31)),
                                      objective=Objective(self.target(view.variant)))
        return self._search.card_values(view, nodes=self.nodes or None)

    def target(self, variant: str) -> str:
        """What :meth:`card_values` gives in ``variant``: ``points`` or ``score``."""
        return self.network.target(variant)

    def features(self, view: SeatView) -> tuple[np.ndarray, int]:
        """The card-play network's inputs for ``view`` (:meth:`Network.features`)."""
        return self.network.features(view)

    def call_margins(self, view: SeatView) -> dict[Call, float]:
        """The bid network's margins (:meth:`Network.call_margins`)."""
        return self.network.call_margins(view)

    def _bid(self, view: SeatView) -> Action:
        if self.config.bidding == LearnedBidding.HEURISTIC:
            return self.fallback.act(view)
        return bid_by_margins(self.call_margins(view), self.fallback, view)

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

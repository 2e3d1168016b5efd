"""Many matches stepped at once, every seat learning: the parallel (self-play) API.

:class:`VecGames` holds ``B`` matches.  Each call of :meth:`VecGames.step` takes one action
per game, for the seat to act there (``seats``), and returns the observation and action mask
of the seat to act next, each seat's reward and whether the match ended; a match that ended
is replaced by a new one in the same call (auto-reset).  Observations, masks and rewards
are those of :class:`bela.rl.env.BelaEnv` (:func:`bela.rl.spaces.observe`,
:meth:`~bela.rl.spaces.ActionSpace.mask`, the ``deal`` or ``match`` reward); the same seed
gives the same matches.

>>> g = VecGames("bela4", 8)
>>> step = g.reset(seed=1)
>>> step.obs.shape, step.masks.shape, step.seats.tolist()
((8, 806), (8, 61), [0, 0, 0, 0, 0, 0, 0, 0])
>>> step = g.step(g.sample())
>>> step.rewards.shape, bool(step.terminated.any())
((8, 4), False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ...bots.learned.network import Mlp
from ...engine.cards import Card
from ...engine.errors import InvalidDeal
from ...engine.variants import get_variant
from ...engine.variants.base import Deal
from ..spaces import ActionSpace
from . import kernels as K
from .tables import P_NACT, P_OBS, P_SEATS, P_SEEN, Tables, tables


@dataclass(frozen=True)
class Step:
    """What one call returns (arrays owned by the :class:`VecGames`, overwritten by its next
    call: copy what you keep)."""

    obs: npt.NDArray[np.float32]  # (B, obs): the seat to act's observation
    masks: npt.NDArray[np.int8]  # (B, actions): its legal actions
    seats: npt.NDArray[np.int64]  # (B,): the seat to act
    rewards: npt.NDArray[np.float64]  # (B, seats): what each seat gained in this call
    terminated: npt.NDArray[np.bool_]  # (B,): the match ended (a new one is in the row)
    truncated: npt.NDArray[np.bool_]  # (B,): ``max_deals`` deals were played (a new one too)
    final_obs: npt.NDArray[np.float32]  # (B, seats, obs): where a match ended, every seat's
    # observation of its end (other rows: stale)


def _seeds(seed: int | None, n: int) -> npt.NDArray[np.uint64]:
    """``n`` nonzero generator states from ``seed`` (fresh entropy for None)."""
    state = np.random.SeedSequence(seed).generate_state(n, np.uint64)
    return state | np.uint64(1)


POLICIES = {"random": K.POLICY_RANDOM, "greedy": K.POLICY_GREEDY}


def _flat_network(net: Mlp | None, inputs: int, outputs: int
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """The network's weights flat (per layer its matrix, then its biases) and its widths."""
    if net is None:
        return np.zeros(1, np.float32), np.zeros(1, np.int64)
    sizes = net.sizes
    if sizes[0] != inputs or sizes[-1] != outputs:
        raise ValueError(f"the network maps {sizes[0]} inputs to {sizes[-1]} outputs; this "
                         f"environment needs {inputs} to {outputs}")
    parts = [a.ravel() for w, b in zip(net.ws, net.bs, strict=True) for a in (w, b)]
    return np.concatenate(parts).astype(np.float32), np.asarray(sizes, np.int64)


class VecGames:
    """``batch`` matches of ``variant`` (see the module's docstring)."""

    def __init__(self, variant: str = "bela4", batch: int = 1,
                 options: dict[str, Any] | None = None, reward: str = "deal",
                 zero_sum: bool = False, max_deals: int | None = None) -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, not {batch}")
        self.tables: Tables = tables(variant, options, reward, zero_sum, max_deals)
        self.rules = self.tables.rules()  # what the kernels read
        self.variant = self.tables.variant
        self.space = ActionSpace.for_variant(self.variant)
        p = self.tables.params
        self.batch, self.seats_n = batch, int(p[P_SEATS])
        self.state = np.zeros((batch, K.NSLOTS), np.int64)
        self.rng = _seeds(None, batch)
        self.action_rng = _seeds(None, batch)
        self.obs = np.zeros((batch, int(p[P_OBS])), np.float32)
        self.masks = np.zeros((batch, int(p[P_NACT])), np.int8)
        self.seats = np.zeros(batch, np.int64)
        self.rewards = np.zeros((batch, self.seats_n), np.float64)
        self.ends = np.zeros(batch, np.int64)
        self.final_obs = np.zeros((batch, self.seats_n, int(p[P_OBS])), np.float32)
        self.actions = np.zeros(batch, np.int64)
        self._started = False

    def _step(self) -> Step:
        return Step(self.obs, self.masks, self.seats, self.rewards, self.ends == 1,
                    self.ends == 2, self.final_obs)

    def reset(self, seed: int | None = None) -> Step:
        """A new match in every game; ``seed`` fixes the deals (and :meth:`sample`)."""
        self.rng = _seeds(seed, self.batch)
        self.action_rng = _seeds(None if seed is None else seed + 1, self.batch)
        K.reset_all(self.state, self.rng, self.rules, self.masks, self.obs, self.seats)
        self.rewards[:] = 0.0
        self.ends[:] = 0
        self._started = True
        return self._step()

    def step(self, actions: npt.ArrayLike) -> Step:
        """One action per game (an index of :class:`~bela.rl.spaces.ActionSpace`) for its
        seat to act; raises ``ValueError``, applying nothing, when one is not legal."""
        if not self._started:
            raise ValueError("reset() the games before stepping them")
        acts = np.asarray(actions)
        if acts.shape != (self.batch,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.batch} integers, one per game, not an "
                             f"array of shape {acts.shape} and type {acts.dtype}")
        self.actions[:] = acts
        bad = K.step_all(self.state, self.rng, self.actions, self.rules, self.masks, self.obs,
                         self.seats, self.rewards, self.ends, self.final_obs)
        if bad >= 0:
            a = int(self.actions[bad])
            label = self.space.labels[a] if 0 <= a < self.space.n else str(a)
            raise ValueError(f"game {bad}: action {a} ({label!r}) is not legal for seat "
                             f"{int(self.seats[bad])} now")
        return self._step()

    def sample(self) -> npt.NDArray[np.int64]:
        """A uniform random legal action per game (from the seeded action generator)."""
        out = np.zeros(self.batch, np.int64)
        K.sample_masked(self.masks, self.action_rng, out)
        return out

    def compiled_policy(self, policy: str | Mlp
                        ) -> tuple[int, npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """What the kernels take for ``policy``: ``"random"``, ``"greedy"`` or a network
        from the observation to one output per action (its kind, flat weights, widths)."""
        if isinstance(policy, str):
            if policy not in POLICIES:
                raise ValueError(f"a policy is {', '.join(POLICIES)} or a network (Mlp), "
                                 f"not {policy!r}")
            return (POLICIES[policy], *_flat_network(None, 0, 0))
        return (K.POLICY_NETWORK,
                *_flat_network(policy, self.obs.shape[1], self.masks.shape[1]))

    def act(self, policy: str | Mlp = "greedy") -> npt.NDArray[np.int64]:
        """Each game's action for its seat to act by ``policy`` (:meth:`compiled_policy`:
        uniform random, the greedy opponents' of :class:`~bela.rl.vector.gym.BelaVectorEnv`
        or a network's best legal action), random choices from the seeded action
        generator.

        >>> g = VecGames("bela2", 4)
        >>> _ = g.reset(seed=3)
        >>> acts = g.act("greedy")
        >>> bool(all(g.masks[np.arange(4), acts]))
        True
        """
        if not self._started:
            raise ValueError("reset() the games before asking for their actions")
        kind, weights, sizes = self.compiled_policy(policy)
        out = np.zeros(self.batch, np.int64)
        K.act_all(self.state, self.action_rng, kind, weights, sizes, self.rules, self.masks,
                  self.obs, out)
        return out

    def observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Every game's observation and mask for ``seat`` (all zero masks off turn)."""
        if not 0 <= seat < self.seats_n:
            raise ValueError(f"{self.variant} has no seat {seat}")
        obs = np.zeros_like(self.obs)
        masks = np.zeros_like(self.masks)
        K.observe_seat(self.state, seat, self.rules, obs, masks)
        return obs, masks

    def deal_of(self, game: int) -> tuple[list[list[Card]], dict[str, list[Card]], int]:
        """The current deal of ``game`` as the engine takes it (``Match.deal``): per seat
        the cards seen before the own bid, then the unseen ones; the extra cards (the
        face-up card, belot2's bottom card, bela3's two extra cards); and the dealer."""
        row = self.state[game]
        hands = []
        for s in range(self.seats_n):
            dealt, hidden = int(row[K.DEALT + s]), int(row[K.DEALT_HID + s])
            seen = [c for c in Card.ALL if (dealt & ~hidden) >> c & 1]
            hands.append(seen + [c for c in Card.ALL if hidden >> c & 1])
        extra: dict[str, list[Card]] = {}
        if row[K.OPENED] >= 0:
            extra["turned"] = [Card.ALL[int(row[K.OPENED])]]
        if row[K.BOTTOM_CARD] >= 0:
            extra["bottom"] = [Card.ALL[int(row[K.BOTTOM_CARD])]]
        if row[K.EXTRA]:
            extra["extra"] = [c for c in Card.ALL if int(row[K.EXTRA]) >> c & 1]
        return hands, extra, int(row[K.DEALER])

    def set_deal(self, game: int, hands: list[list[int]],
                 extra: dict[str, list[int]] | None = None) -> None:
        """Replace the deal of ``game``, dealt but not yet bid on, by ``hands`` (per seat, in
        the order dealt: the cards seen before the own bid first) and ``extra`` (the
        variant's extra cards, as :meth:`deal_of` gives them), checked as the engine checks
        a deal: a position to study, or a test's deal.  The seat to act's observation and
        mask are rewritten."""
        row = self.state[game]
        if row[K.PHASE] != 0 or row[K.NBID] > 0:
            raise ValueError(f"game {game} is not at the start of a deal")
        v = get_variant(self.variant)
        try:
            v.check_deal(Deal(tuple(tuple(Card.ALL[c] for c in h) for h in hands),
                              {k: tuple(Card.ALL[c] for c in x) for k, x in
                               (extra or {}).items()}))
        except (InvalidDeal, IndexError) as exc:
            raise ValueError(f"not a {self.variant} deal: {exc}") from None
        seen = int(self.tables.params[P_SEEN])
        for s, h in enumerate(hands):
            hand = sum(1 << c for c in h)
            hid = sum(1 << c for c in h[seen:])
            row[K.HAND + s] = row[K.DEALT + s] = hand
            row[K.HID + s] = row[K.DEALT_HID + s] = hid
        x = extra or {}
        if "turned" in x:
            row[K.OPENED] = row[K.TURNED] = x["turned"][0]
        if "bottom" in x:
            row[K.BOTTOM_CARD] = x["bottom"][0]
        if "extra" in x:
            row[K.EXTRA] = sum(1 << c for c in x["extra"])
        seat = int(row[K.TURN])
        K.observe_row(self.state, game, seat, self.obs[game], self.rules)
        K.mask_row(self.state, game, seat, self.masks[game], self.rules,
                   np.zeros((8, 5), np.int64))

    def round_index(self, game: int) -> int:
        """How many deals of ``game``'s current match were dealt (1 for its first)."""
        return int(self.state[game, K.ROUNDS])

"""A Gymnasium ``VectorEnv``: one seat learns in ``num_envs`` matches, the other seats are a
policy run inside the compiled loop.

The opponents are ``"random"`` (a uniform legal action), ``"greedy"`` (the compiled
self-play's greedy card play, :func:`bela.rl.vector.kernels.greedy_card`, every held
declaration announced, other choices random) or a network
(:class:`bela.bots.learned.network.Mlp` from the observation, :func:`bela.rl.spaces.
observe`, to one output per action: the legal action with the largest output).  Each call
of :meth:`BelaVectorEnv.step` applies the learner's action in every match, then the others
act until the learner is to act again.  Observations, masks and rewards are those of
:class:`bela.rl.env.SingleAgentEnv`: an illegal action is replaced by the first legal one
(``info["illegal"]``, ``illegal_penalty`` added).  A match that ends is reset in the same
step (``AutoresetMode.SAME_STEP``): its last observation is in ``info["final_obs"]``.

>>> import numpy as np
>>> e = BelaVectorEnv("bela4", num_envs=4, seat=1)
>>> obs, info = e.reset(seed=2)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 806), (4, 61))
>>> obs, rewards, terminated, truncated, info = e.step(np.full(4, 60))  # the claim slot
>>> rewards.shape, info["illegal"].tolist()      # replaced by the first legal action
((4,), [True, True, True, True])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ...bots.learned.network import Mlp
from ..env import _spaces
from . import kernels as K
from .games import VecGames, _seeds

Observation = dict[str, npt.NDArray[Any]]


class BelaVectorEnv(VectorEnv):
    """One learning ``seat`` in ``num_envs`` matches of ``variant`` (the module's docstring);
    ``options``, ``reward``, ``zero_sum``, ``max_deals`` as in :class:`bela.rl.env.BelaEnv`."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, variant: str = "bela4", num_envs: int = 1, seat: int = 0,
                 opponents: str | Mlp = "random", reward: str = "deal",
                 options: dict[str, Any] | None = None, zero_sum: bool = False,
                 max_deals: int | None = None, illegal_penalty: float = 0.0) -> None:
        self.games = VecGames(variant, num_envs, options, reward, zero_sum, max_deals)
        g = self.games
        if not 0 <= seat < g.seats_n:
            raise ValueError(f"{g.variant} has no seat {seat}")
        self.policy, self.weights, self.sizes = g.compiled_policy(opponents)
        self.seat, self.illegal_penalty = seat, float(illegal_penalty)
        self.num_envs = num_envs
        obs_space, act_space = _spaces(g.variant)
        self.single_observation_space: spaces.Dict = obs_space
        self.single_action_space: spaces.Discrete = act_space
        self.observation_space = batch_space(obs_space, num_envs)
        self.action_space = batch_space(act_space, num_envs)
        self.opponent_rng = _seeds(None, num_envs)
        self.rewards = np.zeros(num_envs, np.float64)
        self.ends = np.zeros(num_envs, np.int64)
        self.illegal = np.zeros(num_envs, np.int64)
        self.final_obs = np.zeros_like(g.obs)
        self.final_masks = np.zeros_like(g.masks)
        self._started = False

    def _run(self, actions: npt.NDArray[np.int64], start: int) -> None:
        g = self.games
        K.step_learner(g.state, g.rng, self.opponent_rng, actions, self.seat, self.policy,
                       self.weights, self.sizes, g.rules, g.masks, g.obs, self.rewards,
                       self.ends, self.illegal, self.final_obs, self.final_masks,
                       self.illegal_penalty, start)

    def _obs(self) -> Observation:
        return {"observation": self.games.obs.copy(), "action_mask": self.games.masks.copy()}

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """New matches; ``seed`` (an int) fixes the deals and the opponents' choices."""
        if isinstance(seed, list):
            raise ValueError("seed the vector environment with one int (or None)")
        super().reset(seed=seed)
        g = self.games
        g.rng = _seeds(seed, self.num_envs)
        self.opponent_rng = _seeds(None if seed is None else seed + 2, self.num_envs)
        self._run(g.actions, 1)
        self._started = True
        return self._obs(), {}

    def step(self, actions: npt.ArrayLike
             ) -> tuple[Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_],
                        npt.NDArray[np.bool_], dict[str, Any]]:
        if not self._started:
            raise ValueError("reset() the environment before stepping it")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, one per match, not "
                             f"an array of shape {acts.shape} and type {acts.dtype}")
        g = self.games
        g.actions[:] = acts
        self._run(g.actions, 0)
        terminated, truncated = self.ends == 1, self.ends == 2
        info: dict[str, Any] = {"illegal": self.illegal.astype(bool),
                                "_illegal": np.ones(self.num_envs, bool)}
        ended = terminated | truncated
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                final[i] = {"observation": self.final_obs[i].copy(),
                            "action_mask": self.final_masks[i].copy()}
            info["final_obs"], info["_final_obs"] = final, ended
        return self._obs(), self.rewards.copy(), terminated, truncated, info

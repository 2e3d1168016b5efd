"""A PettingZoo AEC environment for every variant, and a Gymnasium single-agent wrapper.

Agents ``player_0`` .. ``player_{n-1}`` are the seats.  Chance is inside: each deal comes
from the match's seeded shuffle (``reset(seed=...)``).  Observations are built from the
seat's view only (:func:`bela.rl.spaces.observe`), with the mask of its legal actions.

Rewards: ``"deal"`` gives each agent its side's points booked for each finished deal
(``zero_sum=True``: minus the mean of the other sides'); ``"match"`` gives +1 to the winning
side and -1 to the others (bela3: -1/2 each) when the match ends.  The episode ends with the
match; ``max_deals`` truncates it after that many deals.

>>> e = env("bela2"); e.reset(seed=3)
>>> e.agent_selection, int(e.action_space("player_0").n)
('player_0', 62)
>>> obs, reward, done, _, _ = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0, reward, done
((496,), True, 0.0, False)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..bots import make_bot
from ..bots.base import Bot
from ..bots.driver import decide
from ..engine.state import Match
from ..engine.variants import get_variant
from ..engine.views import SeatView, seat_view
from .spaces import ActionSpace, observation_size, observe

Observation = dict[str, np.ndarray[Any, Any]]
REWARDS = ("deal", "match")


def _spaces(variant: str) -> tuple[spaces.Dict, spaces.Discrete]:
    n = ActionSpace.for_variant(variant).n
    obs = spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, (observation_size(variant),), np.float32),
        "action_mask": spaces.Box(0, 1, (n,), np.int8),
    })
    return obs, spaces.Discrete(n)


def _rewards(match: Match, reward: str, zero_sum: bool) -> list[float] | None:
    """Per seat, what the round just booked (and the match's end) is worth, or None."""
    v = match.variant
    if reward == "match":
        if match.winner is None:
            return None
        lose = -1.0 / (v.sides - 1)
        return [1.0 if v.side_of(s) == match.winner else lose for s in range(v.seats)]
    scores = match.sheet[-1]
    per_side = [float(x) for x in scores]
    if zero_sum:
        total = sum(per_side)
        per_side = [x - (total - x) / (v.sides - 1) for x in per_side]
    return [per_side[v.side_of(s)] for s in range(v.seats)]


class BelaEnv(AECEnv):  # type: ignore[misc]
    """The AEC environment (see the module's docstring); an illegal action raises
    ``ValueError``, changing nothing."""

    metadata = {"render_modes": ["ansi"], "name": "bela_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "bela4", options: dict[str, Any] | None = None,
                 reward: str = "deal", render_mode: str | None = None,
                 zero_sum: bool = False, max_deals: int | None = None) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        v = get_variant(variant)
        Match(v, options)  # the options checked now (InvalidOptions)
        self.variant, self.table_options = v.name, options
        self.reward_kind, self.zero_sum, self.max_deals = reward, zero_sum, max_deals
        self.render_mode = render_mode
        self.space = ActionSpace.for_variant(v.name)
        self.possible_agents = [f"player_{s}" for s in range(v.seats)]
        obs, act = _spaces(v.name)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs)
        self.action_spaces = dict.fromkeys(self.possible_agents, act)
        self.match = Match(v, options)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def view(self, agent: str) -> SeatView:
        """What ``agent``'s seat may know now: the one source of its observation."""
        return seat_view(self.match, self.seat(agent))

    def observe(self, agent: str) -> Observation:
        view = self.view(agent)
        return {"observation": observe(view), "action_mask": self.space.mask(view)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match, its shuffles seeded with ``seed`` (``options`` is unused: the table
        options are the constructor's)."""
        self.match = Match(self.variant, self.table_options, seed=seed)
        self.match.deal()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        rnd = self.match.round
        assert rnd is not None
        self.agent_selection = self.possible_agents[rnd.turn]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        act = self.space.action(int(action), self.view(agent))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.match.apply(act)
        rnd = self.match.round
        assert rnd is not None
        if rnd.is_over:
            gains = _rewards(self.match, self.reward_kind, self.zero_sum)
            if gains is not None:
                self.rewards = {a: gains[self.seat(a)] for a in self.agents}
            if self.match.is_over:
                self.terminations = dict.fromkeys(self.agents, True)
            elif self.max_deals is not None and len(self.match.rounds) >= self.max_deals:
                self.truncations = dict.fromkeys(self.agents, True)
            else:
                self.match.deal()
                self._select()
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The position as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return render_view(seat_view(self.match, None))

    def close(self) -> None:
        pass


def render_view(view: SeatView) -> str:
    """A few lines of text: the round, the contract, the trick, the totals (public)."""
    lines = [f"{view.variant} round {view.round_index + 1}, {view.phase}, "
             f"dealer {view.dealer}, to act {view.turn}",
             f"bids: {' '.join(f'{s}:{t}' for s, t in view.bids) or '-'}; contract "
             f"{view.trump or '-'} by {view.caller if view.caller is not None else '-'}",
             f"trick: {' '.join(f'{s}:{c}' for s, c in view.trick) or '-'}; "
             f"card points {list(view.card_points)}",
             f"totals {list(view.totals)} to {view.options['target']}"
             + (f"; won by side {view.winner}" if view.winner is not None else "")]
    for s in range(view.seats):
        lines.append(f"seat {s}: {view.hand_sizes[s]} cards")
    return "\n".join(lines)


def env(variant: str = "bela4", options: dict[str, Any] | None = None, reward: str = "deal",
        render_mode: str | None = None, **kwargs: Any) -> BelaEnv:
    """The environment (PettingZoo's ``env()``; no wrappers: it checks actions itself)."""
    return BelaEnv(variant, options, reward, render_mode, **kwargs)


raw_env = env


class SingleAgentEnv(gymnasium.Env[Observation, Any]):
    """One seat learns (``seat``), the others are bots (``opponents``: a bot spec for all,
    or one per other seat).  An illegal action is replaced by the seat's first legal action
    and reported in ``info["illegal"]`` with ``illegal_penalty`` added to the reward.

    >>> e = SingleAgentEnv("bela4"); obs, info = e.reset(seed=1)
    >>> obs["action_mask"].shape, info["illegal"]
    ((61,), False)
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant: str = "bela4", seat: int = 0,
                 opponents: str | list[str] = "heuristic", reward: str = "deal",
                 options: dict[str, Any] | None = None, render_mode: str | None = None,
                 zero_sum: bool = False, max_deals: int | None = None,
                 illegal_penalty: float = 0.0) -> None:
        self.aec = BelaEnv(variant, options, reward, render_mode, zero_sum, max_deals)
        n = len(self.aec.possible_agents)
        if not 0 <= seat < n:
            raise ValueError(f"{variant} has no seat {seat}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{variant} needs {n - 1} opponents, not {len(specs)}")
        self.seat, self.specs, self.illegal_penalty = seat, specs, illegal_penalty
        self.agent = self.aec.possible_agents[seat]
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = render_mode
        self.bots: dict[int, Bot] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        base = int(self.np_random.integers(2**31))
        others = [s for s in range(len(self.aec.possible_agents)) if s != self.seat]
        self.bots = {s: make_bot(spec, seed=base + s) for s, spec in zip(others, self.specs)}
        self.aec.reset(seed=base)
        self._run_bots()  # no deal ends before the learner's first move
        return self.aec.observe(self.agent), {"illegal": False}

    def _run_bots(self) -> tuple[float, bool, bool]:
        """Bots move until the learner is to act or the episode ends; its reward meanwhile."""
        e, total = self.aec, 0.0
        while True:
            total += e.rewards.get(self.agent, 0.0)
            if e.terminations.get(self.agent) or e.truncations.get(self.agent):
                return total, bool(e.terminations[self.agent]), bool(e.truncations[self.agent])
            if e.agent_selection == self.agent:
                return total, False, False
            seat = e.seat(e.agent_selection)
            view = e.view(e.agent_selection)
            moves = sum(len(r.log) for r in e.match.rounds)
            act = decide(self.bots[seat].act, view, moves * 8 + seat).action
            e.step(e.space.index(act, view))

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        e = self.aec
        view = e.view(self.agent)
        illegal = not e.space.mask(view)[int(action)]
        if illegal:
            action = e.space.index(view.legal[0], view)
        e.step(int(action))
        reward, done, truncated = self._run_bots()
        if illegal:
            reward += self.illegal_penalty
        return e.observe(self.agent), reward, done, truncated, {"illegal": illegal}

    def render(self) -> str | None:
        return self.aec.render()

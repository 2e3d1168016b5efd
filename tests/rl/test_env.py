"""The learning environment: PettingZoo's and Gymnasium's API checks, observations from the
seat's view only, action masks from the legal actions, rewards from the booked points."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from bela.engine import Match, parse_action  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.rl import ActionSpace, BelaEnv, SingleAgentEnv, env, observe  # noqa: E402
from bela.solver.sampler import DealSampler, replay_view  # noqa: E402

VARIANTS = ["bela4", "bela3", "bela2", "belot2"]
README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")


def rollout(e: BelaEnv, seed: int) -> tuple[dict[str, float], set[str]]:
    """A masked random match: each agent's summed rewards, and the action labels played."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    played: set[str] = set()
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        i = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        played.add(e.space.labels[i].split("#")[0].split()[0])
        e.step(i)
    return totals, played


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_and_seed(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observations, as PettingZoo's card games
        api_test(env(variant), num_cycles=1000)  # a whole match: every phase, the end
        seed_test(lambda: env(variant), num_cycles=200)


@pytest.mark.parametrize("variant, seed, families", [
    ("bela4", 0, {"pass", "S", "declare"}),
    ("bela3", 0, {"discard", "declare"}),
    ("bela2", 0, {"swap", "keep"}),
    ("belot2", 8, {"swap", "keep", "redeal", "pass"}),
])
def test_rollout_rewards_are_the_booked_points(variant: str, seed: int,
                                               families: set[str]) -> None:
    e = env(variant)
    totals, played = rollout(e, seed)
    m = e.match
    assert m.is_over and families <= played
    if variant == "belot2":
        assert any(r.raspas for r in m.rounds)  # four passes: played without a contract
    for s, agent in enumerate(e.possible_agents):
        side = m.variant.side_of(s)
        assert totals[agent] == sum(row[side] for row in m.sheet) == m.totals[side]
    wins, _ = rollout(env(variant, reward="match"), seed)
    assert m.winner is not None  # a side; its first seat has the same number
    assert wins[e.possible_agents[m.winner]] == 1.0 and sum(wins.values()) == pytest.approx(0.0)
    margins, _ = rollout(env(variant, zero_sum=True), seed)
    assert sum(margins.values()) == pytest.approx(0.0) and margins != totals


def test_max_deals_truncates() -> None:
    e = env("bela2", max_deals=2)
    rollout(e, 1)
    assert len(e.match.rounds) == 2 and not e.match.is_over


@pytest.mark.parametrize("variant", VARIANTS)
def test_single_agent_env(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no registered spec (render modes not tried)
        check_env(SingleAgentEnv(variant, seat=1, render_mode="ansi"))
    e = SingleAgentEnv(variant, seat=1, opponents="random")
    obs, _ = e.reset(seed=5)
    rng = np.random.default_rng(0)
    total, done, trunc = 0.0, False, False
    while not (done or trunc):
        obs, reward, done, trunc, info = e.step(int(rng.choice(np.flatnonzero(
            obs["action_mask"]))))
        assert not info["illegal"]
        total += reward
    m = e.aec.match
    assert done and total == m.totals[m.variant.side_of(1)]


def test_single_agent_illegal_action_is_replaced() -> None:
    e = SingleAgentEnv("bela4", illegal_penalty=-5.0)
    obs, _ = e.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, _, _, info = e.step(bad)
    assert info["illegal"] and reward == -5.0


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = env("bela4")
    e.reset(seed=1)
    obs, *_ = e.last()
    before = obs["observation"].copy()
    with pytest.raises(ValueError, match="not legal"):
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert (e.observe(e.agent_selection)["observation"] == before).all()


def random_positions(variant: str, n: int, seed: int, options: dict[str, str] | None = None):
    """(match, seat to act) after random legal actions, ``n`` positions."""
    rng = random.Random(seed)
    m = Match(variant, options, seed=seed)
    m.deal()
    for _ in range(n):
        rnd = m.round
        assert rnd is not None
        if rnd.is_over:
            if m.is_over:
                m = Match(variant, options, seed=rng.randrange(10**6))
            m.deal()
            continue
        yield m, rnd.turn
        m.apply(rng.choice(rnd.legal_actions()))


@pytest.mark.parametrize("variant", VARIANTS)
def test_action_space_round_trips(variant: str) -> None:
    space = ActionSpace.for_variant(variant)
    assert len(set(space.labels)) == space.n
    for token in space.labels:
        if "#" not in token and token != "claim":
            assert parse_action(token).token() == token
    seen_declares = 0
    for m, seat in random_positions(variant, 1500, 7):
        view = seat_view(m, seat)
        mask = space.mask(view)
        assert mask.sum() == len(view.legal)
        for action in view.legal:
            i = space.index(action, view)
            assert mask[i] and space.action(i, view) == action
            seen_declares += i >= space.declare_at
        other = seat_view(m, (seat + 1) % m.variant.seats)
        assert not space.mask(other).any()  # off turn, nothing is legal
    assert seen_declares > 0


def test_claims_have_an_index_with_the_duties_off() -> None:
    space = ActionSpace.for_variant("bela4")
    assert space.claim_at is not None
    for m, seat in random_positions("bela4", 60, 3, {"enforce": "off"}):
        view = seat_view(m, seat)
        assert space.mask(view)[space.claim_at] == view.claim_allowed
        if view.claim_allowed:
            assert space.action(space.claim_at, view).token() == f"claim {seat}"
            return
    pytest.fail("no claim was allowed")


@pytest.mark.parametrize("variant", VARIANTS)
def test_observation_is_the_view_only(variant: str) -> None:
    """Two deals that differ only in cards a seat cannot see give it equal observations:
    the other deal is sampled from the seat's view and the round replayed on it."""
    rng = random.Random(1)
    checked = 0
    for m, _ in random_positions(variant, 400, 11):
        if m.rounds.index(m.round) != 0 or rng.random() > 0.1:
            continue  # the first round: a replayed view starts from a fresh match
        rnd = m.round
        assert rnd is not None
        for seat in range(m.variant.seats):
            view = seat_view(m, seat)
            deal = DealSampler(view).draw(rng)
            if list(deal.hands) == list(rnd.hands):
                continue
            obs = observe(view)
            assert obs.shape == env(variant).observation_space("player_0")[
                "observation"].shape
            assert (obs == observe(replay_view(view, deal))).all()
            assert not (obs == observe(seat_view(m, (seat + 1) % m.variant.seats))).all()
            checked += 1
    assert checked >= 5


def test_readme_example_runs() -> None:
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", README, re.S)
               if "from bela.rl import env" in b]
    exec(compile(code, "README.md", "exec"), {})

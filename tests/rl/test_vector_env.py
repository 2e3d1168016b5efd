"""The vector environment's APIs: the parallel self-play games and the Gymnasium
``VectorEnv``: spaces, seeding, auto-reset at the match's end (R25), a belot (R10) and a
``max_deals`` cut, the opponents' loop, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import (  # noqa: E402
    check_action_space,
    check_observation_space,
    data_equivalence,
)

from bela.bots.learned.network import Mlp  # noqa: E402
from bela.engine import Match  # noqa: E402
from bela.engine.cards import Card  # noqa: E402
from bela.engine.enums import Outcome  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.rl.env import BelaEnv, SingleAgentEnv  # noqa: E402
from bela.rl.spaces import PHASES, observe  # noqa: E402
from bela.rl.vector import VecGames  # noqa: E402
from bela.rl.vector import kernels as K  # noqa: E402
from bela.rl.vector.gym import BelaVectorEnv  # noqa: E402
from bela.rl.vector.tables import O_PHASE, PH_DONE  # noqa: E402


def trajectory(g: VecGames, seed: int, steps: int) -> list[np.ndarray]:
    out = []
    step = g.reset(seed=seed)
    out += [step.obs.copy(), step.masks.copy()]
    for _ in range(steps):
        step = g.step(g.sample())
        out += [step.obs.copy(), step.rewards.copy(), step.terminated.copy()]
    return out


def test_the_same_seed_gives_the_same_games() -> None:
    a = trajectory(VecGames("bela4", 5, {"target": 101}), 3, 150)
    b = trajectory(VecGames("bela4", 5, {"target": 101}), 3, 150)
    c = trajectory(VecGames("bela4", 5, {"target": 101}), 4, 150)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_a_game_does_not_depend_on_the_batch_around_it() -> None:
    """Each game has its own generator: the first game of a batch of 2 plays the deals of
    the first game of a batch of 6 (given the same actions)."""
    small, big = VecGames("bela4", 2), VecGames("bela4", 6)
    s, t = small.reset(seed=9), big.reset(seed=9)
    for _ in range(80):
        assert np.array_equal(s.obs[0], t.obs[0])
        acts = big.sample()
        acts_small = small.sample()
        acts_small[0] = acts[0]
        s, t = small.step(acts_small), big.step(acts)
        assert np.array_equal(s.rewards[0], t.rewards[0])


def test_an_illegal_action_raises_and_applies_nothing() -> None:
    g = VecGames("bela4", 3)
    step = g.reset(seed=1)
    before = g.state.copy()
    acts = g.sample()
    acts[2] = int(np.flatnonzero(step.masks[2] == 0)[0])
    with pytest.raises(ValueError, match="game 2: action"):
        g.step(acts)
    assert np.array_equal(g.state, before)
    with pytest.raises(ValueError, match="3 integers"):
        g.step([0, 1])


def test_unsupported_settings_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="reward must be"):
        VecGames("bela4", 2, reward="points")
    with pytest.raises(ValueError, match="no table option"):
        VecGames("bela4", 2, {"colour": "red"})


def _belot_deal() -> list[list[int]]:
    hearts = [c for c in Card.ALL if c >> 3 == 0]
    rest = [c for c in Card.ALL if c >> 3 != 0]
    return [hearts, rest[0:8], rest[8:16], rest[16:24]]


def test_a_belot_ends_the_match_and_the_game_starts_a_new_one() -> None:
    """R10: eight hearts declared wins the match at once: ``match`` rewards, the row reset."""
    g = VecGames("bela4", 2, reward="match")
    g.reset(seed=4)
    g.set_deal(0, _belot_deal())
    m = Match("bela4")
    hands, _, dealer = g.deal_of(0)
    m.deal(hands, dealer=dealer)
    assert hands == _belot_deal()
    view = seat_view(m, 0)
    np.testing.assert_array_equal(g.obs[0], observe(view))
    acts = g.sample()
    acts[0] = g.space.fixed[view.legal[1]]  # H: seat 0 calls hearts
    m.apply(g.space.action(int(acts[0]), view))
    g.step(acts)
    view = seat_view(m, 0)
    np.testing.assert_array_equal(g.obs[0], observe(view))
    acts = g.sample()
    acts[0] = g.space.declare_at  # the belot, the only declaration held
    m.apply(g.space.action(int(acts[0]), view))
    assert m.round is not None and m.round.result is not None
    assert m.round.result.outcome == Outcome.BELOT and m.winner == 0
    step = g.step(acts)
    assert step.terminated[0] and not step.truncated[0]
    assert step.rewards[0].tolist() == [1.0, -1.0, 1.0, -1.0]
    assert g.round_index(0) == 1 and int(g.state[0, K.WINNER]) == -1
    fresh = Match("bela4")
    fresh.deal(g.deal_of(0)[0], dealer=3)
    np.testing.assert_array_equal(step.obs[0], observe(seat_view(fresh, fresh.round.turn)))
    with pytest.raises(ValueError, match="needs 4 hands, not 3"):
        g.set_deal(0, _belot_deal()[:3])
    g.step(g.sample())
    with pytest.raises(ValueError, match="not at the start of a deal"):
        g.set_deal(0, _belot_deal())


def test_the_gymnasium_spaces_are_the_single_agent_envs() -> None:
    e = BelaVectorEnv("bela4", num_envs=3, seat=2)
    single = SingleAgentEnv("bela4", seat=2)
    assert e.single_observation_space == single.observation_space
    assert e.single_action_space == single.action_space
    assert e.single_observation_space == BelaEnv("bela4").observation_space("player_2")
    check_observation_space(e.single_observation_space)
    check_action_space(e.single_action_space)
    obs, _ = e.reset(seed=5)
    assert obs in e.observation_space
    for _ in range(30):
        obs, rewards, terminated, truncated, info = e.step(e.action_space.sample())
        assert obs in e.observation_space
        assert rewards.dtype == np.float64 and terminated.dtype == np.bool_


def _rollout(e: BelaVectorEnv, seed: int, steps: int) -> list[object]:
    rng = np.random.default_rng(seed)
    obs, info = e.reset(seed=seed)
    out: list[object] = [obs]
    for _ in range(steps):
        acts = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(1)
        obs, rewards, terminated, truncated, info = e.step(acts)
        out += [obs, rewards, terminated, truncated, info.get("final_obs")]
    return out


def test_gymnasium_seeding_reproduces_and_returns_fresh_arrays() -> None:
    a = _rollout(BelaVectorEnv("bela4", 4, seat=1, options={"target": 51}), 7, 60)
    b = _rollout(BelaVectorEnv("bela4", 4, seat=1, options={"target": 51}), 7, 60)
    c = _rollout(BelaVectorEnv("bela4", 4, seat=1, options={"target": 51}), 8, 60)
    assert data_equivalence(a, b)
    assert not data_equivalence(a, c)
    first = a[0]
    assert isinstance(first, dict)
    assert first["observation"] is not a[1]["observation"]  # type: ignore[index]


def test_the_match_end_gives_its_final_observation_and_resets_in_the_same_step() -> None:
    """Target 1 (R25): every deal ends its match; ``final_obs`` is the learner's view of the
    finished deal (the phase done, nothing legal), the observation already the next
    match's."""
    e = BelaVectorEnv("bela4", 6, seat=3, options={"target": 1}, reward="match")
    obs, _ = e.reset(seed=1)
    ends = 0
    done = PHASES.index("done")
    at = int(e.games.tables.offsets[O_PHASE])
    rng = np.random.default_rng(1)
    for _ in range(40):
        acts = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(1)
        obs, rewards, terminated, truncated, info = e.step(acts)
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            ends += 1
            final = info["final_obs"][i]
            assert final["observation"][at + done] == 1.0 and done == PH_DONE
            assert final["action_mask"].sum() == 0
            assert rewards[i] in (1.0, -1.0)
            assert obs["observation"][i][at + done] == 0.0  # the next match's first deal
        assert (rewards[~terminated] == 0).all()
        assert (obs["action_mask"].sum(1) > 0).all()
    assert ends >= 6


def test_max_deals_truncates() -> None:
    e = BelaVectorEnv("bela4", 4, seat=0, max_deals=1)
    obs, _ = e.reset(seed=2)
    cut = 0
    for _ in range(40):
        obs, rewards, terminated, truncated, info = e.step(
            obs["action_mask"].argmax(1))
        cut += int(truncated.sum())
        assert not terminated.any()
        assert info["_final_obs"].tolist() == truncated.tolist() if truncated.any() else True
    assert cut >= 4


def test_network_opponents_play_inside_the_loop_as_the_network_says() -> None:
    """The opponents' compiled network picks, at every decision, the legal action whose
    output (numpy's ``Mlp.forward`` of the engine's observation) is the largest: replayed
    in the engine, the learner sees the same observations and gets the same rewards.  (A
    deal lasts longer than one step of the learner, so at most one new deal, the row's
    current one, was dealt in a step.)"""
    net = Mlp.initial([806, 32, 61], np.random.default_rng(0), {})
    seat, n = 1, 3
    e = BelaVectorEnv("bela4", n, seat=seat, opponents=net, options={"target": 5001})
    space = e.games.space
    obs, _ = e.reset(seed=11)
    matches = []
    for b in range(n):
        m = Match("bela4", {"target": 5001})
        m.deal(*e.games.deal_of(b)[:2])
        matches.append(m)

    def settle(m: Match, b: int) -> float:
        """Deal the row's deal when the round ended; the opponents act until the learner is
        to act.  Returns what the learner's side booked meanwhile."""
        got = 0.0
        while True:
            rnd = m.round
            assert rnd is not None
            if rnd.is_over:
                got += m.sheet[-1][seat % 2]
                m.deal(*e.games.deal_of(b)[:2])
                continue
            if rnd.turn == seat:
                return got
            view = seat_view(m, rnd.turn)
            mask = space.mask(view)
            out = net.forward(observe(view)[None])[0]
            legal = np.flatnonzero(mask)
            m.apply(space.action(int(legal[np.argmax(out[legal])]), view))

    for b in range(n):
        assert settle(matches[b], b) == 0.0
        np.testing.assert_array_equal(obs["observation"][b],
                                      observe(seat_view(matches[b], seat)))
    rng = np.random.default_rng(1)
    for _ in range(60):
        acts = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(1)
        views = [seat_view(m, seat) for m in matches]
        obs, rewards, terminated, truncated, info = e.step(acts)
        assert not info["illegal"].any() and not terminated.any()
        for b, m in enumerate(matches):
            m.apply(space.action(int(acts[b]), views[b]))
            np.testing.assert_allclose(rewards[b], settle(m, b))
            np.testing.assert_array_equal(obs["observation"][b], observe(seat_view(m, seat)))
            np.testing.assert_array_equal(obs["action_mask"][b], space.mask(seat_view(m, seat)))


def test_gymnasiums_episode_statistics_wrapper_sums_each_match() -> None:
    """Gymnasium's own vector wrapper reads the same-step auto-reset right: each finished
    match's return is the sum of its rewards, its length the learner's steps in it."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    e = RecordEpisodeStatistics(BelaVectorEnv("bela2", 5, seat=1, options={"target": 51}))
    obs, _ = e.reset(seed=3)
    total, length, ended = np.zeros(5), np.zeros(5, int), 0
    for _ in range(150):
        obs, rewards, terminated, truncated, info = e.step(obs["action_mask"].argmax(1))
        total += rewards
        length += 1
        done = terminated | truncated
        if done.any():
            assert info["_episode"].tolist() == done.tolist()
            np.testing.assert_allclose(info["episode"]["r"][done], total[done])
            assert info["episode"]["l"][done].tolist() == length[done].tolist()
            ended += int(done.sum())
            total[done], length[done] = 0.0, 0
    assert ended >= 5


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_the_greedy_opponent_plays_the_compiled_self_plays_greedy_card(variant: str) -> None:
    """At every card decision of random matches, :func:`greedy_card` picks the card that
    :mod:`bela.training.selfplay`'s greedy policy picks (in the solver's card numbering,
    with its rule arrays and keys and the variant's play teams; raspas its own rule)."""
    from bela.engine.variants import get_variant
    from bela.solver import kernels as SK
    from bela.solver.greedy import greedy_card
    from bela.training.selfplay import _renumber, _tables

    v = get_variant(variant)
    rules, to_kernel, to_engine, keys = _tables(SK.DUTY_BELA if v.iber else SK.DUTY_BELOT2)
    g = VecGames(variant, 8)
    step = g.reset(seed=5)
    checked = 0
    for _ in range(300):
        for b in range(8):
            row = g.state[b]
            if row[K.PHASE] != PHASES.index("play") or step.masks[b, g.space.declare_at:].any():
                continue
            legal = sum(1 << c for c in range(32) if step.masks[b, c])
            seat, ct, pos = int(step.seats[b]), int(row[K.CONTRACT]), int(row[K.NTR])
            mine = K.greedy_card(g.state, b, seat, legal, g.rules)
            caller = int(row[K.CALLER])
            teams = v.play_teams(caller if caller >= 0 else None)
            win = int(row[K.WIN])
            same = pos > 0 and teams[int(row[K.WSEAT])] == teams[seat]
            beats = int(rules[ct][SK.R_BEATS + to_kernel[ct][win]]) if pos else 0
            theirs = greedy_card(_renumber(legal, to_kernel[ct]), pos == 0, beats, same,
                                 bool(row[K.RASPAS]), keys[ct])
            assert mine == to_engine[ct][theirs]
            checked += 1
        step = g.step(g.sample())
    assert checked > 300


def test_greedy_opponents_play_legal_matches_to_their_end() -> None:
    e = BelaVectorEnv("belot2", 6, seat=0, opponents="greedy", options={"target": 101})
    obs, _ = e.reset(seed=4)
    ends = 0
    for _ in range(120):
        obs, rewards, terminated, truncated, info = e.step(obs["action_mask"].argmax(1))
        assert not info["illegal"].any() and (obs["action_mask"].sum(1) > 0).all()
        ends += int(terminated.sum())
    assert ends > 0
    with pytest.raises(ValueError, match="random, greedy or a network"):
        BelaVectorEnv("bela4", 2, opponents="heuristic")


def test_every_seat_acts_by_a_compiled_policy() -> None:
    """:meth:`VecGames.act`: random, greedy and a network's choices are legal actions of
    the seat to act; greedy cards are :func:`greedy_card`'s, a network's its best legal
    output; the same seed, the same choices."""
    g = VecGames("bela4", 6)
    with pytest.raises(ValueError, match="reset"):
        g.act("greedy")
    net = Mlp.initial([g.obs.shape[1], 8, g.masks.shape[1]], np.random.default_rng(1), {})
    step = g.reset(seed=7)
    cards = 0
    for i in range(150):
        policy = ("random", "greedy", net)[i % 3]
        acts = g.act(policy)
        assert step.masks[np.arange(6), acts].all()
        if policy is net:
            out = net.forward(step.obs)
            assert (acts == np.where(step.masks > 0, out, -np.inf).argmax(axis=1)).all()
        elif policy == "greedy":
            for b in range(6):
                if g.state[b, K.PHASE] == PHASES.index("play") and acts[b] < 32 and not (
                        step.masks[b, g.space.declare_at:].any()):
                    legal = sum(1 << c for c in range(32) if step.masks[b, c])
                    card = K.greedy_card(g.state, b, int(step.seats[b]), legal, g.rules)
                    assert acts[b] == card
                    cards += 1
        step = g.step(acts)
    assert cards > 20
    a, b = VecGames("bela4", 6), VecGames("bela4", 6)
    a.reset(seed=3)
    b.reset(seed=3)
    assert (a.act("random") == b.act("random")).all()
    with pytest.raises(ValueError, match="random, greedy or a network"):
        a.act("heuristic")
    with pytest.raises(ValueError, match="inputs"):
        a.act(Mlp.initial([5, 3], np.random.default_rng(0), {}))

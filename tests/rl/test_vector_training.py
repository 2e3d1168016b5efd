"""The documented training example on the vector environment (bela.rl.vector.a2c):
its policy gradient is the loss's (finite differences), and a short run trains a policy
that the vector environment can play as an opponent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

from bela.bots.learned.network import Mlp  # noqa: E402
from bela.rl.vector.a2c import PgConfig, load_policy, main, policy_loss, train  # noqa: E402
from bela.rl.vector.gym import BelaVectorEnv  # noqa: E402


def test_the_policy_gradient_is_the_losss() -> None:
    rng = np.random.default_rng(3)
    net = Mlp.initial([6, 5, 4], rng, {})
    net.ws = [w.astype(np.float64) for w in net.ws]  # finite differences need float64
    net.bs = [b.astype(np.float64) + 0.1 for b in net.bs]
    x = rng.random((7, 6))
    mask = (rng.random((7, 4)) < 0.7).astype(np.int8)
    mask[:, 0] = 1
    acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])
    adv = rng.standard_normal(7)
    loss, _, grads = policy_loss(net, x, mask, acts, adv, 0.05)
    params = [*net.ws, *net.bs]
    for p, g in zip(params, grads, strict=True):
        for idx in list(np.ndindex(p.shape))[:6]:
            old = p[idx]
            p[idx] = old + 1e-6
            up = policy_loss(net, x, mask, acts, adv, 0.05)[0]
            p[idx] = old - 1e-6
            down = policy_loss(net, x, mask, acts, adv, 0.05)[0]
            p[idx] = old
            assert (up - down) / 2e-6 == pytest.approx(float(g[idx]), rel=1e-3, abs=1e-7)
    assert np.isfinite(loss)


def test_a_short_run_trains_a_policy_the_vector_env_plays() -> None:
    cfg = PgConfig(variant="bela2", envs=16, steps=8, iterations=2, hidden=16, eval_steps=8,
                   seed=2)
    policy, log = train(cfg)
    assert [line["iteration"] for line in log] == [0, 1, 2]
    assert all(line["env_steps"] == 128 for line in log[1:])
    assert policy.sizes == [496, 16, 62]
    env = BelaVectorEnv("bela2", 4, seat=1, opponents=policy)
    obs, _ = env.reset(seed=1)
    obs, *_ = env.step(obs["action_mask"].argmax(1))
    assert (obs["action_mask"].sum(1) > 0).all()
    with pytest.raises(ValueError, match="at least 1"):
        train(PgConfig(envs=0))
    with pytest.raises(ValueError, match="random or greedy"):
        train(PgConfig(opponents="heuristic"))
    _, log = train(PgConfig(variant="bela3", envs=4, steps=4, iterations=1, hidden=8,
                            eval_steps=4, opponents="greedy"))
    assert "points_per_deal_vs_greedy" in log[1]


def test_the_command_prints_a_line_an_iteration_and_saves_the_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "policy.npz"
    main(["--variant", "bela2", "--iterations", "2", "--envs", "4", "--steps", "2",
          "--hidden", "8", "--eval-steps", "2", "--seed", "3", "--out", str(out)])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["iteration"] for line in lines] == [0, 1, 2]
    assert all(line["env_steps_per_s"] > 0 for line in lines[1:])
    policy = load_policy(out)
    assert policy.sizes == [496, 8, 62] and policy.meta["kind"] == "vector-pg"
    assert policy.meta["config"]["seed"] == 3
    e = BelaVectorEnv("bela2", 2, opponents=policy)  # it plays inside the compiled loop
    obs, _ = e.reset(seed=1)
    assert (obs["action_mask"].sum(1) > 0).all()

"""Training a policy network on the compiled vector environment: a documented example.

:func:`train` runs advantage actor-critic (A2C with GAE) with numpy alone: the policy is an
:class:`~bela.bots.learned.network.Mlp` from the observation (:func:`bela.rl.spaces.observe`)
to one logit per action of :class:`~bela.rl.spaces.ActionSpace` (illegal ones masked), the
critic a second, smaller ``Mlp``.  One seat learns in ``envs`` matches of
:class:`bela.rl.vector.gym.BelaVectorEnv`; the others are uniform random, or (``self_play``)
the policy itself, frozen at the start of each iteration and played greedily inside the
compiled loop.  The reward is the deal's booked points, zero-sum (own side's points minus
the others' mean), in units of 100.  Whole matches (bidding, declarations, every card) are
learnt, not only the card play.  ``opponents="greedy"`` trains and measures against the
greedy opponents of :class:`~bela.rl.vector.gym.BelaVectorEnv` instead.

``python -m bela.rl.vector.a2c --variant bela2 --iterations 40`` prints, per
iteration, the learner's environment steps a second (each with the other seats' moves),
the time so far and the mean points a deal against random opponents of the greedy policy
(docs/TRAINING.md, "Vector environment").

>>> cfg = PgConfig(variant="bela2", envs=8, steps=4, iterations=1, hidden=16, seed=1)
>>> policy, log = train(cfg)
>>> policy.sizes, len(log), sorted(log[1])[:3]
([496, 16, 62], 2, ['entropy', 'env_steps', 'env_steps_per_s'])
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...bots.learned.fitting import Adam, backprop, trace
from ...bots.learned.network import Array, Mlp
from .gym import BelaVectorEnv

SCALE = 100.0  # rewards in units of 100 points


@dataclass(frozen=True)
class PgConfig:
    """The settings of :func:`train`."""

    variant: str = "bela4"
    envs: int = 256  # matches stepped at once
    steps: int = 32  # steps of each match per iteration (the rollout)
    iterations: int = 50
    hidden: int = 128  # the policy's (and, halved, the critic's) hidden layer
    lr: float = 3e-4
    gamma: float = 0.99
    lam: float = 0.95  # GAE
    entropy: float = 0.01
    value_weight: float = 0.5
    opponents: str = "random"  # or "greedy" (BelaVectorEnv's opponents), for training and eval
    self_play: bool = False  # the opponents: the policy of the iteration's start instead
    eval_steps: int = 64  # steps of the greedy policy against random opponents, per iteration
    seed: int = 0

    def check(self) -> None:
        for name in ("envs", "steps", "iterations", "hidden"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if not 0 < self.gamma <= 1 or not 0 <= self.lam <= 1:
            raise ValueError("gamma must be in (0, 1] and lam in [0, 1]")
        if self.opponents not in ("random", "greedy"):
            raise ValueError(f"opponents must be random or greedy, not {self.opponents!r}")


def masked_softmax(logits: Array, mask: npt.NDArray[np.int8]) -> Array:
    """Probabilities over the legal actions (0 elsewhere)."""
    z = np.where(mask > 0, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: Array = (e / e.sum(axis=1, keepdims=True)).astype(logits.dtype)
    return out


def _sample(p: Array, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    u = rng.random((p.shape[0], 1))
    out: npt.NDArray[np.int64] = np.minimum((p.cumsum(axis=1) < u).sum(axis=1),
                                            p.shape[1] - 1).astype(np.int64)
    return out


def policy_loss(policy: Mlp, x: Array, mask: npt.NDArray[np.int8],
                acts: npt.NDArray[np.int64], adv: npt.NDArray[np.float32], entropy: float
                ) -> tuple[float, Array, list[Array]]:
    """The policy-gradient loss ``mean(-adv * log p(act) - entropy * H(p))`` over a batch,
    each row's entropy, and the loss's gradients (:meth:`Adam.params` order)."""
    acts_in, logits = trace(policy, x)
    p = masked_softmax(logits, mask)
    n = x.shape[0]
    onehot = np.zeros_like(p)
    onehot[np.arange(n), acts] = 1.0
    logp = np.log(np.maximum(p, 1e-30))
    ent = -(np.where(mask > 0, p * logp, 0.0)).sum(axis=1)
    loss = float((-adv * logp[np.arange(n), acts] - entropy * ent).mean())
    g_pg = (p - onehot) * adv[:, None]  # d(-adv log p(act)) / d logits
    g_ent = p * (logp + ent[:, None])  # d(-H) / d logits
    grad = (np.where(mask > 0, g_pg + entropy * g_ent, 0.0) / n).astype(x.dtype)
    return loss, ent.astype(np.float32), backprop(policy, acts_in, grad)


def evaluate(policy: Mlp, variant: str, envs: int, steps: int, seed: int,
             opponents: str = "random") -> float:
    """Mean zero-sum points a deal of the greedy ``policy`` against ``opponents``."""
    env = BelaVectorEnv(variant, envs, seat=0, opponents=opponents, zero_sum=True)
    obs, _ = env.reset(seed=seed)
    total, deals = 0.0, 0
    for _ in range(steps):
        _, logits = trace(policy, obs["observation"])
        acts = np.where(obs["action_mask"] > 0, logits, -np.inf).argmax(axis=1)
        obs, rewards, _, _, _ = env.step(acts)
        total += float(rewards.sum())
        deals += int((rewards != 0).sum())
    return total / max(deals, 1)


def train(cfg: PgConfig, report: Callable[[dict[str, Any]], None] | None = None
          ) -> tuple[Mlp, list[dict[str, Any]]]:
    """Train a policy (see the module's docstring); returns it and one log line per
    iteration, after a line 0 with the untrained policy's points against random."""
    cfg.check()
    rng = np.random.default_rng(cfg.seed)
    probe = BelaVectorEnv(cfg.variant, 1)
    n_obs = int(probe.games.obs.shape[1])
    n_act = int(probe.single_action_space.n)
    meta = {"variant": cfg.variant, "kind": "vector-pg", "config": asdict(cfg)}
    policy = Mlp.initial([n_obs, cfg.hidden, n_act], rng, meta)
    policy.ws[-1] *= 0.01  # near-uniform at the start
    critic = Mlp.initial([n_obs, max(cfg.hidden // 2, 1), 1], rng, {"variant": cfg.variant})
    opt_p, opt_v = Adam(policy, cfg.lr), Adam(critic, cfg.lr)
    log: list[dict[str, Any]] = []
    env = BelaVectorEnv(cfg.variant, cfg.envs, seat=0, opponents=cfg.opponents,
                        zero_sum=True)
    obs, _ = env.reset(seed=cfg.seed)
    vs = f"points_per_deal_vs_{cfg.opponents}"
    start_line = {"iteration": 0, vs: evaluate(policy, cfg.variant, cfg.envs, cfg.eval_steps,
                                               cfg.seed + 7, cfg.opponents)}
    log.append(start_line)
    if report is not None:
        report(start_line)
    T, B = cfg.steps, cfg.envs
    began = time.perf_counter()
    for it in range(cfg.iterations):
        if cfg.self_play:
            frozen = Mlp([w.copy() for w in policy.ws], [b.copy() for b in policy.bs], {})
            env = BelaVectorEnv(cfg.variant, B, seat=int(rng.integers(env.games.seats_n)),
                                opponents=frozen, zero_sum=True)
            obs, _ = env.reset(seed=int(rng.integers(2**31)))
        xs = np.zeros((T, B, n_obs), np.float32)
        ms = np.zeros((T, B, n_act), np.int8)
        acts = np.zeros((T, B), np.int64)
        rews = np.zeros((T, B), np.float32)
        dones = np.zeros((T, B), np.float32)
        env_time = 0.0
        for t in range(T):
            xs[t], ms[t] = obs["observation"], obs["action_mask"]
            _, logits = trace(policy, xs[t])
            acts[t] = _sample(masked_softmax(logits, ms[t]), rng)
            start = time.perf_counter()
            obs, r, term, trunc, _ = env.step(acts[t])
            env_time += time.perf_counter() - start
            rews[t] = r / SCALE
            dones[t] = term | trunc
        x = xs.reshape(T * B, n_obs)
        v_acts, values = trace(critic, x)
        v = values.reshape(T, B)
        _, last = trace(critic, obs["observation"])
        adv = np.zeros((T, B), np.float32)
        gae = np.zeros(B, np.float32)
        nxt = last[:, 0]
        for t in range(T - 1, -1, -1):
            keep = 1.0 - dones[t]
            delta = rews[t] + cfg.gamma * nxt * keep - v[t]
            gae = delta + cfg.gamma * cfg.lam * keep * gae
            adv[t] = gae
            nxt = v[t]
        ret = (adv + v).reshape(-1)
        a = adv.reshape(-1)
        a = ((a - a.mean()) / (a.std() + 1e-6)).astype(np.float32)
        mask = ms.reshape(T * B, n_act)
        _, ent, grads = policy_loss(policy, x, mask, acts.reshape(-1), a, cfg.entropy)
        opt_p.step(grads)
        verr = (values[:, 0] - ret).astype(np.float32)
        opt_v.step(backprop(critic, v_acts,
                             ((cfg.value_weight * 2.0 / (T * B)) * verr[:, None]).astype(
                                 np.float32)))
        line = {"iteration": it + 1, "seconds": time.perf_counter() - began,
                "env_steps": T * B,
                "env_steps_per_s": T * B / max(env_time, 1e-9),
                "entropy": float(ent.mean()), "value_loss": float((verr ** 2).mean()),
                "reward_per_step": float(rews.mean() * SCALE),
                vs: evaluate(policy, cfg.variant, B, cfg.eval_steps, cfg.seed + 7,
                             cfg.opponents)}
        log.append(line)
        if report is not None:
            report(line)
    return policy, log


def save_policy(path: str | Path, policy: Mlp) -> None:
    """Write a policy (weights, biases, and its metadata as JSON) into an ``.npz`` file; not
    a ``learned`` bot's model (that one maps its own features to card values)."""
    arrays: dict[str, Any] = {"meta": np.asarray(json.dumps(policy.meta, sort_keys=True))}
    for i, (w, b) in enumerate(zip(policy.ws, policy.bs, strict=True)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load_policy(path: str | Path) -> Mlp:
    """A policy :func:`save_policy` wrote (an opponent for :class:`BelaVectorEnv`)."""
    with np.load(path) as data:
        layers = sum(1 for k in data.files if k.startswith("w"))
        return Mlp([data[f"w{i}"] for i in range(layers)],
                   [data[f"b{i}"] for i in range(layers)], json.loads(str(data["meta"])))


def main(argv: list[str] | None = None) -> None:
    """``python -m bela.rl.vector.a2c``: train and print one JSON line an iteration."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for f, default in asdict(PgConfig()).items():
        kind = type(default)
        if kind is bool:
            parser.add_argument(f"--{f.replace('_', '-')}", action="store_true")
        else:
            parser.add_argument(f"--{f.replace('_', '-')}", type=kind, default=default)
    parser.add_argument("--out", help="save the policy here (an .npz model file)")
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    cfg = PgConfig(**args)
    policy, _ = train(cfg, lambda line: print(json.dumps(line), flush=True))
    if out:
        save_policy(out, policy)


if __name__ == "__main__":
    main()

"""What fitting an :class:`~bela.bots.learned.network.Mlp` needs, with numpy alone: the
forward pass keeping every layer's input (:func:`trace`), the gradients of a loss given its
gradient on the outputs (:func:`backprop`) and the Adam optimiser (:class:`Adam`).  The
learned bot's trainer (:mod:`bela.training.train`) and the vector environment's
actor-critic example (:mod:`bela.rl.vector.a2c`) both fit with them.

>>> import numpy as np
>>> net = Mlp.initial([3, 4, 1], np.random.default_rng(0), {})
>>> x, y = np.ones((2, 3), np.float32), np.zeros((2, 1), np.float32)
>>> adam = Adam(net, 0.05)
>>> losses = []
>>> for _ in range(20):
...     acts, out = trace(net, x)
...     losses.append(float(((out - y) ** 2).mean()))
...     adam.step(backprop(net, acts, (out - y).astype(np.float32)))
>>> losses[-1] < losses[0]
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .network import Array, Mlp


def trace(net: Mlp, x: Array) -> tuple[list[Array], Array]:
    """Every layer's input and the output of ``net`` (ReLU hidden layers, as
    :meth:`Mlp.forward`)."""
    acts = [x]
    h = x
    last = len(net.ws) - 1
    for i, (w, b) in enumerate(zip(net.ws, net.bs, strict=True)):
        h = h @ w + b
        if i < last:
            h = np.maximum(h, 0.0)
        acts.append(h)
    return acts, h


def backprop(net: Mlp, acts: list[Array], grad: Array) -> list[Array]:
    """The gradients of ``net``'s weights, then its biases (the order of
    :meth:`Adam.params`), for the gradient ``grad`` on the outputs of :func:`trace`'s
    ``acts``."""
    last = len(net.ws) - 1
    gws: list[Array] = [np.empty(0, np.float32)] * len(net.ws)
    gbs: list[Array] = [np.empty(0, np.float32)] * len(net.ws)
    for i in range(last, -1, -1):
        gws[i] = acts[i].T @ grad
        gbs[i] = grad.sum(axis=0)
        if i:
            grad = (grad @ net.ws[i].T) * (acts[i] > 0)
    return [*gws, *gbs]


class Adam:
    """Adam on the network's weight and bias arrays (in place); ``state`` (with its
    ``prefix``) resumes what :meth:`state` saved."""

    def __init__(self, net: Mlp, lr: float, state: dict[str, Array] | None = None,
                 prefix: str = "") -> None:
        self.net, self.lr = net, lr
        params = self.params()
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0
        if state is not None:
            self.t = int(state[f"{prefix}adam_t"])
            self.m = [state[f"{prefix}adam_m{i}"].astype(np.float32) for i in range(len(params))]
            self.v = [state[f"{prefix}adam_v{i}"].astype(np.float32) for i in range(len(params))]

    def params(self) -> list[Array]:
        return [*self.net.ws, *self.net.bs]

    def state(self, prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {f"{prefix}adam_t": np.asarray(self.t)}
        for i, (m, v) in enumerate(zip(self.m, self.v, strict=True)):
            out[f"{prefix}adam_m{i}"], out[f"{prefix}adam_v{i}"] = m, v
        return out

    def step(self, grads: list[Array], b1: float = 0.9, b2: float = 0.999,
             eps: float = 1e-8) -> None:
        self.t += 1
        lr = self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for p, g, m, v in zip(self.params(), grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= lr * m / (np.sqrt(v) + eps)

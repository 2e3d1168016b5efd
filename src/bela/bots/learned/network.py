"""A small multilayer perceptron run with numpy: the learned bot's network.

A model file (``.npz``) holds named networks, ``play`` (the card values) and ``bid`` (the
contract margins): ``NAME.w0, NAME.b0, NAME.w1, ...`` (float16 to keep the file small,
float32 in memory) and ``NAME.meta``, a JSON string (variant, output scale, what it was
trained on).  Hidden layers use ReLU; the output is linear.  Training
(:mod:`bela.training.train`) uses the same :meth:`Mlp.forward`.

>>> import numpy as np
>>> net = Mlp.initial([4, 8, 2], np.random.default_rng(0), {"variant": "bela4"})
>>> net.forward(np.ones((3, 4), dtype=np.float32)).shape
(3, 2)
>>> net.params
58
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


class ModelError(ValueError):
    """A model file that cannot be read or does not fit the variant."""


class Mlp:
    """Weights ``ws[i]`` (inputs x outputs) and biases ``bs[i]`` of each layer, plus ``meta``."""

    def __init__(self, ws: list[Array], bs: list[Array], meta: dict[str, Any]) -> None:
        if len(ws) != len(bs) or not ws:
            raise ModelError("a network needs as many bias vectors as weight matrices")
        self.ws = [np.ascontiguousarray(w, dtype=np.float32) for w in ws]
        self.bs = [np.ascontiguousarray(b, dtype=np.float32) for b in bs]
        self.meta = dict(meta)

    @staticmethod
    def initial(sizes: list[int], rng: np.random.Generator, meta: dict[str, Any]) -> Mlp:
        """He-initialised weights for layer ``sizes`` (inputs first)."""
        ws = [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
              for a, b in zip(sizes, sizes[1:], strict=False)]
        bs = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
        return Mlp(ws, bs, meta)

    @property
    def sizes(self) -> list[int]:
        return [self.ws[0].shape[0], *(w.shape[1] for w in self.ws)]

    @property
    def params(self) -> int:
        return sum(w.size + b.size for w, b in zip(self.ws, self.bs, strict=True))

    def forward(self, x: Array) -> Array:
        """The outputs for a batch of inputs (rows)."""
        h = x
        last = len(self.ws) - 1
        for i, (w, b) in enumerate(zip(self.ws, self.bs, strict=True)):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h



def save_models(path: str | Path, nets: dict[str, Mlp]) -> None:
    """Write networks by name (``play``, ``bid``) into one file, weights as float16 and each
    network's metadata as JSON; atomic (a temporary file renamed)."""
    arrays: dict[str, Any] = {}
    for name, net in nets.items():
        arrays[f"{name}.meta"] = np.asarray(json.dumps(net.meta, sort_keys=True))
        for i, (w, b) in enumerate(zip(net.ws, net.bs, strict=True)):
            arrays[f"{name}.w{i}"] = w.astype(np.float16)
            arrays[f"{name}.b{i}"] = b.astype(np.float16)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    tmp.replace(path)


def load_models(source: str | Path | bytes) -> dict[str, Mlp]:
    """The networks of a file written by :func:`save_models` (a path or the file's bytes)."""
    name = "(bytes)" if isinstance(source, bytes) else str(source)
    try:
        data = np.load(io.BytesIO(source) if isinstance(source, bytes) else source,
                       allow_pickle=False)
        with data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the model {name}: {exc}") from None
    nets: dict[str, Mlp] = {}
    for key in [k for k in arrays if k.endswith(".meta")]:
        net_name = key.removesuffix(".meta")
        layers = sum(1 for k in arrays if k.startswith(f"{net_name}.w"))
        try:
            net = Mlp([arrays[f"{net_name}.w{i}"] for i in range(layers)],
                      [arrays[f"{net_name}.b{i}"] for i in range(layers)],
                      json.loads(str(arrays[key])))
        except (KeyError, ValueError) as exc:
            raise ModelError(f"cannot read the model {name}: {exc}") from None
        for a, b in zip(net.ws, net.ws[1:], strict=False):
            if a.shape[1] != b.shape[0]:
                raise ModelError(f"the layers of {net_name!r} in {name} do not fit together")
        nets[net_name] = net
    if "play" not in nets:
        raise ModelError(f"cannot read the model {name}: it has no card-play network")
    return nets

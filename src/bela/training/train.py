"""Training the learned bot (``bela train``): self-play positions, double-dummy labels, a
numpy network.

Each *iteration* plays ``deals`` rounds and keeps their card-play positions
(:func:`bela.training.data.play_samples`): the first iteration with the heuristic bot at every
seat, the next ones with the network trained so far (self-play), a share ``explore`` of the
cards played at random.  Then the network is fitted for ``epochs`` passes over the positions
of the last ``window`` iterations: for each legal card, its output should be the double-dummy
value of that card in the true deal (squared error, the level of a position's values
weighing :data:`LEVEL_WEIGHT` against their differences; Adam; the side suits shuffled in
every batch, :func:`suit_orders`).  What it learns is the mean
of those values over the deals the seat's view allows, the quantity ``pimc`` estimates by
sampling, without the search at play time.  A second, smaller network learns the margin of
each contract a seat may order (variants without discards), the quantity ``pimc``'s bidding
simulates.

Everything lives in one folder: ``config.json`` (the settings), ``data/`` (the positions,
one file per chunk of deals), ``checkpoint.npz`` (weights, optimiser state, where training
stands), ``model.npz`` (the model to play: ``learned:model=FOLDER/model.npz``) and
``log.jsonl`` (one line per epoch: losses, and on held-out positions the points lost
against the best card of the true deal).  Stopped at any point, the same command resumes
where it stood: chunks already played are kept, an epoch restarts.

Positions are played in parallel over processes (``workers``) or on a Ray cluster.

``source="vector"`` plays the deals in the compiled vector environment instead
(:mod:`bela.training.vector`: ``vector_batch`` matches at once, every seat by
``vector_players``, every iteration), then replays them through the engine in the workers
and labels their decisions as above; the fitting and the model file are the same.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..bots.learned.features import (
    FEATURES_VERSION,
    bid_feature_size,
    feature_size,
    raspas_index,
    suit_orders,
)
from ..bots.learned.fitting import Adam, backprop, trace
from ..bots.learned.network import Array, Mlp, save_models
from ..engine.variants import get_variant
from .data import Samples, check_target, play_samples
from .vector import POLICIES as VECTOR_POLICIES
from .vector import label_chunk, load_policy, play_games

SCALE = 100.0  # values are fitted in units of 100 card points
CHUNK_DEALS = 25
BID_HIDDEN = [128, 64]
LEVEL_WEIGHT = 0.1  # the card values' common level, against their differences


class TrainingError(ValueError):
    """Settings that do not fit the folder's training, or nothing to train on."""


class Reporter(Protocol):
    """Where training reports its progress (the CLI shows bars)."""

    def task(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...

    def note(self, text: str) -> None: ...


class QuietReporter:
    def task(self, name: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass


@dataclass
class TrainConfig:
    """The settings of one training folder (kept in ``config.json``)."""

    variant: str = "bela4"
    iterations: int = 4
    deals: int = 2000
    epochs: int = 6
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    lr: float = 1e-3
    batch: int = 256
    explore: float = 0.1
    window: int = 3
    seed: int = 0
    target: str = "points"  # what a card's label is (bela.training.data): points or score
    source: str = "bots"  # who plays the deals: the bots, or the vector env (training.vector)
    vector_players: str = "random"  # the vector env's policy: random, greedy or a policy file
    vector_batch: int = 256  # the vector env's matches stepped at once

    def check(self) -> None:
        get_variant(self.variant)
        if self.iterations < 1 or self.deals < 1 or self.epochs < 1 or self.window < 1:
            raise TrainingError("iterations, deals, epochs and window must be at least 1")
        if not 0 <= self.explore <= 1:
            raise TrainingError("explore is a share of the cards, between 0 and 1")
        if not self.hidden or min(self.hidden) < 1:
            raise TrainingError("hidden layers need at least one unit each")
        try:
            check_target(self.variant, self.target)
        except ValueError as exc:
            raise TrainingError(str(exc)) from None
        if self.source not in SOURCES:
            raise TrainingError(f"source must be {' or '.join(SOURCES)}, not {self.source!r}")
        if self.source == "vector":
            if self.vector_batch < 1:
                raise TrainingError("vector_batch must be at least 1")
            if self.vector_players not in VECTOR_POLICIES and not Path(
                    self.vector_players).is_file():
                raise TrainingError("the vector players are random, greedy or a policy file "
                                    "(python -m bela.rl.vector.a2c --out FILE), not "
                                    f"{self.vector_players!r}")


SOURCES = ("bots", "vector")

# what a training folder keeps
FIXED = ("variant", "hidden", "window", "seed", "target", "source")


def resolve_config(folder: Path, given: dict[str, Any]) -> TrainConfig:
    """The settings to train ``folder`` with: ``given`` (the settings that are not None)
    for a new folder; for one that holds a training, its own settings with the schedule
    (iterations, deals, epochs, explore, lr, batch) changed as given.  A different variant,
    network, window or seed needs another folder, and so does a folder trained on another
    feature layout than :data:`~bela.bots.learned.features.FEATURES_VERSION` (its
    ``config.json`` keeps the layout; one that keeps none was trained on layout 1)."""
    given = {k: v for k, v in given.items() if v is not None}
    saved = folder / "config.json"
    if not saved.exists():
        return TrainConfig(**given)
    settings = json.loads(saved.read_text())
    layout = settings.pop("features", 1)
    if layout != FEATURES_VERSION:
        raise TrainingError(f"{folder} was trained on feature layout {layout}; this bela "
                            f"trains and reads only layout {FEATURES_VERSION}: start a new "
                            "folder (retrain it with bela train)")
    stored = TrainConfig(**settings)
    for key, value in given.items():
        if key in FIXED and value != getattr(stored, key):
            raise TrainingError(f"{folder} trains with {key} {getattr(stored, key)!r}, not "
                                f"{value!r}: use another folder for other settings")
        setattr(stored, key, value)
    return stored


def loss_and_grads(net: Mlp, x: Array, y: Array, legal: npt.NDArray[np.bool_],
                   level: float | None = None) -> tuple[float, list[Array]]:
    """Squared error over the legal cards of a batch, and its gradients (weights first,
    then biases, as :meth:`~bela.bots.learned.fitting.Adam.params`).

    With ``level`` each row's error is split into its mean over the row's legal cards and
    the differences from that mean, and the mean counts only ``level`` times: a card's
    choice depends on the differences, while the level (how many points the side takes
    whatever it plays) carries most of the noise of the hidden cards."""
    acts, h = trace(net, x)
    count = max(int(legal.sum()), 1)
    diff = np.where(legal, h - y, 0.0).astype(np.float32)
    if level is None:
        loss = float((diff * diff).sum() / count)
        grad = (diff * (2.0 / count)).astype(np.float32)
    else:
        k = np.maximum(legal.sum(axis=1, keepdims=True), 1)
        mean = diff.sum(axis=1, keepdims=True) / k
        centred = np.where(legal, diff - mean, 0.0)
        loss = float(((centred * centred).sum() + level * (k * mean * mean).sum()) / count)
        grad = (np.where(legal, centred + level * mean, 0.0) * (2.0 / count)).astype(
            np.float32)
    return loss, backprop(net, acts, grad)


def evaluate(net: Mlp, s: Samples) -> dict[str, float]:
    """On held-out positions: the error of the values (points) and what choosing the
    network's best card costs against the best card of the true deal (double-dummy points,
    mean), with the share of positions where it costs nothing."""
    if not len(s):
        return {}
    x = s.x.astype(np.float32)
    pred = net.forward(x) * SCALE
    legal = ~np.isnan(s.values)
    y = np.where(legal, s.values, 0.0)
    err = np.where(legal, pred - y, 0.0)
    rmse = float(np.sqrt((err * err).sum() / legal.sum()))
    raspas = x[:, raspas_index(s.variant)] > 0.5
    sign = np.where(raspas, -1.0, 1.0)[:, None]
    chosen = np.argmax(np.where(legal, sign * pred, -np.inf), axis=1)
    best = np.max(np.where(legal, sign * y, -np.inf), axis=1)
    got = (sign[:, 0] * y[np.arange(len(y)), chosen])
    regret = best - got
    return {"rmse": rmse, "regret": float(regret.mean()), "best": float((regret <= 0).mean())}


# -- the training folder ---------------------------------------------------------------------

class Trainer:
    """One training folder (see the module docstring)."""

    def __init__(self, folder: Path, config: TrainConfig | None = None, workers: int = 1,
                 ray: bool = False, reporter: Reporter | None = None) -> None:
        self.folder = folder
        self.workers = max(1, workers)
        self.ray = ray
        self.report = reporter or QuietReporter()
        saved = folder / "config.json"
        config = resolve_config(folder, asdict(config)) if config is not None else (
            resolve_config(folder, {}))
        config.check()
        self.config = config
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "data").mkdir(exist_ok=True)
        saved.write_text(json.dumps({**asdict(config), "features": FEATURES_VERSION},
                                    indent=1))
        self.nets, self.adams, self.iteration, self.epoch = self._restore()

    @property
    def net(self) -> Mlp:
        """The card-play network."""
        return self.nets["play"]

    # -- state ---------------------------------------------------------------------------------
    def _shapes(self) -> dict[str, list[int]]:
        cfg = self.config
        shapes = {"play": [feature_size(cfg.variant), *cfg.hidden, 32]}
        if not get_variant(cfg.variant).discards:  # as pimc: bela3 bids by the heuristic
            shapes["bid"] = [bid_feature_size(cfg.variant), *BID_HIDDEN, 1]
        return shapes

    def _restore(self) -> tuple[dict[str, Mlp], dict[str, Adam], int, int]:
        cfg = self.config
        path = self.folder / "checkpoint.npz"
        state: dict[str, Any] | None = None
        if path.exists():
            with np.load(path, allow_pickle=False) as d:
                state = {k: d[k] for k in d.files}
        nets: dict[str, Mlp] = {}
        adams: dict[str, Adam] = {}
        for k, (name, sizes) in enumerate(self._shapes().items()):
            meta = {"variant": cfg.variant, "scale": SCALE, "net": name,
                    "inputs": "play_features" if name == "play" else "bid_features",
                    "features": FEATURES_VERSION, "target": cfg.target,
                    **({"source": "vector"} if cfg.source == "vector" else {})}
            if state is None or f"{name}.w0" not in state:
                net = Mlp.initial(sizes, np.random.default_rng(cfg.seed + k), meta)
                adams[name] = Adam(net, cfg.lr)
            else:
                layers = len(sizes) - 1
                net = Mlp([state[f"{name}.w{i}"] for i in range(layers)],
                          [state[f"{name}.b{i}"] for i in range(layers)],
                          json.loads(str(state[f"{name}.meta"])))
                adams[name] = Adam(net, cfg.lr, state, f"{name}.")
            nets[name] = net
        if state is None:
            return nets, adams, 0, 0
        return nets, adams, int(state["iteration"]), int(state["epoch"])

    def _checkpoint(self) -> None:
        arrays: dict[str, Any] = {"iteration": np.asarray(self.iteration),
                                  "epoch": np.asarray(self.epoch)}
        for name, net in self.nets.items():
            arrays[f"{name}.meta"] = np.asarray(json.dumps(net.meta))
            arrays.update(self.adams[name].state(f"{name}."))
            for i, (w, b) in enumerate(zip(net.ws, net.bs, strict=True)):
                arrays[f"{name}.w{i}"], arrays[f"{name}.b{i}"] = w, b
        path = self.folder / "checkpoint.npz"
        tmp = path.with_name("checkpoint.tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)

    @property
    def model_path(self) -> Path:
        return self.folder / "model.npz"

    def _log(self, row: dict[str, Any]) -> None:
        with open(self.folder / "log.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")

    # -- positions -----------------------------------------------------------------------------
    def _chunks(self, it: int) -> list[tuple[Path, int, int]]:
        """The iteration's chunks of deals: (file, deals, seed)."""
        cfg = self.config
        out = []
        for k, start in enumerate(range(0, cfg.deals, CHUNK_DEALS)):
            seed = int(np.random.SeedSequence([cfg.seed, it, k]).generate_state(1)[0])
            out.append((self.folder / "data" / f"iter{it:03d}-{k:04d}.npz",
                        min(CHUNK_DEALS, cfg.deals - start), seed))
        return out

    def _bot(self, it: int) -> tuple[str, bytes | None]:
        """The players of the iteration's deals: the heuristic, then the last model, one
        pass a decision and no search in the last tricks (``symmetric=off,endgame=0``: as
        the shipped models were trained, so the same command still makes them)."""
        if it == 0:
            return "heuristic", None
        model = (self.folder / f"model-{it - 1:03d}.npz").read_bytes()
        return "learned:symmetric=off,endgame=0", model

    def generate(self, it: int) -> None:
        """Play the iteration's deals (only the chunks not on disk yet)."""
        todo = [c for c in self._chunks(it) if not c[0].exists()]
        cfg = self.config
        if cfg.source == "vector":
            self._generate_vector(it, todo)
            return
        self.report.task(f"iteration {it + 1}/{cfg.iterations}: playing deals", cfg.deals)
        self.report.advance(cfg.deals - sum(n for _, n, _ in todo))
        bot, model = self._bot(it)
        args = [(cfg.variant, n, seed, bot, cfg.explore, model, cfg.target)
                for _, n, seed in todo]
        for path, n, samples in self._map(play_samples, todo, args):
            samples.save(path)
            self.report.advance(n)

    def _generate_vector(self, it: int, todo: list[tuple[Path, int, int]]) -> None:
        """The iteration's deals played in the vector environment
        (:func:`bela.training.vector.play_games`, every iteration by ``vector_players``),
        then replayed through the engine and labelled in the workers
        (:func:`~bela.training.vector.label_chunk`); a log line with the speeds."""
        cfg = self.config
        if not todo:
            return
        name = f"iteration {it + 1}/{cfg.iterations}"
        self.report.note(f"{name}: playing {cfg.deals:,} deals in the vector environment "
                         f"({cfg.vector_batch} matches at once, {cfg.vector_players} players)")
        seed = int(np.random.SeedSequence([cfg.seed, it]).generate_state(1)[0])
        try:
            policy = load_policy(cfg.vector_players)
        except ValueError as exc:
            raise TrainingError(str(exc)) from None
        chunks, speed = play_games(cfg.variant, cfg.deals, cfg.vector_batch, policy, seed,
                                   cfg.explore, CHUNK_DEALS)
        self.report.note(f"{name}: {speed['deals'] / speed['seconds']:,.0f} deals "
                         f"({speed['steps'] / speed['seconds']:,.0f} actions) a second")
        self.report.task(f"{name}: labelling the deals", cfg.deals)
        self.report.advance(cfg.deals - sum(n for _, n, _ in todo))
        index = {path: k for k, (path, _, _) in enumerate(self._chunks(it))}
        args = [(cfg.variant, chunks[index[path]], seed, cfg.target)
                for path, _, seed in todo]
        began, positions = time.perf_counter(), 0
        for path, n, samples in self._map(label_chunk, todo, args):
            samples.save(path)
            positions += len(samples)
            self.report.advance(n)
        labelling = time.perf_counter() - began
        self._log({"iteration": it, "source": "vector", "players": cfg.vector_players,
                   "deals": speed["deals"], "steps": speed["steps"],
                   "generation_s": speed["seconds"], "positions": positions,
                   "labelling_s": labelling, "time": time.time()})
        self.report.note(f"{name}: {positions:,} positions labelled, "
                         f"{positions / max(labelling, 1e-9):,.0f} a second")

    def _map(self, fn: Callable[..., Samples], todo: list[tuple[Path, int, int]],
             args: list[tuple[Any, ...]]) -> Iterator[tuple[Path, int, Samples]]:
        """``fn(*a)`` for each chunk of ``todo`` and its arguments, in this process, in the
        workers or on Ray, as each one is done."""
        if self.ray:
            import ray

            task = ray.remote(fn)
            refs = {task.remote(*a): c for a, c in zip(args, todo, strict=True)}
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                path, n, _ = refs[done[0]]
                yield path, n, ray.get(done[0])
            return
        if self.workers == 1:
            for (path, n, _), a in zip(todo, args, strict=True):
                yield path, n, fn(*a)
            return
        with ProcessPoolExecutor(self.workers, mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(fn, *a): c for a, c in zip(args, todo,
                                                                        strict=True)}
            for fut in as_completed(futures):
                path, n, _ = futures[fut]
                yield path, n, fut.result()

    def positions(self, it: int) -> tuple[Samples, Samples]:
        """The positions the iteration trains on (every chunk of the last ``window``
        iterations) and those it holds out to score the networks (every chunk ``k`` with
        ``k % 20 == 1``, whole chunks: positions of one deal share its hidden cards)."""
        first = max(0, it - self.config.window + 1)
        train: list[Samples] = []
        held: list[Samples] = []
        for i in range(first, it + 1):
            for path in sorted((self.folder / "data").glob(f"iter{i:03d}-*.npz")):
                k = int(path.stem.split("-")[1])
                (held if k % 20 == 1 else train).append(Samples.load(path))
        if not train:
            raise TrainingError("no positions to train on")
        return Samples.join(train), (Samples.join(held) if held else
                                     Samples.empty(self.config.variant))

    # -- fitting -------------------------------------------------------------------------------
    def _epoch(self, name: str, x16: npt.NDArray[np.float16], values: Array,
               rng: np.random.Generator) -> float:
        """One pass of network ``name`` over rows ``x16`` with targets ``values`` (NaN: no
        target), each batch with the side suits shuffled (:func:`suit_orders`); the mean
        loss of the pass (in the fitted units)."""
        cfg = self.config
        net, adam = self.nets[name], self.adams[name]
        orders = suit_orders(cfg.variant, name)
        order = rng.permutation(len(x16))
        batches = (len(x16) + cfg.batch - 1) // cfg.batch
        total = 0.0
        for b in range(batches):
            idx = order[b * cfg.batch:(b + 1) * cfg.batch]
            cols, outs = orders[int(rng.integers(len(orders)))]
            vals = values[idx][:, outs]
            legal = ~np.isnan(vals)
            y = np.where(legal, vals / SCALE, 0.0).astype(np.float32)
            loss, grads = loss_and_grads(net, x16[idx][:, cols].astype(np.float32), y, legal,
                                         LEVEL_WEIGHT if name == "play" else None)
            adam.step(grads)
            total += loss
            self.report.advance()
        return total / max(batches, 1)

    def fit(self, it: int) -> dict[str, float]:
        """Fit the networks to the iteration's positions for the epochs not done yet; the
        held-out scores (empty when too few deals were played to hold a chunk out)."""
        cfg = self.config
        data, test = self.positions(it)
        bidding = "bid" in self.nets and len(data.bid_y) > 0
        rng = np.random.default_rng(cfg.seed * 7 + it * 131 + self.epoch)
        scores: dict[str, float] = {}
        n_train = len(data)
        batches = -(-n_train // cfg.batch)
        if bidding:
            batches += -(-len(data.bid_y) // cfg.batch)
        while self.epoch < cfg.epochs:
            self.report.task(f"iteration {it + 1}/{cfg.iterations}: epoch "
                             f"{self.epoch + 1}/{cfg.epochs} on {n_train:,} positions",
                             batches)
            play_loss = self._epoch("play", data.x, data.values, rng)
            row: dict[str, Any] = {"iteration": it, "epoch": self.epoch + 1,
                                   "positions": n_train, "held_out": len(test),
                                   "train_loss": play_loss}
            if bidding:
                bid_loss = self._epoch("bid", data.bid_x, data.bid_y[:, None], rng)
                row["bid_train_rmse"] = float(np.sqrt(bid_loss)) * SCALE
                if len(test.bid_y):
                    pred = self.nets["bid"].forward(test.bid_x.astype(np.float32))
                    err = pred[:, 0] * SCALE - test.bid_y
                    row["bid_test_rmse"] = float(np.sqrt((err * err).mean()))
            self.epoch += 1
            scores = evaluate(self.net, test)
            row.update({f"test_{k}": v for k, v in scores.items()}, time=time.time())
            self._log(row)
            if scores:
                self.report.note(
                    f"iteration {it + 1} epoch {self.epoch}: held-out error "
                    f"{scores['rmse']:.1f} points, best card {100 * scores['best']:.1f}% of "
                    f"positions, {scores['regret']:.2f} points lost a decision"
                    + (f"; bids: error {row['bid_test_rmse']:.1f} points"
                       if "bid_test_rmse" in row else ""))
            else:
                self.report.note(f"iteration {it + 1} epoch {self.epoch} done (too few deals "
                                 "to hold any out)")
            self._checkpoint()
        return scores

    def run(self, on_iteration: Callable[[int, dict[str, float]], None] | None = None
            ) -> dict[str, float]:
        """Play and fit every iteration not done yet; the last held-out scores."""
        cfg = self.config
        scores: dict[str, float] = {}
        while self.iteration < cfg.iterations:
            it = self.iteration
            self.generate(it)
            scores = self.fit(it)
            for net in self.nets.values():
                net.meta = {**net.meta, "iteration": it + 1}
            save_models(self.folder / f"model-{it:03d}.npz", self.nets)
            save_models(self.model_path, self.nets)
            self.iteration, self.epoch = it + 1, 0
            self._checkpoint()
            if on_iteration is not None:
                on_iteration(it, scores)
        return scores

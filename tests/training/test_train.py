"""Training the learned bot: labels, gradients, the training folder, ``bela train``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bela.bots.learned import Mlp, load_models, save_models
from bela.bots.learned.features import feature_size
from bela.bots.learned.fitting import Adam
from bela.cli.main import app
from bela.training.data import Samples, card_labels, play_samples
from bela.training.train import (
    TrainConfig,
    Trainer,
    TrainingError,
    evaluate,
    loss_and_grads,
    raspas_index,
)
from positions import choices_after_the_first_trick, solved_margin


def test_positions_are_labelled_by_the_solver() -> None:
    """Every row has a value for its legal cards only (the turned legal-card part of the
    features), and the values are card points still to take (0..162 + 10)."""
    s = play_samples("belot2", deals=6, seed=3, explore=0.3)
    assert len(s) > 20 and s.x.shape[1] == feature_size("belot2")
    legal = ~np.isnan(s.values)
    assert (legal == (s.x[:, 32:64] > 0.5)).all()
    assert (legal.sum(axis=1) >= 2).all()
    assert np.nanmin(s.values) >= 0 and np.nanmax(s.values) <= 172
    assert set(np.unique(s.x[:, raspas_index("belot2")])) <= {0.0, 1.0}


@pytest.mark.parametrize("variant", ["bela4", "bela2", "belot2"])
def test_score_labels_are_the_engines_scores_of_the_solved_lines(variant: str) -> None:
    """With ``target="score"`` a card's label is the score margin the engine writes for
    the seat's side when the round ends along the solver's line from that card in the true
    deal (falls, declarations, bela, štiglja); with ``points`` (and in raspas) the card
    points its side takes from here.  After the first trick, when every declaration has
    been announced (before, the label counts every seat's declarations, as pimc)."""
    checked = 0
    for _seed, rnd, view in choices_after_the_first_trick(variant, 40, random.Random(5), 6):
        assert view.seat is not None
        score = card_labels(rnd, view, "score")
        points = card_labels(rnd, view)
        side = rnd.variant.side_of(view.seat)
        for card, value in score.items():
            before = len(rnd.log)
            taken = rnd.card_points[side]
            margin = solved_margin(rnd, card, view.seat)
            from_here = rnd.card_points[side] - taken
            while len(rnd.log) > before:
                rnd.undo()
            assert points[card] == from_here
            assert value == (points[card] if rnd.raspas else margin)
        checked += not rnd.raspas
    assert checked >= 10


def test_a_score_target_needs_two_sides() -> None:
    with pytest.raises(TrainingError, match="two sides; bela3 has 3"):
        TrainConfig(variant="bela3", target="score").check()
    with pytest.raises(TrainingError, match="'points' or 'score'"):
        TrainConfig(variant="bela2", target="tricks").check()
    with pytest.raises(ValueError, match="two sides"):
        play_samples("bela3", deals=1, seed=0, target="score")


def test_samples_files_round_trip(tmp_path: Path) -> None:
    s = play_samples("bela2", deals=2, seed=1)
    s.save(tmp_path / "s.npz")
    back = Samples.load(tmp_path / "s.npz")
    assert back.variant == "bela2" and (back.x == s.x).all()
    assert np.array_equal(back.values, s.values, equal_nan=True)
    assert len(Samples.join([s, back])) == 2 * len(s)


def test_self_play_plays_the_model_it_is_given(tmp_path: Path) -> None:
    """A model sent as bytes (to a worker) is the one the bot spec, settings and all, plays
    with: the same positions as that model named in the spec, not the shipped model's."""
    net = Mlp.initial([feature_size("bela2"), 8, 32], np.random.default_rng(4),
                      {"variant": "bela2", "features": 2})
    path = tmp_path / "m.npz"
    save_models(path, {"play": net})
    spec = "learned:symmetric=off,endgame=0"
    sent = play_samples("bela2", deals=2, seed=5, bot=spec, explore=0.0,
                        model=path.read_bytes())
    named = play_samples("bela2", deals=2, seed=5, bot=f"{spec},model={path}", explore=0.0)
    shipped = play_samples("bela2", deals=2, seed=5, bot=spec, explore=0.0)
    assert np.array_equal(sent.x, named.x)
    assert len(sent.x) != len(shipped.x) or not np.array_equal(sent.x, shipped.x)


@pytest.mark.parametrize("level", [None, 0.1])
def test_gradients_match_finite_differences(level: float | None) -> None:
    rng = np.random.default_rng(0)
    net = Mlp.initial([5, 7, 3], rng, {})
    x = rng.standard_normal((4, 5)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    legal = rng.random((4, 3)) > 0.3
    _, grads = loss_and_grads(net, x, y, legal, level)
    params = [*net.ws, *net.bs]
    for p, g in zip(params, grads, strict=True):
        for idx in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(4)]:
            old = p[idx]
            p[idx] = old + 1e-2
            up, _ = loss_and_grads(net, x, y, legal, level)
            p[idx] = old - 1e-2
            down, _ = loss_and_grads(net, x, y, legal, level)
            p[idx] = old
            assert (up - down) / 2e-2 == pytest.approx(float(g[idx]), rel=0.05, abs=1e-3)


def test_adam_fits_a_small_problem() -> None:
    rng = np.random.default_rng(1)
    net = Mlp.initial([3, 16, 2], rng, {})
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = np.stack([x[:, 0] - x[:, 1], x[:, 2]], axis=1).astype(np.float32)
    legal = np.ones_like(y, dtype=bool)
    adam = Adam(net, 0.01)
    first, _ = loss_and_grads(net, x, y, legal)
    for _ in range(300):
        _, g = loss_and_grads(net, x, y, legal)
        adam.step(g)
    last, _ = loss_and_grads(net, x, y, legal)
    assert last < first / 10


def test_evaluate_measures_points_lost() -> None:
    """A 'network' that knows the values loses nothing; one that prefers the worst card
    loses the difference."""
    s = play_samples("bela2", deals=3, seed=2)
    legal = ~np.isnan(s.values)
    exact = np.where(legal, s.values / 100, 0).astype(np.float32)

    class Known(Mlp):
        def forward(self, x: np.ndarray) -> np.ndarray:  # type: ignore[override]
            return self.table

    net = Known([np.zeros((1, 1), np.float32)], [np.zeros(1, np.float32)], {})
    net.table = exact  # type: ignore[attr-defined]
    assert evaluate(net, s) == {"rmse": pytest.approx(0, abs=1e-3), "regret": 0.0,
                                "best": 1.0}
    net.table = -exact  # type: ignore[attr-defined]
    worst = evaluate(net, s)
    assert worst["regret"] > 0 and worst["best"] < 1


def test_training_folder_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    cfg = TrainConfig(variant="bela2", iterations=1, deals=30, epochs=2, hidden=[16])
    first = Trainer(folder, cfg)
    scores = first.run()
    assert set(scores) == {"rmse", "regret", "best"}
    assert first.model_path.exists() and (folder / "model-000.npz").exists()
    rows = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2]
    chunks = sorted((folder / "data").iterdir())
    assert len(chunks) == 2  # 30 deals: chunks of 25 and 5
    stamp = [c.stat().st_mtime_ns for c in chunks]

    more = Trainer(folder, TrainConfig(variant="bela2", iterations=2, deals=30, epochs=2,
                                       hidden=[16]))
    assert (more.iteration, more.epoch) == (1, 0)
    assert np.allclose(more.net.ws[0], first.net.ws[0])
    more.run()
    assert [c.stat().st_mtime_ns for c in chunks] == stamp  # the first positions are kept
    assert len(list((folder / "data").iterdir())) == 4
    nets = load_models(more.model_path)
    assert nets["play"].meta["iteration"] == nets["bid"].meta["iteration"] == 2
    with pytest.raises(TrainingError, match="with hidden"):
        Trainer(folder, TrainConfig(variant="bela2", hidden=[8]))
    with pytest.raises(TrainingError, match="explore"):
        Trainer(tmp_path / "u", TrainConfig(explore=2.0))


def test_train_command(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "cli"
    args = ["train", str(folder), "--variant", "belot2", "--iterations", "1", "--deals", "10",
            "--epochs", "1", "--hidden", "16", "--workers", "1"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "learned:model=" in r.output
    net = load_models(folder / "model.npz")["play"]
    assert net.meta["variant"] == "belot2" and net.sizes == [feature_size("belot2"), 16, 32]
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "larger --iterations" in again.output
    more = runner.invoke(app, ["train", str(folder), "--iterations", "2", "--workers", "1"])
    assert more.exit_code == 0, more.output  # the folder's own variant and network
    assert load_models(folder / "model.npz")["play"].meta["iteration"] == 2
    other = runner.invoke(app, ["train", str(folder), "--iterations", "3", "--seed", "5"])
    assert other.exit_code == 1 and "trains with seed 0, not 5" in other.output
    bad = runner.invoke(app, ["train", str(tmp_path / "x"), "--hidden", "a,b"])
    assert bad.exit_code != 0 and "not a list of numbers" in bad.output


def test_train_command_on_the_score(tmp_path: Path) -> None:
    """``--target score`` labels the cards with score margins; the model says so (the
    learned bot and pimc's prior read it) and the folder keeps its target."""
    from bela.bots.learned import LearnedBot

    runner = CliRunner()
    folder = tmp_path / "score"
    args = ["train", str(folder), "--variant", "bela2", "--iterations", "1", "--deals", "8",
            "--epochs", "1", "--hidden", "16", "--workers", "1", "--target", "score"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    net = load_models(folder / "model.npz")["play"]
    assert net.meta["target"] == "score"
    assert LearnedBot(0, model=str(folder / "model.npz")).target("bela2") == "score"
    assert json.loads((folder / "config.json").read_text())["target"] == "score"
    other = runner.invoke(app, ["train", str(folder), "--iterations", "2", "--target",
                                "points"])
    assert other.exit_code == 1 and "trains with target 'score'" in other.output
    bad = runner.invoke(app, ["train", str(tmp_path / "b3"), "--variant", "bela3",
                              "--target", "score"])
    assert bad.exit_code == 1 and "two sides" in bad.output


def test_the_level_of_the_values_counts_less_than_their_differences() -> None:
    rng = np.random.default_rng(3)
    net = Mlp.initial([4, 6, 3], rng, {})
    x = rng.standard_normal((5, 4)).astype(np.float32)
    out = net.forward(x)
    legal = np.ones((5, 3), dtype=bool)
    shifted, _ = loss_and_grads(net, x, out + 1.0, legal, level=0.1)  # only the level is off
    assert shifted == pytest.approx(0.1, rel=1e-4)
    spread = out.copy()
    spread[:, 0] += 1.5
    spread[:, 1] -= 1.5  # the same mean, other differences
    differ, _ = loss_and_grads(net, x, spread, legal, level=0.1)
    assert differ == pytest.approx(1.5, rel=1e-4)
    _, grads = loss_and_grads(net, x, out + 1.0, legal, level=0.1)
    _, plain = loss_and_grads(net, x, out + 1.0, legal)
    assert np.allclose(grads[-1], 0.1 * plain[-1], atol=1e-6)


@pytest.mark.parametrize("layout", [{}, {"features": 1}], ids=["none-kept", "layout-1"])
def test_a_folder_of_another_feature_layout_is_refused(tmp_path: Path,
                                                       layout: dict[str, int]) -> None:
    """A folder whose config.json keeps another feature layout, or none (those were
    trained on layout 1), is refused with a clear error: its positions have another layout.
    A folder the trainer writes keeps today's layout and resumes."""
    from dataclasses import asdict

    from bela.bots.learned.features import FEATURES_VERSION
    from bela.training.train import TrainConfig, TrainingError, resolve_config

    old = tmp_path / "old"
    old.mkdir()
    (old / "config.json").write_text(json.dumps({**asdict(TrainConfig(variant="bela2")),
                                                 **layout}))
    with pytest.raises(TrainingError, match="feature layout 1; .* start a new folder"):
        resolve_config(old, {"iterations": 9})
    new = tmp_path / "new"
    Trainer(new, TrainConfig(variant="bela2", iterations=1, deals=1, epochs=1))
    assert json.loads((new / "config.json").read_text())["features"] == FEATURES_VERSION
    assert resolve_config(new, {"iterations": 9}).iterations == 9

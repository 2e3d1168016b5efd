"""The learned bot's network trained from the vector environment's games
(``bela train --source vector``, :mod:`bela.training.vector`): the games replay through the
engine into the trainer's labelled positions, a short run makes a model the learned bot
plays, and its fit beats the untrained network on held-out positions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

from bela.bots import make_bot  # noqa: E402
from bela.bots.learned import Mlp, load_models  # noqa: E402
from bela.bots.learned.features import feature_size  # noqa: E402
from bela.cli.main import app  # noqa: E402
from bela.engine import Match  # noqa: E402
from bela.engine.actions import Play  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.rl.vector.a2c import PgConfig, save_policy, train  # noqa: E402
from bela.training.data import Labeller, Samples  # noqa: E402
from bela.training.train import TrainConfig, Trainer, TrainingError, evaluate  # noqa: E402
from bela.training.vector import label_chunk, play_games  # noqa: E402


@pytest.mark.parametrize("variant", ["bela4", "bela3", "belot2"])
def test_the_games_replay_into_the_positions_the_engines_own_play_gives(variant: str) -> None:
    """Each chunk holds whole deals that end with their actions; labelling a chunk keeps
    exactly the positions a :class:`Labeller` keeps along the same play in the engine."""
    chunks, speed = play_games(variant, deals=7, batch=3, policy="greedy", seed=4,
                               explore=0.2, chunk=4)
    assert [len(c.labelled) for c in chunks] == [4, 3] and speed["deals"] == 7
    assert speed["steps"] > 0
    again, _ = play_games(variant, deals=7, batch=3, policy="greedy", seed=4, explore=0.2,
                          chunk=4)
    assert again == chunks  # the same seed, the same games
    chunk = chunks[1]
    got = label_chunk(variant, chunk, seed=2)
    labels = Labeller(variant, 2)
    from bela.rl.spaces import ActionSpace

    space = ActionSpace.for_variant(variant)
    for m, deals in enumerate(chunk.matches):
        match = Match(variant)
        for i, d in enumerate(deals):
            rnd = match.deal(d.hands, d.extra, dealer=d.dealer)
            for a in d.actions:
                view = seat_view(match, rnd.turn)
                if (m, i) in chunk.labelled:
                    labels.record(rnd, view)
                match.apply(space.action(a, view))
            assert rnd.is_over
    want = labels.samples()
    assert len(got) == len(want) > 0
    assert np.array_equal(got.x, want.x)
    assert np.array_equal(got.values, want.values, equal_nan=True)
    assert np.array_equal(got.bid_y, want.bid_y)


def test_a_short_vector_run_trains_a_model_the_learned_bot_plays(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    cfg = TrainConfig(variant="bela2", iterations=1, deals=120, epochs=3, hidden=[16],
                      source="vector", vector_batch=32, seed=1)
    trainer = Trainer(folder, cfg)
    untrained = Mlp([w.copy() for w in trainer.net.ws], [b.copy() for b in trainer.net.bs],
                    trainer.net.meta)
    scores = trainer.run()
    _, held = trainer.positions(0)
    assert len(held) > 20
    assert scores["rmse"] < evaluate(untrained, held)["rmse"]
    rows = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    speed = rows[0]
    assert speed["source"] == "vector" and speed["deals"] == 120 and speed["positions"] > 0
    assert [r["epoch"] for r in rows[1:]] == [1, 2, 3]
    nets = load_models(trainer.model_path)
    meta = nets["play"].meta
    assert (meta["source"], meta["variant"], meta["target"], meta["iteration"]) == (
        "vector", "bela2", "points", 1)
    assert nets["play"].sizes == [feature_size("bela2"), 16, 32] and "bid" in nets
    bot = make_bot(f"learned:model={trainer.model_path}", 3)
    match = Match("bela2", seed=5)
    rnd = match.deal()
    cards = 0
    while not rnd.is_over:
        view = seat_view(match, rnd.turn)
        action = bot.act(view)
        assert action in view.legal
        cards += isinstance(action, Play)
        match.apply(action)
    assert cards > 0
    with pytest.raises(TrainingError, match="with source 'vector'"):
        Trainer(folder, TrainConfig(variant="bela2", hidden=[16], seed=1, source="bots"))


def test_the_players_may_be_a_policy_network_of_the_a2c_example(tmp_path: Path) -> None:
    policy, _ = train(PgConfig(variant="bela2", envs=4, steps=2, iterations=1, hidden=8,
                               eval_steps=2))
    path = tmp_path / "policy.npz"
    save_policy(path, policy)
    chunks, _ = play_games("bela2", deals=3, batch=4, policy=policy, seed=1)
    assert len(label_chunk("bela2", chunks[0], seed=1)) > 0
    cfg = TrainConfig(variant="bela2", iterations=1, deals=3, epochs=1, hidden=[8],
                      source="vector", vector_players=str(path), vector_batch=4)
    assert Trainer(tmp_path / "p", cfg).run() == {}  # too few deals to hold any out
    with pytest.raises(TrainingError, match="random, greedy or a policy file"):
        Trainer(tmp_path / "q", TrainConfig(source="vector", vector_players="heuristic"))
    with pytest.raises(TrainingError, match="source must be bots or vector"):
        Trainer(tmp_path / "r", TrainConfig(source="gym"))


def test_train_command_from_the_vector_env(tmp_path: Path) -> None:
    folder = tmp_path / "cli"
    r = CliRunner().invoke(app, [
        "train", str(folder), "--variant", "belot2", "--iterations", "1", "--deals", "30",
        "--epochs", "1", "--hidden", "8", "--workers", "1", "--source", "vector",
        "--vector-players", "random", "--vector-batch", "16"])
    assert r.exit_code == 0, r.output
    assert "deals (" in r.output and "positions labelled" in r.output
    assert Samples.load(sorted((folder / "data").iterdir())[0]).variant == "belot2"
    assert load_models(folder / "model.npz")["play"].meta["source"] == "vector"

"""``bela arena``: duplicate deals between two bots from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bela.bots import BOTS
from bela.bots.duplicate import duplicate_match, game_score, seatings
from bela.cli import arena as arena_module
from bela.cli.arena import arena, split_bots
from bela.cli.main import app as bela_app
from failing_bots import BrokenInPlay

app = typer.Typer()
app.command()(arena)
runner = CliRunner()

JSON_KEYS = {"mean", "ci95", "deals", "variant", "bots", "sd", "games", "wins", "draws",
             "losses", "elo", "elo_ci95", "seconds", "workers", "moves", "failures",
             "first_failures", "seat", "diffs"}
PIMC = "pimc:samples=2,bid_samples=1,budget=0.01"


def run_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_json(variant: str) -> None:
    out = run_json("--variant", variant, "--deals", "5", "--seed", "3")
    assert JSON_KEYS <= set(out)
    assert out["deals"] == 5 and out["variant"] == variant
    assert out["bots"] == ["heuristic", "random"]
    assert out["games"] == 5 * len(seatings(variant))
    lo, hi = out["ci95"]
    assert lo <= out["mean"] <= hi and out["sd"] >= 0 and out["seconds"] >= 0
    assert out["wins"] + out["draws"] + out["losses"] == 5
    elo_lo, elo_hi = out["elo_ci95"]
    assert elo_lo <= out["elo"] <= elo_hi and out["workers"] >= 1
    assert len(out["diffs"]) == 5 and sum(out["diffs"]) / 5 == pytest.approx(out["mean"])
    assert out["seat"] is None
    again = run_json("--variant", variant, "--deals", "5", "--seed", "3")
    assert again["mean"] == out["mean"]


def test_one_seats_games_are_those_of_the_full_run() -> None:
    """``--seat N`` plays only the games where A holds seat N (bela3 0: A as the caller,
    R26), each exactly as in the full run: the three bela3 seats' runs add up to it deal
    by deal, also over processes."""
    full = duplicate_match("heuristic", "random", 6, seed=5, variant="bela3")
    parts = [duplicate_match("heuristic", "random", 6, seed=5, variant="bela3", seat=s,
                             workers=2 if s else 1) for s in range(3)]
    assert all(p.games == 6 and p.per_deal == 1 and p.seat == s for s, p in enumerate(parts))
    assert [sum(d) for d in zip(*(p.diffs for p in parts))] == pytest.approx(list(full.diffs))
    bela4 = duplicate_match("heuristic", "random", 4, seed=5, seat=1)
    assert bela4.games == 4 and bela4.per_deal == 1
    out = run_json("--variant", "bela3", "--deals", "6", "--seed", "5", "--seat", "0")
    assert out["seat"] == 0 and out["games"] == 6 and out["diffs"] == list(parts[0].diffs)
    shown = runner.invoke(app, ["--variant", "bela3", "--deals", "2", "--seat", "0"])
    assert shown.exit_code == 0 and "only A's games at seat 0" in shown.output


def test_a_seat_the_variant_has_not_is_refused() -> None:
    bad = runner.invoke(app, ["--variant", "bela2", "--deals", "2", "--seat", "2"])
    assert bad.exit_code != 0 and "bela2 has seats 0 .. 1" in bad.output
    with pytest.raises(ValueError, match="seat must be 0 .. 2"):
        duplicate_match("heuristic", "random", 1, seed=0, variant="bela3", seat=3)


def test_parallel_equals_serial() -> None:
    serial = duplicate_match("heuristic", "random", 12, seed=9, workers=1)
    parallel = duplicate_match("heuristic", "random", 12, seed=9, workers=2)
    assert parallel.workers == 2 and serial.workers == 1
    assert parallel.diffs == serial.diffs and parallel.mean == serial.mean
    seen: list[tuple[int, int]] = []
    bela3 = duplicate_match("random", "heuristic", 7, seed=4, variant="bela3", workers=3,
                            progress=lambda done, total: seen.append((done, total)))
    assert bela3.diffs == duplicate_match("random", "heuristic", 7, seed=4,
                                          variant="bela3").diffs
    assert seen[-1] == (7, 7) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    one, two = (run_json("--deals", "6", "--seed", "5", "--variant", "bela2", "--workers", w)
                for w in ("1", "2"))
    assert one["workers"] == 1 and two["workers"] == 2
    for key in JSON_KEYS - {"seconds", "workers"}:
        assert one[key] == two[key], key


def test_elo_sign_and_match_wins() -> None:
    ab = run_json("--bots", "heuristic,random", "--deals", "12", "--seed", "1", "--workers", "1")
    ba = run_json("--bots", "random,heuristic", "--deals", "12", "--seed", "1", "--workers", "1")
    assert ab["mean"] > 0 and ab["elo"] > 0 and ab["wins"] > ab["losses"]
    assert ba["mean"] == -ab["mean"] and ba["elo"] == pytest.approx(-ab["elo"])
    assert (ba["wins"], ba["draws"], ba["losses"]) == (ab["losses"], ab["draws"], ab["wins"])
    same = run_json("--bots", "heuristic,heuristic", "--deals", "3", "--workers", "1")
    assert same["draws"] == 3 and same["elo"] == 0 and same["mean"] == 0


def test_pimc_spec_with_settings() -> None:
    out = run_json("--bots", f"{PIMC},heuristic", "--deals", "2", "--seed", "7")
    assert out["bots"] == [PIMC, "heuristic"] and out["deals"] == 2 and out["games"] == 4
    assert isinstance(out["mean"], (int, float)) and len(out["ci95"]) == 2


def test_split_bots() -> None:
    assert split_bots("a,b") == ["a", "b"]
    assert split_bots(f"heuristic,{PIMC}") == ["heuristic", PIMC]
    assert split_bots("pimc:samples=2;ismcts:iterations=5,x=1") == [
        "pimc:samples=2", "ismcts:iterations=5,x=1"]


def test_record_dir_replays(tmp_path: Path) -> None:
    out_dir = tmp_path / "games" / "bela4"
    out = run_json("--deals", "3", "--seed", "2", "--record", str(out_dir))
    files = sorted(out_dir.glob("deal-*.json"))
    assert [f.name for f in files] == [f"deal-0000{d}-game-{g}.json"
                                       for d in (1, 2, 3) for g in (1, 2)]
    assert json.loads((out_dir / "arena.json").read_text())["mean"] == out["mean"]
    total = 0.0
    for f in files:
        record = json.loads(f.read_text())
        game = int(f.stem[-1]) - 1
        a_seats = seatings("bela4")[game]
        assert record["players"] == ["heuristic" if s in a_seats else "random"
                                     for s in range(4)]
        scored = runner.invoke(bela_app, ["score", str(f), "--json"])
        assert scored.exit_code == 0, scored.output
        total += game_score(json.loads(scored.stdout)["totals"], a_seats, "bela4")
    assert total / 3 == pytest.approx(out["mean"])


def test_record_bela3_serial(tmp_path: Path) -> None:
    run_json("--variant", "bela3", "--deals", "1", "--record", str(tmp_path), "--workers", "1")
    files = sorted(tmp_path.glob("deal-*.json"))
    assert len(files) == 3
    for f in files:
        assert runner.invoke(bela_app, ["score", str(f)]).exit_code == 0


def test_defaults_and_text() -> None:
    result = runner.invoke(app, ["--deals", "3", "--bots", "random,heuristic"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for word in ("mean (A - B)", "match wins", "Elo (A - B)", "workers", "bela4",
                 "bot failures"):
        assert word in text
    assert "Warning" not in result.output
    line = text.strip().splitlines()[-1]
    assert line.startswith("random vs heuristic (bela4):") and "95% CI" in line
    assert "3 deals = 6 games" in line


@pytest.mark.parametrize("args, word", [
    (["--bots", "heuristic"], "A,B"),
    (["--bots", "heuristic,nobody"], "unknown bot"),
    (["--bots", "heuristic,pimc:samples"], "bad bot setting"),
    (["--bots", "heuristic,random:speed=3"], "bad settings"),
    (["--variant", "bela5"], "unknown variant"),
    (["--deals", "0"], "deals"),
    (["--workers", "0"], "workers"),
    (["--ray", "127.0.0.1:1"], "cannot reach"),
])
def test_bad_options(args: list[str], word: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert word in result.output
    assert "Traceback" not in result.output


def test_record_path_is_a_file(tmp_path: Path) -> None:
    f = tmp_path / "x"
    f.write_text("")
    result = runner.invoke(app, ["--deals", "1", "--record", str(f)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_ray_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena_module, "ray_available", lambda: False)
    result = runner.invoke(app, ["--deals", "1", "--ray", "local"])
    assert result.exit_code == 2 and "Ray is not installed" in result.output


def test_failing_bot_is_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("worker died")

    monkeypatch.setattr(arena_module, "duplicate_match", boom)
    result = runner.invoke(app, ["--deals", "1"])
    assert result.exit_code == 1 and "worker died" in result.output
    assert "Traceback" not in result.output


def test_progress_bar() -> None:
    r = arena_module._run("heuristic", "random", "bela2", 4, 0, bar=True)
    assert r.n == 4 and r.variant == "bela2"
    r2 = arena_module._run("heuristic", "random", "bela2", 4, 0, bar=True, workers=2)
    assert r2.diffs == r.diffs


def test_ray_local() -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        out = run_json("--deals", "4", "--seed", "6", "--variant", "belot2", "--ray", "auto")
        assert ray.is_initialized()  # the arena leaves a cluster it did not start running
    finally:
        ray.shutdown()
    assert out["workers"] == 1
    serial = duplicate_match("heuristic", "random", 4, seed=6, variant="belot2")
    assert out["mean"] == serial.mean and out["deals"] == 4


def test_a_failing_bot_is_counted_and_warned(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setitem(BOTS, "broken", BrokenInPlay)  # in this process: --workers 1
    args = ["--bots", "random,broken", "--deals", "2", "--seed", "4", "--workers", "1"]
    result = runner.invoke(app, [*args, "--json", "--record", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["failures"][0] == 0 and 0 < out["failures"][1] < out["moves"][1]
    assert out["first_failures"] == [None, "RuntimeError: out of its depth"]
    assert json.loads((tmp_path / "arena.json").read_text())["failures"] == out["failures"]
    warning = result.stderr.strip()
    assert warning.startswith(f"Warning: bot B (broken) failed on {out['failures'][1]} of "
                              f"its {out['moves'][1]} moves") and "RuntimeError" in warning
    text = runner.invoke(app, args)
    assert text.exit_code == 0 and "Traceback" not in text.output
    assert f"A 0 / B {out['failures'][1]} moves made by the fallback" in text.stdout
    assert "Warning: bot B (broken)" in text.stderr


def test_no_warning_without_failures() -> None:
    result = runner.invoke(app, ["--deals", "2", "--workers", "1", "--json"])
    out = json.loads(result.stdout)
    assert out["failures"] == [0, 0] and out["first_failures"] == [None, None]
    assert min(out["moves"]) > 0 and result.stderr == ""


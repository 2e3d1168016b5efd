"""``bela solve``, ``bela review`` and the ``hint`` command of ``bela play``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bela.cli.main import app
from bela.engine.record import read_record, replay
from bela.solver.dd import solve as dd_solve

runner = CliRunner()


@pytest.fixture(scope="module")
def match_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "match.json"
    result = runner.invoke(app, ["play", "--all-bots", "--seed", "11", "--bot", "heuristic",
                                 "--target", "150", "--record", str(path)])
    assert result.exit_code == 0
    return path


def cut(record: Path, out: Path, actions: int) -> Path:
    data = json.loads(record.read_text())
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:actions]
    out.write_text(json.dumps(data))
    return out


@pytest.mark.parametrize("actions", [6, 9, 17])
def test_solve_json_gives_the_solver_values_of_every_legal_card(
        match_record: Path, tmp_path: Path, actions: int) -> None:
    part = cut(match_record, tmp_path / "part.json", actions)
    result = runner.invoke(app, ["solve", str(part), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    rnd = replay(read_record(part.read_text())).round
    assert out["seat"] == rnd.turn
    legal = {str(a.card) for a in rnd.legal_actions() if hasattr(a, "card")}
    assert set(out["values"]) == legal
    exact = dd_solve(rnd, line=False)
    assert out["values"] == {str(c): v for c, v in exact.values.items()}


def test_solve_plain_shows_values_and_the_best_line(match_record: Path, tmp_path: Path) -> None:
    part = cut(match_record, tmp_path / "part.json", 9)
    result = runner.invoke(app, ["solve", str(part)])
    assert result.exit_code == 0
    assert "Best line, trick by trick:" in result.stdout and "*" in result.stdout


def test_solve_refuses_a_record_not_in_the_play(match_record: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["solve", str(match_record), "--json"])
    assert result.exit_code == 1
    assert "during the play" in json.loads(result.stdout)["error"]["reason"]
    bidding = cut(match_record, tmp_path / "bid.json", 0)
    assert runner.invoke(app, ["solve", str(bidding)]).exit_code == 1


def test_review_lists_costly_plays_that_the_solver_confirms(match_record: Path) -> None:
    result = runner.invoke(app, ["review", str(match_record), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["plays"], "heuristic bots make some double-dummy mistakes"
    for p in out["plays"][:5]:
        best = min(p["values"].values()) if p["loss"] < 0 else max(p["values"].values())
        assert p["loss"] == best - p["values"][p["played"]] > 0
    assert sum(out["loss_by_seat"]) == sum(p["loss"] for p in out["plays"])
    plain = runner.invoke(app, ["review", str(match_record)])
    assert "Points lost by seat" in plain.stdout


def test_review_of_a_bad_record_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"variant": "bela4", "rounds": [{"dealer": 3, "hands": []}]}')
    result = runner.invoke(app, ["review", str(bad), "--json"])
    assert result.exit_code == 1 and "error" in json.loads(result.stdout)


def test_hint_in_play_shows_the_best_card_and_values() -> None:
    result = runner.invoke(app, ["play", "--seed", "4", "--bot", "random"],
                           input="hint\npass\n1\nhint\nq\n")
    assert "Hint:" in result.stdout
    assert "Estimated points your side takes" in result.stdout


# -- issue 38, item 10 -----------------------------------------------------------------------
def test_review_min_loss_keeps_the_totals_and_says_what_it_left_out(
        match_record: Path) -> None:
    full = json.loads(runner.invoke(app, ["review", str(match_record), "--json"]).stdout)
    worst = max(p["loss"] for p in full["plays"])
    above = json.loads(runner.invoke(
        app, ["review", str(match_record), "--json", "--min-loss", str(worst + 1)]).stdout)
    assert above["plays"] == [] and above["loss_by_seat"] == full["loss_by_seat"]
    plain = runner.invoke(app, ["review", str(match_record), "--min-loss", str(worst + 1)])
    out = " ".join(plain.stdout.split())
    assert "every card kept" not in out
    assert f"No play lost {worst + 1} points or more" in out and f"at most {worst}" in out
    assert "every costly play counted" in out


def test_solve_names_the_seats_and_prints_the_line_trick_by_trick(
        match_record: Path, tmp_path: Path) -> None:
    part = cut(match_record, tmp_path / "part.json", 9)
    out = runner.invoke(app, ["solve", str(part)]).stdout
    rnd = replay(read_record(part.read_text())).round
    assert rnd is not None
    tricks = [line for line in out.splitlines() if line.strip().startswith("trick ")]
    assert len(tricks) == 8 - len(rnd.tricks)
    assert all(line.count(",") == len(rnd.hands) - 1 for line in tricks)
    assert "Seat " in out and "T" not in "".join(tricks).replace("trick", "")


def test_solve_on_a_finished_record_says_how_to_make_one(match_record: Path) -> None:
    result = runner.invoke(app, ["solve", str(match_record)])
    assert result.exit_code == 1
    rounds = len(json.loads(match_record.read_text())["rounds"])
    err = " ".join(result.output.split())
    assert f"round {rounds}:" in err and "done phase" not in err and "with q" in err

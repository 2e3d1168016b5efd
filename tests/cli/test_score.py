"""``bela score``: the score sheet and the RECORD.md ``--json`` contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bela.cli.main import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"  # the repository's own copy
runner = CliRunner()


def expected_fields(actual: object, expected: object) -> bool:
    """``expected`` holds only some of the keys ``actual`` must have (RECORD.md: other keys
    may be added)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and expected_fields(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(expected_fields(a, e) for a, e in zip(actual, expected)))
    return actual == expected


@pytest.mark.parametrize("name", sorted(p.name[:-5] for p in EXAMPLES.glob("*.json")
                                        if not p.name.endswith(".expected.json")))
def test_examples_json_contract(name: str) -> None:
    expected = json.loads((EXAMPLES / f"{name}.expected.json").read_text())
    result = runner.invoke(app, ["score", str(EXAMPLES / f"{name}.json"), "--json"])
    out = json.loads(result.stdout)
    assert expected_fields(out, expected), out
    assert result.exit_code == (1 if "error" in expected else 0)


def test_sheet_shows_rounds_outcome_and_totals() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLES / "bela4-pass-with-bela.json")])
    assert result.exit_code == 0
    out = result.stdout
    assert "made (prolaz)" in out and "165" in out and "17" in out
    assert "not over" in out


def test_illegal_action_plain_error_names_rule_and_position() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLES / "bela4-illegal-iber.json")])
    assert result.exit_code == 1
    assert "round 1, action 5" in result.stderr and "R17" in result.stderr  # from 1
    assert result.stdout == ""


def test_the_plain_error_writes_the_ten_as_10_and_the_json_keeps_the_token(
        tmp_path: Path) -> None:
    """Seat 0's 10♠ and seat 2's A♠ swapped: seat 2 must beat K♠ with 10♠ (R17)."""
    data = json.loads((EXAMPLES / "bela4-illegal-iber.json").read_text(encoding="utf-8"))
    hands = data["rounds"][0]["hands"]
    hands[0], hands[2] = hands[0].replace("TS", "AS"), hands[2].replace("AS", "TS")
    path = tmp_path / "ten.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    plain = runner.invoke(app, ["score", str(path)])
    assert "play 10♠" in plain.stderr and "TS" not in plain.stderr, plain.stderr
    out = json.loads(runner.invoke(app, ["score", str(path), "--json"]).stdout)
    assert out["error"]["reason"].endswith("play TS") and out["error"]["round"] == 0


@pytest.mark.parametrize("text, round_, action", [
    ("not json", None, None),
    ('{"variant": "bela5", "rounds": []}', None, None),
    ('{"variant": "bela4", "options": {"tie": "maybe"}, "rounds": []}', None, None),
    ('{"variant": "bela4", "rounds": [{"dealer": 3, "hands": ["JH"], "actions": []}]}', 0, None),
    ('{"variant": "bela4", "rounds": [{"dealer": 3, "hands": ["JS 7D 8C QC 7H TS KS QH", '
     '"QS AC TC KC JD QD 9S AH", "AS 9C AD 8H TD KD 8S 9D", "7C 8D JH 9H JC TH 7S KH"], '
     '"actions": ["pass", "hop"]}]}', 0, 1),
])
def test_bad_records_give_error_object(tmp_path: Path, text: str, round_: int | None,
                                       action: int | None) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    result = runner.invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 1
    err = json.loads(result.stdout)["error"]
    assert err["round"] == round_ and err["action"] == action and err["reason"]
    assert "Traceback" not in result.output


def test_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(tmp_path / "nope.json"), "--json"])
    assert result.exit_code == 1
    assert "cannot read" in json.loads(result.stdout)["error"]["reason"]


def test_unfinished_last_round_scores_nothing(tmp_path: Path) -> None:
    data = json.loads((EXAMPLES / "bela4-pass-with-bela.json").read_text())
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:10]
    path = tmp_path / "part.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["score", str(path), "--json"])
    out = json.loads(result.stdout)
    assert result.exit_code == 0
    assert out["rounds"][0]["outcome"] == "unfinished" and out["totals"] == [0, 0]


def test_bench_prints_rounds_per_second() -> None:
    result = runner.invoke(app, ["bench", "--seconds", "0.2"])
    assert result.exit_code == 0
    assert result.stdout.startswith("bela4: ") and "rounds/s" in result.stdout
    result = runner.invoke(app, ["bench", "--seconds", "0.2", "--json"])
    data = json.loads(result.stdout)
    assert data["rounds"] > 0 and data["actions"] > data["rounds"] * 32


def test_bela4_sheet_names_the_seats_and_shows_bela_points(tmp_path: Path) -> None:
    """N6: dealer and caller by name, the bela column as points per side (``20/0``, as the
    game's sheet), and the winner line ``bela play --all-bots`` prints."""
    rec = tmp_path / "m.json"
    played = runner.invoke(app, ["play", "--all-bots", "--seed", "7", "--record", str(rec)])
    assert played.exit_code == 0, played.output
    winner = [line for line in played.stdout.splitlines() if line.startswith("Winner: ")]
    assert winner == ["Winner: seats 0+2, totals 1022 : 432."]
    assert winner[0] in runner.invoke(app, ["score", str(rec)]).stdout.splitlines()

    data = json.loads(rec.read_text(encoding="utf-8"))
    names = ["You", "Right", "Partner", "Left"]
    data["players"] = names
    rec.write_text(json.dumps(data), encoding="utf-8")
    out = runner.invoke(app, ["score", str(rec)], env={"COLUMNS": None}).stdout  # 80 columns
    scored = json.loads(runner.invoke(app, ["score", str(rec), "--json"]).stdout)
    belas = 0
    for i, rd in enumerate(scored["rounds"], 1):
        row = re.search(rf"^ *{i} +(\S+) +(\S+) .*$", out, re.M)
        assert row is not None, out
        assert row.groups() == (names[rd["dealer"]], names[rd["caller"]]), row.group(0)
        bela = "/".join(map(str, rd["bela"])) if any(rd["bela"]) else "-"
        assert f" {bela} " in row.group(0), row.group(0)
        belas += bela != "-"
    assert belas >= 2  # the seed has rounds with bela
    assert "You & Partner" in out and "Right & Left" in out
    assert "Winner: You & Partner (seats 0+2), totals 1022 : 432." in out.splitlines()

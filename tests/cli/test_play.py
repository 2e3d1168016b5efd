"""``bela play``: bots-only matches, scripted human games, help, quitting, bad options.

A scripted human answers ``1`` at every prompt: the first bid of the menu, the first
declaration, the first playable card, "yes" to bela, "next round" between rounds.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bela.bots import BOTS
from bela.bots.driver import Driver
from bela.cli import play
from bela.cli.main import app
from bela.engine.actions import Action, Claim, Declare, Play, parse_action
from bela.engine.cards import iter_cards
from bela.engine.enums import Enforce, EqualDeclarations, Phase, Tie
from bela.engine.record import read_record, replay, score
from bela.engine.state import Match
from bela.engine.views import SeatView

runner = CliRunner()
ONES = "1\n" * 600


def run(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, ["play", *args], input=stdin)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_all_bots_record_replays_and_matches_the_printed_winner(tmp_path: Path) -> None:
    rec = tmp_path / "match.json"
    result = run(["--all-bots", "--seed", "3", "--bot", "random", "--record", str(rec)])
    assert result.exit_code == 0, result.output
    scored = score(replay(read_record(rec.read_text(encoding="utf-8"))))
    assert scored["winner"] is not None
    totals = " : ".join(map(str, scored["totals"]))
    seats = "+".join(str(s) for s in range(4) if s % 2 == scored["winner"])
    assert f"Winner: seats {seats}, totals {totals}." in result.output
    assert f"Record saved to {rec}" in result.output
    # a compact line per round, then the score sheet
    assert len(re.findall(r"^Round +\d+ ", result.output, re.M)) == len(scored["rounds"])
    assert "Score sheet" in result.output


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_same_seed_same_match(tmp_path: Path, bot: str) -> None:
    if bot not in BOTS:
        pytest.skip(f"no {bot} bot registered")
    records = []
    for i in range(2):
        rec = tmp_path / f"r{i}.json"
        result = run(["--all-bots", "--seed", "11", "--bot", bot, "--record", str(rec)])
        assert result.exit_code == 0, result.output
        records.append(rec.read_text(encoding="utf-8"))
    assert records[0] == records[1]
    other = tmp_path / "other.json"
    run(["--all-bots", "--seed", "12", "--bot", bot, "--record", str(other)])
    assert other.read_text(encoding="utf-8") != records[0]


def test_record_is_pretty_utf8_json_with_players(tmp_path: Path) -> None:
    rec = tmp_path / "m.json"
    run(["--all-bots", "--seed", "4", "--bot", "random", "--target", "200", "--tie", "hang",
         "--record", str(rec)])
    text = rec.read_text(encoding="utf-8")
    assert text.startswith("{\n  ")
    data = json.loads(text)
    assert data["variant"] == "bela4"
    assert data["options"] == {"target": 200, "tie": "hang"}
    assert len(data["players"]) == 4 and data["seed"] == 4


def test_scripted_human_plays_a_whole_match(tmp_path: Path) -> None:
    rec = tmp_path / "human.json"
    result = run(["--seed", "2", "--target", "101", "--bot", "random", "--record", str(rec)],
                 ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Your bid:" in out and "Your card" in out
    assert "Trump is" in out and ("takes the trick" in out or "take the trick" in out)
    assert "Score sheet" in out and "win the match" in out
    match = replay(read_record(rec.read_text(encoding="utf-8")))
    assert match.is_over
    winner = "You and Partner" if match.winner == 0 else "Right and Left"
    assert f"{winner} win the match, {match.totals[0]} : {match.totals[1]}" in out
    assert load(rec)["players"] == ["You", "Right", "Partner", "Left"]


def test_before_the_bid_the_talon_is_hidden() -> None:
    result = run(["--seed", "1", "--bot", "random"], "q\n")
    assert result.exit_code == 0
    hand = next(line for line in result.output.splitlines() if line.startswith("Your hand:"))
    assert len(re.findall(r"(?:10|[789JQKA])[♥♦♠♣]", hand)) == 6
    assert "+2 talon cards" in hand


def prompts_before_illegal(data: dict[str, Any],
                           first_play: bool = False) -> tuple[int, str, list[str]] | None:
    """Replay a ``1``-scripted game: the number of answers given before the first card
    prompt at which the human held a card the rules forbid, that card and the legal ones
    (with ``first_play``: before the human's first card, and the card played)."""
    record = read_record(data)
    m = Match(record.variant, record.options, first_dealer=record.rounds[0].dealer)
    answers = 0
    for rr in record.rounds:
        rnd = m.deal(rr.hands, rr.deal_extra, dealer=rr.dealer)
        for token in rr.actions:
            action = parse_action(token)
            if rnd.turn == 0 and not isinstance(action, Claim):
                if isinstance(action, Play) and first_play:
                    return answers, str(action.card), []
                if isinstance(action, Play):
                    illegal = rnd.hands[0] & ~rnd.legal_cards()
                    if illegal:
                        legal = [str(c) for c in iter_cards(rnd.legal_cards())]
                        return answers, str(next(iter_cards(illegal))), legal
                    answers += 2 if action.bela else 1  # the bela question
                elif isinstance(action, Declare):
                    answers += 1  # the declarations question, before the card
                else:
                    answers += 1  # a bid
            m.apply(action)
        if not m.is_over:
            answers += 1  # "Enter for the next round"
    return None


def test_illegal_card_is_explained_and_asked_again(tmp_path: Path) -> None:
    for seed in range(1, 40):
        first = tmp_path / f"first{seed}.json"
        args = ["--seed", str(seed), "--target", "101", "--bot", "random"]
        assert run([*args, "--record", str(first)], ONES).exit_code == 0
        found = prompts_before_illegal(load(first))
        if found:
            break
    else:
        pytest.fail("no scripted game offered an illegal card")
    answers, card, legal = found
    second = tmp_path / "second.json"
    script = "1\n" * answers + card.lower() + "\n" + ONES
    result = run([*args, "--record", str(second)], script)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Not allowed:" in out
    line = next(line for line in out.splitlines() if "Not allowed:" in line)
    assert re.search(r"\(R1[789]\)", line), line
    assert "Allowed:" in line
    after = out[out.index("Not allowed:"):]
    assert "Your card" in after  # asked again, and the game went on unchanged
    assert load(second)["rounds"] == load(first)["rounds"]


def test_question_mark_shows_help_and_q_quits_saving_the_record(tmp_path: Path) -> None:
    rec = tmp_path / "quit.json"
    result = run(["--seed", "5", "--bot", "random", "--record", str(rec)], "?\n1\n1\nq\n")
    assert result.exit_code == 0, result.output
    assert "How to play" in result.output
    assert "You left the match." in result.output
    assert f"Record saved to {rec}" in result.output
    match = replay(read_record(rec.read_text(encoding="utf-8")))  # an unfinished last round
    assert not match.is_over and match.round is not None and not match.round.is_over
    assert score(match)["rounds"][-1]["outcome"] == "unfinished"


def test_end_of_input_stops_and_saves(tmp_path: Path) -> None:
    rec = tmp_path / "eof.json"
    result = run(["--seed", "6", "--bot", "random", "--record", str(rec)], "pass\n")
    assert result.exit_code == 1
    assert "Input ended" in result.output and f"Record saved to {rec}" in result.output
    data = load(rec)
    assert data["rounds"][0]["actions"][0] == "pass"
    replay(read_record(data))


def test_bids_by_name_and_cards_by_code(tmp_path: Path) -> None:
    rec = tmp_path / "names.json"
    # seat 0 bids first in round 1: call hearts by its Croatian name
    result = run(["--seed", "8", "--bot", "random", "--record", str(rec)], "herc\nq\n")
    assert result.exit_code == 0, result.output
    assert load(rec)["rounds"][0]["actions"][0] == "H"
    result = run(["--seed", "8", "--bot", "random", "--record", str(rec)], "dalje\nq\n")
    assert load(rec)["rounds"][0]["actions"][0] == "pass"
    assert "You: pass" in result.output
    run(["--seed", "8", "--bot", "random", "--record", str(rec)], "pik\nq\n")
    assert load(rec)["rounds"][0]["actions"][0] == "S"
    run(["--seed", "8", "--bot", "random", "--record", str(rec)], "♦\nq\n")
    assert load(rec)["rounds"][0]["actions"][0] == "D"


def test_claims_with_enforce_off(tmp_path: Path) -> None:
    rec = tmp_path / "claim.json"
    result = run(["--seed", "5", "--bot", "random", "--target", "300", "--enforce", "off",
                  "--record", str(rec)], "claim\n1\n" * 400)
    assert result.exit_code == 0, result.output
    assert "R24" in result.output
    data = load(rec)
    assert data["options"]["enforce"] == "off"
    assert any("claim 0" in rd["actions"] for rd in data["rounds"])
    assert replay(read_record(data)).is_over


def test_claim_is_refused_with_enforce_on(tmp_path: Path) -> None:
    result = run(["--seed", "5", "--bot", "random"], "1\nclaim\nq\n")
    assert "Not allowed:" in result.output and "R24" in result.output


def test_unknown_variant_is_refused() -> None:
    result = run(["--variant", "bela5", "--all-bots", "--seed", "1"])
    assert result.exit_code != 0
    assert "unknown variant" in " ".join(result.output.split())


def test_unknown_bot_is_refused() -> None:
    result = run(["--bot", "nobody", "--all-bots", "--seed", "1"])
    assert result.exit_code != 0
    assert "unknown bot" in " ".join(result.output.split())


def test_a_bot_spec_with_settings_is_played_and_checked(tmp_path: Path) -> None:
    """``--bot learned:model=FILE`` (what ``bela train`` prints) plays that model; a
    missing model file or a bad setting is refused before the match."""
    import numpy as np

    from bela.bots.learned import Mlp, save_models
    from bela.bots.learned.features import FEATURES_VERSION, feature_size

    path = tmp_path / "m.npz"
    save_models(path, {"play": Mlp.initial([feature_size("bela4"), 8, 32],
                                           np.random.default_rng(0),
                                           {"variant": "bela4", "features": FEATURES_VERSION})})
    result = run(["--all-bots", "--seed", "2", "--target", "101", "--bot",
                  f"learned:model={path}"])
    assert result.exit_code == 0, result.output
    assert "failed" not in result.output
    missing = run(["--all-bots", "--seed", "2", "--bot", f"learned:model={tmp_path / 'x'}"])
    assert missing.exit_code != 0 and "no model file" in " ".join(missing.output.split())
    bad = run(["--all-bots", "--seed", "2", "--bot", "pimc:samples"])
    assert bad.exit_code != 0 and "bad bot setting" in " ".join(bad.output.split())


def test_default_bot_falls_back_when_heuristic_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(BOTS, "heuristic", raising=False)
    result = run(["--all-bots", "--seed", "1", "--target", "101"])
    assert result.exit_code == 0, result.output
    assert "heuristic bot is not available" in result.output


@pytest.mark.parametrize("style", ["lower", "ten", "symbol"])
def test_cards_by_code_in_any_spelling(tmp_path: Path, style: str) -> None:
    args = ["--seed", "9", "--target", "101", "--bot", "random"]
    first = tmp_path / "first.json"
    assert run([*args, "--record", str(first)], ONES).exit_code == 0
    found = prompts_before_illegal(load(first), first_play=True)
    assert found is not None
    answers, card, _ = found
    typed = {"lower": card.lower(), "ten": card.replace("T", "10").lower(),
             "symbol": card[0].lower() + "♥♦♠♣"["HDSC".index(card[1])]}[style]
    second = tmp_path / "second.json"
    result = run([*args, "--record", str(second)], "1\n" * answers + typed + "\n" + ONES)
    assert result.exit_code == 0, result.output
    assert load(second)["rounds"] == load(first)["rounds"]


# -- the table options are the engine's ------------------------------------------------------
def test_table_options_are_the_engines_enums() -> None:
    hints = typing.get_type_hints(play.play)
    for name, enum in (("equal_declarations", EqualDeclarations), ("tie", Tie),
                       ("enforce", Enforce)):
        assert typing.get_args(hints[name]) == (enum, type(None)), name


@pytest.mark.parametrize("option, value, key", [
    ("--equal-declarations", "cancel", "equal_declarations"),
    ("--equal-declarations", "earlier", None),  # the default: not written (RECORD.md)
    ("--tie", "hang", "tie"),
    ("--enforce", "off", "enforce"),
])
def test_table_options_accept_the_engines_values(tmp_path: Path, option: str, value: str,
                                                 key: str | None) -> None:
    rec = tmp_path / "options.json"
    result = run(["--all-bots", "--seed", "2", "--bot", "random", "--target", "101", option,
                  value, "--record", str(rec)])
    assert result.exit_code == 0, result.output
    options = load(rec)["options"]
    assert options == ({"target": 101, key: value} if key else {"target": 101})
    assert replay(read_record(load(rec))).options.as_dict()[option[2:].replace("-", "_")] == value


@pytest.mark.parametrize("option, value, choices", [
    ("--equal-declarations", "later", "'earlier', 'cancel'"),
    ("--tie", "visi", "'fall', 'hang'"),
    ("--tie", "HANG", "'fall', 'hang'"),  # the value, not the member's name
    ("--enforce", "maybe", "'on', 'off'"),
])
def test_table_options_refuse_other_values(option: str, value: str, choices: str) -> None:
    result = run(["--all-bots", "--seed", "1", option, value])
    assert result.exit_code == 2
    out = " ".join(result.output.replace("│", " ").split())
    assert f"Invalid value for '{option}'" in out and f"'{value}' is not one of {choices}" in out


# -- a failing bot: the driver's policy, warned once -----------------------------------------
class PlaysBadly:
    """Bids and discards legally, raises when it is to play (a bot with a bug)."""

    name = "broken"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, view: SeatView) -> Action:
        if view.phase == Phase.PLAY:
            raise RuntimeError("out of its depth")
        return view.legal[0]


@pytest.mark.parametrize("all_bots", [True, False])
def test_a_failing_bot_is_replaced_by_the_heuristic_bot_and_warned_once(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, all_bots: bool) -> None:
    monkeypatch.setitem(BOTS, "broken", PlaysBadly)
    rec = tmp_path / "broken.json"
    args = ["--seed", "3", "--bot", "broken", "--target", "101", "--record", str(rec)]
    result = run(["--all-bots", *args] if all_bots else args, None if all_bots else ONES)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert out.count("bot failed") == 1, out
    assert re.search(r"The broken bot failed at seat \d in the play phase \(RuntimeError: out "
                     r"of its depth\); where it fails, the heuristic bot chooses for it\.", out)
    assert "random legal" not in out
    match = replay(read_record(load(rec)))
    assert match.is_over
    if all_bots:  # the terminal's match is the driver's: its fallback, seeded the same way
        driven = Driver(Match("bela4", {"target": 101}, seed=3),
                        {s: PlaysBadly() for s in range(4)}).play_match()
        assert [r.log for r in driven.rounds] == [r.log for r in match.rounds]


@pytest.mark.parametrize("target", ["0", "5002"])
def test_a_target_out_of_its_range_is_refused_before_play(target: str) -> None:
    """R25's readings: a target from 1 to 5001, said in the help and refused alike."""
    result = runner.invoke(app, ["play", "--target", target], input="q\n")
    assert result.exit_code == 2
    assert "Invalid value for '--target'" in result.output
    assert "Your bid" not in result.output


def test_bots_claim_the_humans_proven_revoke(tmp_path: Path) -> None:
    """Issue 38 (N2): with ``--enforce off`` a human who plays the first card of his hand
    whatever the duties say revokes, his later cards prove it, and a bot opponent claims
    auzmeš at once; the terminal narrates the bot's claim and names the card."""
    rec = tmp_path / "revoke.json"
    result = run(["--seed", "21", "--bot", "heuristic", "--target", "300", "--enforce", "off",
                  "--record", str(rec)], "1\n" * 400)
    assert result.exit_code == 0, result.output
    data = load(rec)
    claims = [a for rd in data["rounds"] for a in rd["actions"] if a.startswith("claim")]
    assert claims and all(a in ("claim 1", "claim 3") for a in claims)
    out = " ".join(result.output.split())
    assert "claim auzmeš" in out or "claims auzmeš" in out
    assert "was right (your " in out
    assert replay(read_record(data)).is_over

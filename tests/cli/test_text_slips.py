"""The terminal's small text slips of issue 38, item 10: help texts per variant, the bela
rule of belot2, a one-letter suit that may not be called, the extras' install advice, the
commands' one-line help."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from bela.cli.main import app
from bela.cli.play.texts import can_pass, help_rows
from bela.cli.text import install_extra
from bela.engine.variants import get_variant

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def help_text(variant: str) -> str:
    return " ".join(text for _, text in help_rows(variant))


def test_bela3_help_does_not_offer_a_pass() -> None:
    assert not can_pass("bela3") and all(can_pass(v) for v in ("bela4", "bela2", "belot2"))
    assert "p is pass" not in help_text("bela3")
    assert "p is pass" in help_text("bela4")


def test_belot2_help_says_opened_card_and_one_player_hints() -> None:
    text = help_text("belot2")
    assert "turned" not in text and "opened card" in text
    assert "your side" not in text and "your side" in help_text("bela4")


def test_belot2_bela_reminder_cites_r37() -> None:
    assert get_variant("belot2").rule_ids.get("bela", "R14") == "R37"
    assert get_variant("bela4").rule_ids.get("bela", "R14") == "R14"


def test_bela2_forced_naming_letter_names_an_allowed_suit() -> None:
    """The dealer must name a suit other than the turned one (R31): a one-letter answer
    is told how to call a suit he may call, not the turned one."""
    from bela.cli import play
    from bela.cli.play.prompts import Quit
    from bela.engine.actions import PASS, Call
    from bela.engine.state import Match
    from bela.engine.views import seat_view

    for seed in range(40):  # a turned ♦ or ♣: h and s show the hand and the sheet
        match = Match("bela2", seed=seed)
        rnd = match.deal()
        while PASS in rnd.legal_actions():
            match.apply(PASS)
        view = seat_view(match, rnd.turn)
        allowed = {a.contract for a in view.legal if isinstance(a, Call)}
        banned = next(s for s in range(4) if s not in allowed)
        if banned in (1, 3):
            break
    answers = iter(["HDSC"[banned], "q"])
    console = Console(width=200, record=True, file=io.StringIO(), highlight=False, emoji=False)
    game = play.Game(match, {}, console, rnd.turn, ask=lambda prompt: next(answers))
    assert game.prompts is not None
    try:
        game.prompts.ask_bid(view)
    except Quit:
        pass
    said = next(line for line in console.export_text().splitlines()
                if "One letter is not a bid" in line)
    assert "♥♦♠♣"[banned] not in said, said


def test_extras_advice_names_the_clone_install() -> None:
    assert "pip install -e '.[server]'" in install_extra("server")
    assert "pip install 'bela[server]'" in install_extra("server")


def test_top_level_help_does_not_break_a_line_mid_sentence() -> None:
    out = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    line = next(x for x in out.splitlines() if " bench " in x)
    assert "actions/s, bot decision latency" in line


def test_play_help_lists_the_bot_levels() -> None:
    out = " ".join(runner.invoke(app, ["play", "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert all(level in out for level in ("beginner", "club", "expert", "master"))


def test_the_caller_made_it_is_never_called_pass() -> None:
    """prolaz is "made it" in the narration and "made" on the sheets: "pass" is dalje, a
    bid; the JSON keeps ``"outcome": "pass"`` (RECORD.md)."""
    out = runner.invoke(app, ["play", "--seed", "5", "--target", "301"],
                        input="1\n" * 200).output
    assert re.search(r"^(You and Partner|Right and Left) made it \(prolaz\): \d+ of \d+ "
                     r"points\.$", out, re.M), out
    assert not re.search(r"\b(pass|passes) \(prolaz\)", out)
    rows = re.findall(r"^ *\d+ +(?:You|Right|Partner|Left) .*$", out, re.M)  # the sheet
    assert any(" made " in row for row in rows) and not any(" pass " in row for row in rows)

    bots = runner.invoke(app, ["play", "--all-bots", "--seed", "7"]).output
    lines = re.findall(r"^Round +\d+ .*$", bots, re.M)
    assert any("  made " in line for line in lines)
    assert not any(" pass " in line for line in lines)

    record = str(EXAMPLES / "bela4-pass-with-bela.json")
    sheet = runner.invoke(app, ["score", record]).stdout
    assert "made (prolaz)" in sheet and " pass " not in sheet
    assert json.loads(runner.invoke(app, ["score", record, "--json"]).stdout)[
        "rounds"][0]["outcome"] == "pass"

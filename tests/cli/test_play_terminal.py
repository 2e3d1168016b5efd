"""``bela play`` and ``bela score`` as a newcomer meets them in a terminal (issue 8): hints
and the solver's warm-up, the ten written ``10``, one-letter input that cannot take back
an action, the bela3 discard prompts, narrow terminals and pipes, and the table talk
(announcements, ties of declarations, the trick on the table, the match score)."""

from __future__ import annotations

import builtins
import io
import itertools
import json
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bela import bots as bot_registry
from bela.cli import play
from bela.cli.main import app
from bela.cli.score import render_sheet
from bela.cli.text import card_text, pretty_codes
from bela.engine.actions import PASS, Action, Call, Discard, Play, parse_action
from bela.engine.cards import Card, CardSet
from bela.engine.declarations import find_declarations
from bela.engine.errors import IllegalAction
from bela.engine.record import read_record, replay, score
from bela.engine.state import Match
from bela.engine.views import seat_view

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CARD = r"(?:10|[789JQKA])[♥♦♠♣]"


def run(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, ["play", *args], input=stdin)


def flat(text: str) -> str:
    return " ".join(text.split())


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def game(variant: str = "bela4", width: int = 100, answers: list[str] | None = None,
         seed: int = 1, **options: Any) -> tuple[play.Game, Console]:
    """A Game with the human at seat 0, heuristic bots, and a recording console."""
    match = Match(variant, options, seed=seed)
    bots = {s: bot_registry.make_bot("heuristic", play.bot_seed(seed, s))
            for s in range(1, match.variant.seats)}
    console = Console(width=width, record=True, file=io.StringIO(), highlight=False,
                      emoji=False)
    it = iter(answers or [])
    return play.Game(match, bots, console, 0, ask=lambda prompt: next(it)), console


# -- 1. hints ---------------------------------------------------------------------------------
def test_hint_without_the_solver_names_the_missing_package(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_numpy(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                 level: int = 0) -> Any:
        if name.endswith("bots.pimc") or (level and name == "bots.pimc"):
            raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_numpy)
    result = run(["--seed", "4", "--bot", "random"], "pass\nhint\nq\n")  # a card's hint
    out = result.output
    assert "numpy" in out and "[ai]" not in out
    assert "pip install 'bela'" not in out  # the advice that could not work


class SlowWarmUp:
    """A stand-in for bela.solver.warm_up: works for ``seconds`` in its thread."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.threads: list[str] = []
        self.done = threading.Event()

    def warm_up(self, progress: Any = None) -> float:
        self.threads.append(threading.current_thread().name)
        if progress is not None:
            progress("compiling the solver (first time only, this can take a minute)")
        time.sleep(self.seconds)
        self.done.set()
        return self.seconds

    def is_warm(self) -> bool:
        return self.done.is_set()


@pytest.fixture
def slow_solver(monkeypatch: pytest.MonkeyPatch) -> SlowWarmUp:
    import bela.solver

    fake = SlowWarmUp(0.6)
    monkeypatch.setattr(bela.solver, "warm_up", fake.warm_up)
    monkeypatch.setattr(bela.solver, "is_warm", fake.is_warm)
    monkeypatch.setattr(play, "SOLVER", play.SolverWarmUp())
    from bela.bots.pimc import PimcBot

    monkeypatch.setattr(PimcBot, "advise", lambda self, view: (PASS, {}))
    return fake


def test_play_warms_the_solver_up_and_an_early_hint_says_so(slow_solver: SlowWarmUp) -> None:
    result = run(["--seed", "4", "--bot", "random"], "pass\nhint\nq\n")  # a card's hint
    assert result.exit_code == 0, result.output
    assert slow_solver.threads and slow_solver.threads[0] != threading.main_thread().name
    assert play.SOLVER.thread is not None and play.SOLVER.thread.daemon
    out = result.output
    assert "Preparing the solver (first time only)" in out
    assert out.index("Preparing the solver") < out.index("Hint: pass")
    assert slow_solver.done.is_set()  # the hint waited for it


def test_bots_only_match_does_not_warm_up(slow_solver: SlowWarmUp) -> None:
    result = run(["--all-bots", "--seed", "4", "--bot", "random", "--target", "101"])
    assert result.exit_code == 0
    assert slow_solver.threads == [] and play.SOLVER.thread is None


def test_hinted_card_is_the_best_of_the_values_shown() -> None:
    script = "hint\npass\n" + "hint\n1\n" * 8 + "q\n"
    result = run(["--seed", "4", "--bot", "random"], script)
    out = flat(result.output)
    assert "Estimated margin of each bid" in out  # the bidding hint gives its reason
    hints = re.findall(rf"Hint: play ({CARD})(?: with bela)?\. Estimated points your side "
                       rf"takes in the round \(most is best\): ([^.]*)\.", out)
    assert len(hints) >= 4, out
    for card, cells in hints:
        values = [(c, int(v)) for c, v in re.findall(rf"({CARD}) (-?\d+)", cells)]
        assert values[0][0] == card, cells  # the hinted card comes first ...
        assert values[0][1] == max(v for _, v in values), cells  # ... and is the best


def test_a_bela3_callers_hint_speaks_of_his_own_points() -> None:
    """In bela3 each player is his own side (R28): the caller's values are his points."""
    out = flat(run(["--variant", "bela3", "--seed", "5", "--bot", "random"],
                   "herc\n1 2\nhint\nq\n").output)
    assert re.search(rf"Hint: play {CARD}(?: with bela)?\. Estimated points you take in the "
                     rf"round \(most is best\)", out), out
    assert "your side" not in out


def test_a_bela3_defenders_hint_speaks_of_the_two_against_the_caller() -> None:
    """The search plays the caller's two opponents as one team: a defender's values are
    what the two take together."""
    from rich.console import Console

    from bela.cli.play.hints import SolverWarmUp, show_hint
    from bela.cli.play.screen import Screen
    from bela.cli.play.seating import Seating
    from bela.engine.views import seat_view

    m = Match("bela3", seed=5, options={"target": 5001})
    rnd = m.deal()
    while not (rnd.phase == "play" and rnd.turn != rnd.caller
               and sum(1 for a in rnd.legal_actions() if a.token()[0] in "789TJQKA") > 1):
        m.apply(rnd.legal_actions()[0])
    seat = rnd.turn
    console = Console(record=True, width=300)
    screen = Screen(console, m.variant, Seating.make(3, 3, seat))
    show_hint(screen, seat_view(m, seat), SolverWarmUp())
    out = flat(console.export_text())
    assert ("Estimated points you and the other player against the caller take together in "
            "the round (most is best)") in out, out


# -- 2. the ten is 10 -------------------------------------------------------------------------
@pytest.mark.parametrize("engine, people", [
    ("you must beat T♠ if you can", "you must beat 10♠ if you can"),
    ("you must beat TS if you can", "you must beat 10♠ if you can"),
    ("sequence of 4 to TD", "sequence of 4 to 10♦"),
    ("sequence of 4 to T", "sequence of 4, top 10"),
    ("sequence of 3 to 9", "sequence of 3, top 9"),
    ("sequence of 3, top 10", "sequence of 3, top 10"),
    ("four tens", "four tens"),
])
def test_engine_texts_show_the_ten_as_10(engine: str, people: str) -> None:
    assert pretty_codes(engine, markup=False) == people
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(pretty_codes(engine))
    assert console.export_text().strip() == people


def test_refusals_show_10_suit_symbols_and_the_bela_form() -> None:
    g, console = game()
    g.screen.explain(IllegalAction("you must beat T♠ if you can", "R19", ["9S", "JS"]))
    g.screen.explain(IllegalAction("H is not a bid you can make now", "R31", ["pass", "D"]),
                     Call(0))
    g.screen.explain(IllegalAction("A♥ cannot announce it", "R14", ["AH", "KD", "KD*", "QD"]),
                     Play(Card.from_code("AH"), True))
    out = flat(console.export_text())
    assert "you must beat 10♠ if you can (R19). Allowed: 9♠, J♠." in out
    assert "T♠" not in out
    assert "Not allowed: ♥ is not a bid you can make now (R31). Allowed: pass, ♦." in out
    assert "H is not" not in out
    assert "Allowed: A♥, K♦, K♦*, Q♦" in out and "a * plays the card and announces bela" in out


@pytest.fixture(scope="module")
def ten_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bots-only bela4 record in which a declaration's top card is a ten."""
    folder = tmp_path_factory.mktemp("ten")
    for seed in range(1, 40):
        path = folder / f"m{seed}.json"
        runner.invoke(app, ["play", "--all-bots", "--seed", str(seed), "--record", str(path),
                            "--target", "501"])
        out = score(replay(read_record(path.read_text(encoding="utf-8"))))
        if any(re.search(r"to T[HDSC]", d) for rd in out["rounds"]
               for decls in rd.get("declared", []) for d in decls):
            return path
    pytest.fail("no declaration to a ten in 40 matches")


def test_score_sheet_writes_10_and_suit_symbols_json_keeps_record_codes(
        ten_record: Path) -> None:
    result = runner.invoke(app, ["score", str(ten_record)], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    out = result.stdout
    assert re.search(r"sequence of \d to 10[♥♦♠♣]", out)
    assert not re.search(r"(?<!\w)T[HDSC♥♦♠♣]|to T\b", out)
    assert re.search(r"│ [♥♦♠♣] +│", out)  # the trump column: symbols, not letters
    assert not re.search(r"│ [HDSC] +│", out)
    as_json = runner.invoke(app, ["score", str(ten_record), "--json"])
    expected = score(replay(read_record(ten_record.read_text(encoding="utf-8"))))
    assert json.loads(as_json.stdout) == expected  # RECORD.md: codes, "TD", "H"
    assert re.search(r"to T[HDSC]", as_json.stdout)


def test_solve_and_review_write_cards_for_people(tmp_path: Path) -> None:
    rec = tmp_path / "m.json"
    runner.invoke(app, ["play", "--all-bots", "--seed", "11", "--target", "150",
                        "--record", str(rec)])
    data = load(rec)
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:9]
    part = tmp_path / "part.json"
    part.write_text(json.dumps(data), encoding="utf-8")
    for command, path in (("solve", part), ("review", rec)):
        result = runner.invoke(app, [command, str(path)], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert re.search(CARD, result.stdout) or "No costly plays" in result.stdout
        assert not re.search(r"(?<![\w\\])[789TJQKA][HDSC]\b", result.stdout), result.stdout


# -- 3. one letter is never a bid -------------------------------------------------------------
def test_s_and_h_are_sheet_and_hand_when_bidding(tmp_path: Path) -> None:
    rec = tmp_path / "letters.json"
    result = run(["--seed", "8", "--bot", "random", "--record", str(rec)],
                 "s\nh\nd\nc\nS\nH\nq\n")
    assert result.exit_code == 0, result.output
    assert load(rec)["rounds"][0]["actions"] == []  # no trump was called
    out = flat(result.output)
    assert out.count("No round finished yet.") == 2  # s and S: the sheet
    assert out.count("Bids: none yet.") >= 3  # h and H: the hand and the table
    assert "One letter is not a bid" in out and "type karo, diamonds, ♦" in out
    assert "type tref, clubs, ♣" in out


@pytest.mark.parametrize("typed, token", [
    ("acorn", "C"), ("leaf", "S"), ("pumpkin", "D"), ("bell", "D"), ("srce", "H"),
    ("žir", "C"), ("zelje", "S"), ("bundeva", "D"), ("Hearts", "H"), ("♣", "C"), ("pik", "S"),
])
def test_suits_by_the_names_of_r1(tmp_path: Path, typed: str, token: str) -> None:
    rec = tmp_path / "name.json"
    result = run(["--seed", "8", "--bot", "random", "--record", str(rec)], f"{typed}\nq\n")
    assert result.exit_code == 0, result.output
    assert load(rec)["rounds"][0]["actions"][0] == token


def test_help_says_one_letter_never_calls_trump() -> None:
    out = flat(run(["--seed", "8", "--bot", "random"], "?\nq\n").output)
    assert "One letter never calls trump: h and s always mean hand and sheet (p is pass)" in out
    assert "h and s are suits" not in out


# -- 4. the bela3 discard and other prompts ---------------------------------------------------
def numbers(line: str) -> dict[int, str]:
    return {int(n): c for n, c in re.findall(rf"(\d+):({CARD})", line)}


def test_bela3_discard_keeps_its_numbers(tmp_path: Path) -> None:
    rec = tmp_path / "discard.json"
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random", "--record", str(rec)],
                 "herc\n1\nh\n2\nq\n")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first = numbers(next(line for line in lines if line.startswith("Your hand:") and "12:" in line))
    second_line = next(line for line in lines if line.startswith("Discarding "))
    second = numbers(second_line)
    assert len(first) == 12 and second == first  # the same number for every card
    assert f"1:{first[1]} (chosen)" in second_line
    after_h = result.output[result.output.index("Second card to discard"):]
    again = next(line for line in after_h.splitlines() if line.startswith("Your hand:"))
    assert numbers(again) == first  # h: the hand with the numbers the prompt asks for
    action = load(rec)["rounds"][0]["actions"][1]
    chosen = sorted(Card.from_code(first[n]) for n in (1, 2))
    assert action == "discard " + " ".join(str(c) for c in chosen)


def test_bela3_second_discard_names_a_card_not_held(tmp_path: Path) -> None:
    deal = Match("bela3", seed=5).deal().deal
    twelve = set(deal.hands[0]) | set(deal.extra["extra"])
    missing = [c for c in Card.ALL if c not in twelve][:2]
    typed = " ".join(str(c) for c in missing)
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random"],
                 f"herc\n1\n{typed}\nq\n")
    assert f"You do not hold {missing[0].pretty()}" in result.output


def test_h_at_the_card_prompt_shows_the_numbers() -> None:
    result = run(["--seed", "8", "--bot", "random"], "pik\nn\nh\nq\n")
    lines = result.output.splitlines()
    card_prompts = [i for i, line in enumerate(lines) if line.startswith("Your card [")]
    assert card_prompts
    shown = [line for line in lines[card_prompts[0]:] if line.startswith("Your hand:")]
    assert shown and numbers(shown[0])


def test_empty_input_at_the_card_prompt_says_what_to_type() -> None:
    out = flat(run(["--seed", "8", "--bot", "random"], "pik\n\nq\n").output)
    assert "Type the number of a card, or its code" in out
    assert " is not a card" not in out


def test_pas_passes_and_a_number_out_of_the_menu_names_its_range(tmp_path: Path) -> None:
    rec = tmp_path / "pas.json"
    result = run(["--seed", "8", "--bot", "random", "--record", str(rec)], "9\npas\nq\n")
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "There is no 9 in the menu: choose 1-5." in out
    assert load(rec)["rounds"][0]["actions"][0] == "pass"


def test_bela3_first_seat_is_not_told_to_pass() -> None:
    """The first seat must call (R26): the hint for a word that is no bid leaves pass out."""
    out = flat(run(["--variant", "bela3", "--seed", "5", "--bot", "random"],
                   "xyz\nq\n").output)
    assert "Type a number from the menu, a suit (herc karo pik tref" in out
    said = out[out.index("Type a number from the menu"):]
    assert "or pass" not in said[:said.index("shows help")]


def test_the_rules_reminder_has_the_exception_of_r17() -> None:
    out = flat(run(["--seed", "8", "--bot", "random"], "r\nq\n").output)
    assert ("beat the best card of that suit if you can, except when a side suit was led and "
            "a trump is already in the trick (R17, R19)") in out


def test_a_card_number_with_a_star_plays_it_with_bela() -> None:
    g, console = game()
    numbered = [Card.from_code(c) for c in ("AH", "KD", "QD")]
    assert g.prompts.parse_card("2*", numbered) == (numbered[1], True)
    assert g.prompts.parse_card("2", numbered) == (numbered[1], False)
    assert g.prompts.parse_card("kd*", numbered) == (numbered[1], True)
    assert g.prompts.parse_card("4*", numbered) == (None, False)
    assert "There is no card 4: choose 1-3" in console.export_text()


def dealt_with_one_declaration() -> Match:
    """A bela4 match where seat 0 called hearts and holds exactly one declaration."""
    for seed in range(300):
        m = Match("bela4", seed=seed, first_dealer=3)
        m.deal()
        m.apply(Call(0))
        if len(find_declarations(seat_view(m, 0).hand.mask)) == 1:
            return m
    raise AssertionError("no such deal")


def test_the_declaration_prompt_with_a_single_declaration() -> None:
    match = dealt_with_one_declaration()
    console = Console(width=100, record=True, file=io.StringIO(), highlight=False)
    answers = iter(["3", "1 2", "", "1"])
    g = play.Game(match, {}, console, 0, ask=lambda prompt: (console.print(prompt, end="")
                                                                  or next(answers)))
    assert g.prompts.ask_declarations(seat_view(match, 0))
    out = console.export_text()
    assert "Announce it? [Enter/y/1 = yes, n = no]" in out
    assert "Type Enter (or y, or 1) to announce it, or n for none." in out
    assert "1-1" not in out


def test_invalid_record_error_has_its_colon(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(tmp_path / "missing.json")])
    assert result.exit_code == 1
    assert "invalid record: cannot read" in flat(result.stderr)


def test_claim_asks_for_confirmation(tmp_path: Path) -> None:
    rec = tmp_path / "claim.json"
    script = "1\n" + "claim\nn\n1\n" * 12 + "q\n"
    result = run(["--seed", "5", "--bot", "random", "--enforce", "off", "--record", str(rec)],
                 script)
    out = flat(result.output)
    assert "Claim auzmeš? [y/N]" in out and "No claim." in out
    assert "if not, the other side does" in out
    # the declined claim is not made (a bot may claim the human's proven revokes: claim 1..3)
    assert "claim 0" not in [a for rd in load(rec)["rounds"] for a in rd["actions"]]


@pytest.mark.parametrize("command", ["play", "score", "arena", "bench"])
def test_help_shows_no_value_after_flags(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "<bool>" not in result.output


def test_arena_help_paragraph_has_no_hard_line_breaks() -> None:
    result = runner.invoke(app, ["arena", "--help"], env={"COLUMNS": "300"})
    assert re.search(r"Each deal is replayed .* or on Ray with --ray\.", result.output)


# -- 5. narrow terminals and pipes ------------------------------------------------------------
def check_fits(text: str, width: int, totals: list[int]) -> None:
    lines = text.splitlines()
    assert all(len(line.rstrip()) <= width for line in lines), \
        "\n".join(line for line in lines if len(line.rstrip()) > width)
    assert "…" not in text
    for total in totals:
        assert re.search(rf"(?<![\d-]){total}(?!\d)", text), (total, text)


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
@pytest.mark.parametrize("width", [60, 80])
def test_in_game_sheet_fits_narrow_terminals(variant: str, width: int) -> None:
    target = {"bela4": 401, "bela3": 301, "bela2": 301, "belot2": 401}[variant]
    g, console = game(variant, width, seed=5, target=target)
    answers = itertools.cycle(["1", "2"])
    g.ask_line = lambda prompt: next(answers)
    g.run()
    text = console.export_text()
    assert "Score sheet" in text
    caption = text.rindex("\n", 0, text.rindex(", in that order."))
    sheet = text[text.rindex("Score sheet"):caption]
    check_fits(sheet, width, list(g.match.totals))


def records_for_score() -> list[tuple[str, list[str] | None]]:
    return [("bela4", None), ("bela4", ["You", "Right", "Partner", "Left"]),
            ("bela4", ["Alexandra", "Bartholomew", "Christopher", "Dominika"]),
            ("bela3", None), ("bela2", ["You", "Opponent"]), ("belot2", None)]


@pytest.mark.parametrize("variant, players", records_for_score())
@pytest.mark.parametrize("width", [60, 80, 120])
def test_score_sheet_fits_narrow_terminals_and_pipes(variant: str, players: list[str] | None,
                                                     width: int, tmp_path: Path) -> None:
    rec = tmp_path / "m.json"
    runner.invoke(app, ["play", "--all-bots", "--variant", variant, "--seed", "7",
                        "--record", str(rec)])
    data = load(rec)
    if players is not None:
        data["players"] = players
    result = score(replay(read_record(data)))
    console = Console(width=width, record=True, file=io.StringIO())
    render_sheet(result, variant, data.get("players"), console)
    text = console.export_text()
    table = text[:text.index("declared in") if "declared in" in text else len(text)]
    check_fits(table, width, list(result["totals"]))
    assert max(len(line) for line in text.splitlines()) <= width
    if players:
        assert players[0] in text  # the names appear, in the table or its legend


def test_score_piped_fits_80_columns(tmp_path: Path) -> None:
    rec = tmp_path / "m.json"
    runner.invoke(app, ["play", "--all-bots", "--seed", "7", "--record", str(rec)])
    data = load(rec)
    data["players"] = ["You", "Right", "Partner", "Left"]
    rec.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["score", str(rec)],
                           env={"COLUMNS": None})  # not a terminal: Rich uses 80
    assert result.exit_code == 0
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    scored = score(replay(read_record(data)))
    running = [0, 0]
    for i, rd in enumerate(scored["rounds"], 1):  # one line a round: nothing wraps
        running = [t + s for t, s in zip(running, rd["scores"])]
        cells = r"\D+".join(f"{s} \\({t}\\)" for s, t in zip(rd["scores"], running))
        assert re.search(rf"^\W*{i}\b.*{cells}", out, re.M), (i, out)


# -- 6. table talk ----------------------------------------------------------------------------
def test_tie_of_declarations_names_the_earlier_seat() -> None:
    result = run(["--seed", "19"], "1\n" * 12 + "q\n")  # R12: You and Right, both 3 to A
    out = flat(result.output)
    assert "Right announces: sequence of 3, top A (20)" in out
    assert "the tie goes to You, the earlier seat in turn order (R12)" in out


def test_winning_tags_only_on_the_trick_on_the_table() -> None:
    result = run(["--seed", "5", "--target", "301"], "1\n" * 200)
    lines = result.output.splitlines()
    for line in lines:
        if "(winning)" in line:
            assert "On the table" in line and line.count("(winning)") == 1, line
    tricks = [i for i, line in enumerate(lines) if re.match(r"Trick \d+ — ", line)]
    assert tricks
    for i in tricks:  # each trick shown whole: its cards, then who takes it
        block = lines[i + 1:i + 9]
        assert "takes the trick" in " ".join(block) or "take the trick" in " ".join(block)


def test_a_bela_card_is_marked_on_the_table_as_soon_as_it_is_played() -> None:
    """bela3 seed 1: Left plays Q♣ with bela before your card; the trick on the table says
    "bela!" at once, not only when the trick is over (review N10)."""
    g, console = game("bela3", 120, seed=1, target=201)
    answers = itertools.cycle(["1", "2"])

    def ask(prompt: str) -> str:
        text = console.export_text(clear=False)
        if any("On the table" in line and "bela!" in line for line in text.splitlines()):
            return "q"
        return next(answers)

    g.ask_line = ask
    with pytest.raises(play.Quit):
        g.run()
    table = [line for line in console.export_text().splitlines()
             if "On the table" in line and "bela!" in line]
    assert table == ["  On the table (Right led): Right A♥, Left Q♣ bela! (winning)"]


def test_status_line_shows_the_match_score() -> None:
    result = run(["--seed", "5", "--target", "301"], "1\n" * 40 + "q\n")
    assert re.search(r"Trick 1 of 8 · Trump . called by \w+.* · Match: Us \d+ Them \d+",
                     result.output)


# -- 7. the engine explains, the terminal shows (issue 9) -------------------------------------
HANDS = ("KS 7S 8S 9S 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
         "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")


def position(tokens: tuple[str, ...], **options: Any) -> Match:
    """bela4, seat 0 bids first (dealer 3) and calls ♥; then ``tokens`` are played."""
    match = Match("bela4", options, first_dealer=3)
    match.deal([Card.parse(h) for h in HANDS])
    for token in ("H", *tokens):
        match.apply(parse_action(token))
    return match


def table_game(match: Match, human: int, answers: list[str]) -> tuple[play.Game, Console]:
    console = Console(width=140, record=True, file=io.StringIO(), highlight=False, emoji=False)
    it = iter(answers)
    return play.Game(match, {}, console, human, ask=lambda prompt: next(it)), console


def hand_cells(line: str) -> tuple[list[str], list[str]]:
    """The numbered and the dimmed (unnumbered) cards of a ``Your hand:`` line."""
    cells = re.findall(rf"(?:(\d+):)?({CARD})", line.split("Your hand:", 1)[1])
    return [c for n, c in cells if n], [c for n, c in cells if not n]


@pytest.mark.parametrize(("tokens", "human", "winner", "legal"), [
    (("KS",), 1, 0, "AS"),          # follow ♠ (7♦..10♦), beat K♠ (J♠ Q♠): R17
    (("KS", "AS"), 2, 1, "9H"),     # no ♠: play a trump (R18); A♠ wins so far
    (("KS", "AS", "9H"), 3, 2, "7H"),  # no ♠, cannot beat 9♥: any trump (R18)
])
def test_dimmed_cards_reasons_and_winning_tag_are_the_views(
        tokens: tuple[str, ...], human: int, winner: int, legal: str) -> None:
    match = position(tokens)
    view = seat_view(match, human)
    assert view.trick_winner == winner and view.refusals
    refused = [r.card for r in view.refusals]
    g, console = table_game(match, human, [str(c).lower() for c in refused] + [legal.lower()])
    g.prompts.ask_card(view)
    lines = console.export_text().splitlines()
    _, dimmed = hand_cells(next(line for line in lines if line.startswith("Your hand:")))
    assert sorted(dimmed) == sorted(card_text(c) for c in refused)
    shown = [line for line in lines if line.startswith("Not allowed:")]
    assert len(shown) == len(refused)
    for line, r in zip(shown, view.refusals):  # typed in the order of the refusals
        assert line.startswith(f"Not allowed: {pretty_codes(r.reason, markup=False)} "
                               f"({r.rule}).  Allowed: "), line
    table = next(line for line in lines if "On the table" in line)
    tagged = re.findall(rf"(\w+) {CARD} \(winning\)", table)
    assert tagged == ([g.screen.name(winner)] if len(view.trick) > 1 else []), table
    assert Card.from_code(legal) not in seat_view(match, human).hand  # then it was played


def test_the_winning_tag_and_the_rules_line_read_the_view() -> None:
    """The terminal re-derives neither: a view that says otherwise is shown as it says."""
    match = position(("KS", "AS"), enforce="off")
    view = seat_view(match, 2)
    assert view.trick_winner == 1 and {r.kind for r in view.refusals} == {"trump"}
    assert len(view.legal) >= len(view.hand)  # enforce off: every card may be played
    g, console = table_game(match, 2, ["q"])
    g.screen.show_table(replace(view, trick_winner=0))
    assert re.search(rf"{g.screen.name(0)} {CARD} \(winning\), {g.screen.name(1)} {CARD}$",
                     console.export_text(), re.M)
    for refusals, fair in ((view.refusals, "J♥ 9♥ A♥ 10♥"),
                           (view.refusals[:1], "J♥ 9♥ A♥ 10♥ A♦ K♦ Q♦"), ((), None)):
        g, console = table_game(position(("KS", "AS"), enforce="off"), 2, ["9h"])
        g.prompts.ask_card(replace(view, refusals=refusals))
        out = flat(console.export_text())
        rules = (f"By the rules (R17-R19): {fair}; any card is accepted at this table, but a "
                 f"revoke can be claimed (auzmeš, R24).")
        assert rules in out if fair else "By the rules" not in out, out


# -- 8. narration from events (issue: one source of truth) ------------------------------------
def driven(variant: str, seed: int, **kw: Any) -> tuple[play.Game, Console]:
    """A dealt Game with the human at seat 0 and no bots: the test moves every seat through
    the game's driver, and reads what the human is told of each move."""
    console = Console(width=200, record=True, file=io.StringIO(), highlight=False, emoji=False)
    g = play.Game(Match(variant, seed=seed, **kw), {}, console, 0, ask=lambda prompt: "q")
    g.driver.deal()
    return g, console


def move(g: play.Game, console: Console, action: Action | None = None) -> str:
    """The seat to act makes ``action`` (default: its first legal one); what was said."""
    seat = g.driver.to_act()
    assert seat is not None
    chosen = action if action is not None else seat_view(g.match, seat).legal[0]
    g.tell(seat, g.driver.apply(seat, chosen))
    return console.export_text()  # and clear it


def shown(cards: CardSet, text: str) -> list[str]:
    return [card_text(c) for c in cards if card_text(c) in text]


def test_bela4_the_talons_of_others_are_never_told() -> None:
    g, console = driven("bela4", seed=7)  # dealer 3: you bid first
    rnd = g.match.rounds[0]
    talons = [CardSet(h) for h in rnd.hidden]  # R6: each seat's talon, unseen so far
    said = move(g, console, PASS)
    assert "You: pass (dalje)" in said and "You pick up your talon: " in said
    assert shown(talons[0], said) == [card_text(c) for c in talons[0]]  # your own, at once
    said = move(g, console, Call(2))  # Right calls: the others take their talons
    assert "Right: ♠ pik" in said and "Trump is ♠ pik (spades), called by Right" in said
    for seat in (1, 2, 3):
        assert shown(talons[seat], said) == [], said


def test_bela3_a_callers_talon_and_discards_are_never_told() -> None:
    g, console = driven("bela3", seed=5, first_dealer=0)  # Right must call (R26)
    rnd = g.match.rounds[0]
    mine = CardSet(rnd.hidden[0])
    theirs = CardSet(rnd.hidden[1] | rnd.hidden[2]) | CardSet(rnd.deal.extra["extra"])
    said = move(g, console, Call(0))
    assert "Right: ♥ herc" in flat(said) and "Right takes the talon and the last 2" in said
    assert shown(mine, said) == [card_text(c) for c in mine] and shown(theirs, said) == []
    discard = seat_view(g.match, 1).legal[0]
    assert isinstance(discard, Discard)
    said = move(g, console, discard)
    assert flat(said) == ("Right discards two cards face down (their points count for Right, "
                          "R27).")
    rest = ""
    while not rnd.is_over:  # the discards are out of play: never told, never shown
        rest += move(g, console)
    assert "takes the trick" in rest and shown(CardSet(discard.cards), rest) == []


def test_the_tie_of_declarations_reads_the_view() -> None:
    """R12's tie is the view's (``declarations_seat``, ``declarations_tie``), not the
    terminal's: a view that says otherwise is told as it says."""
    match = dealt_with_one_declaration()
    g, console = table_game(match, 0, [])
    declare = next(a for a in seat_view(match, 0).legal if a.token().startswith("declare"))
    g.driver.apply(0, declare)
    view = seat_view(match, 0)
    assert view.declarations_seat == 0 and not view.declarations_tie
    g.narrator.show_declarations(view)
    out = flat(console.export_text())
    assert "You and Partner hold the strongest" in out and "the tie goes to" not in out
    g.narrator.show_declarations(replace(view, declarations_tie=True, declarations_seat=2))
    out = flat(console.export_text())
    assert "The strongest declarations are equal: the tie goes to Partner, the earlier seat" in out
    g.narrator.show_declarations(replace(view, declarations_tie=True, declarations_side=None,
                                         declarations_seat=None))
    assert "The strongest declarations are equal: none count (R12)." in flat(
        console.export_text())

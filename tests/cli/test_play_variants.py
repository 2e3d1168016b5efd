"""``bela play --variant bela3|bela2|belot2``: bots-only matches, scripted human games and the
prompts of each variant (bidding R26/R31/R34, the bela3 discard R27, the swap and the belot2
redeal R32/R35, raspas R34/R37).

A scripted human answers ``1`` at every prompt: the first bid of the menu, the first card to
discard (in bela3 ``1`` and ``2`` in turn: the second discard keeps the numbers of the first
prompt), "yes" to a swap or redeal, the first declaration,
the first playable card, "yes" to bela, "next round" between rounds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bela.cli.main import app
from bela.engine.cards import Card
from bela.engine.record import read_record, replay, score
from bela.engine.state import Match

runner = CliRunner()
ONES = "1\n" * 800
# bela3: the second discard keeps the numbers of the first prompt, so answer 1 then 2
ONE_TWO = "1\n2\n" * 400
VARIANTS = ("bela3", "bela2", "belot2")
SEATS = {"bela3": 3, "bela2": 2, "belot2": 2}
TARGETS = {"bela3": 701, "bela2": 501, "belot2": 1001}
PLAYERS = {"bela3": ["You", "Right", "Left"], "bela2": ["You", "Opponent"],
           "belot2": ["You", "Opponent"]}


def run(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, ["play", *args], input=stdin)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def first_deal(variant: str, seed: int) -> Any:
    """The first round's deal of a seeded match (what ``bela play --seed`` deals)."""
    return Match(variant, seed=seed).deal().deal


def flat(text: str) -> str:
    return " ".join(text.split())


# -- bots only --------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_all_bots_record_replays_with_the_printed_totals(tmp_path: Path, variant: str) -> None:
    rec = tmp_path / "match.json"
    result = run(["--variant", variant, "--all-bots", "--seed", "3", "--bot", "random",
                  "--record", str(rec)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"target {TARGETS[variant]}" in out  # the variant's default target
    data = load(rec)
    assert data["variant"] == variant and data["options"] == {}
    assert len(data["players"]) == SEATS[variant]
    match = replay(read_record(data))
    assert match.options.target == TARGETS[variant]
    scored = score(match)
    assert scored["winner"] is not None
    totals = " : ".join(map(str, scored["totals"]))
    assert f"Winner: seat {scored['winner']}, totals {totals}." in out
    assert f"Record saved to {rec}" in out
    # one summary line per round, with one score per player, then the score sheet
    lines = re.findall(r"^Round +\d+ .*$", out, re.M)
    assert len(lines) == len(scored["rounds"])
    for line, rd in zip(lines, scored["rounds"]):
        assert " : ".join(f"{s:>3}" for s in rd["scores"]) in line
    assert "Score sheet" in out


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_record(tmp_path: Path, variant: str) -> None:
    texts = []
    for name, seed in (("a", "11"), ("b", "11"), ("c", "12")):
        rec = tmp_path / f"{name}.json"
        result = run(["--variant", variant, "--all-bots", "--seed", seed, "--bot", "random",
                      "--target", "301", "--record", str(rec)])
        assert result.exit_code == 0, result.output
        texts.append(rec.read_text(encoding="utf-8"))
    assert texts[0] == texts[1]
    assert texts[2] != texts[0]


def test_belot2_bots_play_raspas_and_all_contracts(tmp_path: Path) -> None:
    """Random bots over a few matches: raspas rounds score negative, VC/BC appear."""
    seen: set[str] = set()
    for seed in range(1, 30):
        if {"raspas", "VC", "BC"} <= seen:
            break
        rec = tmp_path / f"b{seed}.json"
        result = run(["--variant", "belot2", "--all-bots", "--seed", str(seed), "--bot", "random",
                      "--record", str(rec)])
        assert result.exit_code == 0, result.output
        for rd in score(replay(read_record(load(rec))))["rounds"]:
            seen.add(rd["outcome"] if rd["outcome"] == "raspas" else str(rd["trump"]))
            if rd["outcome"] == "raspas":
                assert all(s <= 0 for s in rd["scores"]) and rd["caller"] is None
                assert re.search(r"caller - .*raspas", result.output)
    assert {"raspas", "VC", "BC"} <= seen


# -- a scripted human -------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_scripted_human_plays_a_whole_match(tmp_path: Path, variant: str) -> None:
    rec = tmp_path / "human.json"
    result = run(["--variant", variant, "--seed", "2", "--target", "151", "--bot", "random",
                  "--record", str(rec)], ONE_TWO if variant == "bela3" else ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Your bid:" in out and "Your card" in out and "Score sheet" in out
    data = load(rec)
    assert data["players"] == PLAYERS[variant]
    match = replay(read_record(data))
    assert match.is_over and len(match.rounds) >= 1
    totals = " : ".join(map(str, match.totals))
    winner = PLAYERS[variant][match.winner or 0]
    verb = "win" if winner == "You" else "wins"
    assert f"{winner} {verb} the match, {totals}" in out
    if variant == "bela3":  # round 1: the human is first, so he calls and discards
        assert "Discard two cards" in out and "Second card to discard" in out
        assert "You discard" in out
        assert data["rounds"][0]["actions"][1].startswith("discard ")
    if variant == "bela2":
        assert "Round 1: accept the turned suit" in out and "Face up: turned card" in out
    if variant == "belot2":
        assert "Round 1: take the opened suit" in out and "Face up: opened card" in out
        assert "bottom card" in out


def test_bela3_hand_before_the_call_and_no_passing(tmp_path: Path) -> None:
    rec = tmp_path / "b3.json"
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random", "--record", str(rec)],
                 "pass\nq\n")
    assert result.exit_code == 0, result.output
    out = result.output
    hand = next(line for line in out.splitlines() if line.startswith("Your hand:"))
    assert len(re.findall(r"(?:10|[789JQKA])[♥♦♠♣]", hand)) == 6
    assert "+4 talon cards and the last 2 cards" in hand
    assert "no passing (R26)" in out
    line = next(line for line in out.splitlines() if "Not allowed:" in line)
    assert "R26" in line  # the first seat must call
    assert load(rec)["rounds"][0]["actions"] == []


def test_bela3_discard_by_codes(tmp_path: Path) -> None:
    deal = first_deal("bela3", 5)
    extra = deal.extra["extra"]  # the last 2 cards, the caller's after the call
    typed = " ".join(str(c).lower() for c in extra)
    rec = tmp_path / "codes.json"
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random", "--record", str(rec)],
                 f"herc\n{typed}\nq\n")
    assert result.exit_code == 0, result.output
    want = "discard " + " ".join(str(c) for c in sorted(extra))
    assert load(rec)["rounds"][0]["actions"] == ["H", want]
    assert re.search(r"You discard \S+ \S+ face down: their \d+ points count for you",
                     flat(result.output))


def test_bela3_discard_of_a_card_not_held_is_explained_and_asked_again(tmp_path: Path) -> None:
    deal = first_deal("bela3", 5)
    twelve = set(deal.hands[0]) | set(deal.extra["extra"])
    missing = next(c for c in Card.ALL if c not in twelve)
    held = sorted(twelve)[:2]
    rec = tmp_path / "bad.json"
    script = (f"herc\n{missing} {held[0]}\n{held[0]} {held[0]}\n"
              f"{held[0]} {held[1]}\nq\n")
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random", "--record", str(rec)],
                 script)
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "You do not hold" in out and "Name two different cards." in out
    after = out[out.index("You do not hold"):]
    assert after.count("Discard two cards") == 2  # asked again, twice
    assert load(rec)["rounds"][0]["actions"] == ["H", f"discard {held[0]} {held[1]}"]


def test_bela3_discard_by_numbers(tmp_path: Path) -> None:
    rec = tmp_path / "nums.json"
    result = run(["--variant", "bela3", "--seed", "5", "--bot", "random", "--record", str(rec)],
                 "1\n1 12\nq\n")
    assert result.exit_code == 0, result.output
    actions = load(rec)["rounds"][0]["actions"]
    assert len(actions) == 2 and actions[1].startswith("discard ")
    replay(read_record(load(rec)))


# -- bidding by name, swaps, redeals, raspas --------------------------------------------------
def find_round2(tmp_path: Path, answers: str) -> tuple[dict[str, Any], str]:
    """A belot2 seed where the random bot passes in round 1 after the human's pass."""
    for seed in range(1, 40):
        rec = tmp_path / f"s{seed}.json"
        result = run(["--variant", "belot2", "--seed", str(seed), "--bot", "random",
                      "--record", str(rec)], "pass\n" + answers + "q\n")
        assert result.exit_code == 0, result.output
        data = load(rec)
        if data["rounds"][0]["actions"][:2] == ["pass", "pass"]:
            return data, result.output
    pytest.fail("the bot never passed in round 1")


@pytest.mark.parametrize("typed, token", [("vc", "VC"), ("sve adut", "VC"), ("BC", "BC"),
                                          ("bez aduta", "BC")])
def test_belot2_all_trumps_and_no_trumps_by_name(tmp_path: Path, typed: str, token: str) -> None:
    data, out = find_round2(tmp_path, typed + "\n")
    assert data["rounds"][0]["actions"][:3] == ["pass", "pass", token]
    name = "All trumps (VC)" if token == "VC" else "No trumps (BC, points doubled)"
    assert f"You: {name}" in out
    assert "Round 2: order another suit, all trumps (VC) or no trumps (BC" in flat(out)


def test_belot2_no_trumps_says_each_tricks_points_are_doubled_in_the_score(
        tmp_path: Path) -> None:
    """BC doubles every point when the round is scored (R36): the running card points of
    each trick are the cards' own, and say so."""
    data, out = find_round2(tmp_path, "bc\n" + "1\n" * 9)
    assert data["rounds"][0]["actions"][2] == "BC"
    taken = [line for line in out.splitlines() if "the trick (+" in line]
    assert taken and all(line.endswith("(doubled in the score, BC)") for line in taken)


def test_belot2_raspas_is_announced(tmp_path: Path) -> None:
    for seed in range(1, 60):
        rec = tmp_path / f"r{seed}.json"
        result = run(["--variant", "belot2", "--seed", str(seed), "--bot", "random",
                      "--record", str(rec)], "pass\npass\nq\n")
        actions = load(rec)["rounds"][0]["actions"]
        if actions[:4] == ["pass"] * 4:
            break
    else:
        pytest.fail("no seed gave four passes")
    out = flat(result.output)
    assert "Raspas! Four passes" in out and "Take as few points as you can" in out
    assert "Raspas, " in out  # the table display during the play


def test_belot2_bottom_card_only_after_the_bidding(tmp_path: Path) -> None:
    result = run(["--variant", "belot2", "--seed", "0", "--bot", "random"], "take\nq\n")
    out = result.output
    bid = out.index("Your bid:")
    bottom = first_deal("belot2", 0).extra["bottom"][0]
    assert "bottom card" not in out[:bid]  # R35: turned after the bidding
    assert "bottom card" in out[bid:]
    rank = "10" if str(bottom)[0] == "T" else str(bottom)[0]
    assert rank + "♥♦♠♣"["HDSC".index(str(bottom)[1])] in out[bid:]


@pytest.mark.parametrize("variant, seed", [("bela2", 1), ("belot2", 0)])
@pytest.mark.parametrize("answer, swapped", [("y", True), ("n", False)])
def test_swap_prompt(tmp_path: Path, variant: str, seed: int, answer: str,
                     swapped: bool) -> None:
    deal = first_deal(variant, seed)
    turned = deal.extra["turned"][0]
    assert Card.make(0, turned.suit) in deal.hands[0]  # the human holds the 7 of that suit
    rec = tmp_path / "swap.json"
    result = run(["--variant", variant, "--seed", str(seed), "--bot", "random",
                  "--record", str(rec)], f"accept\n{answer}\nq\n")
    assert result.exit_code == 0, result.output
    out = result.output
    suit = "HDSC"[turned.suit]
    card = r"(?:10|[789JQKA])[♥♦♠♣]"
    assert re.search(rf"Swap your 7[♥♦♠♣] for the (?:turned|opened) {card}\? \[Y/n\]", out)
    actions = load(rec)["rounds"][0]["actions"]
    assert actions == ([suit, "swap"] if swapped else [suit])
    if swapped:  # then the redeal question, answered for him: no word of a keep
        assert "the face-up card is now 7" in out
        assert "You keep your cards." not in out
    else:
        assert "You keep your cards." in out


def _no_right(hand: Any, turned: Card) -> bool:
    """No 7 of the turned suit, no four 7s or four 8s (R32, R35)."""
    return Card.make(0, turned.suit) not in hand and not any(
        all(Card.make(r, s) in hand for s in range(4)) for r in (0, 1))


@pytest.mark.parametrize("variant", ["bela2", "belot2"])
def test_a_lone_keep_is_answered_without_a_prompt(tmp_path: Path, variant: str) -> None:
    """Every seat is asked in the exchange (R32, R35), but a human whose only choice is to
    keep his cards is not prompted: the terminal answers for him and goes on to the play."""
    def fits(d: Any) -> bool:  # nobody has a right; the turned card is not a 7 (bela2: then
        turned = d.extra["turned"][0]  # the exchange would not take place)
        return turned != Card.make(0, turned.suit) and all(
            _no_right(d.hands[seat], turned) for seat in (0, 1))

    seed = next(s for s in range(200) if fits(first_deal(variant, s)))
    turned = first_deal(variant, seed).extra["turned"][0]
    rec = tmp_path / "keep.json"
    result = run(["--variant", variant, "--seed", str(seed), "--bot", "random",
                  "--record", str(rec)], "accept\nq\n")
    assert result.exit_code == 0, result.output
    out = result.output
    for question in ("Swap your", "Demand a redeal", "Before the first lead", "[Y/n]",
                     "[y/N]"):
        assert question not in out
    assert "Your card" in out[out.index("You: "):]  # the next prompt is the first card
    assert "You keep your cards." not in out  # he chose nothing
    assert load(rec)["rounds"][0]["actions"] == ["HDSC"[turned.suit]]


def test_belot2_redeal(tmp_path: Path) -> None:
    seed = next(s for s in range(2000) if any(
        all(Card.make(r, s2) in first_deal("belot2", s).hands[0] for s2 in range(4))
        for r in (0, 1)))
    rec = tmp_path / "redeal.json"
    # take the opened suit, then the redeal (alone, or choice 2 beside a swap); next round: quit
    deal = first_deal("belot2", seed)
    both = Card.make(0, deal.extra["turned"][0].suit) in deal.hands[0]
    result = run(["--variant", "belot2", "--seed", str(seed), "--bot", "random",
                  "--record", str(rec)], f"take\n{'2' if both else 'y'}\n\nq\n")
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "You demand a redeal: four" in out
    assert "Redeal: four 7s or four 8s (R35). Nothing is scored; Opponent deals again" in out
    data = load(rec)
    assert data["rounds"][0]["actions"][-1] == "redeal"
    assert data["rounds"][1]["dealer"] == data["rounds"][0]["dealer"]
    assert score(replay(read_record(data)))["rounds"][0]["outcome"] == "redeal"


def test_bela2_bidding_prompts(tmp_path: Path) -> None:
    """Round 1 accept or pass, round 2 another suit or pass, the dealer must name (R31)."""
    for seed in range(1, 40):
        rec = tmp_path / f"b{seed}.json"
        result = run(["--variant", "bela2", "--seed", str(seed), "--bot", "random",
                      "--record", str(rec)], "pass\npass\nq\n")
        if load(rec)["rounds"][0]["actions"][:3] == ["pass"] * 3:
            break
    else:
        pytest.fail("the bot never passed twice")
    out = flat(result.output)
    assert "Round 1: accept the turned suit" in out
    assert "Round 2: name another suit as trump, or pass again" in out
    actions = load(rec)["rounds"][0]["actions"]
    turned = "HDSC"[first_deal("bela2", seed).extra["turned"][0].suit]
    assert actions[3] in "HDSC" and actions[3] != turned  # the dealer named another suit


def test_help_and_rules_per_variant() -> None:
    result = run(["--variant", "belot2", "--seed", "1", "--bot", "random"], "?\nrules\nq\n")
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "How to play" in out and "vc (all trumps" in out and "Redeal" in out
    assert "no other duty to beat (R36)" in out
    result = run(["--variant", "bela3", "--seed", "1", "--bot", "random"], "?\nq\n")
    assert "Discard" in result.output and "claim" not in result.output


def test_the_texts_word_every_variant_of_the_engine() -> None:
    """The per-variant prose of ``bela play`` (its text catalogue) names every variant the
    engine has and no other: a variant is playable in the terminal once it is worded."""
    from bela.cli.play import PLAYABLE, texts
    from bela.engine.variants import VARIANTS as ENGINE

    catalogues = {name: words for name, words in vars(texts).items()
                  if isinstance(words, dict) and set(words) & set(ENGINE)}
    assert {"TITLES", "_BIDDING_HELP", "_SCORE", "UNSEEN_UNTIL", "PICKED_UP", "CALLER_NEEDS",
            "_BID_INTROS"} <= set(catalogues)
    for name, words in catalogues.items():
        assert set(words) == set(ENGINE), name
    assert PLAYABLE == tuple(ENGINE)
    for variant in ENGINE:
        assert texts.help_rows(variant) and texts.rules_reminder(variant)


def test_options_the_variant_does_not_have_are_refused() -> None:
    result = run(["--variant", "bela3", "--enforce", "off", "--all-bots", "--seed", "1"])
    assert result.exit_code != 0
    assert "no table option" in flat(result.output)
    result = run(["--variant", "belot2", "--tie", "hang", "--all-bots", "--seed", "1"])
    assert result.exit_code != 0


def test_belot2_bot_redeal_is_shown(tmp_path: Path) -> None:
    """The opponent holds four 7s or four 8s; the random bot demands a redeal at some seed."""
    for seed in range(3000):
        hand = first_deal("belot2", seed).hands[1]
        if not any(all(Card.make(r, s) in hand for s in range(4)) for r in (0, 1)):
            continue
        rec = tmp_path / f"d{seed}.json"
        result = run(["--variant", "belot2", "--seed", str(seed), "--bot", "random",
                      "--record", str(rec)], "take\nn\n\nq\n")
        assert result.exit_code == 0, result.output
        if "redeal" in load(rec)["rounds"][0]["actions"]:
            break
    else:
        pytest.fail("the bot never demanded a redeal")
    out = flat(result.output)
    assert "Opponent demands a redeal: four 7s or four 8s (R35)." in out
    assert "Nothing is scored; Opponent deals again" in out
    assert "Round 2" in out

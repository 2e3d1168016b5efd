"""Game records (RECORD.md): the shared examples, invalid records, R39 in records."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from bela4_helpers import (
    CAPOT_HANDS,
    CAPOT_PLAYS,
    EXAMPLES,
    PASS_HANDS,
    PLAYS,
    REPO_EXAMPLES,
    new_match,
    pass_round,
    play_round,
    rotate,
)

from bela.engine.record import RecordError, read_record, replay, score, to_record

EXAMPLE_NAMES = sorted(p.name[:-5] for p in EXAMPLES.glob("*.json")
                       if not p.name.endswith(".expected.json"))


def run(data: dict[str, Any] | str) -> dict[str, Any]:
    return score(replay(read_record(data if isinstance(data, str) else json.dumps(data))))


def error_of(data: dict[str, Any] | str) -> RecordError:
    with pytest.raises(RecordError) as info:
        run(data)
    return info.value


def subset(expected: Any, got: Any) -> bool:
    """``expected`` is contained in ``got`` (extra keys allowed, RECORD.md)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(k in got and subset(v, got[k])
                                             for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(
            subset(e, g) for e, g in zip(expected, got))
    return expected == got


def base_record() -> dict[str, Any]:
    return json.loads((EXAMPLES / "bela4-pass-with-bela.json").read_text(encoding="utf-8"))


# -- the shared examples ------------------------------------------------------------------------
def test_examples_are_present() -> None:
    """The three shared examples are found beside the repository (../shared/examples)."""
    assert {"bela4-illegal-iber", "bela4-pass-with-bela",
            "bela4-pass-with-declaration"} <= set(EXAMPLE_NAMES)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_shared_example(name: str) -> None:
    """RECORD.md examples: replaying NAME.json gives the fields of NAME.expected.json."""
    text = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    expected = json.loads((EXAMPLES / f"{name}.expected.json").read_text(encoding="utf-8"))
    if "error" in expected:
        err = error_of(text)
        assert subset(expected, err.as_json())
    else:
        got = run(text)
        assert subset(expected, got), got


def test_example_illegal_iber_cites_r17() -> None:
    """examples/README: seat 2 plays 8♠ on K♠ holding A♠ (R17): round 0, action 4."""
    err = error_of((EXAMPLES / "bela4-illegal-iber.json").read_text(encoding="utf-8"))
    assert (err.round, err.action) == (0, 4)
    assert "R17" in err.reason


# -- invalid records ------------------------------------------------------------------------------
def test_bad_variant() -> None:
    """An unknown variant is a fault of the whole record: round and action null."""
    data = base_record()
    data["variant"] = "bela5"
    err = error_of(data)
    assert (err.round, err.action) == (None, None)
    del data["variant"]
    assert (error_of(data).round, error_of(data).action) == (None, None)


@pytest.mark.parametrize("options", [{"target": 0}, {"tie": "maybe"}, {"colour": "red"},
                                     {"equal_declarations": "later"}, {"enforce": True}])
def test_bad_option(options: dict[str, Any]) -> None:
    """An option the variant does not have (or a bad value): round and action null."""
    data = base_record()
    data["options"] = options
    err = error_of(data)
    assert (err.round, err.action) == (None, None)


def test_not_json() -> None:
    err = error_of("{not json")
    assert (err.round, err.action) == (None, None)


def test_duplicate_card() -> None:
    """R1: a deal with a card twice is invalid: the round, action null."""
    data = base_record()
    hands = data["rounds"][0]["hands"]
    hands[1] = hands[1].replace("JD", "QC")  # QC is seat 0's
    err = error_of(data)
    assert (err.round, err.action) == (0, None)


@pytest.mark.parametrize("fix", ["short", "long", "three_hands", "bad_code"])
def test_wrong_cards(fix: str) -> None:
    """R6: each of the 4 hands has 8 valid cards; otherwise the round is invalid."""
    data = base_record()
    hands = data["rounds"][0]["hands"]
    if fix == "short":
        hands[2] = " ".join(hands[2].split()[:7])
    elif fix == "long":
        hands[2] += " " + hands[3].split()[0]
        hands[3] = " ".join(hands[3].split()[1:])
    elif fix == "three_hands":
        del hands[3]
    else:
        hands[0] = hands[0].replace("QC", "QX")
    err = error_of(data)
    assert (err.round, err.action) == (0, None)


def test_hand_cards_separated_by_commas_is_an_error() -> None:
    """RECORD.md: the cards of a hand are separated by spaces; a comma list is invalid."""
    data = base_record()
    hands = data["rounds"][0]["hands"]
    hands[1] = ",".join(hands[1].split())
    err = error_of(data)
    assert (err.round, err.action) == (0, None)
    assert "commas" in err.reason


def test_round_without_actions_is_an_error() -> None:
    """RECORD.md: every round has its actions (an empty list for an unplayed round)."""
    data = base_record()
    del data["rounds"][0]["actions"]
    err = error_of(data)
    assert (err.round, err.action) == (0, None)
    assert "actions" in err.reason


@pytest.mark.parametrize("bad", [None, 7, ["JH"], {"card": "JH"}])
def test_non_string_token_is_an_error_at_its_index(bad: object) -> None:
    """RECORD.md: a token that is not a string is an error at its own index."""
    data = base_record()
    data["rounds"][0]["actions"][3] = bad
    err = error_of(data)
    assert (err.round, err.action) == (0, 3)


def test_unknown_token() -> None:
    """An unknown action token: its round and index."""
    data = base_record()
    data["rounds"][0]["actions"][5] = "trump!"
    err = error_of(data)
    assert (err.round, err.action) == (0, 5)


def test_illegal_bid_and_claim_indices() -> None:
    """R7/R24: illegal actions are reported at their index."""
    data = base_record()
    data["rounds"][0]["actions"][0:1] = ["pass", "pass", "pass", "pass"]  # dealer must call
    err = error_of(data)
    assert (err.round, err.action) == (0, 3)
    data = base_record()
    data["rounds"][0]["actions"].insert(3, "claim 1")  # enforce is on
    err = error_of(data)
    assert (err.round, err.action) == (0, 3)


def test_illegal_declaration_and_bela_indices() -> None:
    """R13/R14 in a record: a late declaration or a bela with the second card."""
    data = base_record()
    acts = data["rounds"][0]["actions"]
    i = acts.index("KC*")
    acts[i] = "KC"
    data2 = copy.deepcopy(data)
    j = acts.index("QC")
    acts[j] = "QC*"  # bela with the second of K and Q
    err = error_of(data)
    assert (err.round, err.action) == (0, j) and "R14" in err.reason
    data2["rounds"][0]["actions"].insert(5, "declare AD AC AS AH")  # seat 2, too late
    err = error_of(data2)
    assert (err.round, err.action) == (0, 5) and "R13" in err.reason


def test_bad_first_dealer() -> None:
    """R5: a dealer that is not a seat 0..3 makes the round invalid."""
    for dealer in (4, -1, "3", None):
        data = base_record()
        data["rounds"][0]["dealer"] = dealer
        err = error_of(data)
        assert (err.round, err.action) == (0, None)


def test_belot_and_hang_in_score_json() -> None:
    """R10 and R22 in `bela score --json`: outcome belot wins the match; a hang books the
    others' points and the held points go to the next round's higher side."""
    m = new_match({"tie": "hang"})
    pass_round(m, 81)
    pass_round(m, 82, shift=1)
    out = run(to_record(m))
    assert [r["outcome"] for r in out["rounds"]] == ["hang", "pass"]
    assert [r["scores"] for r in out["rounds"]] == [[0, 81], [80, 163]]
    assert out["totals"] == [80, 244] and out["winner"] is None
    data = {"variant": "bela4", "rounds": [{
        "dealer": 3,
        "hands": ["7H 8H 9H TH 7D 8D 9D TD", "7S 8S 9S TS JS QS KS AS",
                  "JH QH KH AH JD QD KD AD", "7C 8C 9C TC JC QC KC AC"],
        "actions": ["H", "7H", "declare 7S 8S 9S TS JS QS KS AS"]}]}
    out = run(data)
    assert out["rounds"][0]["outcome"] == "belot" and out["rounds"][0]["scores"] == [0, 0]
    assert out["winner"] == 1


def test_action_after_round_end() -> None:
    """An action after the round's last card: its index."""
    data = base_record()
    n = len(data["rounds"][0]["actions"])
    data["rounds"][0]["actions"].append("7H")
    err = error_of(data)
    assert (err.round, err.action) == (0, n)


def test_unfinished_last_round_is_allowed() -> None:
    """Only the last round may be unfinished; it scores nothing."""
    data = base_record()
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:10]
    out = run(data)
    assert out["rounds"][0]["outcome"] == "unfinished"
    assert out["rounds"][0]["scores"] == [0, 0] and out["totals"] == [0, 0]
    data["rounds"][0]["actions"] = []
    out = run(data)
    assert out["rounds"][0]["outcome"] == "unfinished" and out["rounds"][0]["trump"] is None


def two_rounds() -> dict[str, Any]:
    m = new_match()
    pass_round(m, 82)
    pass_round(m, 92, shift=1)
    return to_record(m)


def test_unfinished_round_not_last() -> None:
    """An unfinished round that is not the last: that round, action null."""
    data = two_rounds()
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:-1]
    err = error_of(data)
    assert (err.round, err.action) == (0, None)


def test_round_after_match_end() -> None:
    """A round after the match has ended: that round, action null."""
    data = two_rounds()
    data["options"] = {"target": 80}
    err = error_of(data)
    assert (err.round, err.action) == (1, None)
    data["options"] = {"target": 501}
    assert run(data)["winner"] is None


@pytest.mark.parametrize("dealer", [1, 2, 3])
def test_r39_wrong_dealer_in_second_round(dealer: int) -> None:
    """R39: the second round's dealer must be the first round's first seat (0 here); any
    other is an error of that round with action null."""
    data = two_rounds()
    assert data["rounds"][1]["dealer"] == 0
    data["rounds"][1]["dealer"] = dealer
    err = error_of(data)
    assert (err.round, err.action) == (1, None)


def test_r39_first_dealer_is_free() -> None:
    """R39: the first round may have any dealer; later ones follow."""
    m = new_match(first_dealer=1)
    play_round(m, rotate(PASS_HANDS, 2), ["D"], PLAYS[82])
    data = to_record(m)
    assert data["rounds"][0]["dealer"] == 1
    assert run(data)["rounds"][0]["scores"] == [82, 80]


# -- writing records -----------------------------------------------------------------------------
def test_record_round_trip_with_everything() -> None:
    """to_record -> read -> replay -> score: declarations, bela, hang, options survive."""
    m = new_match({"tie": "hang", "target": 501})
    pass_round(m, 81, {2: "7C 8C 9C"})  # 81 + 20 of 182: a pass
    play_round(m, rotate(CAPOT_HANDS, 1), ["pass", "H"], CAPOT_PLAYS,
               {1: "AS KS QS JS; JH TH 9H"})
    data = to_record(m, players=["Ana", "Bruno", "Cvita", "Dino"])
    assert data["options"] == {"target": 501, "tie": "hang"}
    assert data["players"] == ["Ana", "Bruno", "Cvita", "Dino"]
    assert "declare AS KS QS JS; JH TH 9H" in data["rounds"][1]["actions"]
    assert "QH*" in data["rounds"][1]["actions"]
    text = json.dumps(data)
    m2 = replay(read_record(text))
    assert score(m2) == score(m) and m2.totals == m.totals
    assert m.sheet == [(101, 81), (0, 342)]


def test_record_input_tolerance() -> None:
    """RECORD.md: case ignored, 10 for T, suit symbols accepted, extra keys ignored."""
    data = base_record()
    rd = data["rounds"][0]
    rd["hands"] = [h.replace("T", "10").lower() for h in rd["hands"]]
    rd["hands"][0] = rd["hands"][0].replace("h", "♥")
    rd["actions"] = [a.lower() for a in rd["actions"]]
    data["comment"] = "extra keys are ignored"
    rd["note"] = 1
    assert run(data)["totals"] == [165, 17]


def test_players_optional() -> None:
    data = base_record()
    del data["players"]
    assert run(data)["totals"] == [165, 17]
    data2 = copy.deepcopy(data)
    data2["players"] = "Ana"
    assert error_of(data2).round is None


def test_claim_record() -> None:
    """R24 in a record: `claim N` with enforce off."""
    data = {"variant": "bela4", "options": {"enforce": "off"},
            "rounds": [{"dealer": 3,
                        "hands": ["8S 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
                                  "JS QS KS AS QD JD QC JC", "7H 8H 9H TH JH QH KH AH"],
                        "actions": ["H", "8S", "7S", "claim 2"]}]}
    out = run(data)
    assert out["rounds"][0]["outcome"] == "claim" and out["rounds"][0]["scores"] == [162, 0]
    data["options"] = {}
    err = error_of(data)
    assert (err.round, err.action) == (0, 2)  # 7S breaks R17 with enforce on


def test_repository_examples_match_the_shared_ones() -> None:
    """The repository's examples/ holds the shared examples unchanged (when shared/ is
    beside the checkout; otherwise EXAMPLES is examples/ itself)."""
    for path in EXAMPLES.glob("*.json"):
        assert (REPO_EXAMPLES / path.name).read_text() == path.read_text()

"""Records (RECORD.md) of bela3, bela2 and belot2: seeded matches written, read, replayed and
scored; the score keys for raspas and redeal; bad variant records give RecordError with the
right round and action indices."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from typer.testing import CliRunner
from variant_helpers import FIRST_DEALER, act, deal, new_match, play_out

from bela.cli.main import app
from bela.engine import Match
from bela.engine.record import RecordError, read_record, replay, score, to_record

SIDES = {"bela3": 3, "bela2": 2, "belot2": 2}
TRUMPS = {"bela3": {"H", "D", "S", "C"}, "bela2": {"H", "D", "S", "C"},
          "belot2": {"H", "D", "S", "C", "VC", "BC"}}

# belot2 deals (see test_belot2_rules.py): four 7s / four 8s; seat 1 holds the 7 of the
# opened suit and the bela KH QH.
FOURS = ["7H 7S 7D KS QS 9D 7C 9H TH", "JH 9S TS KH QH 8S 8D 8C 8H"]
FOURS_X = {"turned": "AH", "bottom": "AD"}
BASE = ["JH 9H KS QS 8D 9D TS AS 7C", "QH KH AD TD 7S 8S 7H 9C TC"]
BASE_X = {"turned": "AH", "bottom": "QD"}
BELA2 = ["JH 9H KS QS 8D 9D TS AS 7C 8C", "QH KH AD TD 7S 8S 7H 9C TC AC"]
BELA3 = ["7S 8S 9S 7D 8D 9D 7C 8C 9C 7H", "TS JS QS KS AS TD JD QD KD AD",
         "JC QC KC AC 9H TH JH QH KH AH"]


def random_match(variant: str, seed: int, max_rounds: int = 60) -> Match:
    """A seeded match played with random legal actions until it ends."""
    m = Match(variant, seed=seed, first_dealer=FIRST_DEALER[variant])
    rng = random.Random(seed)
    while not m.is_over and len(m.rounds) < max_rounds:
        rnd = m.deal()
        while not rnd.is_over:
            acts = rnd.legal_actions()
            if rnd.phase == "bidding" and variant == "belot2" and rng.random() < 0.3:
                acts = [a for a in acts if a.token() == "pass"] or acts
            m.apply(rng.choice(acts))
    return m


def check_round_keys(variant: str, entry: dict[str, Any], rnd: Any) -> None:
    """RECORD.md: caller is the calling seat (null for raspas and redeal); trump is the suit
    letter, VC or BC, or null where no trump was fixed."""
    assert {"caller", "trump", "outcome", "scores"} <= set(entry)
    assert len(entry["scores"]) == SIDES[variant]
    outcome = entry["outcome"]
    if outcome == "redeal":
        assert entry["caller"] is None and entry["trump"] is None
        assert entry["scores"] == [0, 0]
    elif outcome == "raspas":
        assert entry["caller"] is None
        assert entry["trump"] == str(rnd.deal.extra["turned"][0])[1]  # the opened suit
        assert all(s <= 0 for s in entry["scores"])
    elif outcome == "unfinished":
        assert entry["scores"] == [0] * SIDES[variant]
    else:
        assert outcome in ("pass", "fall", "capot", "belot", "hang")
        assert entry["caller"] in range(SIDES[variant])
        assert entry["trump"] in TRUMPS[variant]


@pytest.mark.parametrize("variant", ["bela3", "bela2", "belot2"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seeded_matches_write_read_replay_score(variant: str, seed: int) -> None:
    """RECORD.md: a whole seeded match round-trips and scores as played; R25: it ends at the
    target with a unique top (or at belot)."""
    m = random_match(variant, seed)
    assert m.is_over
    data = json.loads(json.dumps(to_record(m)))
    assert data["variant"] == variant
    for rd, rnd in zip(data["rounds"], m.rounds):
        keys = {"extra"} if variant == "bela3" else (
            {"turned"} if variant == "bela2" else {"turned", "bottom"})
        assert keys <= set(rd)
        assert all(len(h.split()) == rnd.variant.hand_cards for h in rd["hands"])
        assert "keep" not in rd["actions"]  # declines are not recorded
    again = replay(read_record(data))
    out = score(again)
    assert out == score(m)
    assert out["totals"] == list(m.totals)
    assert out["winner"] == m.winner and m.winner is not None
    assert [r["scores"] for r in out["rounds"]] == [list(s) for s in m.sheet]
    for entry, rnd in zip(out["rounds"], again.rounds):
        check_round_keys(variant, entry, rnd)
    target = m.options.target
    if out["rounds"][-1]["outcome"] != "belot":
        assert out["totals"][m.winner] >= target
        assert out["totals"].count(max(out["totals"])) == 1


def test_belot2_redeal_and_raspas_score_keys() -> None:
    """RECORD.md + R34/R37: a redeal scores caller null, trump null; raspas caller null and
    trump the opened suit; after a redeal the same dealer deals again."""
    m = new_match("belot2")
    deal(m, FOURS, **FOURS_X)
    act(m, "pass", "pass", "pass", "pass", "keep", "redeal")  # seat 1 redeals in raspas
    deal(m, BASE, **BASE_X)
    act(m, "pass", "pass", "pass", "pass")
    play_out(m, 4)
    deal(m, FOURS, **FOURS_X)
    act(m, "H", "redeal")  # seat 0 redeals in a suit contract
    data = to_record(m)
    assert [r["dealer"] for r in data["rounds"]] == [1, 1, 0]
    assert data["rounds"][0]["actions"] == ["pass", "pass", "pass", "pass", "redeal"]
    out = score(replay(read_record(data)))
    rounds = out["rounds"]
    assert [r["outcome"] for r in rounds] == ["redeal", "raspas", "redeal"]
    assert rounds[0]["caller"] is None and rounds[0]["trump"] is None
    assert rounds[1]["caller"] is None and rounds[1]["trump"] == "H"
    assert all(s <= 0 for s in rounds[1]["scores"])
    assert rounds[2]["caller"] is None and rounds[2]["trump"] is None
    assert out["totals"] == rounds[1]["scores"]


def test_swap_is_recorded_and_replayed() -> None:
    """RECORD.md: `swap` stands after the last bid and before the first card; the keep of
    the seat asked before the holder leaves no token."""
    m = new_match("bela2")
    deal(m, BELA2, turned="AH")
    act(m, "H", "keep", "swap")  # seat 0 is asked first, then seat 1, who holds the 7H
    play_out(m, 2)
    data = to_record(m)
    assert [a.token() for a in m.rounds[0].log[:3]] == ["H", "keep", "swap"]
    assert data["rounds"][0]["actions"][:2] == ["H", "swap"]
    assert "keep" not in data["rounds"][0]["actions"]
    again = replay(read_record(data))
    assert score(again) == score(m)
    assert "AH" in {str(c) for t in again.rounds[0].tricks for c in t[1]}


# -- bad records -------------------------------------------------------------------------------


def two_round_record(variant: str) -> dict[str, Any]:
    """A valid record of two rounds (the second unfinished) to corrupt in round 1.  Round 1
    deals round 0's hands one seat on, so that its first seat holds round 0's first hand."""
    m = new_match(variant)
    if variant == "bela3":
        deal(m, BELA3, extra="TC 8H")
        act(m, "H", "discard TC 8H")
    elif variant == "bela2":
        deal(m, BELA2, turned="AH")
        act(m, "pass", "pass", "pass", "S")
    else:
        deal(m, BASE, **BASE_X)
        act(m, "pass", "pass", "S")
    play_out(m, 1)
    data = to_record(m)
    first = data["rounds"][0]
    nxt = copy.deepcopy(first)
    nxt["dealer"] = m.rounds[0].first  # R39
    n = len(first["hands"])  # the new first seat (dealer + 1) gets round 0's first hand
    nxt["hands"] = [first["hands"][(s - 1) % n] for s in range(n)]
    nxt["actions"] = []
    data["rounds"].append(nxt)
    replay(read_record(data))  # valid as it stands
    return data


def error_of(data: dict[str, Any]) -> tuple[int | None, int | None, str]:
    with pytest.raises(RecordError) as info:
        replay(read_record(json.loads(json.dumps(data))))
    return info.value.round, info.value.action, info.value.reason


@pytest.mark.parametrize("variant, key", [("bela3", "extra"), ("bela2", "turned"),
                                          ("belot2", "turned"), ("belot2", "bottom")])
def test_missing_variant_deal_key(variant: str, key: str) -> None:
    """RECORD.md: bela3 rounds need `extra`, bela2 `turned`, belot2 `turned` and `bottom`."""
    data = two_round_record(variant)
    del data["rounds"][1][key]
    r, a, reason = error_of(data)
    assert (r, a) == (1, None) and key in reason


@pytest.mark.parametrize("variant, key, value", [
    ("bela3", "extra", "TC"), ("bela3", "extra", "TC 8H 7S"), ("bela2", "turned", "AH QD"),
    ("bela2", "turned", ""), ("belot2", "bottom", "QD 8H"), ("belot2", "turned", "JH"),
    ("bela2", "turned", "XX"),
])
def test_wrong_deal_cards(variant: str, key: str, value: str) -> None:
    """RECORD.md: a record whose cards are not exactly distinct cards of the pack, in the
    variant's counts, is invalid (round index, action null)."""
    data = two_round_record(variant)
    data["rounds"][1][key] = value
    assert error_of(data)[:2] == (1, None)


@pytest.mark.parametrize("variant, cut", [("bela3", 1), ("bela2", 1), ("belot2", 1),
                                          ("belot2", -1)])
def test_wrong_hand_sizes(variant: str, cut: int) -> None:
    """R26, R30, R35: 10, 10 and 9 cards per hand."""
    data = two_round_record(variant)
    hands = data["rounds"][1]["hands"]
    if cut > 0:
        hands[0] = " ".join(hands[0].split()[:-cut])
    else:  # one card too many: take the other seat's last card (dealt twice)
        hands[0] = hands[0] + " " + hands[1].split()[-1]
    assert error_of(data)[:2] == (1, None)


@pytest.mark.parametrize("variant, actions, index", [
    ("bela3", ["pass"], 0),  # R26: no passing
    ("bela3", ["VC"], 0),
    ("bela3", ["H", "discard AS KS"], 1),  # R27: cards the caller does not hold
    ("bela3", ["H", "7S"], 1),  # R27: the discard comes first
    ("bela2", ["S"], 0),  # R31: round 1 is the turned suit or pass
    ("bela2", ["pass", "pass", "H"], 2),  # R31: round 2 is another suit
    ("bela2", ["pass", "pass", "pass", "pass"], 3),  # R31: the dealer must name a suit
    ("bela2", ["pass", "pass", "VC"], 2),
    ("bela2", ["pass", "pass", "S", "swap"], 3),  # R32: trump is not the turned suit
    ("bela2", ["H", "redeal"], 1),  # no redeal in bela2
    ("belot2", ["pass", "pass", "H"], 2),  # R34: round 2 excludes the opened suit
    ("belot2", ["pass", "pass", "VC", "swap"], 3),  # R35: no swap in VC
    ("belot2", ["pass", "pass", "BC", "swap"], 3),  # R35: no swap in BC
    ("belot2", ["pass", "pass", "S", "swap"], 3),  # R35: no swap in another suit
    ("belot2", ["pass", "pass", "pass", "pass", "swap"], 4),  # R37: no swap in raspas
    ("belot2", ["H", "redeal"], 1),  # R35: no four 7s or 8s
    ("belot2", ["pass", "pass", "pass", "pass", "8D", "AD", "KH*"], 6),  # R37: no bela
])
def test_illegal_variant_actions(variant: str, actions: list[str], index: int) -> None:
    """Illegal bids, discards, swaps and redeals: RecordError at (round, action)."""
    data = two_round_record(variant)
    data["rounds"][1]["actions"] = actions
    assert error_of(data)[:2] == (1, index)


def test_swap_after_first_card_and_by_non_holder() -> None:
    """R32: the swap comes before the first lead, by the holder of the 7 of trump."""
    data = two_round_record("bela2")
    data["rounds"][1]["actions"] = ["H", "JH", "swap"]  # the dealer kept it: declined
    assert error_of(data)[:2] == (1, 2)
    data["rounds"][1]["hands"] = ["QH KH AD TD 7S 8S 7D 9C TC AC",  # the 7H is out of play
                                  "JH 9H KS QS 8D 9D TS AS 7C 8C"]
    data["rounds"][1]["actions"] = ["H", "swap"]
    assert error_of(data)[:2] == (1, 1)


def test_declare_in_raspas_is_an_error() -> None:
    """R37: no declarations in raspas: the record is invalid at the declare token."""
    data = two_round_record("belot2")
    data["rounds"][1]["actions"] = ["pass", "pass", "pass", "pass", "declare QS KS AS"]
    assert error_of(data)[:2] == (1, 4)


def test_tokens_after_a_redeal() -> None:
    """R35: a redeal ends the round: any later token is an error."""
    data = two_round_record("belot2")
    data["rounds"][1].update(hands=FOURS, **FOURS_X)
    data["rounds"][1]["actions"] = ["H", "redeal", "7H"]
    assert error_of(data)[:2] == (1, 2)


def test_dealer_after_redeal_must_stay() -> None:
    """R37: after a redeal the same dealer deals again; R39's next dealer is an error."""
    data = two_round_record("belot2")
    data["rounds"][1].update(hands=FOURS, **FOURS_X)
    data["rounds"][1]["actions"] = ["H", "redeal"]
    redealer = data["rounds"][1]["dealer"]
    third = copy.deepcopy(data["rounds"][0])
    third["actions"] = []
    third["dealer"] = 1 - redealer
    data["rounds"].append(third)
    assert error_of(data)[:2] == (2, None)
    third["dealer"] = redealer
    replay(read_record(data))


@pytest.mark.parametrize("variant, options", [
    ("bela3", {"enforce": "off"}), ("bela2", {"enforce": "on"}), ("belot2", {"tie": "hang"}),
    ("belot2", {"equal_declarations": "cancel"}), ("belot2", {"enforce": "on"}),
])
def test_options_the_variant_does_not_have(variant: str, options: dict[str, str]) -> None:
    """R24, RECORD.md: an option the variant does not have faults the whole record."""
    data = two_round_record(variant)
    data["options"] = options
    with pytest.raises(RecordError) as info:
        read_record(data)
    assert (info.value.round, info.value.action) == (None, None)


def test_bela_score_cli_reports_variant_error_json(tmp_path: Any) -> None:
    """RECORD.md: `bela score --json` prints {"error": {round, action, reason}}, status 1."""
    data = two_round_record("belot2")
    data["rounds"][1]["actions"] = ["pass", "pass", "VC", "swap"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 1
    err = json.loads(result.stdout)["error"]
    assert (err["round"], err["action"]) == (1, 3) and err["reason"]

"""bela4 declarations ("zvanja") and bela (RULES.md R8-R15)."""

from __future__ import annotations

import pytest
from bela4_helpers import (
    R15_HANDS,
    R15_PLAYS,
    act,
    deal,
    declare_cmp_hands,
    declaring_round,
    fill_hands,
    legal_cards,
    legal_tokens,
    new_match,
    play_round,
    random_finish,
    refused,
)

from bela.engine import Declare, IllegalAction, Play
from bela.engine.views import seat_view

FOURS = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}


def _declare_options(rnd) -> set[frozenset[str]]:
    return {frozenset(frozenset(str(c) for c in g) for g in a.groups)
            for a in rnd.legal_actions() if isinstance(a, Declare)}


# -- R8 -----------------------------------------------------------------------------------------
def test_r8_sequences_of_three_or_more_and_fours() -> None:
    """R8: a run of 3+ in one suit and four J/9/A/10/K/Q are declarations."""
    hands = fill_hands({0: "7H 8H 9H AS AD AC AH 7C"}, {0: "TH"})
    m = new_match()
    rnd = deal(m, hands)
    act(m, "S")
    opts = _declare_options(rnd)
    run, aces = frozenset({"7H", "8H", "9H"}), frozenset({"AS", "AD", "AC", "AH"})
    assert opts == {frozenset({run}), frozenset({aces}), frozenset({run, aces})}


@pytest.mark.parametrize("rank", ["7", "8"])
def test_r8_four_sevens_or_eights_are_nothing(rank: str) -> None:
    """R8: four 8s or four 7s are not a declaration."""
    four = " ".join(rank + s for s in "HDSC")
    hands = fill_hands({0: four + " JH JS AD KC"}, {0: "9H 9D 9S 9C"}, seed=1)
    m = new_match()
    rnd = deal(m, hands)
    act(m, "S")
    groups = [{str(c) for c in g} for a in rnd.legal_actions() if isinstance(a, Declare)
              for g in a.groups]
    assert set(four.split()) not in groups
    refused(m, "declare " + four, "R8")


@pytest.mark.parametrize("rank", list(FOURS))
def test_r8_fours_of_j_9_a_10_k_q(rank: str) -> None:
    """R8: four of a kind among J, 9, A, 10, K, Q may be announced."""
    four = " ".join(rank + s for s in "HDSC")
    hands = fill_hands({0: four}, {})
    m = new_match()
    rnd = deal(m, hands)
    act(m, "S", "declare " + four)
    assert len(rnd.declared[0]) == 1


def test_r8_run_taken_at_full_length() -> None:
    """R8: a run of 6 is one 6-sequence; announcing a part of it is refused."""
    hands = fill_hands({0: "7H 8H 9H TH JH QH"}, {0: "KH"})
    m = new_match()
    rnd = deal(m, hands)
    act(m, "S")
    assert _declare_options(rnd) == {frozenset({frozenset("7H 8H 9H TH JH QH".split())})}
    refused(m, "declare 7H 8H 9H", "R8")
    refused(m, "declare TH JH QH", "R8")
    refused(m, "declare 7H 8H 9H; TH JH QH", "R8")
    act(m, "declare 7H 8H 9H TH JH QH")
    assert [d.length for d in rnd.declared[0]] == [6]


def test_r8_card_in_a_sequence_and_a_four() -> None:
    """R8: one card may be part of a sequence and a four of a kind at the same time."""
    hands = fill_hands({0: "JH QH KH JS JD JC"}, {0: "TH AH"})
    m = new_match()
    rnd = deal(m, hands)
    act(m, "D", "declare JH QH KH; JH JS JD JC")
    assert sorted(d.kind for d in rnd.declared[0]) == ["four", "sequence"]
    v = seat_view(m, 1).declared[0]
    assert sorted(i.value for i in v) == [20, 200]


def test_r8_declaration_not_held_or_repeated_is_refused() -> None:
    """R8: only declarations the seat holds, each once."""
    hands = fill_hands({0: "7H 8H 9H", 1: "7S 8S 9S"}, {0: "TH", 1: "TS"})
    m = new_match()
    deal(m, hands)
    act(m, "S")
    refused(m, "declare 7S 8S 9S", "R8")  # seat 1's cards
    refused(m, "declare 7H 8H 9H; 7H 8H 9H", "R8")
    refused(m, "declare 7H 9H 8H AS", "R8")


# -- R9 -----------------------------------------------------------------------------------------
R9_CASES = [
    ("7S 8S 9S", 20), ("7S 8S 9S TS", 50), ("7S 8S 9S TS JS", 100),
    ("7S 8S 9S TS JS QS", 100), ("7S 8S 9S TS JS QS KS", 100),
    ("JH JD JS JC", 200), ("9H 9D 9S 9C", 150), ("AH AD AS AC", 100),
    ("TH TD TS TC", 100), ("KH KD KS KC", 100), ("QH QD QS QC", 100),
]


@pytest.mark.parametrize("decl,value", R9_CASES)
def test_r9_declaration_values(decl: str, value: int) -> None:
    """R9: 3-seq 20, 4-seq 50, 5/6/7-seq 100, four J 200, four 9 150, other fours 100."""
    hands = declare_cmp_hands(decl, "")
    m, rnd = declaring_round(hands, ["H"], {0: decl})
    info = seat_view(m, 3).declared[0]
    assert [i.value for i in info] == [value]
    assert rnd.result.declaration_points == (value, 0)
    assert rnd.result.total == 162 + value + sum(rnd.result.bela_points)


# -- R10 ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("trump", ["H", "S"])
def test_r10_belot_wins_the_match(trump: str) -> None:
    """R10: all 8 cards of one suit, announced, end the round (no score) and win the match."""
    hands = ["7H 8H 9H TH 7D 8D 9D TD", "7S 8S 9S TS JS QS KS AS",
             "JH QH KH AH JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    m = new_match()
    rnd = deal(m, hands)
    act(m, trump, "7H")
    assert "declare 7S 8S 9S TS JS QS KS AS" in legal_tokens(rnd)
    act(m, "declare 7S 8S 9S TS JS QS KS AS")
    assert rnd.is_over and rnd.result.outcome == "belot"
    assert m.winner == 1 and m.is_over
    assert tuple(m.totals) == (0, 0) and m.sheet == [(0, 0)]
    with pytest.raises(IllegalAction):
        deal(m, hands)


def test_r10_belot_not_announced_does_not_count() -> None:
    """R10/R13: belot counts only when announced like any declaration."""
    hands = ["7H 8H 9H TH 7D 8D 9D TD", "7S 8S 9S TS JS QS KS AS",
             "JH QH KH AH JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    m = new_match()
    rnd = deal(m, hands)
    act(m, "H")
    random_finish(m, 0)
    assert rnd.result.outcome != "belot" and m.winner is None


# -- R11 / R12 ------------------------------------------------------------------------------------
LADDER = [  # (weaker, stronger, value of the stronger)
    ("7S 8S 9S", "QC KC AC", 20),  # 3-seq to 9 < 3-seq to A
    ("QC KC AC", "7S 8S 9S TS", 50),  # 3-seq < 4-seq
    ("JC QC KC AC", "7S 8S 9S TS JS", 100),  # 4-seq < 5-seq
    ("TC JC QC KC AC", "7S 8S 9S TS JS QS", 100),  # 5-seq < 6-seq
    ("9C TC JC QC KC AC", "7S 8S 9S TS JS QS KS", 100),  # 6-seq < 7-seq
    ("7C 8C 9C TC JC QC KC", "8S 9S TS JS QS KS AS", 100),  # 7-seq to K < 7-seq to A
    ("7S 8S 9S TS JS", "QH QD QS QC", 100),  # 5-seq < four Q (both 100)
    ("7S 8S 9S TS JS QS", "KH KD KS KC", 100),  # 6-seq < four K
    ("QH QD QS QC", "KH KD KS KC", 100),
    ("KH KD KS KC", "TH TD TS TC", 100),
    ("TH TD TS TC", "AH AD AS AC", 100),
    ("AH AD AS AC", "9H 9D 9S 9C", 150),
    ("9H 9D 9S 9C", "JH JD JS JC", 200),
]


@pytest.mark.parametrize("seats", [(0, 1), (2, 3)])
@pytest.mark.parametrize("weak,strong,value", LADDER)
def test_r11_strength_order(weak: str, strong: str, value: int, seats: tuple[int, int]) -> None:
    """R11/R12: the stronger declaration wins even when held by the later seat."""
    hands = declare_cmp_hands(weak, strong, seats)
    m, rnd = declaring_round(hands, ["H"], {seats[0]: weak, seats[1]: strong})
    assert rnd.result.declarations_to == 1
    assert rnd.result.declaration_points == (0, value)


def test_r12_partners_declarations_add_up() -> None:
    """R12: the side with the strongest declaration scores every declaration of its players."""
    hands = fill_hands({0: "7S 8S 9S TS", 2: "7C 8C 9C", 1: "QD KD AD"},
                       {0: "JS", 2: "TC", 1: "JD"})
    m, rnd = declaring_round(hands, ["H"], {0: "7S 8S 9S TS", 1: "QD KD AD", 2: "7C 8C 9C"})
    assert rnd.result.declaration_points == (70, 0)
    assert rnd.result.total == 232 + sum(rnd.result.bela_points)


@pytest.mark.parametrize("dealer,earlier,later", [(3, 0, 1), (0, 1, 2), (2, 3, 0), (1, 2, 3)])
def test_r12_equal_declarations_earlier_seat_wins(dealer: int, earlier: int, later: int) -> None:
    """R12: equal strongest declarations: the seat earlier in turn order (from the dealer's
    right) wins, whatever its seat number."""
    hands = declare_cmp_hands("JH QH KH", "JS QS KS", (earlier, later))
    m, rnd = declaring_round(hands, ["C"], {earlier: "JH QH KH", later: "JS QS KS"},
                             first_dealer=dealer)
    side = earlier % 2
    assert rnd.result.declarations_to == side
    pts = [0, 0]
    pts[side] = 20
    assert rnd.result.declaration_points == tuple(pts)


@pytest.mark.parametrize("dealer,a,b", [(3, 0, 1), (2, 3, 0)])
def test_r12_equal_declarations_cancel_option(dealer: int, a: int, b: int) -> None:
    """R12 option equal_declarations = cancel: equal strongest declarations score nothing."""
    hands = declare_cmp_hands("JH QH KH", "JS QS KS", (a, b))
    m, rnd = declaring_round(hands, ["C"], {a: "JH QH KH", b: "JS QS KS"},
                             options={"equal_declarations": "cancel"}, first_dealer=dealer)
    assert rnd.result.declaration_points == (0, 0)
    assert rnd.result.total == 162 + sum(rnd.result.bela_points)


def test_r12_cancel_only_when_the_strongest_are_equal() -> None:
    """R12 option cancel: a weaker equal pair does not cancel a stronger declaration."""
    hands = fill_hands({0: "JH QH KH", 1: "JS QS KS", 2: "7C 8C 9C TC"},
                       {0: "TH AH", 1: "TS AS", 2: "JC"})
    m, rnd = declaring_round(hands, ["D"], {0: "JH QH KH", 1: "JS QS KS", 2: "7C 8C 9C TC"},
                             options={"equal_declarations": "cancel"})
    assert rnd.result.declaration_points == (70, 0)


# -- R13 ----------------------------------------------------------------------------------------
R13_HANDS = fill_hands({0: "7H 8H 9H KC KD KS KH", 1: "QD JD TD"}, {0: "TH", 1: "9D KD"})


def test_r13_declare_only_before_own_first_card() -> None:
    """R13: declarations are announced as the seat plays its first card, never later."""
    m = new_match()
    rnd = deal(m, R13_HANDS)
    act(m, "S")
    assert any(isinstance(a, Declare) for a in rnd.legal_actions())
    lead = sorted(legal_cards(rnd))[0]
    act(m, lead)  # seat 0 plays without announcing
    assert rnd.declared[0] == ()
    # seat 1 may still announce before its first card
    assert any(isinstance(a, Declare) for a in rnd.legal_actions())
    act(m, "declare QD JD TD")
    refused(m, "declare QD JD TD", "R13")  # only once
    random_until(m, seat=0)
    assert not any(isinstance(a, Declare) for a in rnd.legal_actions())
    refused(m, "declare 7H 8H 9H", "R13")


def random_until(m, seat: int) -> None:
    rnd = m.round
    while rnd.turn != seat or not rnd.tricks:
        act(m, sorted(legal_cards(rnd))[0])


def test_r13_subset_and_unannounced_never_count() -> None:
    """R13: a seat may announce any subset; what it does not announce never counts."""
    m, rnd = declaring_round(R13_HANDS, ["S"], {0: "KC KD KS KH"})
    assert rnd.result.declaration_points == (100, 0)
    m, rnd = declaring_round(R13_HANDS, ["S"], {})
    assert rnd.result.declaration_points == (0, 0)
    assert rnd.result.total == 162 + sum(rnd.result.bela_points)


def test_r13_announced_value_public_cards_hidden_until_first_trick() -> None:
    """R13: announcing makes value and top public; cards are shown after the first trick,
    only the winning side's."""
    m = new_match()
    rnd = deal(m, R13_HANDS)
    act(m, "S", "declare 7H 8H 9H; KC KD KS KH")
    act(m, sorted(legal_cards(rnd))[0], "declare QD JD TD")
    act(m, sorted(legal_cards(rnd))[0])
    for viewer in (1, 2, 3, None):
        infos = seat_view(m, viewer).declared[0]
        assert sorted(i.value for i in infos) == [20, 100]
        assert all(i.cards is None for i in infos)
    own = seat_view(m, 0).declared[0]
    assert {str(c) for i in own for c in i.cards} == set("7H 8H 9H KC KD KS KH".split())
    v1 = seat_view(m, 2).declared[1]
    assert [i.value for i in v1] == [20] and v1[0].cards is None and "Q" in v1[0].text
    while len(rnd.tricks) < 1:
        act(m, sorted(legal_cards(rnd))[0])
    for viewer in (1, 3, None):
        infos = seat_view(m, viewer).declared[0]
        assert {str(c) for i in infos for c in i.cards} == set("7H 8H 9H KC KD KS KH".split())
    for viewer in (0, 2, None):
        assert all(i.cards is None for i in seat_view(m, viewer).declared[1])


# -- R14 ----------------------------------------------------------------------------------------
BELA_HANDS = ["KH QH 7S 9S JD 7C 9C JC", "AH TH 8S TS QD 8C TC QC",
              "JH 9H AS KS KD AD AC KC", "7H 8H QS JS 7D 8D 9D TD"]


def test_r14_bela_with_first_card_counts_20() -> None:
    """R14: K and Q of trump in one hand, announced with the first of them: 20 points."""
    m = new_match()
    rnd = deal(m, BELA_HANDS)
    act(m, "H")
    assert {"KH*", "QH*"} <= legal_tokens(rnd)
    act(m, "KH*")
    assert rnd.belas == [(0, 0)]
    assert seat_view(m, 1).belas == ((0, 0),)
    m2, rnd2 = declaring_round(BELA_HANDS, ["H"], {}, prefix=["KH*"])
    assert rnd2.result.bela_points == (20, 0)
    assert rnd2.result.total == 182


def test_r14_bela_not_announced_does_not_count() -> None:
    """R14: bela counts only if announced."""
    m, rnd = declaring_round(BELA_HANDS, ["H"], {}, prefix=["KH"])
    assert rnd.result.bela_points == (0, 0) and rnd.result.total == 162


def test_r14_bela_with_second_card_refused() -> None:
    """R14: announcing bela with the second of K and Q is illegal."""
    m = new_match()
    rnd = deal(m, BELA_HANDS)
    act(m, "H", "KH")
    while not (rnd.turn == 0 and "QH" in legal_cards(rnd)):
        act(m, sorted(c for c in legal_cards(rnd) if c != "QH")[0] if rnd.turn == 0
            else sorted(legal_cards(rnd))[0])
    assert "QH*" not in legal_tokens(rnd)
    refused(m, "QH*", "R14")
    act(m, "QH")


def test_r14_bela_without_both_or_not_trump_refused() -> None:
    """R14: bela needs both K and Q of trump in the hand."""
    m = new_match()
    rnd = deal(m, BELA_HANDS)
    act(m, "S")  # spades trump: seat 0's K+Q of hearts are no bela
    assert "KH*" not in legal_tokens(rnd)
    refused(m, "KH*", "R14")
    refused(m, "7S*", "R14")
    act(m, "7S")
    refused(m, "8S*", "R14")  # seat 1 holds no K+Q of trump


def test_r14_bela_outside_the_comparison() -> None:
    """R14/R12: bela always goes to its holder's side, even if the other side's
    declarations win."""
    m, rnd = declaring_round(BELA_HANDS, ["H"], {3: "7D 8D 9D TD"}, prefix=["KH*"])
    assert rnd.result.declaration_points == (0, 50)
    assert rnd.result.bela_points == (20, 0)
    assert rnd.result.total == 162 + 70


def test_r14_bela_and_sequence_with_k_q_both_count() -> None:
    """R14: the K and Q may also be in an announced sequence; both count."""
    hands = fill_hands({0: "JH QH KH 7S"}, {0: "TH AH"}, seed=3)
    m, rnd = declaring_round(hands, ["H"], {0: "JH QH KH"}, prefix=["QH*"])
    assert rnd.result.declaration_points == (20, 0)
    assert rnd.result.bela_points == (20, 0)
    assert rnd.result.total == 202


# -- R15 ----------------------------------------------------------------------------------------
def test_r15_no_trick_no_declarations_nor_bela() -> None:
    """R15: the side with the strongest declaration (and a bela) wins no trick: no side
    scores declarations, and that bela does not count."""
    m = new_match()
    rnd = play_round(m, R15_HANDS, ["pass", "H"], R15_PLAYS,
                     declare={0: "7S 8S 9S TS", 1: "AD KD QD"})
    res = rnd.result
    assert rnd.tricks_won == [0, 8]
    assert rnd.belas == [(0, 0)]
    assert res.declaration_points == (0, 0) and res.bela_points == (0, 0)
    assert res.declarations_to is None
    assert res.total == 162
    assert res.outcome == "capot" and res.scores == (0, 252)  # R23


def test_r15_declarations_count_with_one_trick() -> None:
    """R15: a side that wins at least one trick keeps its declarations."""
    m, rnd = declaring_round(R15_HANDS, ["pass", "H"], {0: "7S 8S 9S TS", 1: "AD KD QD"},
                             need=lambda r: r.tricks_won[0] >= 1)
    assert rnd.result.declaration_points == (50, 0)


def test_r15_bela_is_not_a_declaration_of_another_kind() -> None:
    """R15: bela of a side with a trick counts even when its declarations lost (R14)."""
    m, rnd = declaring_round(BELA_HANDS, ["H"], {3: "7D 8D 9D TD"}, prefix=["QH*"],
                             need=lambda r: r.tricks_won[0] >= 1 and r.tricks_won[1] >= 1)
    assert rnd.result.bela_points == (20, 0)
    assert isinstance(rnd.log[-1], Play)

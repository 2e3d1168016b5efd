"""bela4 round and match scoring (RULES.md R21-R25).

Most rounds here replay one deal (``PASS_HANDS`` in bela4_helpers, dealer 3, seat 0 calls
diamonds) with play sequences chosen for the card points side 0 takes (``PLAYS[cp]``); who
announces what is chosen per test.  Rotating the hands one seat on with the dealer (R39)
replays the same play with the sides swapped (``pass_round(..., shift=1)``).
"""

from __future__ import annotations

import random

import pytest
from bela4_helpers import (
    CAPOT_HANDS,
    CAPOT_PLAYS,
    PASS_HANDS,
    PLAYS,
    SEQ3_OTHER,
    SEQ3_OWN,
    SEQ4,
    act,
    deal,
    legal_cards,
    new_match,
    pass_round,
    play_round,
    refused,
    rotate,
)

from bela.engine import IllegalAction, InvalidOptions, Match, Play
from bela.engine.variants import TARGET_RANGE, VARIANTS

TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


def test_plays_have_the_card_points_they_claim() -> None:
    """Sanity of the test data: side 0 takes ``cp`` card points in ``PLAYS[cp]``."""
    for cp in PLAYS:
        rnd = pass_round(new_match(), cp)
        assert rnd.card_points == [cp, 162 - cp]


# -- R21 ----------------------------------------------------------------------------------------
def test_r21_round_points_are_cards_last_trick_declarations_bela() -> None:
    """R21: side points = card points of its tricks + 10 for the last trick + its
    declarations + its bela."""
    rnd = pass_round(new_match(), 72, {2: SEQ3_OWN})
    res = rnd.result
    trump = "D"
    side_pts = [0, 0]
    for _seats, cs, winner in rnd.tricks:
        side_pts[winner % 2] += sum(
            (TRUMP_POINTS if str(c)[1] == trump else PLAIN_POINTS)[str(c)[0]] for c in cs)
    side_pts[rnd.tricks[-1][2] % 2] += 10
    assert list(res.card_points) == side_pts == [72, 90]
    assert res.declaration_points == (20, 0) and res.bela_points == (0, 0)
    assert res.total == 182
    assert res.outcome == "pass" and res.scores == (92, 90)


def test_r21_last_trick_counts_ten() -> None:
    """R21/R3: the side taking the last trick gets 10 more."""
    rnd = pass_round(new_match(), 82)
    _seats, cs, winner = rnd.tricks[-1]
    before = rnd.card_points[winner % 2]
    rnd.undo()
    assert rnd.card_points[winner % 2] + sum(
        (TRUMP_POINTS if str(c)[1] == "D" else PLAIN_POINTS)[str(c)[0]] for c in cs) + 10 \
        == before


# -- R22 ----------------------------------------------------------------------------------------
def test_r22_plain_game_pass_needs_82() -> None:
    """R22 (seed 000: a game of 162 needs 82): 82 passes, each side scores its own."""
    rnd = pass_round(new_match(), 82)
    assert rnd.result.outcome == "pass" and rnd.result.scores == (82, 80)


def test_r22_exact_tie_falls() -> None:
    """R22: 81 of 162 is not more than half: the caller falls, the others score 162."""
    m = new_match()
    rnd = pass_round(m, 81)
    assert rnd.result.outcome == "fall" and rnd.result.scores == (0, 162)
    assert m.sheet == [(0, 162)] and m.held == 0


def test_r22_game_of_182_needs_92() -> None:
    """R22 (seed 000: with 20 in declarations the game is 182, passing needs 92)."""
    rnd = pass_round(new_match(), 72, {2: SEQ3_OWN})
    assert rnd.result.total == 182
    assert rnd.result.outcome == "pass" and rnd.result.scores == (92, 90)
    rnd = pass_round(new_match(), 71, {2: SEQ3_OWN})
    assert rnd.result.total == 182
    assert rnd.result.outcome == "fall" and rnd.result.scores == (0, 182)


def test_r22_game_of_182_with_the_others_declaration() -> None:
    """R22: the declarations of the other side raise the bar the same way."""
    rnd = pass_round(new_match(), 92, {3: SEQ3_OTHER})
    assert rnd.result.declaration_points == (0, 20)
    assert rnd.result.outcome == "pass" and rnd.result.scores == (92, 90)
    rnd = pass_round(new_match(), 91, {3: SEQ3_OTHER})
    assert rnd.result.outcome == "fall" and rnd.result.scores == (0, 182)


def test_r22_game_of_212_needs_107() -> None:
    """R22 (seed 000: with 50 in declarations the game is 212, passing needs 107); a fall
    gives the others the whole total, the caller's own declaration included."""
    rnd = pass_round(new_match(), 57, {0: SEQ4})
    assert rnd.result.total == 212
    assert rnd.result.outcome == "pass" and rnd.result.scores == (107, 105)
    rnd = pass_round(new_match(), 56, {0: SEQ4})
    assert rnd.result.outcome == "fall" and rnd.result.scores == (0, 212)


def test_r22_hang_on_exact_tie() -> None:
    """R22 option tie = hang: on a tie the others score their own points, the caller 0, and
    the caller's points are held."""
    m = new_match({"tie": "hang"})
    rnd = pass_round(m, 81)
    assert rnd.result.outcome == "hang" and rnd.result.scores == (0, 81)
    assert m.sheet == [(0, 81)] and m.totals == [0, 81] and m.held == 81
    m = new_match({"tie": "hang"})
    rnd = pass_round(m, 71, {2: SEQ3_OWN})
    assert rnd.result.outcome == "hang" and rnd.result.scores == (0, 91)
    assert m.held == 91


def test_r22_hang_only_on_tie() -> None:
    """R22 option tie = hang: a fall that is not a tie is still a fall."""
    m = new_match({"tie": "hang"})
    rnd = pass_round(m, 56)
    assert rnd.result.outcome == "fall" and rnd.result.scores == (0, 162) and m.held == 0


def test_r22_held_points_go_to_side_scoring_more_next_round() -> None:
    """R22: the held points go to whichever side scores more in the next round (here the
    side that did not call the hung round)."""
    m = new_match({"tie": "hang"})
    pass_round(m, 81)  # side 0 called and tied: 81 held
    rnd = pass_round(m, 82, shift=1)  # seat 1 calls; side 1 takes 82, side 0 80
    assert rnd.result.scores == (80, 82)
    assert m.sheet == [(0, 81), (80, 82 + 81)]
    assert m.totals == [80, 244] and m.held == 0


def test_r22_held_points_add_up_over_hung_rounds() -> None:
    """R22: held points add up over several hung rounds, then go to the side scoring more."""
    m = new_match({"tie": "hang"})
    pass_round(m, 81)
    assert m.held == 81
    rnd = pass_round(m, 81, shift=1)  # seat 1 (side 1) calls and ties again
    assert rnd.result.outcome == "hang" and rnd.result.scores == (81, 0)
    assert m.held == 162 and m.sheet[1] == (81, 0)
    pass_round(m, 82, shift=2)  # seat 2 (side 0) passes with 82
    assert m.sheet[2] == (82 + 162, 80)
    assert m.totals == [325, 161] and m.held == 0


def test_r22_held_points_lost_when_match_ends() -> None:
    """R22: held points are lost if the match ends first (here by belot, R10)."""
    m = new_match({"tie": "hang"})
    pass_round(m, 81)
    rnd = deal(m, ["7H 8H 9H TH 7D 8D 9D TD", "JH QH KH AH JD QD KD AD",
                   "7S 8S 9S TS JS QS KS AS", "7C 8C 9C TC JC QC KC AC"])
    act(m, "H", "JH", "declare 7S 8S 9S TS JS QS KS AS")
    assert rnd.result.outcome == "belot"
    assert m.winner == 0 and m.totals == [0, 81] and m.sheet[-1] == (0, 0)


# -- R23 ----------------------------------------------------------------------------------------
def test_r23_stiglja_342() -> None:
    """R23 (seed 003): štiglja with 70 in declarations and bela: 162 + 70 + 20 + 90 = 342."""
    m = new_match()
    rnd = play_round(m, CAPOT_HANDS, ["H"], CAPOT_PLAYS, {0: "AS KS QS JS; JH TH 9H"})
    res = rnd.result
    assert rnd.tricks_won == [8, 0]
    assert res.card_points == (162, 0) and res.declaration_points == (70, 0)
    assert res.bela_points == (20, 0) and res.total == 252
    assert res.outcome == "capot" and res.scores == (342, 0)
    assert m.totals == [342, 0]


def test_r23_capot_without_declarations() -> None:
    """R23: a plain štiglja scores 162 + 90."""
    plays = [p.rstrip("*") for p in CAPOT_PLAYS]
    rnd = play_round(new_match(), CAPOT_HANDS, ["H"], plays)
    assert rnd.result.outcome == "capot" and rnd.result.scores == (252, 0)


def test_r23_capot_by_the_other_side() -> None:
    """R23: the non-calling side taking every trick scores the total plus 90."""
    plays = [p.rstrip("*") for p in CAPOT_PLAYS]
    rnd = play_round(new_match(), CAPOT_HANDS, ["pass", "H"], plays)
    assert rnd.caller == 1
    assert rnd.result.outcome == "capot" and rnd.result.scores == (252, 0)


# -- R24 ----------------------------------------------------------------------------------------
IBER = ["8S 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
        "JS QS KS AS QD JD QC JC", "7H 8H 9H TH JH QH KH AH"]
BELA_HANDS = ["KH QH 7S 9S JD 7C 9C JC", "AH TH 8S TS QD 8C TC QC",
              "JH 9H AS KS KD AD AC KC", "7H 8H QS JS 7D 8D 9D TD"]


def test_r24_enforce_on_refuses_illegal_card_and_claims() -> None:
    """R24: with enforce = on (default) an illegal card is refused and nothing changes;
    there is no auzmeš."""
    m = new_match()
    rnd = deal(m, IBER)
    act(m, "H", "8S")
    refused(m, "7S", "R17")
    refused(m, "claim 0", "R24")
    assert rnd.revoked == [None] * 4


def test_r24_enforce_off_accepts_illegal_card() -> None:
    """R24: with enforce = off an illegal card is accepted when played."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S")
    assert legal_cards(rnd) == set(IBER[1].split())
    act(m, "7S")
    assert rnd.trick_seats == [0, 1] and rnd.turn == 2


def test_r24_valid_claim() -> None:
    """R24: a valid auzmeš ends the round: the claimant's side scores 162, the other 0."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S", "7S", "claim 2")
    assert rnd.is_over and rnd.result.outcome == "claim"
    assert rnd.result.scores == (162, 0) and m.sheet == [(162, 0)]


def test_r24_claim_any_time_later_in_the_round() -> None:
    """R24: a claim may come tricks after the revoke, by a seat not on turn."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S", "7S", "AS", "7H")
    rng = random.Random(0)
    while len(rnd.tricks) < 4:
        m.apply(rng.choice([a for a in rnd.legal_actions() if isinstance(a, Play)]))
    act(m, "claim 0")
    assert rnd.result.outcome == "claim" and rnd.result.scores == (162, 0)


def test_r24_valid_claim_counts_announced_declarations_and_bela() -> None:
    """R24: the claiming side scores 162 plus every declaration and bela announced so far,
    either side's."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, BELA_HANDS)
    act(m, "H", "KH*", "8S")  # seat 1 must follow hearts (AH or TH): a revoke
    act(m, "JH", "declare 7D 8D 9D TD", "7H", "claim 0")
    assert rnd.result.outcome == "claim"
    assert rnd.result.scores == (162 + 50 + 20, 0)


def test_r24_false_claim() -> None:
    """R24: a false claim ends the round with the score going to the other side."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S", "TS", "claim 1")
    assert rnd.result.outcome == "claim" and rnd.result.scores == (162, 0)


def test_r24_partners_revoke_is_no_ground() -> None:
    """R24: only an opponent's revoke makes a claim valid."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S", "TS", "KS")  # seat 2 must play AS: a revoke by side 0
    act(m, "claim 0")
    assert rnd.result.scores == (0, 162)  # false claim by side 0
    m2 = new_match({"enforce": "off"})
    rnd2 = deal(m2, IBER)
    act(m2, "H", "8S", "TS", "KS", "claim 3")
    assert rnd2.result.scores == (0, 162)  # valid claim by side 1


def test_r24_claim_timing() -> None:
    """R24: no claim before the first card of the round, nor for an unknown seat."""
    m = new_match({"enforce": "off"})
    deal(m, IBER)
    refused(m, "claim 1", "R24")
    act(m, "H")
    refused(m, "claim 1", "R24")
    act(m, "8S")
    refused(m, "claim 7", "R24")


def test_r24_no_claim_after_last_card() -> None:
    """R24: a claim must come before the last card of the round."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H")
    rng = random.Random(3)
    while not rnd.is_over:
        m.apply(rng.choice([a for a in rnd.legal_actions() if isinstance(a, Play)]))
    with pytest.raises(IllegalAction):
        act(m, "claim 0")


def test_r24_unclaimed_revoke_scores_normally() -> None:
    """R24: without a claim the round is scored as played."""
    m = new_match({"enforce": "off"})
    rnd = deal(m, IBER)
    act(m, "H", "8S", "7S")
    rng = random.Random(5)
    while not rnd.is_over:
        m.apply(rng.choice([a for a in rnd.legal_actions() if isinstance(a, Play)]))
    assert rnd.result.outcome in ("pass", "fall", "capot")
    assert sum(rnd.result.card_points) == 162


# -- R25 ----------------------------------------------------------------------------------------
def test_r25_target_option() -> None:
    """R25: the target is 1001 by default, 501 as a table option; any whole number from 1 to
    5001 (RULES.md readings), so that every match ends."""
    assert new_match().options.target == 1001
    assert new_match({"target": 501}).options.target == 501
    assert new_match({"target": 1}).options.target == 1
    assert new_match({"target": 5001}).options.target == 5001
    for bad in (0, -5, 5002, 10**30, "501", True, 50.5, None):
        with pytest.raises(InvalidOptions, match=r"target must be a whole number from 1 to "
                           r"5001 \(R25\), not "):
            new_match({"target": bad})
    for key, value in (("tie", "maybe"), ("equal_declarations", "later"), ("enforce", "yes"),
                       ("speed", 1)):
        with pytest.raises(InvalidOptions):
            new_match({key: value})


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_r25_every_variant_bounds_its_target(variant: str) -> None:
    """R25, R29, R33, R38: each variant's default lies in the range; the ends are taken, a
    step outside and an endless target are refused."""
    low, high = TARGET_RANGE
    assert low <= VARIANTS[variant].default_target <= high
    for ok in (low, high):
        assert Match(variant, {"target": ok}).options.target == ok
    for bad in (low - 1, high + 1, 10**30):
        with pytest.raises(InvalidOptions, match=f"from {low} to {high}"):
            Match(variant, {"target": bad})


def test_r25_reaching_target_exactly_wins() -> None:
    """R25: a side with at least the target at the end of a round wins."""
    m = new_match({"target": 82})
    pass_round(m, 82)
    assert m.winner == 0 and m.is_over
    with pytest.raises(IllegalAction):
        deal(m, rotate(PASS_HANDS, 1))


def test_r25_not_yet_at_target_play_on() -> None:
    """R25: below the target the match goes on."""
    m = new_match({"target": 83})
    pass_round(m, 82)
    assert m.winner is None
    rnd = pass_round(m, 81, shift=1)  # seat 1 falls: side 0 scores 162
    assert m.totals == [244, 80] and m.winner == 0
    assert rnd.result.outcome == "fall"


def test_r25_both_reach_higher_wins() -> None:
    """R25: both sides reach the target in the same round: the higher total wins."""
    m = new_match({"target": 80})
    pass_round(m, 82)
    assert m.totals == [82, 80] and m.winner == 0


def test_r25_both_reach_equal_play_on() -> None:
    """R25: both reach the target with equal totals: play on."""
    m = new_match({"target": 150})
    pass_round(m, 82)
    assert m.winner is None
    pass_round(m, 82, shift=1)
    assert m.totals == [162, 162] and m.winner is None and not m.is_over
    pass_round(m, 82, shift=2)
    assert m.totals == [244, 242] and m.winner == 0


def test_r25_belot_wins_whatever_the_totals() -> None:
    """R25/R10: belot wins the match for the holder's side even when behind."""
    m = new_match()
    pass_round(m, 82)
    rnd = deal(m, ["7H 8H 9H TH 7D 8D 9D TD", "JH QH KH AH JD QD KD AD",
                   "7C 8C 9C TC JC QC KC AC", "7S 8S 9S TS JS QS KS AS"])
    act(m, "H", "JH", "7C", "declare 7S 8S 9S TS JS QS KS AS")
    assert rnd.result.outcome == "belot" and m.winner == 1 and m.totals == [82, 80]


@pytest.mark.parametrize("target,seed", [(1001, 1), (501, 2), (501, 3)])
def test_r25_random_matches_end_at_target(target: int, seed: int) -> None:
    """R25/R39: random matches: each round's dealer is the previous first seat; the match
    ends at the first round where a side has the target with the single highest total."""
    m = Match("bela4", options={"target": target}, seed=seed)
    rng = random.Random(seed)
    prev_first = None
    while not m.is_over:
        rnd = m.deal()
        if prev_first is not None:
            assert rnd.dealer == prev_first
        prev_first = rnd.first
        while not rnd.is_over:
            m.apply(rng.choice(rnd.legal_actions()))
        totals = [sum(s[i] for s in m.sheet) for i in range(2)]
        assert totals == m.totals
        ends = max(totals) >= target and totals.count(max(totals)) == 1
        if rnd.result.outcome != "belot":
            assert m.is_over == ends
    assert m.winner is not None
    if m.rounds[-1].result.outcome != "belot":
        assert m.totals[m.winner] >= target and m.totals[m.winner] > m.totals[1 - m.winner]

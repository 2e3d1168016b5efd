"""bela3 (three players, each for himself, 701): RULES.md R26-R29 and the general rules they
refer to (R12 and R22 table options, R15, R23, R10).

Seat 0 is the first seat (``first_dealer=2``): it must call (R26) and leads (R16).
"""

from __future__ import annotations

import random

import pytest
from variant_helpers import (
    act,
    card_points,
    codes,
    deal,
    legal_tokens,
    new_match,
    play_out,
    refused,
    search_round,
)

from bela.engine import InvalidDeal, InvalidOptions, Match
from bela.engine.actions import Discard
from bela.engine.views import seat_view

# A deal where the caller (seat 0) can win no trick and seat 2 must take all ten: seat 2 holds
# every trump but the 7 and all clubs above the caller's; seat 1 holds spades and diamonds only.
WEAK_CALLER = (
    ["7S 8S 9S 7D 8D 9D 7C 8C 9C 7H",
     "TS JS QS KS AS TD JD QD KD AD",
     "JC QC KC AC 9H TH JH QH KH AH"],
    "TC 8H",
)

# Seats 1 and 2 hold equal 3-sequences (to 9), seat 0 no declaration even with its extra cards.
EQUAL_SEQUENCES = (
    ["AH KH 7H AS JD QC 8H TS KD 7C",
     "7S 8S 9S QH JH QD TD QS 8C TC",
     "7D 8D 9D JS KS AD 9H TH JC KC"],
    "AC 9C",
)


def weak_caller_round(discard: str = "discard TC 8H") -> tuple[Match, object]:
    m = new_match("bela3")
    rnd = deal(m, WEAK_CALLER[0], extra=WEAK_CALLER[1])
    act(m, "H", discard)
    return m, rnd


def plain_round(seed: int, options: dict[str, str] | None = None) -> tuple[Match, object]:
    """A shuffled round with a random call and discard, random cards, nothing announced."""
    m = Match("bela3", options=options or {}, seed=seed, first_dealer=2)
    rnd = m.deal()
    play_out(m, seed, bela=False)
    return m, rnd


# -- R26: the deal and the forced call ---------------------------------------------------------

def test_r26_deal_shape_ten_each_and_two_extra_to_the_first_seat() -> None:
    """R26: 3+3 and a 4-card talon to each, the last 2 cards for the first seat."""
    m = Match("bela3", seed=11, first_dealer=2)
    rnd = m.deal()
    assert [len(h) for h in rnd.deal.hands] == [10, 10, 10]
    assert len(rnd.deal.extra["extra"]) == 2
    dealt = [c for h in rnd.deal.hands for c in h] + list(rnd.deal.extra["extra"])
    assert sorted(dealt) == list(range(32))


@pytest.mark.parametrize("hands, extra", [
    (WEAK_CALLER[0], None),  # no extra cards
    (WEAK_CALLER[0], "TC"),  # one extra card
    ([WEAK_CALLER[0][0][:-3], *WEAK_CALLER[0][1:]], "TC 8H"),  # a hand of 9
    ([WEAK_CALLER[0][0], WEAK_CALLER[0][1], WEAK_CALLER[0][1]], "TC 8H"),  # dealt twice
    (WEAK_CALLER[0], "TC 7S"),  # an extra card also in a hand
])
def test_r26_invalid_deals_refused(hands: list[str], extra: str | None) -> None:
    """R26: a bela3 deal is 3 x 10 cards plus 2 extra, all distinct."""
    m = new_match("bela3")
    with pytest.raises(InvalidDeal):
        if extra is None:
            deal(m, hands)
        else:
            deal(m, hands, extra=extra)


def test_r26_first_seat_must_call_no_passing() -> None:
    """R26: the first seat must call trump; there is no pass and no VC/BC."""
    m = new_match("bela3")
    rnd = deal(m, WEAK_CALLER[0], extra=WEAK_CALLER[1])
    assert rnd.phase == "bidding" and rnd.turn == 0 == rnd.first
    assert legal_tokens(rnd) == {"H", "D", "S", "C"}
    refused(m, "pass", "R26")
    refused(m, "VC", "R26")
    act(m, "S")
    assert rnd.caller == 0 and rnd.trump_name == "S"


def test_r26_first_seat_calls_on_its_first_six_cards() -> None:
    """R26: before the call every seat sees only its first 6 cards; the extra 2 are unseen."""
    m = new_match("bela3")
    rnd = deal(m, WEAK_CALLER[0], extra=WEAK_CALLER[1])
    for seat in range(3):
        v = seat_view(m, seat)
        assert {str(c) for c in v.hand} == set(WEAK_CALLER[0][seat].split()[:6])
        assert v.unseen == 4
    assert rnd.turn == 0


def test_r26_r39_first_seat_moves_each_round() -> None:
    """R26, R39: next round's dealer is this round's first seat, so the caller moves on."""
    m = new_match("bela3")
    deal(m, WEAK_CALLER[0], extra=WEAK_CALLER[1])
    act(m, "H", "discard TC 8H")
    play_out(m, 0)
    rnd = m.deal()
    assert rnd.dealer == 0 and rnd.first == 1 and rnd.turn == 1
    assert legal_tokens(rnd) == {"H", "D", "S", "C"}


# -- R27: talons, extra cards and discards -----------------------------------------------------

def test_r27_extra_cards_go_to_the_caller_who_discards_two() -> None:
    """R27: after the call everyone takes his talon; the caller also the 2 extra cards, then
    discards 2 (any two: 66 choices from 12)."""
    m = new_match("bela3")
    rnd = deal(m, WEAK_CALLER[0], extra=WEAK_CALLER[1])
    act(m, "H")
    assert rnd.phase == "discard" and rnd.turn == 0
    assert [h.bit_count() for h in rnd.hands] == [12, 10, 10]
    assert {str(c) for c in seat_view(m, 0).hand} == set(
        (WEAK_CALLER[0][0] + " " + WEAK_CALLER[1]).split())
    assert seat_view(m, 1).unseen == 0 and len(seat_view(m, 1).hand) == 10
    acts = rnd.legal_actions()
    assert len(acts) == 66 and all(isinstance(a, Discard) for a in acts)
    refused(m, "discard AH KH", "R27")  # cards the caller does not hold
    refused(m, "discard 7H 7H", "R27")
    refused(m, "7S", "R27")  # no play before the discard
    act(m, "discard 7H 8H")  # discarding trumps is allowed ("any two")
    assert rnd.phase == "play" and rnd.turn == 0
    assert [h.bit_count() for h in rnd.hands] == [10, 10, 10]


def test_r27_discards_count_for_caller() -> None:
    """R27: the discards' card points count for the caller (trump values for a trump)."""
    m, rnd = weak_caller_round("discard TC 8H")
    play_out(m, 1)
    res = rnd.result
    disc = card_points("TC", "H") + card_points("8H", "H")
    assert disc == 10
    assert res.card_points[0] == disc  # the caller won no trick, but has his discards
    assert sum(res.card_points) == 162  # R3: 152 + 10, the discards included


def test_r27_discards_are_not_a_trick() -> None:
    """R27 + R15: the discards are no trick: the caller with points only from discards has
    won no trick, so his announced declarations do not count."""
    m, rnd = weak_caller_round("discard TC 8H")
    play_out(m, 2, declare={0: "7S 8S 9S; 7D 8D 9D; 7C 8C 9C"})
    res = rnd.result
    assert rnd.tricks_won[0] == 0 and len(rnd.tricks) == 10
    assert res.card_points[0] == 10
    assert res.declaration_points == (0, 0, 0)
    assert res.declarations_to is None


def test_r27_discards_seen_only_by_the_caller() -> None:
    """R27: the discards are face down: only the caller sees them, even after the round."""
    m, rnd = weak_caller_round("discard TC 8H")
    assert codes(seat_view(m, 0).discards) == {"TC", "8H"}
    assert seat_view(m, 1).discards is None and seat_view(m, 2).discards is None
    assert seat_view(m, None).discards is None
    play_out(m, 3)
    for seat in (1, 2, None):
        v = seat_view(m, seat)
        assert v.discards is None
        assert not {"TC", "8H"} & {str(c) for c in v.played}


def test_r27_ten_tricks_of_three_cards() -> None:
    """R27: everyone holds 10 and 10 tricks are played."""
    m, rnd = weak_caller_round()
    play_out(m, 4)
    assert len(rnd.tricks) == 10 and all(len(t[1]) == 3 for t in rnd.tricks)


# -- R28: each for himself ------------------------------------------------------------------

def test_r28_another_players_capot_scores_total_plus_90_with_callers_discards() -> None:
    """R28 + R23: seat 2 takes every trick: it scores the whole total (the caller's 10 discard
    points included) plus 90, the others 0."""
    m, rnd = weak_caller_round("discard TC 8H")
    play_out(m, 5)
    res = rnd.result
    assert rnd.tricks_won == [0, 0, 10]
    assert res.outcome == "capot"
    assert res.card_points == (10, 0, 152)
    assert res.total == 162
    assert res.scores == (0, 0, 162 + 90)
    assert m.totals == [0, 0, 252]


def test_r28_capot_total_includes_capot_players_declarations_and_bela() -> None:
    """R28, R23, R12, R14: the capot player's declarations and bela are in the total."""
    m, rnd = weak_caller_round("discard TC 8H")
    play_out(m, 6, declare={2: "9H TH JH QH KH AH; JC QC KC AC", 1: "TS JS QS KS AS"})
    res = rnd.result
    bela = res.bela_points[2]
    assert res.declaration_points == (0, 0, 150)  # 6-sequence beats seat 1's 5-sequence
    assert res.total == 162 + 150 + bela
    assert res.scores == (0, 0, res.total + 90)


def _outcome_round(outcome: str, options: dict[str, str] | None = None) -> tuple[Match, object]:
    def need(r: object) -> bool:
        res = r.result  # type: ignore[attr-defined]
        others = [s for s in range(3) if s != r.caller]  # type: ignore[attr-defined]
        return res.outcome == outcome and all(res.card_points[s] for s in others)
    return search_round(lambda s: plain_round(s, options), need, 3000)


def test_r28_caller_passes_everyone_scores_own_points() -> None:
    """R28: the caller passes with more than the other two together; all score their own."""
    m, rnd = _outcome_round("pass")
    res = rnd.result
    c = rnd.caller
    own = res.card_points
    assert 2 * own[c] > res.total == 162
    assert res.scores == own
    assert tuple(m.totals) == own


def test_r28_caller_falls_scores_zero_others_own_points() -> None:
    """R28: a falling caller scores 0 and the other two score their own points (not the
    whole total, unlike two-sided bela4)."""
    m, rnd = _outcome_round("fall")
    res = rnd.result
    c = rnd.caller
    assert 2 * res.card_points[c] < 162
    expected = tuple(0 if s == c else res.card_points[s] for s in range(3))
    assert res.scores == expected
    assert all(res.scores[s] < res.total for s in range(3))


def _tie_round(options: dict[str, str] | None = None) -> tuple[Match, object]:
    return search_round(
        lambda s: plain_round(s, options),
        lambda r: 2 * r.result.card_points[r.caller] == sum(r.result.card_points),  # type: ignore
        3000)


def test_r22_r28_exact_half_falls_by_default() -> None:
    """R22 (tie = fall, default) + R28: exactly half is not more than half: the caller falls."""
    m, rnd = _tie_round()
    res = rnd.result
    c = rnd.caller
    assert res.card_points[c] == 81
    assert res.outcome == "fall"
    assert res.scores == tuple(0 if s == c else res.card_points[s] for s in range(3))


def test_r22_r28_tie_hang_holds_callers_points_for_next_round() -> None:
    """R22 option tie = hang: on an exact tie the others score their own, the caller 0 for
    now; his points are added to whoever scores most in the next round."""
    m, rnd = _tie_round({"tie": "hang"})
    res = rnd.result
    c = rnd.caller
    assert res.outcome == "hang"
    assert res.held == 81
    assert res.scores == tuple(0 if s == c else res.card_points[s] for s in range(3))
    assert m.held == 81
    nxt = m.deal()
    play_out(m, 99, bela=False)
    base = nxt.result.scores
    top = max(base)
    if base.count(top) == 1:
        booked = list(base)
        booked[base.index(top)] += 81
        assert m.sheet[-1] == tuple(booked)
        assert m.held == 0
    else:  # equal top scores: the points stay held
        assert m.sheet[-1] == base and m.held == 81


def test_r28_tie_hang_option_only_affects_exact_ties() -> None:
    """R22: with tie = hang a clear fall is still a fall."""
    m, rnd = _outcome_round("fall", {"tie": "hang"})
    assert rnd.result.outcome == "fall" and rnd.result.held == 0


def _equal_declarations_round(options: dict[str, str]) -> object:
    def make(seed: int) -> tuple[Match, object]:
        m = new_match("bela3", options)
        rnd = deal(m, EQUAL_SEQUENCES[0], extra=EQUAL_SEQUENCES[1])
        act(m, "H", "discard 7C 9C")
        play_out(m, seed, declare={1: "7S 8S 9S", 2: "7D 8D 9D"}, bela=False)
        return m, rnd
    return search_round(make, lambda r: r.tricks_won[1] > 0 and r.tricks_won[2] > 0)[1]


def test_r12_r28_equal_declarations_earlier_seat_wins() -> None:
    """R12 (equal_declarations = earlier, default) per player (R28): equal strongest
    declarations go to the seat earlier in turn order from the first seat (seat 1)."""
    rnd = _equal_declarations_round({})
    res = rnd.result
    assert res.declarations_to == 1
    assert res.declaration_points == (0, 20, 0)
    assert res.total == 182


def test_r12_r28_equal_declarations_cancel_option() -> None:
    """R12 option equal_declarations = cancel: neither player scores declarations."""
    rnd = _equal_declarations_round({"equal_declarations": "cancel"})
    res = rnd.result
    assert res.declarations_to is None
    assert res.declaration_points == (0, 0, 0)
    assert res.total == 162


# Seat 1 holds three 3-sequences (60 in all), seat 2 one 4-sequence (50): the 4-sequence is
# the strongest single declaration, so only seat 2 scores (R12 "even if its declarations add
# up to more").
SUM_VS_STRONGEST = (
    ["7H 8H QH TS QS AS TD QD KD TC",
     "7S 8S 9S 7D 8D 9D 7C 8C 9C AH",
     "JC QC KC AC JS KS 9H TH JD AD"],
    "JH KH",
)


def test_r12_r28_only_the_strongest_player_scores() -> None:
    """R12 per player (R28): only the holder of the single strongest declaration scores;
    three 3-sequences (60) lose to one 4-sequence (50)."""
    def make(seed: int) -> tuple[Match, object]:
        m = new_match("bela3")
        rnd = deal(m, SUM_VS_STRONGEST[0], extra=SUM_VS_STRONGEST[1])
        act(m, "S", "discard JH KH")
        play_out(m, seed, declare={1: "7S 8S 9S; 7D 8D 9D; 7C 8C 9C", 2: "JC QC KC AC"},
                 bela=False)
        return m, rnd
    m, rnd = search_round(make, lambda r: r.tricks_won[1] > 0 and r.tricks_won[2] > 0)
    res = rnd.result
    assert res.declarations_to == 2
    assert res.declaration_points == (0, 0, 50)
    assert res.total == 212


# -- R29 -----------------------------------------------------------------------------------------

def test_r29_target_701() -> None:
    """R29: bela3 plays to 701."""
    assert Match("bela3").options.target == 701
    assert Match("bela3", options={"target": 301}).options.target == 301


def test_r29_belot_wins_the_match_at_once() -> None:
    """R29 + R10: all eight cards of a suit, announced, win the match at once."""
    m = new_match("bela3")
    rnd = deal(m, ["AS KS QS 7D 8D 9D 7C 8C 9C TS",
                   "7H 8H 9H TH JH QH KH AH JS 9S",
                   "TD JD QD KD AD JC QC KC AC 7S"], extra="8S TC")
    act(m, "D", "discard 8S TC", "AS")
    assert "declare 7H 8H 9H TH JH QH KH AH" in legal_tokens(rnd)
    act(m, "declare 7H 8H 9H TH JH QH KH AH")
    assert rnd.result.outcome == "belot"
    assert m.winner == 1 and m.is_over


def test_r29_match_ends_at_target_with_unique_top() -> None:
    """R29, R25: seeded random rounds until someone has 701 or more and the most."""
    m = Match("bela3", seed=5, first_dealer=2)
    rng = random.Random(5)
    while not m.is_over and len(m.rounds) < 200:
        rnd = m.deal()
        while not rnd.is_over:
            m.apply(rng.choice(rnd.legal_actions()))
    assert m.is_over
    w = m.winner
    assert m.totals[w] >= 701 or m.rounds[-1].result.outcome == "belot"
    if m.rounds[-1].result.outcome != "belot":
        assert m.totals[w] == max(m.totals) and m.totals.count(m.totals[w]) == 1
    running = [0, 0, 0]
    for row in m.sheet[:-1]:  # no earlier round ended the match
        running = [t + x for t, x in zip(running, row)]
        assert max(running) < 701 or running.count(max(running)) > 1


# -- options -------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{"enforce": "off"}, {"enforce": "on"}, {"tie": "maybe"},
                                     {"equal_declarations": "both"}, {"target": 0}])
def test_r24_bela3_rejects_enforce_and_bad_options(options: dict[str, object]) -> None:
    """R24: enforce is bela4 only (bela3 always enforces); R12/R22 values are checked."""
    with pytest.raises(InvalidOptions):
        Match("bela3", options=options)


def test_r24_bela3_has_r12_and_r22_options() -> None:
    """R24: the options of R12 and R22 apply in bela3."""
    m = Match("bela3", options={"tie": "hang", "equal_declarations": "cancel"})
    assert m.options.tie == "hang" and m.options.equal_declarations == "cancel"


def test_r17_r18_play_duties_in_bela3() -> None:
    """R17-R19 in bela3 (R27): void in the led suit, a player must trump and overtrump."""
    m, rnd = weak_caller_round("discard TC 8H")
    act(m, "7S")  # seat 1 must follow and beat (all its spades beat 7S)
    assert {t for t in legal_tokens(rnd)
            if not t.startswith("declare")} == {"TS", "JS", "QS", "KS", "AS"}
    act(m, "JS")  # seat 2 has no spade: it must trump
    assert {t for t in legal_tokens(rnd) if not t.startswith("declare")} == {
        "9H", "TH", "JH", "QH", "KH", "AH", "QH*", "KH*"}
    refused(m, "JC", "R18")


# The caller (seat 0) holds the six top trumps and the spade and diamond aces and tens.
STRONG_CALLER = (
    ["JH 9H AH TH KH QH AS TS AD TD",
     "7H 7S 8S 9S JS QS KS 7D 8D 9D",
     "8H JD QD KD 7C 8C 9C JC QC KC"],
    "AC TC",
)


def test_r28_r23_a_caller_who_takes_every_trick_scores_total_plus_90() -> None:
    """R28 + R23 (the project's reading, docs/RULES.md): the caller's štiglja scores the whole
    total plus 90, the others 0; his discards count for him."""
    m = new_match("bela3")
    rnd = deal(m, STRONG_CALLER[0], extra=STRONG_CALLER[1])
    act(m, "H", "discard AC TC")
    rng = random.Random(3)
    leads = iter("JH 9H AH TH KH QH AS TS AD TD".split())
    while not rnd.is_over:
        if rnd.turn == 0:
            act(m, next(leads))
        else:
            m.apply(rng.choice(rnd.legal_actions()))
    res = rnd.result
    assert rnd.tricks_won == [10, 0, 0]
    assert res.outcome == "capot"
    assert res.total == 162
    assert res.scores == (162 + 90, 0, 0)

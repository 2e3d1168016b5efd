"""The worked examples of the user's seed texts (seeds/003_* Croatian, seeds/000_* Indonesian),
replayed as real bela4 rounds.  Dealer 3, so seat 0 is first (R5); sides 0+2 and 1+3."""

from __future__ import annotations

from bela4_helpers import (
    CAPOT_HANDS,
    CAPOT_PLAYS,
    R15_HANDS,
    R15_PLAYS,
    SEQ3_OWN,
    SEQ4,
    act,
    deal,
    declare_cmp_hands,
    declaring_round,
    legal_cards,
    new_match,
    pass_round,
    play_round,
    refused,
)

from bela.engine.views import seat_view

# -- seed 003, "Bacanje karata": herc trump, A♥ led ----------------------------------------------
HERC = ["AH JH 8H AS KS AD KD AC", "7H QH QS JS QD JD QC JC",
        "9H KH TH TS TD TC 9S 9D", "7S 8S 7D 8D 9C 8C 7C KC"]


def test_seed003_herc_ace_led() -> None:
    """Seed 003 (R17-R19): herc trump, the first plays A♥; the second has no stronger heart and
    may only follow suit (7♥); the third must play 9♥, the only heart above the ace; the last
    has no heart (hence no trump) and may play any card, e.g. one worth nothing."""
    m = new_match()
    rnd = deal(m, HERC)
    act(m, "H", "AH")
    assert legal_cards(rnd) == {"7H", "QH"}  # nothing beats A but 9 and J
    act(m, "7H")
    assert legal_cards(rnd) == {"9H"}
    refused(m, "KH", "R19")
    refused(m, "TS", "R17")
    act(m, "9H")
    assert legal_cards(rnd) == set(HERC[3].split())
    act(m, "7S")
    assert rnd.tricks[0][2] == 2  # the 9 of trump wins (R20)
    assert rnd.card_points == [11 + 0 + 14 + 0, 0]


# -- seed 000: iber and the trumped trick ------------------------------------------------------
def test_seed000_iber_ten_on_eight() -> None:
    """Seed 000 (R17, iber): on 8♠, a player holding 7♠ and 10♠ must play the 10."""
    hands = ["8S 9S 7D 8D 9D 7C 8C 9C", "7S TS AD TD KD AC TC KC",
             "JS QS KS AS QD JD QC JC", "7H 8H 9H TH JH QH KH AH"]
    m = new_match()
    rnd = deal(m, hands)
    act(m, "H", "8S")
    assert legal_cards(rnd) == {"TS"}
    refused(m, "7S", "R17")


def test_seed000_trumped_trick_frees_the_iber() -> None:
    """Seed 000 (R17 exception): hearts trump, 8♠ led, the next has no spade and trumps with
    any heart; the next holds A♠ and 7♠ and is free to play 7♠."""
    hands = ["8S 9S 7D 8D 9D 7C 8C 9C", "7H 8H 9H TH AD TD KD AC",
             "AS 7S QD JD QC JC TC KC", "KS QS JS TS JH QH KH AH"]
    m = new_match()
    rnd = deal(m, hands)
    act(m, "H", "8S")
    assert legal_cards(rnd) == {"7H", "8H", "9H", "TH"}  # any heart (R18)
    act(m, "8H")
    assert legal_cards(rnd) == {"AS", "7S"}
    act(m, "7S")
    assert rnd.trick_seats == [0, 1, 2]


# -- seed 003, special rules of declarations ---------------------------------------------------
RULE2 = ["7S 8S 9S JC AD 7H QH KD", "TD JD QD JH QS AS KH 8H",
         "8C 9C TC KS QC 9D 7D KC", "AC AH TS TH 7C JS 8D 9H"]


def test_seed003_rule2_single_strongest_beats_sum() -> None:
    """Seed 003 special rule 2 (R12): team A has 7-8-9 and 8-9-10 (40 in all), one player of
    team B has 10-J-Q (20, to the queen): the declarations go to team B."""
    m, rnd = declaring_round(RULE2, ["H"], {0: "7S 8S 9S", 2: "8C 9C TC", 1: "TD JD QD"})
    team_a = seat_view(m, 3).declared[0] + seat_view(m, 3).declared[2]
    assert sum(i.value for i in team_a) == 40
    assert rnd.result.declarations_to == 1
    assert rnd.result.declaration_points == (0, 20)
    assert rnd.result.total == 182 + sum(rnd.result.bela_points)


RULE1 = ["7S 8S 9S AS TH JD 7D AD", "QC KC AC 7C KS 9D 7H 9H",
         "8D 9C QH TS AH 8C JH JC", "QD JS KD KH TC TD 8H QS"]


def test_seed003_rule1_to_ace_beats_to_nine() -> None:
    """Seed 003 special rule 1 (R11): of two 20 declarations the one to the ace beats the one
    to the 9 (here although the 9 is announced first)."""
    m, rnd = declaring_round(RULE1, ["S"], {0: "7S 8S 9S", 1: "QC KC AC"})
    assert rnd.result.declaration_points == (0, 20)


def test_seed000_higher_top_wins_equal_length() -> None:
    """Seed 000 (R11): 8-9-10-J is weaker than 9-10-J-Q."""
    hands = declare_cmp_hands("8S 9S TS JS", "9C TC JC QC")
    m, rnd = declaring_round(hands, ["H"], {0: "8S 9S TS JS", 1: "9C TC JC QC"})
    assert rnd.result.declaration_points == (0, 50)


def test_seed003_rule4_declarations_need_a_trick() -> None:
    """Seed 003 special rule 4 / seed 000 (R15): declarations (and bela) of a side that
    takes nothing do not count."""
    m = new_match()
    rnd = play_round(m, R15_HANDS, ["pass", "H"], R15_PLAYS,
                     declare={0: "7S 8S 9S TS", 1: "AD KD QD"})
    assert rnd.tricks_won == [0, 8]
    assert rnd.result.declaration_points == (0, 0) and rnd.result.bela_points == (0, 0)


# -- seed 000 / 003: pass lines ------------------------------------------------------------------
def test_seed000_clean_game_162_needs_82() -> None:
    """Seed 000/003 (R22): a clean game is 162: passing needs 82; 81 is a fall (seed 003:
    on equal points the calling team falls and the others write everything)."""
    assert pass_round(new_match(), 82).result.scores == (82, 80)
    res = pass_round(new_match(), 81).result
    assert res.outcome == "fall" and res.scores == (0, 162)


def test_seed000_game_182_needs_92() -> None:
    """Seed 000 (R22): with 20 in declarations the game is 182 and passing needs 92."""
    res = pass_round(new_match(), 72, {2: SEQ3_OWN}).result
    assert res.total == 182 and res.outcome == "pass" and res.scores == (92, 90)
    res = pass_round(new_match(), 71, {2: SEQ3_OWN}).result
    assert res.total == 182 and res.outcome == "fall" and res.scores == (0, 182)


def test_seed000_game_212_needs_107() -> None:
    """Seed 000 (R22): with 50 in declarations the game is 212 and passing needs 107."""
    res = pass_round(new_match(), 57, {0: SEQ4}).result
    assert res.total == 212 and res.outcome == "pass" and res.scores == (107, 105)
    res = pass_round(new_match(), 56, {0: SEQ4}).result
    assert res.total == 212 and res.outcome == "fall" and res.scores == (0, 212)


# -- seed 003: štiglja ---------------------------------------------------------------------------
def test_seed003_stiglja_342() -> None:
    """Seed 003 (R23): 162 + 70 declarations + 20 bela + 90 for štiglja = 342."""
    m = new_match()
    rnd = play_round(m, CAPOT_HANDS, ["H"], CAPOT_PLAYS, {0: "AS KS QS JS; JH TH 9H"})
    res = rnd.result
    assert (res.card_points, res.declaration_points, res.bela_points) == \
        ((162, 0), (70, 0), (20, 0))
    assert res.outcome == "capot" and res.scores == (342, 0) and m.totals == [342, 0]


# -- seed 003: the next dealer ---------------------------------------------------------------
def test_seed003_first_player_deals_next() -> None:
    """Seed 003 (R39): the player who was first in the last round shuffles and deals."""
    m = new_match()
    first = pass_round(m, 82).first
    rnd = pass_round(m, 82, shift=1)
    assert rnd.dealer == first == 0 and rnd.first == 1

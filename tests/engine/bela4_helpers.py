"""Helpers shared by the bela4 engine tests (no tests here).

Positions are built only through the public API: ``Match``, ``Match.deal(hands=...)``,
``Match.apply(parse_action(token))``, ``Round.legal_actions``/``undo`` and ``seat_view``.
Seats: with ``first_dealer=3`` seat 0 is first (bids first and leads, R5); sides are seats
0+2 (side 0) and 1+3 (side 1).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bela.engine import Card, IllegalAction, Match, Play, Round, parse_action
from bela.engine.views import seat_view

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
# The shared examples beside the checkout, else the repository's own copy in examples/.
REPO_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLES = SHARED / "examples" if (SHARED / "examples").is_dir() else REPO_EXAMPLES

RANKS = "789TJQKA"
SUITS = "HDSC"
ALL_CODES = [r + s for s in SUITS for r in RANKS]


def cards(text: str) -> list[Card]:
    return list(Card.parse(text))


def codes(cs: Iterable[int]) -> set[str]:
    return {str(Card.ALL[c]) for c in cs}


def new_match(options: Mapping[str, Any] | None = None, first_dealer: int = 3) -> Match:
    return Match("bela4", options=dict(options or {}), first_dealer=first_dealer)


def deal(m: Match, hands: Sequence[str]) -> Round:
    """Deal explicit hands (one string of 8 cards per seat: 6 seen first, 2 talon)."""
    return m.deal(hands=[cards(h) for h in hands])


def act(m: Match, *tokens: str) -> None:
    for t in tokens:
        m.apply(parse_action(t))


def rotate(hands: Sequence[str], k: int = 1) -> list[str]:
    """Hands moved k seats on: new seat s gets the old hand of seat s - k.

    With the dealer also moved k seats on (R39 moves it one seat per round), the same
    tokens replay the same play, with sides swapped when k is odd.
    """
    return [hands[(s - k) % 4] for s in range(4)]


def play_round(m: Match, hands: Sequence[str], bids: Sequence[str], plays: Sequence[str],
               declare: Mapping[int, str] | None = None) -> Round:
    """Deal, bid and play; ``declare[seat]`` is announced right before the seat's first card."""
    rnd = deal(m, hands)
    act(m, *bids)
    pending = dict(declare or {})
    for tok in plays:
        seat = rnd.turn
        if seat in pending and not rnd.tricks:
            act(m, "declare " + pending.pop(seat))
        act(m, tok)
    return rnd


def random_finish(m: Match, seed: int, bela: bool = True) -> Round:
    """Play the current round to its end with seeded random legal cards (no declarations)."""
    rnd = m.round
    assert rnd is not None
    rng = random.Random(seed)
    while not rnd.is_over:
        acts = [a for a in rnd.legal_actions() if isinstance(a, Play) and (bela or not a.bela)]
        m.apply(rng.choice(acts))
    return rnd


def legal_cards(rnd: Round) -> set[str]:
    return {str(a.card) for a in rnd.legal_actions() if isinstance(a, Play)}


def legal_tokens(rnd: Round) -> set[str]:
    return {a.token() for a in rnd.legal_actions()}


def snapshot(m: Match) -> tuple[Any, ...]:
    """Everything observable about the match: all seat views, the public view, the log."""
    rnd = m.round
    assert rnd is not None
    views = tuple(seat_view(m, s) for s in (0, 1, 2, 3, None))
    return (views, tuple(a.token() for a in rnd.log), tuple(rnd.hands), rnd.turn, rnd.phase,
            tuple(m.totals), tuple(m.sheet), m.winner)


ANY_RULE = "any"


def refused(m: Match, token: str, rule: str | None) -> IllegalAction:
    """Apply ``token``, expect IllegalAction citing ``rule`` (``ANY_RULE``: whatever rule)
    and no change of state."""
    before = snapshot(m)
    try:
        m.apply(parse_action(token))
    except IllegalAction as exc:
        assert rule == ANY_RULE or exc.rule == rule, (token, exc.rule, rule, str(exc))
        assert snapshot(m) == before, f"state changed by the refused action {token}"
        return exc
    raise AssertionError(f"{token} was accepted, expected IllegalAction({rule})")


def fill_hands(fixed: Mapping[int, str], forbidden: Mapping[int, str] | None = None,
               seed: int = 0) -> list[str]:
    """Complete a deal: ``fixed[seat]`` cards go to that seat, the rest are spread
    (seeded) so that no seat gets a card of ``forbidden[seat]``."""
    rng = random.Random(seed)
    taken = {c for text in fixed.values() for c in text.split()}
    rest = [c for c in ALL_CODES if c not in taken]
    for _ in range(1000):
        rng.shuffle(rest)
        hands = {s: fixed.get(s, "").split() for s in range(4)}
        ok = True
        for c in rest:
            options = [s for s in range(4) if len(hands[s]) < 8
                       and c not in (forbidden or {}).get(s, "").split()]
            if not options:
                ok = False
                break
            hands[min(options, key=lambda s: (len(hands[s]), rng.random()))].append(c)
        if ok and all(len(h) == 8 for h in hands.values()):
            return [" ".join(hands[s]) for s in range(4)]
    raise AssertionError("cannot complete the deal")


def finish_declaring(m: Match, declare: Mapping[int, str], seed: int,
                     bela: bool = False) -> Round:
    """Play the current round to its end: each seat in ``declare`` announces those cards
    right before its first card; cards are seeded random legal plays."""
    rnd = m.round
    assert rnd is not None
    rng = random.Random(seed)
    while not rnd.is_over:
        seat = rnd.turn
        if seat in declare and rnd.declared[seat] is None and not rnd.tricks:
            act(m, "declare " + declare[seat])
            continue
        acts = [a for a in rnd.legal_actions() if isinstance(a, Play) and (bela or not a.bela)]
        m.apply(rng.choice(acts))
    return rnd


def declaring_round(hands: Sequence[str], bids: Sequence[str], declare: Mapping[int, str],
                    options: Mapping[str, Any] | None = None, first_dealer: int = 3,
                    need: Any = None, prefix: Sequence[str] = ()) -> tuple[Match, Round]:
    """Search (seeded, deterministic) for a random play-out of the deal in which ``need(rnd)``
    holds (default: both sides win at least one trick, so R15 does not interfere)."""
    need = need or (lambda r: all(r.tricks_won))
    for seed in range(300):
        m = new_match(options, first_dealer)
        rnd = deal(m, hands)
        act(m, *bids)
        for tok in prefix:
            seat = rnd.turn
            if seat in declare and rnd.declared[seat] is None and not rnd.tricks:
                act(m, "declare " + declare[seat])
            act(m, tok)
        finish_declaring(m, declare, seed)
        if need(rnd):
            return m, rnd
    raise AssertionError("no play-out found")


def declare_cmp_hands(first: str, second: str, seats: tuple[int, int] = (0, 1),
                      seed: int = 0) -> list[str]:
    """A deal where seat ``seats[0]`` holds exactly the declaration ``first`` and seat
    ``seats[1]`` exactly ``second`` (cards next to a sequence are kept away from its holder,
    so the announced run is at full length, R8)."""
    fixed = {seats[0]: first, seats[1]: second}
    forbidden = {s: " ".join(_neighbours(fixed[s])) for s in seats}
    return fill_hands(fixed, forbidden, seed)


def _neighbours(text: str) -> list[str]:
    cs = text.split()
    if len({c[1] for c in cs}) != 1:
        return []  # a four of a kind: nothing to keep away
    suit = cs[0][1]
    idx = sorted(RANKS.index(c[0]) for c in cs)
    out = []
    for i in (idx[0] - 1, idx[-1] + 1):
        if 0 <= i < 8:
            out.append(RANKS[i] + suit)
    return out


# -- fixed rounds ------------------------------------------------------------------------------
# PASS_HANDS: dealer 3, seat 0 calls diamonds.  PLAYS[cp] is a play sequence (found by a seeded
# random search over the engine's legal plays) in which side 0 takes cp card points.  Seat 0
# holds 9-10-J-Q of spades (50), seat 2 7-8-9 of clubs (20), seat 3 10-J-Q of clubs (20).
PASS_HANDS = ["9S TS JS QS AD 7H AH KC", "7S 8S KS AS TD QD KH JH",
              "7C 8C 9C JD 9D 8H TH QH", "7D 8D KD 9H TC JC QC AC"]
PLAYS = {cp: seq.split() for cp, seq in {
    56: "7H JH QH 9H TH KD AH KH 8D AD QD JD 9C AC KC TD 7S 9D 7D QS 8C QC JS 8S TC TS AS 7C "
        "JC 9S KS 8H",
    57: "7H JH QH 9H 7C TC KC TD 7S 9D KD 9S JD 7D AD QD TH 8D AH KH AC QS 8S 8C QC TS AS 9C "
        "JC JS KS 8H",
    71: "7H JH TH 9H 9D 7D AD TD QH 8D AH KH AC KC QD 8C 8S JD KD 9S 7C JC QS KS QC JS 7S 9C "
        "TC TS AS 8H",
    72: "7H KH TH 9H 8H 7D AH JH KD AD QD JD 9C TC KC TD KS 9D 8D JS 8C QC TS 7S AC QS AS 7C "
        "JC 9S 8S QH",
    81: "AD QD 9D 7D 7C TC KC TD 8S JD 8D TS TH 9H AH JH QS KS 8H KD QC 9S 7S 8C JC 7H AS 9C "
        "AC JS KH QH",
    82: "AH JH QH 9H 7H KH TH 7D JC KC TD 7C AS 9D 8D QS JD KD AD QD 9C TC 9S 7S AC JS KS 8C "
        "QC TS 8S 8H",
    91: "AH KH 8H 9H QS KS JD KD TH 8D 7H JH 7D AD QD 9D 7C TC KC TD AS QH AC TS 7S 9C QC JS "
        "9S 8S 8C JC",
    92: "AH JH TH 9H 7H KH QH 7D TC KC QD 8C 7S JD KD TS 9D 8D AD TD 9C AC 9S AS QC JS KS 7C "
        "JC QS 8S 8H",
}.items()}
SEQ4, SEQ3_OWN, SEQ3_OTHER = "9S TS JS QS", "7C 8C 9C", "TC JC QC"


# CAPOT_HANDS: seat 0 calls hearts and takes every trick with J 9 A 10 of trumps, then A K Q J
# of spades; seat 2 holds K+Q of trumps (bela).
CAPOT_HANDS = ["JH 9H AH TH AS KS QS JS", "9S 8S 7S AD TD KD AC TC",
               "KH QH 8H 7H TS 7D 7C 8C", "QD JD 9D 8D KC QC JC 9C"]
CAPOT_PLAYS = ("JH TD QH* 8D 9H KD 7H 9D AH AD 8H JD TH 7S KH QD AS 8S TS 9C KS 9S 7D JC QS "
               "TC 7C QC JS AC 8C KC").split()

# R15_HANDS: seat 1 calls hearts; seat 0 holds 7-8-9-10 of spades (50) and K+Q of trumps, and
# side 1 takes every trick in R15_PLAYS (seat 0 announces bela with its K, seat 1 A-K-Q ♦).
R15_HANDS = ["7S 8S 9S TS KH QH 7C 8C", "JH 9H AS KS AD KD QD TC",
             "7H 8H 7D 8D TD 9C JC QC", "AH TH JS QS 9D JD KC AC"]
R15_PLAYS = ("KH* JH 8H AH 9H 7H TH QH AD 8D JD 9S TC JC AC 8C KC 7C QD QC QS TS AS 9C "
             "KS TD JS 8S KD 7D 9D 7S").split()


def pass_round(m: Match, cp: int, declare: dict[int, str] | None = None, shift: int = 0):
    """Play PASS_HANDS moved ``shift`` seats on (the match's dealer must be 3 + shift)."""
    decl = {(s + shift) % 4: d for s, d in (declare or {}).items()}
    return play_round(m, rotate(PASS_HANDS, shift), ["D"], PLAYS[cp], decl)


BELA_HANDS_UNDO = ["KH QH 7S 9S JD 7C 9C JC", "AH TH 8S TS QD 8C TC QC",
                   "JH 9H AS KS KD AD AC KC", "7H 8H QS JS 7D 8D 9D TD"]

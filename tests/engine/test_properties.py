"""Property tests over random complete bela4 rounds (hypothesis draws the seeds).

Each round is a seeded shuffle and seeded random choices among ``legal_actions`` (bids,
declarations, bela, cards), with random table options; with ``enforce = off`` any card may be
played and claims (R24) are made at random.  Checked against an independent re-computation of
the rules (``ref_legal``/``ref_winner`` of test_golden_counts and the scorer below)."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_golden_counts import ref_legal, ref_winner

from bela.engine import Card, CardSet, Claim, Match, Play
from bela.engine.record import read_record, replay, score, to_record
from bela.engine.views import seat_view

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
OPTIONS = st.fixed_dictionaries({
    "equal_declarations": st.sampled_from(["earlier", "cancel"]),
    "tie": st.sampled_from(["fall", "hang"]),
    "enforce": st.sampled_from(["on", "on", "off"]),
})
FOUR_ORDER = "QKTA9J"  # R11, weakest first
FOUR_VALUES = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}  # R9
RANKS = "789TJQKA"  # R4 order, weakest first
POINTS_T = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
POINTS_P = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


# -- independent scorer -------------------------------------------------------------------------
def decl_info(group: list[str]) -> tuple[str, int, int]:
    """(kind, strength, value) of announced cards under R8-R11."""
    if len(group) == 8:
        return ("belot", 10_000, 0)
    if len({c[0] for c in group}) == 1:
        r = group[0][0]
        return ("four", 1000 + FOUR_ORDER.index(r), FOUR_VALUES[r])
    top = max(RANKS.index(c[0]) for c in group)
    n = len(group)
    return ("sequence", 10 * n + top, {3: 20, 4: 50}.get(n, 100))


def strongest_side(declared: dict[int, list[list[str]]], first: int, cancel: bool) -> int | None:
    best: dict[int, tuple[int, int]] = {}
    for seat, groups in declared.items():
        for g in groups:
            key = (decl_info(g)[1], -((seat - first) % 4))
            if seat % 2 not in best or key > best[seat % 2]:
                best[seat % 2] = key
    if not best:
        return None
    if len(best) == 2 and best[0][0] == best[1][0] and cancel:
        return None
    return max(best, key=lambda s: best[s])


def replay_log(dealer: int, hands: list[list[str]], tokens: list[str]) -> dict[str, Any]:
    """Follow a round's action log with the reference rules."""
    first = (dealer + 1) % 4
    hands = [list(h) for h in hands]
    turn, i = first, 0
    caller = trump = None
    bid_seats: list[int] = []
    while caller is None and i < len(tokens):
        tok = tokens[i]
        i += 1
        bid_seats.append(turn)
        if tok == "pass":
            turn = (turn + 1) % 4
        else:
            caller, trump = turn, tok
    turn = first
    trick: list[str] = []
    seats: list[int] = []
    tricks: list[tuple[list[int], list[str], int]] = []
    declared: dict[int, list[list[str]]] = {}
    belas: list[int] = []
    revoked: set[int] = set()
    claim = None
    for tok in tokens[i:]:
        if tok.startswith("declare "):
            declared[turn] = [g.split() for g in tok[8:].split(";")]
            continue
        if tok.startswith("claim "):
            claim = int(tok[6:])
            break
        card = tok.rstrip("*")
        if tok.endswith("*"):
            belas.append(turn)
        if card not in ref_legal(hands[turn], trick, trump):
            revoked.add(turn)
        hands[turn].remove(card)
        trick.append(card)
        seats.append(turn)
        if len(trick) == 4:
            w = seats[ref_winner(trick, trump)]
            tricks.append((seats, trick, w))
            trick, seats, turn = [], [], w
        else:
            turn = (turn + 1) % 4
    return dict(first=first, caller=caller, trump=trump, tricks=tricks, declared=declared,
                belas=belas, revoked=revoked, claim=claim, trick=trick, bid_seats=bid_seats)


def ref_result(dealer: int, hands: list[list[str]], tokens: list[str],
               options: dict[str, str]) -> tuple[str, tuple[int, int], int]:
    """(outcome, scores, total) of a finished round (R10, R12-R15, R21-R24)."""
    r = replay_log(dealer, hands, tokens)
    decl_all = [g for gs in r["declared"].values() for g in gs]
    if any(len(g) == 8 for g in decl_all):
        return ("belot", (0, 0), 0)
    if r["claim"] is not None:
        side = r["claim"] % 2
        valid = any(s % 2 != side for s in r["revoked"])
        total = 162 + sum(decl_info(g)[2] for g in decl_all) + 20 * len(r["belas"])
        scores = [0, 0]
        scores[side if valid else 1 - side] = total
        return ("claim", (scores[0], scores[1]), total)
    trump = r["trump"]
    cards = [0, 0]
    won = [0, 0]
    for _, cs, w in r["tricks"]:
        won[w % 2] += 1
        cards[w % 2] += sum((POINTS_T if c[1] == trump else POINTS_P)[c[0]] for c in cs)
    cards[r["tricks"][-1][2] % 2] += 10
    decl = [0, 0]
    side = strongest_side(r["declared"], r["first"], options["equal_declarations"] == "cancel")
    if side is not None and won[side]:
        decl[side] = sum(decl_info(g)[2] for s, gs in r["declared"].items() if s % 2 == side
                         for g in gs)
    bela = [0, 0]
    for s in r["belas"]:
        if won[s % 2]:
            bela[s % 2] += 20
    own = [cards[k] + decl[k] + bela[k] for k in range(2)]
    total = sum(own)
    for k in range(2):
        if won[k] == 8:
            sc = [0, 0]
            sc[k] = total + 90
            return ("capot", (sc[0], sc[1]), total)
    cs = r["caller"] % 2
    if 2 * own[cs] > total:
        return ("pass", (own[0], own[1]), total)
    if 2 * own[cs] == total and options["tie"] == "hang":
        sc = list(own)
        sc[cs] = 0
        return ("hang", (sc[0], sc[1]), total)
    sc = [0, 0]
    sc[1 - cs] = total
    return ("fall", (sc[0], sc[1]), total)


# -- random rounds ------------------------------------------------------------------------------
def random_step(m: Match, rng: random.Random) -> None:
    rnd = m.round
    if rnd.claim_allowed() and rng.random() < 0.04:
        m.apply(Claim(rng.randrange(4)))
        return
    m.apply(rng.choice(rnd.legal_actions()))


CODE = re.compile(r"\b([789TJQKA][HDSC])\b")


def cards_in(obj: Any, out: set[str]) -> None:
    """Every card mentioned anywhere in a view field (also as a code inside a text)."""
    if isinstance(obj, Card):
        out.add(str(obj))
    elif isinstance(obj, str):
        out.update(CODE.findall(obj))
    elif isinstance(obj, CardSet):
        out.update(str(c) for c in obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            cards_in(getattr(obj, f.name), out)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for x in obj:
            cards_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            cards_in(x, out)


def check_views(m: Match, deal_hands: list[list[str]], tokens: list[str]) -> None:
    """R6/R13: a view shows its own visible cards, and otherwise only public cards."""
    rnd = m.round
    r = replay_log(rnd.dealer, deal_hands, tokens)
    played = {c for _, cs, _ in r["tricks"] for c in cs} | set(r["trick"])
    fixed = r["caller"] is not None
    shown: set[str] = set()
    if r["tricks"] or rnd.is_over:
        side = strongest_side(r["declared"], r["first"],
                              m.options.equal_declarations == "cancel")
        shown = {c for s, gs in r["declared"].items() if side is not None and s % 2 == side
                 for g in gs for c in g}
    for seat in (0, 1, 2, 3, None):
        v = seat_view(m, seat)
        if seat is None:
            own_all: set[str] = set()
            visible: set[str] = set()
        else:
            seen_all = fixed or seat in r["bid_seats"]  # R6: the talon after the own bid
            own_all = set(deal_hands[seat] if seen_all else deal_hands[seat][:6])
            visible = own_all - played
        assert {str(c) for c in v.hand} == visible
        legal_cards: set[str] = set()
        cards_in(v.legal, legal_cards)
        assert legal_cards <= visible
        other: set[str] = set()
        for f in dataclasses.fields(v):
            if f.name not in ("hand", "legal", "ruled_out"):
                cards_in(getattr(v, f.name), other)
        assert other <= played | own_all | shown, (seat, other - played - own_all - shown)
        # ruled_out names cards a seat does NOT hold: true, and the same for every viewer
        assert v.ruled_out == seat_view(m, None).ruled_out
        for s, out in enumerate(v.ruled_out):
            assert not out.mask & rnd.hands[s]


def play_random_round(seed: int, options: dict[str, str], views: bool = False):
    m = Match("bela4", options=options, seed=seed)
    rnd = m.deal()
    hands = [[str(c) for c in h] for h in rnd.deal.hands]
    rng = random.Random(seed)
    tokens: list[str] = []
    while not rnd.is_over:
        acts = rnd.legal_actions()
        assert acts, "no legal action while the round runs"
        if rnd.phase == "play" and options["enforce"] == "on":
            r = replay_log(rnd.dealer, hands, tokens)
            hand_now = [c for c in hands[rnd.turn]
                        if c not in {x for _, cs, _ in r["tricks"] for x in cs} | set(r["trick"])]
            engine = {str(a.card) for a in acts if isinstance(a, Play)}
            assert engine == ref_legal(hand_now, r["trick"], r["trump"])
        if views:
            check_views(m, hands, tokens)
        random_step(m, rng)
        tokens.append(rnd.log[-1].token())
    if views:
        check_views(m, hands, tokens)
    return m, rnd, hands, tokens


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_random_round_invariants(seed: int, options: dict[str, str]) -> None:
    """R1, R3, R17-R24: legal set never empty and equal to the reference; each card played at
    most once (all 32 exactly once in a fully played round, 162 card points); round total =
    162 + counted declarations and bela; outcome and scores as the independent scorer says."""
    m, rnd, hands, tokens = play_random_round(seed, options)
    plays = [t.rstrip("*") for t in tokens if t[0] in "789TJQKA"]
    assert len(plays) == len(set(plays))
    res = rnd.result
    if res.outcome not in ("belot", "claim"):
        assert sorted(plays) == sorted(c for h in hands for c in h)
        assert sum(rnd.card_points) == 162
        assert sum(res.card_points) == 162
        assert res.total == 162 + sum(res.declaration_points) + sum(res.bela_points)
    expected = ref_result(rnd.dealer, hands, tokens, options)
    assert (res.outcome, tuple(res.scores)) == expected[:2]
    if res.outcome != "belot":
        assert res.total == expected[2]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_views_never_leak(seed: int, options: dict[str, str]) -> None:
    """R6, R13: at every step every seat view holds exactly that seat's visible cards and
    otherwise only played or shown (public) cards; the spectator view no hand at all."""
    play_random_round(seed, options, views=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS, rounds=st.integers(1, 3))
def test_record_round_trip(seed: int, options: dict[str, str], rounds: int) -> None:
    """RECORD.md: write -> JSON -> read -> replay -> score reproduces the match (R22 hang
    carry-over and R39 dealers included)."""
    m = Match("bela4", options=options, seed=seed)
    rng = random.Random(seed)
    for _ in range(rounds):
        if m.is_over:
            break
        rnd = m.deal()
        while not rnd.is_over:
            random_step(m, rng)
    data = to_record(m)
    m2 = replay(read_record(json.dumps(data)))
    assert score(m2) == score(m)
    assert m2.totals == m.totals and m2.sheet == m.sheet and m2.winner == m.winner
    assert to_record(m2) == data


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_undo_to_start_restores_everything(seed: int, options: dict[str, str]) -> None:
    """Undo: undoing every action, one by one, passes back through every earlier state."""
    m = Match("bela4", options=options, seed=seed)
    rnd = m.deal()
    rng = random.Random(seed)

    def snap() -> tuple[Any, ...]:
        return (tuple(seat_view(m, s, rnd) for s in (0, 1, 2, 3, None)),
                tuple(a.token() for a in rnd.log), tuple(rnd.hands), tuple(rnd.legal_actions()),
                rnd.claim_allowed(), rnd.result)

    states = [snap()]
    while not rnd.is_over:
        if rnd.claim_allowed() and rng.random() < 0.04:
            rnd.apply(Claim(rng.randrange(4)))
        else:
            rnd.apply(rng.choice(rnd.legal_actions()))
        states.append(snap())
    for expected in reversed(states[:-1]):
        rnd.undo()
        assert snap() == expected
    assert rnd.log == [] and rnd.phase == "bidding"

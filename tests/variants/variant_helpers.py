"""Helpers shared by the bela3, bela2 and belot2 tests (no tests here).

Positions are built only through the public API: ``Match``, ``Match.deal(hands=..., extra=...)``,
``Match.apply(parse_action(token))``, ``Round.legal_actions`` and ``seat_view``.

Seat conventions used throughout (RULES.md R5): seat 0 is always the first seat.
- bela3: ``first_dealer=2``; seat 0 calls (R26) and leads.
- bela2 / belot2: ``first_dealer=1``; seat 0 is the non-dealer, seat 1 the dealer.

Card points here are computed from the rule text (R2, R3, R36), not from the engine tables.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bela.engine import Card, IllegalAction, Match, Play, Round, parse_action
from bela.engine.actions import Declare, Decline
from bela.engine.views import seat_view

RANKS = "789TJQKA"
SUITS = "HDSC"
ALL_CODES = [r + s for s in SUITS for r in RANKS]

# R2 / R3 points by rank letter.
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
# R2 / R3 / R36 orders, lowest first.
TRUMP_ORDER = "78QKTA9J"
PLAIN_ORDER = "789JQKTA"

FIRST_DEALER = {"bela3": 2, "bela2": 1, "belot2": 1}
SEATS = {"bela3": 3, "bela2": 2, "belot2": 2}


def cards(text: str) -> list[Card]:
    return list(Card.parse(text))


def code(c: int) -> str:
    return str(Card.ALL[c])


def codes(cs: Iterable[int]) -> set[str]:
    return {code(c) for c in cs}


def mask_codes(mask: int) -> set[str]:
    return {code(c) for c in range(32) if mask >> c & 1}


def card_points(c: str, contract: str) -> int:
    """Points of card code ``c`` under ``contract`` (a suit letter, ``VC`` or ``BC``)."""
    if contract == "VC" or c[1] == contract:
        return TRUMP_POINTS[c[0]]
    return PLAIN_POINTS[c[0]]


def new_match(variant: str, options: Mapping[str, Any] | None = None,
              first_dealer: int | None = None) -> Match:
    fd = FIRST_DEALER[variant] if first_dealer is None else first_dealer
    return Match(variant, options=dict(options or {}), first_dealer=fd)


def deal(m: Match, hands: Sequence[str], **extra: str) -> Round:
    """Deal explicit hands (one card string per seat, in the order received) and the
    variant's extra cards (``extra=`` bela3, ``turned=`` bela2/belot2, ``bottom=`` belot2)."""
    return m.deal(hands=[cards(h) for h in hands],
                  extra={k: cards(v) for k, v in extra.items()})


def act(m: Match, *tokens: str) -> None:
    for t in tokens:
        m.apply(parse_action(t))


def legal_tokens(rnd: Round) -> set[str]:
    return {a.token() for a in rnd.legal_actions()}


def legal_cards(rnd: Round) -> set[str]:
    return {str(a.card) for a in rnd.legal_actions() if isinstance(a, Play)}


def refused(m: Match, token: str, rule: str | set[str] | None = None) -> IllegalAction:
    """Apply ``token`` and expect IllegalAction (citing ``rule``, or one of a set of rules,
    when given) with the state unchanged."""
    rnd = m.round
    assert rnd is not None
    before = (tuple(rnd.hands), rnd.phase, rnd.turn, len(rnd.log), dict(rnd.public),
              tuple(m.totals))
    try:
        m.apply(parse_action(token))
    except IllegalAction as exc:
        if rule is not None:
            rules = {rule} if isinstance(rule, str) else rule
            assert exc.rule in rules, (token, exc.rule, rule, str(exc))
        after = (tuple(rnd.hands), rnd.phase, rnd.turn, len(rnd.log), dict(rnd.public),
                 tuple(m.totals))
        assert after == before, f"state changed by the refused action {token}"
        return exc
    raise AssertionError(f"{token} was accepted, expected IllegalAction({rule})")


def play_out(m: Match, seed: int, declare: Mapping[int, str] | None = None,
             bela: bool = True, declare_all: bool = False) -> Round:
    """Finish the current round with seeded random legal cards.

    ``declare[seat]`` is announced right before that seat's first card; with ``declare_all``
    every seat announces all it holds.  Exchange offers (swap, redeal) are declined.
    """
    rnd = m.round
    assert rnd is not None
    rng = random.Random(seed)
    pending = dict(declare or {})
    while not rnd.is_over:
        acts = rnd.legal_actions()
        if rnd.phase == "exchange":
            m.apply(next(a for a in acts if isinstance(a, Decline)))
            continue
        if rnd.phase != "play":
            m.apply(rng.choice(acts))
            continue
        seat = rnd.turn
        if rnd.declared[seat] is None and not rnd.tricks:
            if seat in pending:
                act(m, "declare " + pending.pop(seat))
                continue
            if declare_all:
                decls = [a for a in acts if isinstance(a, Declare)]
                if decls:
                    m.apply(decls[0])  # largest subset first: everything held
                    continue
        plays = [a for a in acts if isinstance(a, Play) and (bela or not a.bela)]
        m.apply(rng.choice(plays))
    return rnd


def search_round(make: Any, need: Any, tries: int = 400) -> tuple[Match, Round]:
    """Deterministic search: ``make(seed)`` returns a finished (match, round); return the first
    one for which ``need(round)`` holds."""
    for seed in range(tries):
        m, rnd = make(seed)
        if need(rnd):
            return m, rnd
    raise AssertionError("no play-out with the wanted property found")


def random_action(rnd: Round, rng: random.Random, passes: int | None = None) -> Any:
    """A seeded random legal action; in bidding, ``passes`` (if given) is the number of passes
    to make before calling (as many as the bidding allows)."""
    acts = rnd.legal_actions()
    if rnd.phase == "bidding" and passes is not None:
        pass_acts = [a for a in acts if a.token() == "pass"]
        calls = [a for a in acts if a.token() != "pass"]
        if pass_acts and (len(rnd.bids) < passes or not calls):
            return pass_acts[0]
        if calls:
            return rng.choice(calls)
    return rng.choice(acts)


def random_round(variant: str, seed: int, passes: int | None = None,
                 options: Mapping[str, Any] | None = None,
                 on_step: Any = None) -> tuple[Match, Round]:
    """A complete round from a seeded shuffle and seeded random legal actions (declarations,
    bela, swaps and redeals included).  ``on_step(match, round)`` runs before every action."""
    m = Match(variant, options=dict(options or {}), seed=seed,
              first_dealer=FIRST_DEALER[variant])
    rnd = m.deal()
    rng = random.Random(seed ^ 0x5EED)
    while not rnd.is_over:
        if on_step is not None:
            on_step(m, rnd)
        m.apply(random_action(rnd, rng, passes))
    if on_step is not None:
        on_step(m, rnd)
    return m, rnd


def view_cards(obj: Any, seen: set[int] | None = None) -> set[str]:
    """Every card code reachable from a view (walks dataclasses, tuples, dicts, card sets)."""
    from dataclasses import fields, is_dataclass

    from bela.engine import CardSet

    out: set[str] = set()
    if isinstance(obj, Card):
        out.add(str(obj))
    elif isinstance(obj, CardSet):
        out |= {str(c) for c in obj}
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= view_cards(v, seen)
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for v in obj:
            out |= view_cards(v, seen)
    elif is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            if f.name != "ruled_out":  # cards a seat does NOT hold: named, never shown
                out |= view_cards(getattr(obj, f.name), seen)
    return out


def all_views(m: Match) -> list[Any]:
    rnd = m.round
    assert rnd is not None
    return [seat_view(m, s) for s in range(rnd.variant.seats)] + [seat_view(m, None)]

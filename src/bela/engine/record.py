"""Game records (RECORD.md): read, write, replay and score.

>>> m = Match("bela4", seed=3)
>>> rnd = m.deal()
>>> while not rnd.is_over:
...     _ = m.apply(rnd.legal_actions()[0])
>>> data = to_record(m)
>>> score(replay(read_record(data)))["totals"] == list(m.totals)
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .actions import (
    DECLINE,
    Action,
    ActionParseError,
    Claim,
    Decline,
    Redeal,
    Swap,
    parse_action,
)
from .cards import Card, CardParseError, format_cards
from .enums import Outcome, Phase
from .errors import BelaError, IllegalAction
from .state import Match, Round
from .variants import get_variant

DEAL_KEYS = ("extra", "turned", "bottom")


class RecordError(BelaError):
    """An invalid record or an illegal action in it; ``round``/``action`` are 0-based or None."""

    def __init__(self, reason: str, round: int | None = None, action: int | None = None) -> None:
        self.reason = reason
        self.round = round
        self.action = action
        where = "" if round is None else f"round {round}" + (
            "" if action is None else f", action {action}")
        super().__init__(f"{where}: {reason}" if where else reason)

    def as_json(self) -> dict[str, Any]:
        return {"error": {"round": self.round, "action": self.action, "reason": self.reason}}


@dataclass
class RoundRecord:
    dealer: int
    hands: list[tuple[Card, ...]]
    actions: list[str]
    deal_extra: dict[str, tuple[Card, ...]] = field(default_factory=dict)


@dataclass
class Record:
    variant: str
    options: dict[str, Any]
    rounds: list[RoundRecord]
    players: list[str] | None = None


def read_record(source: str | dict[str, Any]) -> Record:
    """Parse a record from JSON text or a decoded object; raise :class:`RecordError`."""
    if isinstance(source, str):
        try:
            data = json.loads(source)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}") from None
    else:
        data = source
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object with variant and rounds")
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise RecordError("the record has no variant (bela4, bela3, bela2 or belot2)")
    try:
        v = get_variant(variant)
    except BelaError as exc:
        raise RecordError(str(exc)) from None
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise RecordError("options must be an object of table options")
    try:
        v.make_options(options)
    except BelaError as exc:
        raise RecordError(str(exc)) from None
    players = data.get("players")
    if players is not None and (not isinstance(players, list)
                                or not all(isinstance(p, str) for p in players)):
        raise RecordError("players must be a list of names")
    rounds_data = data.get("rounds")
    if not isinstance(rounds_data, list):
        raise RecordError("the record has no list of rounds")
    rounds = []
    for i, rd in enumerate(rounds_data):
        if not isinstance(rd, dict):
            raise RecordError("a round is an object with dealer, hands and actions", i)
        dealer = rd.get("dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int):
            raise RecordError("the round has no dealer seat number", i)
        hands_raw = rd.get("hands")
        if not isinstance(hands_raw, list) or not all(isinstance(h, str) for h in hands_raw):
            raise RecordError("hands must be a list of card strings, one per seat", i)
        actions = rd.get("actions")
        if not isinstance(actions, list):
            raise RecordError("the round has no list of actions (an empty list if none were "
                              "taken)", i)
        for j, token in enumerate(actions):
            if not isinstance(token, str):
                raise RecordError(f"an action is a token string such as \"pass\" or \"JH\", "
                                  f"not {json.dumps(token)}", i, j)
        try:
            hands = [_card_list(h) for h in hands_raw]
            extra = {k: _card_list(rd[k]) for k in DEAL_KEYS
                     if k in v.deal_keys and isinstance(rd.get(k), str)}
        except CardParseError as exc:
            raise RecordError(str(exc), i) from None
        missing = [k for k in v.deal_keys if k not in extra]
        if missing:
            raise RecordError(f"{v.name} rounds need {', '.join(missing)}", i)
        rounds.append(RoundRecord(dealer, hands, list(actions), extra))
    return Record(variant, dict(options), rounds, players)


def _card_list(text: str) -> tuple[Card, ...]:
    """A RECORD.md list of cards: one string, the cards separated by spaces.

    >>> _card_list("JH 9H 10h")
    (Card.JH, Card.NINE_H, Card.TH)
    >>> _card_list("JH,9H")
    Traceback (most recent call last):
    ...
    bela.engine.cards.CardParseError: cards are separated by spaces, not commas: 'JH,9H'
    """
    if "," in text:
        raise CardParseError(f"cards are separated by spaces, not commas: {text!r}")
    return tuple(Card.from_code(token) for token in text.split())


def replay(record: Record) -> Match:
    """Replay every round of a record under the rules; raise :class:`RecordError`."""
    v = get_variant(record.variant)
    first = record.rounds[0].dealer if record.rounds else None
    if first is not None and not 0 <= first < v.seats:
        raise RecordError(f"dealer must be a seat 0..{v.seats - 1}, not {first}", 0)
    match = Match(v, record.options, first_dealer=first)
    for i, rr in enumerate(record.rounds):
        if match.is_over:
            raise RecordError("the match was already over before this round", i)
        try:
            rnd = match.deal(rr.hands, rr.deal_extra, dealer=rr.dealer)
        except BelaError as exc:
            raise RecordError(str(exc), i) from None
        for j, token in enumerate(rr.actions):
            if rnd.is_over:
                raise RecordError(f"{token!r} comes after the round ended", i, j)
            try:
                action = parse_action(token)
                skip_declined_exchanges(rnd, action)
                match.apply(action)
            except ActionParseError as exc:
                raise RecordError(str(exc), i, j) from None
            except IllegalAction as exc:
                seat = action.seat if isinstance(action, Claim) else rnd.turn
                raise RecordError(f"seat {seat}: {exc}", i, j) from None
        if not rnd.is_over and i != len(record.rounds) - 1:
            raise RecordError("only the last round may be unfinished", i)
    return match


def skip_declined_exchanges(rnd: Round, action: Action) -> None:
    """A record names only the swaps and redeals made (RECORD.md): before any other action,
    each seat still to be asked in the exchange keeps its cards (every seat is asked,
    holder or not, so a keep leaves no token)."""
    while rnd.phase == Phase.EXCHANGE and not (
            isinstance(action, (Swap, Redeal))
            and action in rnd.variant.exchange_options(rnd, rnd.turn)):
        rnd.apply(DECLINE)


def to_record(match: Match, players: list[str] | None = None) -> dict[str, Any]:
    """The RECORD.md object of a match played through the engine."""
    rounds = []
    for rnd in match.rounds:
        rd: dict[str, Any] = {"dealer": rnd.dealer,
                              "hands": [format_cards(h) for h in rnd.deal.hands]}
        for k, cards in rnd.deal.extra.items():
            rd[k] = format_cards(cards)
        rd["actions"] = [a.token() for a in rnd.log if not isinstance(a, Decline)]
        rounds.append(rd)
    out: dict[str, Any] = {"variant": match.variant.name,
                           "options": _non_default_options(match)}
    if players:
        out["players"] = list(players)
    out["rounds"] = rounds
    return out


def _non_default_options(match: Match) -> dict[str, Any]:
    default = match.variant.make_options({}).as_dict()
    return {k: v for k, v in match.options.as_dict().items()
            if k in match.variant.options and default[k] != v}


def score(match: Match) -> dict[str, Any]:
    """The ``bela score --json`` object (RECORD.md contract) of a replayed match."""
    rounds = []
    booked = iter(match.sheet)
    for rnd in match.rounds:
        res = rnd.result
        trump = rnd.trump_name
        if res is None:
            rounds.append({"caller": rnd.caller, "trump": trump, "outcome": Outcome.UNFINISHED,
                           "scores": [0] * match.variant.sides, "dealer": rnd.dealer})
            continue
        if res.outcome == Outcome.REDEAL:
            trump = None  # RECORD.md: no trump was fixed for a redealt round
        entry: dict[str, Any] = {"caller": res.caller, "trump": trump, "outcome": res.outcome,
                                 "scores": list(next(booked)), "dealer": rnd.dealer}
        if res.outcome not in (Outcome.BELOT, Outcome.REDEAL, Outcome.CLAIM):
            entry["card_points"] = list(res.card_points)
            entry["declarations"] = list(res.declaration_points)
            entry["bela"] = list(res.bela_points)
            entry["total"] = res.total
        made = [{"seat": s, "action": a.token()} for s, a in rnd.exchanges
                if not isinstance(a, Decline)]
        if made:  # R32, R35: the swaps and the redeal, in order (a redeal's swap too)
            entry["exchanges"] = made
        entry["declared"] = [[str(d) for d in decls or ()] for decls in rnd.declared]
        entry["belas"] = [seat for seat, _ in rnd.belas]
        entry["tricks"] = [t[2] for t in rnd.tricks]
        rounds.append(entry)
    return {"rounds": rounds, "totals": list(match.totals), "winner": match.winner}

"""The wire protocol: message models (Pydantic) and the JSON form of a seat's view and of
the events an action caused.

A view is serialized **only** from :class:`bela.engine.views.SeatView`, the engine's one door
to hidden cards, and events only as :func:`bela.engine.events.seen_by` gives them to a seat:
what a connection receives is exactly what its seat may know.  Cards are RECORD.md codes
(``"JH"``); a hand is a sorted list, never in the order it was dealt.
See docs/PROTOCOL.md for the whole protocol.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from functools import cache, lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
)

from ..engine.actions import CONTRACT_TOKENS, Action, Play, parse_action
from ..engine.cards import CODES, RANKS, SUITS, Card, CardSet, iter_cards
from ..engine.declarations import declaration_value
from ..engine.events import (
    BidMade,
    CardPlayed,
    ContractFixed,
    Declared,
    Event,
    RoundOver,
    TrickTaken,
)
from ..engine.explain import Refusal, ShownRevoke
from ..engine.scoring import RoundResult
from ..engine.variants import DEFAULT_VARIANT, VARIANTS
from ..engine.variants.base import Variant
from ..engine.views import DeclarationInfo, SeatView

MAX_MESSAGE = 64 * 1024  # bytes of one client message; larger ones are refused
MAX_NAME = 40


# -- REST bodies -------------------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _utf8(text: str) -> str:
    """``text`` if it is text UTF-8 can write (a lone surrogate, ``"\\ud800"`` in JSON, is
    not: neither the database nor Argon2 takes it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text is not valid Unicode (a lone surrogate)") from None
    return text


# a string of a body that reaches the database or a hash (422 bad_request otherwise)
Text = Annotated[StrictStr, AfterValidator(_utf8)]


class GuestIn(_Body):
    name: Text = Field(min_length=1, max_length=MAX_NAME)


# A password field takes any length the body limit lets through: the accounts module
# answers a wrong length (``weak_password``), and hashes no password over its longest.
Password = Text


class ClaimIn(_Body):
    """``POST /api/accounts``: ``name`` (null: the guest's current one) with a password."""

    password: Password
    name: Text | None = Field(default=None, min_length=1, max_length=MAX_NAME)


class LoginIn(_Body):
    """``POST /api/login``: a name or a password longer than any account's is simply a
    wrong one."""

    name: Text
    password: Password
    # the device secret an earlier login or claim of this account answered
    device: Text | None = Field(default=None, max_length=64)


class PasswordIn(_Body):
    """``POST /api/players/me/password``: the ``old`` password and the ``new`` one."""

    old: Password
    new: Password


def _known_variant(name: str) -> str:
    """``name`` if the engine has a variant of that name."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    return name


# the name of one of the engine's variants (422 bad_request otherwise)
VariantName = Annotated[StrictStr, AfterValidator(_known_variant)]


class TableIn(_Body):
    variant: VariantName = DEFAULT_VARIANT
    options: dict[str, StrictStr | StrictInt] = Field(default_factory=dict, max_length=8)
    bot: StrictStr = Field(default="heuristic", max_length=32)
    seat: StrictInt | None = 0  # where the creator sits; null: not at all
    seed: StrictInt | None = None  # only with a server started with allow_seed (tests)
    private: StrictBool = False  # not listed; seats are taken with the invite code


class SitIn(_Body):
    seat: StrictInt
    code: StrictStr | None = Field(default=None, max_length=64)  # a private table's invite


class BotsIn(_Body):
    seats: list[StrictInt] | None = None  # which empty seats; null: all of them


# -- WebSocket client messages -------------------------------------------------------------
class ActMessage(_Body):
    type: Literal["act"]
    action: StrictStr = Field(min_length=1, max_length=200)
    seq: StrictInt | None = None


class PingMessage(_Body):
    type: Literal["ping"]


class SyncMessage(_Body):
    type: Literal["sync"]


class SayMessage(_Body):
    """A phrase of the fixed set (:data:`bela.server.talk.PHRASES`), by its id."""

    type: Literal["say"]
    phrase: StrictStr = Field(min_length=1, max_length=32)


class ChatMessage(_Body):
    """A line of free text (only while no deal runs; the server cuts it to its limit)."""

    type: Literal["chat"]
    text: Text = Field(min_length=1, max_length=1000)


class ReportMessage(_Body):
    """Report the line of free text ``id`` to the server's operator."""

    type: Literal["report"]
    id: StrictInt


ClientKinds = (ActMessage | PingMessage | SyncMessage | SayMessage | ChatMessage
               | ReportMessage)
# Any: a type form used as a value; mypy 1.20 reads TypeAdapter's TypeForm[T] parameter
# back from its cache as type[T] and would reject the union on incremental runs
ClientMessage: Any = Annotated[ClientKinds, Field(discriminator="type")]
client_message: TypeAdapter[ClientKinds] = TypeAdapter(ClientMessage)


# -- views ---------------------------------------------------------------------------------
def cards(cs: CardSet | None) -> list[str] | None:
    """A card set as its cards' codes, lowest first (``None`` stays ``None``).

    >>> cards(CardSet.parse("AH TH 7S")), cards(None)
    (['TH', 'AH', '7S'], None)
    """
    return None if cs is None else list(_codes(cs.mask))


@lru_cache(maxsize=1 << 14)
def _codes(mask: int) -> tuple[str, ...]:
    """The codes of a mask's cards (worked out once a mask: every state message carries a
    hand and the ruled-out cards of each seat, which change a card at a time)."""
    return tuple(str(c) for c in iter_cards(mask))


def public_token(action: Action | str, own: bool) -> str | None:
    """An action's token as another seat may see it: a bela3 discard and the cards of a
    declaration stay private (R13, R27), and a decision to keep one's cards in the exchange
    is not named at all (``None``, R32, R35); the owner sees the whole token."""
    token = action if isinstance(action, str) else action.token()
    if own:
        return token
    word = token.split(" ", 1)[0]
    if word in ("discard", "declare"):
        return word
    return None if word == "keep" else token


def _result_json(r: RoundResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "outcome": r.outcome, "scores": list(r.scores), "caller": r.caller,
        "contract": CONTRACT_TOKENS[r.contract] if r.contract is not None else None,
        "total": r.total, "card_points": list(r.card_points),
        "declaration_points": list(r.declaration_points), "bela_points": list(r.bela_points),
        "held": r.held, "winner": r.winner, "declarations_to": r.declarations_to,
        "extra": {k: v for k, v in r.extra.items() if isinstance(v, (int, str, bool))},
    }


def event_json(e: Event, variant: Variant) -> dict[str, Any]:
    """The JSON object of an event as :func:`~bela.engine.events.seen_by` gave it to a seat:
    ``type`` is the event's name in snake case; ``variant`` values the declarations.

    >>> from bela.engine.events import CardPlayed
    >>> from bela.engine.variants import get_variant
    >>> event_json(CardPlayed(1, Card.from_code("9H"), False), get_variant("bela4"))
    {'type': 'card_played', 'seat': 1, 'card': '9H', 'bela': False}
    """
    out: dict[str, Any] = {"type": _type_name(type(e))}
    match e:
        case CardPlayed(seat, card, bela):  # the most frequent: _plain's members, directly
            out |= {"seat": seat, "card": CODES[card], "bela": bela}
        case BidMade(seat, action):
            out |= {"seat": seat, "bid": action.token()}
        case ContractFixed(contract, caller, raspas):
            out |= {"contract": CONTRACT_TOKENS[contract], "caller": caller, "raspas": raspas}
        case Declared(seat, declarations):
            out |= {"seat": seat, "declarations": [
                {"kind": d.kind, "length": d.length, "top": RANKS[d.top],
                 "suit": None if d.suit is None else SUITS[d.suit],
                 "value": declaration_value(d, variant.declaration_values)}
                for d in declarations]}
        case TrickTaken(seat, played, points):
            out |= {"seat": seat, "cards": [{"seat": s, "card": CODES[c]} for s, c in played],
                    "points": points}
        case RoundOver(result):
            out["result"] = _result_json(result)
        case _:  # the others' fields as they are: seats, cards as codes, numbers
            out |= _plain(e)
    return out


def view_json(v: SeatView) -> dict[str, Any]:
    """The JSON object of a seat view (public view when ``v.seat`` is None)."""
    code = CODES
    out: dict[str, Any] = {
        "variant": v.variant, "seat": v.seat, "seats": v.seats, "sides": v.sides,
        "phase": v.phase, "round_index": v.round_index, "dealer": v.dealer, "first": v.first,
        "turn": v.turn,
        "hand": list(_codes(v.hand.mask)), "unseen": v.unseen, "hand_sizes": list(v.hand_sizes),
        "bids": [{"seat": s, "bid": b} for s, b in v.bids],
        "contract": v.trump, "caller": v.caller, "raspas": v.raspas,
        "declared": _declared_json(v),
        "declarations_side": v.declarations_side,
        "declarations_seat": v.declarations_seat, "declarations_tie": v.declarations_tie,
        "belas": [{"seat": s, "suit": SUITS[suit]} for s, suit in v.belas],
        "trick": [{"seat": s, "card": code[c]} for s, c in v.trick],
        "tricks": [{"cards": [{"seat": s, "card": code[c]} for s, c in t], "winner": w}
                   for t, w in v.tricks],
        "card_points": list(v.card_points), "tricks_won": list(v.tricks_won),
        "public": {k: code[c] for k, c in v.public.items()},
        "discards": cards(v.discards),
        "legal": [a.token() for a in v.legal],
        "claim_allowed": v.claim_allowed,
        "result": _result_json(v.result),
        "options": dict(v.options), "totals": list(v.totals),
        "sheet": [list(s) for s in v.sheet], "winner": v.winner,
        "exchanges": _exchanges_json(v),
        "opened": None if v.opened is None else code[v.opened],
        "trick_winner": v.trick_winner,
        "refusals": _refusals_json(v),
        "ruled_out": [list(_codes(m.mask)) for m in v.ruled_out],
        "strength": None if v.strength is None else list(v.strength),
    }
    for name in _later_fields(out):
        out[name] = _plain(getattr(v, name))
    return out


_LATER: list[tuple[str, ...]] = []  # _later_fields, once worked out


def _later_fields(written: dict[str, Any]) -> tuple[str, ...]:
    """The fields the engine's view gained after :func:`view_json` was written (those it
    does not write itself, the members of ``written``), in their order: written
    generically; worked out at the first view (view_json writes the same members each)."""
    if not _LATER:
        _LATER.append(tuple(f.name for f in fields(SeatView)
                            if f.name not in written.keys() | _RENAMED))
    return _LATER[0]


_RENAMED = {"contract"}  # serialized under another form ("contract" as its token)


def own_view_json(v: SeatView, public: SeatView, public_json: dict[str, Any]
                  ) -> dict[str, Any]:
    """The members of :func:`view_json` that differ from seat to seat (those of
    :func:`bela.engine.views.seat_views`' per-seat part): with the others taken from
    ``public_json``, the :func:`view_json` of the ``public`` view, in :func:`view_json`'s
    order, they make the seat's whole view.  A member of a field that is the public
    view's own object (``seat_views`` shares those equal to it) is the public one's."""
    return {"seat": v.seat, "hand": list(_codes(v.hand.mask)), "unseen": v.unseen,
            "declared": public_json["declared"] if v.declared is public.declared
            else _declared_json(v),
            "discards": cards(v.discards),
            "legal": [a.token() for a in v.legal] if v.legal else [],
            "exchanges": public_json["exchanges"] if v.exchanges is public.exchanges
            else _exchanges_json(v),
            "refusals": _refusals_json(v)}


def _declared_json(v: SeatView) -> list[list[dict[str, Any]] | None]:
    return [None if d is None else [
        {"seat": i.seat, "value": i.value, "strength": i.strength, "text": i.text,
         "cards": cards(i.cards), "kind": i.kind, "length": i.length,
         "top": RANKS[i.top], "suit": None if i.suit is None else SUITS[i.suit]}
        for i in d] for d in v.declared]


def _exchanges_json(v: SeatView) -> list[dict[str, Any]]:
    return [{"seat": s, "action": a} for s, a in v.exchanges]


def _refusals_json(v: SeatView) -> list[dict[str, Any]]:
    if not v.refusals:  # all but the seat to play's
        return []
    code = CODES
    return [{"card": code[r.card], "rule": r.rule, "kind": r.kind, "suit": SUITS[r.suit],
             "to_beat": None if r.to_beat is None else code[r.to_beat],
             "reason": r.reason} for r in v.refusals]


_TYPE_NAMES: dict[type, str] = {}


def _type_name(kind: type) -> str:
    """An event class's name in snake case (``CardPlayed`` → ``card_played``), worked out
    once per class."""
    name = _TYPE_NAMES.get(kind)
    if name is None:
        name = _TYPE_NAMES[kind] = re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()
    return name


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def _plain(x: Any) -> Any:
    """A generic JSON form: cards as codes, card sets as lists, actions as tokens."""
    if isinstance(x, Card):
        return str(x)
    if isinstance(x, CardSet):
        return [str(c) for c in x]
    if type(x) is tuple or type(x) is list:  # neither an action nor a dataclass
        return [_plain(val) for val in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if hasattr(x, "token") and callable(x.token):
        return x.token()
    if is_dataclass(x) and not isinstance(x, type):
        return {name: _plain(getattr(x, name)) for name in _field_names(type(x))}
    if isinstance(x, dict):
        return {str(k): _plain(val) for k, val in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_plain(val) for val in x]
    return str(x)


def _tuples(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuples(v) for v in x)
    return x


def view_from_json(d: dict[str, Any]) -> SeatView:
    """Rebuild a :class:`SeatView` from its JSON (for Python clients and bots).  The round
    result is not rebuilt (``None``): bots act only while a round is being played."""

    def cs(x: list[str] | None) -> CardSet | None:
        return None if x is None else CardSet(Card.from_code(c) for c in x)

    contract = d["contract"]
    hand = cs(d["hand"])
    assert hand is not None
    known = {f.name for f in fields(SeatView)}
    extra: dict[str, Any] = {}
    if "exchanges" in known:
        extra["exchanges"] = tuple((e["seat"], e["action"]) for e in d.get("exchanges", ()))
    if "opened" in known:
        extra["opened"] = Card.from_code(d["opened"]) if d.get("opened") else None
    extra["trick_winner"] = d.get("trick_winner")
    extra["refusals"] = tuple(
        Refusal(Card.from_code(r["card"]), r["rule"], r["kind"], SUITS.index(r["suit"]),
                None if r["to_beat"] is None else Card.from_code(r["to_beat"]), r["reason"])
        for r in d.get("refusals", ()))
    extra["ruled_out"] = tuple(cs(m) for m in d.get("ruled_out", ()))
    extra["revokes_shown"] = tuple(
        ShownRevoke(r["seat"], r["trick"], Card.from_code(r["card"]), Card.from_code(r["proof"]),
                    r["proof_trick"], r["rule"], r["kind"]) for r in d.get("revokes_shown", ()))
    extra["strength"] = None if d.get("strength") is None else tuple(d["strength"])
    for name in known - _BUILT - set(extra):
        extra[name] = _tuples(d.get(name))
    return SeatView(
        **extra,
        variant=d["variant"], seat=d["seat"], seats=d["seats"], sides=d["sides"],
        phase=d["phase"], dealer=d["dealer"], first=d["first"], turn=d["turn"],
        hand=hand, unseen=d["unseen"], hand_sizes=tuple(d["hand_sizes"]),
        bids=tuple((b["seat"], b["bid"]) for b in d["bids"]),
        contract=None if contract is None else CONTRACT_TOKENS.index(contract),
        caller=d["caller"],
        declared=tuple(None if ds is None else tuple(
            DeclarationInfo(i["seat"], i["value"], i["strength"], i["text"], cs(i["cards"]),
                            i["kind"], i["length"], RANKS.index(i["top"]),
                            None if i["suit"] is None else SUITS.index(i["suit"]))
            for i in ds) for ds in d["declared"]),
        belas=tuple((b["seat"], SUITS.index(b["suit"])) for b in d["belas"]),
        trick=tuple((t["seat"], Card.from_code(t["card"])) for t in d["trick"]),
        tricks=tuple((tuple((t["seat"], Card.from_code(t["card"])) for t in tr["cards"]),
                      tr["winner"]) for tr in d["tricks"]),
        card_points=tuple(d["card_points"]), tricks_won=tuple(d["tricks_won"]),
        legal=tuple(parse_action(t) for t in d["legal"]),
        claim_allowed=d["claim_allowed"], result=None, options=dict(d["options"]),
        totals=tuple(d["totals"]), sheet=tuple(tuple(s) for s in d["sheet"]),
        winner=d["winner"], round_index=d["round_index"],
        public={k: Card.from_code(c) for k, c in d["public"].items()},
        discards=cs(d["discards"]), raspas=d["raspas"],
        declarations_side=d["declarations_side"],
        declarations_seat=d["declarations_seat"], declarations_tie=d["declarations_tie"],
    )


_BUILT = {"variant", "seat", "seats", "sides", "phase", "dealer", "first", "turn", "hand",
          "unseen", "hand_sizes", "bids", "contract", "caller", "declared", "belas", "trick",
          "tricks", "card_points", "tricks_won", "legal", "claim_allowed", "result", "options",
          "totals", "sheet", "winner", "round_index", "public", "discards", "raspas",
          "declarations_side", "declarations_seat", "declarations_tie"}


def error(code: str, message: str, rule: str | None = None,
          legal: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "error", "code": code, "message": message, "rule": rule}
    if legal is not None:
        msg["legal"] = legal
    msg.update(extra)
    return msg


__all__ = ["MAX_MESSAGE", "ActMessage", "BotsIn", "GuestIn", "PingMessage", "Play", "SitIn",
           "SyncMessage", "TableIn", "client_message", "error", "event_json", "public_token",
           "view_from_json", "view_json"]

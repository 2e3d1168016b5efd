"""The server's messages to its WebSocket clients, as Pydantic models: the shape
docs/PROTOCOL.md describes, stated once.

The hub builds these messages as plain dicts on its hot path (a state message goes to every
seat after every action, and validating each would cost more than building it); the models
are the contract those dicts keep.  ``tools/protocol_schema.py`` writes them, with the
client's messages of :mod:`bela.server.protocol`, to ``docs/protocol.schema.json``, and
``tests/server/test_server_schema.py`` checks that every message a real game sends validates
against that file.

>>> ServerMessage.model_validate({"type": "pong"}).root
PongMessage(type='pong')
>>> ServerMessage.model_validate({"type": "thinking", "seat": 2, "seq": 17}).root.seat
2
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, RootModel

from .protocol import (
    ActMessage,
    ChatMessage,
    PingMessage,
    ReportMessage,
    SayMessage,
    SyncMessage,
)

# A card as a RECORD.md code: the rank (7 8 9 T J Q K A) and the suit (H D S C).
CardCode = Annotated[str, Field(pattern=r"^[789TJQKA][HDSC]$", examples=["JH"])]
SuitCode = Annotated[str, Field(pattern=r"^[HDSC]$")]
RankCode = Annotated[str, Field(pattern=r"^[789TJQKA]$")]
# a contract's token: a trump suit, or belot2's "VC" / "BC" (R34)
ContractToken = Annotated[str, Field(pattern=r"^(H|D|S|C|VC|BC)$")]
OptionValue = str | int


class Out(BaseModel):
    """A part of a server message: exactly these keys (a key the server gains must be added
    here, and so to the committed schema)."""

    model_config = ConfigDict(extra="forbid")


# -- variant facts and the table summary --------------------------------------------------
class ExchangeFacts(Out):
    actions: list[str]  # the choices besides keep: "swap", "redeal"
    asked: Literal["every_round", "when_possible"]


class VariantFacts(Out):
    """What a client needs to know of a variant (docs/PROTOCOL.md, Variant facts)."""

    seats: int
    sides: int
    side_of: list[int]
    partners: list[int | None]
    face_up: str | None
    exchange: ExchangeFacts | None
    mus: bool
    raspas: bool
    discards: int
    extra_contracts: list[ContractToken]


class SeatSummary(Out):
    seat: int
    name: str | None
    kind: Literal["human", "bot"] | None
    bot: str | None  # a bot seat's bot (its own, else the table's); null for the others
    player_id: str | None
    connected: bool
    autopilot: bool
    autopilot_in: float | int | None


class SeatRating(Out):
    seat: int
    before: int
    after: int


class TableSummary(Out):
    """A table summary: ``invite_code`` only in the REST answers to a private table's
    creator, never over the WebSocket."""

    id: str
    variant: str
    options: dict[str, OptionValue]
    bot: str
    status: Literal["open", "running", "finished", "closed"]
    owner: str | None
    seq: int
    seats: list[SeatSummary]
    spectators: int
    private: bool
    invite: str
    totals: list[int] | None
    winner: int | None
    bot_fallback: bool
    turn_clock: int | None
    rated: bool
    ratings: list[SeatRating] | None
    facts: VariantFacts
    invite_code: str | None = None


# -- the view -------------------------------------------------------------------------------
class SeatCard(Out):
    seat: int
    card: CardCode


class SeatBid(Out):
    seat: int
    bid: str


class SeatSuit(Out):
    seat: int
    suit: SuitCode


class SeatAction(Out):
    seat: int
    action: str


class DeclarationShown(Out):
    """An announced declaration in a view: ``cards`` null until shown (R13)."""

    seat: int
    value: int
    strength: int
    text: str
    cards: list[CardCode] | None
    kind: Literal["sequence", "four", "belot"]
    length: int
    top: RankCode
    suit: SuitCode | None


class Trick(Out):
    cards: list[SeatCard]
    winner: int


class RefusalJson(Out):
    """A card of the hand the duties refuse now (R17-R19, R36)."""

    card: CardCode
    rule: str
    kind: Literal["follow", "beat", "trump", "overtrump"]
    suit: SuitCode
    to_beat: CardCode | None
    reason: str


class RevokeShown(Out):
    """A seat's first revoke its own cards proved (R24)."""

    seat: int
    trick: int
    card: CardCode
    proof: CardCode
    proof_trick: int
    rule: str
    kind: str


class RoundResultJson(Out):
    outcome: str
    scores: list[int]
    caller: int | None
    contract: ContractToken | None
    total: int
    card_points: list[int]
    declaration_points: list[int]
    bela_points: list[int]
    held: int
    winner: int | None
    declarations_to: int | None
    extra: dict[str, int | str | bool]


class View(Out):
    """A seat's view (``seat`` null: the public view of spectators), docs/PROTOCOL.md."""

    variant: str
    seat: int | None
    seats: int
    sides: int
    phase: Literal["bidding", "discard", "exchange", "play", "done"]
    round_index: int
    dealer: int
    first: int
    turn: int | None
    hand: list[CardCode]
    unseen: int
    hand_sizes: list[int]
    bids: list[SeatBid]
    contract: ContractToken | None
    caller: int | None
    raspas: bool
    declared: list[list[DeclarationShown] | None]
    declarations_side: int | None
    declarations_seat: int | None
    declarations_tie: bool
    belas: list[SeatSuit]
    trick: list[SeatCard]
    tricks: list[Trick]
    card_points: list[int]
    tricks_won: list[int]
    public: dict[str, CardCode]
    discards: list[CardCode] | None
    legal: list[str]
    claim_allowed: bool
    result: RoundResultJson | None
    options: dict[str, OptionValue]
    totals: list[int]
    sheet: list[list[int]]
    winner: int | None
    exchanges: list[SeatAction]
    opened: CardCode | None
    trick_winner: int | None
    refusals: list[RefusalJson]
    ruled_out: list[list[CardCode]]
    strength: list[int] | None
    revokes_shown: list[RevokeShown]


# -- events ---------------------------------------------------------------------------------
class BidMadeEvent(Out):
    type: Literal["bid_made"]
    seat: int
    bid: str


class TalonTakenEvent(Out):
    type: Literal["talon_taken"]
    seat: int
    cards: list[CardCode] | None  # only for that seat


class ContractFixedEvent(Out):
    type: Literal["contract_fixed"]
    contract: ContractToken
    caller: int | None
    raspas: bool


class DiscardedEvent(Out):
    type: Literal["discarded"]
    seat: int
    cards: list[CardCode] | None  # only for that seat


class SwappedEvent(Out):
    type: Literal["swapped"]
    seat: int
    given: CardCode
    taken: CardCode


class KeptEvent(Out):
    type: Literal["kept"]
    seat: int


class DeclarationJson(Out):
    kind: Literal["sequence", "four", "belot"]
    length: int
    top: RankCode
    suit: SuitCode | None
    value: int


class DeclaredEvent(Out):
    type: Literal["declared"]
    seat: int
    declarations: list[DeclarationJson]


class CardPlayedEvent(Out):
    type: Literal["card_played"]
    seat: int
    card: CardCode
    bela: bool


class TrickTakenEvent(Out):
    type: Literal["trick_taken"]
    seat: int
    cards: list[SeatCard]
    points: int


class ClaimedEvent(Out):
    type: Literal["claimed"]
    seat: int


class RoundOverEvent(Out):
    type: Literal["round_over"]
    result: RoundResultJson


class RoundBookedEvent(Out):
    type: Literal["round_booked"]
    scores: list[int]
    totals: list[int]
    held: int


class MatchWonEvent(Out):
    type: Literal["match_won"]
    side: int


class EventJson(RootModel[Annotated[
        BidMadeEvent | TalonTakenEvent | ContractFixedEvent | DiscardedEvent | SwappedEvent
        | KeptEvent | DeclaredEvent | CardPlayedEvent | TrickTakenEvent | ClaimedEvent
        | RoundOverEvent | RoundBookedEvent | MatchWonEvent, Field(discriminator="type")]]):
    """An event as the receiving seat may see it (docs/PROTOCOL.md, Events)."""


# -- the messages ---------------------------------------------------------------------------
class WelcomeMessage(Out):
    type: Literal["welcome"]
    seat: int | None
    player_id: str | None
    table: TableSummary


class TableMessage(Out):
    """The table summary again: seats, connections or the status changed."""

    type: Literal["table"]
    table: TableSummary


class Clock(Out):
    seat: int
    deadline_in: float | int


class StateMessage(Out):
    type: Literal["state"]
    seq: int
    status: Literal["open", "running", "finished", "closed"]
    last: SeatAction | None
    clock: Clock | None
    events: list[EventJson]
    view: View


class ErrorMessage(Out):
    """A refused message (nothing changed), or a refused connection before its close."""

    type: Literal["error"]
    code: str
    message: str
    rule: str | None
    legal: list[str] | None = None  # with "illegal": the seat's legal actions
    seq: int | None = None  # with "stale": the table's current seq


class PongMessage(Out):
    type: Literal["pong"]


class ThinkingMessage(Out):
    """A bot thinks longer than the bot delay at state ``seq``."""

    type: Literal["thinking"]
    seat: int
    seq: int


class TournamentMessage(Out):
    """A tournament's next table for this player is made (docs/TOURNAMENTS.md, Playing):
    sent on every WebSocket he has open on the instance that made it."""

    type: Literal["tournament"]
    tournament: str
    name: str
    round: int
    table: str
    link: str
    entry: int


class SaidMessage(Out):
    """A seat said a phrase of the fixed set (docs/PROTOCOL.md, Talk)."""

    type: Literal["said"]
    seat: int
    phrase: str


class ChatLineMessage(Out):
    """A line of free text said at the table between deals (``seat``: null for a
    spectator); ``id`` names it in a report."""

    type: Literal["chat"]
    id: int
    seat: int | None
    player_id: str
    name: str
    text: str


class ReportedMessage(Out):
    """The line ``id`` the connection reported is stored for the operator."""

    type: Literal["reported"]
    id: int


class ServerMessage(RootModel[Annotated[
        WelcomeMessage | TableMessage | StateMessage | ErrorMessage | PongMessage
        | ThinkingMessage | TournamentMessage | SaidMessage | ChatLineMessage
        | ReportedMessage, Field(discriminator="type")]]):
    """A message of the server to a WebSocket client (docs/PROTOCOL.md, Server → client)."""


class ClientMessage(RootModel[Annotated[
        ActMessage | PingMessage | SyncMessage | SayMessage | ChatMessage | ReportMessage,
        Field(discriminator="type")]]):
    """A message of a WebSocket client to the server (docs/PROTOCOL.md, Client → server)."""


def message_kinds(root: type[RootModel[Any]]) -> dict[str, type[BaseModel]]:
    """The models of a discriminated union of messages or events by their ``type``.

    >>> sorted(message_kinds(ServerMessage))  # doctest: +NORMALIZE_WHITESPACE
    ['chat', 'error', 'pong', 'reported', 'said', 'state', 'table', 'thinking',
     'tournament', 'welcome']
    """
    return {get_args(m.model_fields["type"].annotation)[0]: m
            for m in get_args(root.model_fields["root"].annotation)}


def schema() -> dict[str, Any]:
    """The JSON Schema of the protocol's WebSocket messages: ``$defs`` holds every part,
    ``ClientMessage`` and ``ServerMessage`` the two directions (docs/protocol.schema.json)."""

    class Protocol(BaseModel):
        client: ClientMessage
        server: ServerMessage

    defs = Protocol.model_json_schema(ref_template="#/$defs/{model}")["$defs"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "The Bela server's WebSocket messages",
        "description": "Generated by tools/protocol_schema.py from bela.server.messages and "
                       "bela.server.protocol; see docs/PROTOCOL.md. Do not edit.",
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": dict(sorted(defs.items())),
    }

"""The REST answers of the main endpoints, as Pydantic models: each route names its model as
its ``response_model`` (so ``/api/openapi.json`` states the shape), and FastAPI checks the
answer against it (a key the model does not name is an error, never dropped in silence).

Keys an answer gives only to some callers (a private table's ``invite_code``) are left out
where the route did not set them: the routes answer with ``response_model_exclude_unset``.
The table summary and the variant facts are the WebSocket's (:mod:`bela.server.messages`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from .messages import CardCode, OptionValue, Out, TableSummary, VariantFacts

__all__ = ["TableSummary"]


class Health(Out):
    status: Literal["ok"]
    instance: str


# -- players and accounts ------------------------------------------------------------------
class PlayerToken(Out):
    """A new guest, or a guest's new token."""

    player_id: str
    name: str
    token: str


class Me(Out):
    player_id: str
    name: str
    account: bool  # the name is claimed


class Claimed(Out):
    player_id: str
    name: str
    account: Literal[True]
    device: str  # the browser keeps it for its next logins of this account


class LoggedIn(Out):
    player_id: str
    name: str
    token: str  # this browser's own
    account: Literal[True]
    device: str


class NewPassword(Out):
    player_id: str
    name: str
    token: str  # replaces the one sent: every other token stopped working
    account: Literal[True]


class HistoryEntry(Out):
    """A finished match of ``GET /api/players/me/history``."""

    table: str
    variant: str
    options: dict[str, OptionValue]
    seat: int
    players: list[str | None]
    totals: list[int] | None
    winner: int | None
    finished_at: str | None
    play_on: bool  # it went on from a position of the analysis board
    record: str  # the address of its record


class Done(Out):
    ok: Literal[True]


# -- variants --------------------------------------------------------------------------------
class VariantHead(Out):
    """A variant's name, its table options and their defaults."""

    id: str
    options: list[str]
    defaults: dict[str, OptionValue]


class VariantInfo(VariantFacts, VariantHead):
    """A variant of ``GET /api/variants``: its name, options and defaults, then its facts
    (the keys in that order)."""


class Level(Out):
    name: str
    spec: str
    elo: dict[str, int]  # over beginner, per measured variant


class Ranges(Out):
    target: list[int]
    turn_clock: list[int]
    quick_wait: list[int]


class Variants(Out):
    variants: list[VariantInfo]
    choices: dict[str, list[str]]
    ranges: Ranges
    bots: list[str]
    levels: list[Level]


# -- profiles and the leaderboard ------------------------------------------------------------
class ContractCount(Out):
    trump: str
    count: int


class RatingPoint(Out):
    at: str
    rating: int
    table: str | None  # null: a private table of someone else


class ProfileVariant(Out):
    variant: str
    rating: int
    provisional: bool
    games: int
    wins: int
    points_per_deal: float | None
    contracts: list[ContractCount]
    history: list[RatingPoint]


class ProfileMatch(Out):
    table: str
    variant: str
    finished_at: str
    seat: int
    won: bool
    left: bool
    rated: bool
    rating_before: int | None
    rating_after: int | None
    totals: list[int] | None
    players: list[str | None]
    record: str


class ProfileFriend(Out):
    """A friend a profile shows: only accepted friendships, name and avatar."""

    player_id: str
    name: str
    avatar: str | None


class Profile(Out):
    player_id: str
    name: str
    account: bool
    bot: str | None
    since: str | None
    variants: list[ProfileVariant]
    matches: list[ProfileMatch]
    friends: list[ProfileFriend]  # his friends (both asked): names and avatars only


class BoardEntry(Out):
    rank: int
    player_id: str
    name: str
    bot: str | None
    rating: int
    provisional: bool
    games: int
    wins: int


class Leaderboard(Out):
    variant: str
    total: int
    entries: list[BoardEntry]


# -- quick play ------------------------------------------------------------------------------
class QuickIdle(Out):
    status: Literal["idle"]


class QuickWaiting(Out):
    """In the queue of ``variant``: ``waiting`` players in it (him counted), ``others``
    besides him."""

    status: Literal["waiting"]
    variant: str
    wait: int
    waited: int
    waiting: int
    others: int
    rating: int


class QuickMatched(Out):
    """Seated at ``table`` (until it has finished)."""

    status: Literal["matched"]
    table: str
    variant: str


# a player's quick-play status
QuickStatus = Annotated[QuickIdle | QuickWaiting | QuickMatched, Field(discriminator="status")]


# -- pads ------------------------------------------------------------------------------------
class PadSummary(Out):
    """A kept pad as listed (``totals``, ``winner``: null for a record the engine no longer
    reads)."""

    id: str
    variant: str
    names: list[str]
    deals: int | None
    totals: list[int] | None
    winner: int | None
    updated_at: str


class KeptPad(PadSummary):
    record: dict[str, Any]  # the RECORD.md pad record, as the engine writes it
    sheet: dict[str, Any] | None = None  # GET only: the engine's sheet


# -- analysis --------------------------------------------------------------------------------
class CostlyPlay(Out):
    """A card play of a review that lost double-dummy value (``values``: of each legal
    card)."""

    round: int
    index: int
    seat: int
    trick: int
    played: CardCode
    best: CardCode
    loss: int
    values: dict[str, int]


class ReviewStatus(Out):
    """A review's progress; once ``done`` its costly plays, the points lost by seat and the
    costliest plays; once ``failed`` its ``error``."""

    id: str
    status: Literal["queued", "running", "done", "failed"]
    done: int
    total: int
    plays: list[CostlyPlay] | None = None
    loss_by_seat: list[int] | None = None
    biggest: list[CostlyPlay] | None = None
    error: str | None = None


class Hint(Out):
    """What the ``pimc`` bot would do in the player's seat at state ``seq``."""

    seat: int
    phase: Literal["bidding", "discard", "exchange", "play", "done"]
    values: dict[str, float | int]
    best: str
    action: str
    minimize: bool
    seq: int

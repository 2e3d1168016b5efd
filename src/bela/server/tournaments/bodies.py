"""The request bodies of the tournament routes (docs/TOURNAMENTS.md): checked by pydantic,
unknown fields refused, as the REST bodies of :mod:`bela.server.protocol`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

NAME_MAX = 80
MAX_ROUNDS = 30
MAX_BOARDS = 32
MAX_SCORE = 100_000  # a side's points in a corrected result


class TournamentIn(BaseModel):
    """``POST /api/tournaments``: a new tournament's settings."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(min_length=1, max_length=NAME_MAX)
    variant: StrictStr = Field(max_length=32)
    format: StrictStr = Field(max_length=32)
    rounds: StrictInt = Field(default=0, ge=0, le=MAX_ROUNDS)
    options: dict[str, Any] = Field(default_factory=dict)
    boards: StrictInt = Field(default=0, ge=0, le=MAX_BOARDS)
    best_of: StrictInt = 1
    groups: StrictInt = Field(default=1, ge=1, le=16)
    knockout_after: StrictBool = False
    turn_clock: StrictInt | None = None
    rated: StrictBool = True
    private: StrictBool = False
    starts_at: datetime | None = None
    checkin: StrictBool = False
    no_show: StrictInt = Field(default=300, ge=30, le=3600)
    no_show_bot: StrictBool = False
    round_break: StrictInt = Field(default=0, ge=0, le=3600)
    real_cards: StrictBool = False  # a club night: tables in the room, scored on pads
    seed: StrictInt | None = Field(default=None, ge=0, lt=2 ** 62)  # servers that allow it


class RegisterIn(BaseModel):
    """``POST /api/tournaments/{id}/register``: a partner to invite (``bela4``), or a wish
    to be paired (``seeking``), and a private tournament's invite code."""

    model_config = ConfigDict(extra="forbid")
    partner: StrictStr | None = Field(default=None, max_length=32)
    seeking: StrictBool = False
    code: StrictStr | None = Field(default=None, max_length=64)


class AcceptIn(BaseModel):
    """``POST /api/tournaments/{id}/accept``: the entry whose invitation is accepted."""

    model_config = ConfigDict(extra="forbid")
    entry: StrictInt


class EntryIn(BaseModel):
    """``POST /api/tournaments/{id}/entries`` (the director): a bot entry of a level, or an
    entry of one or two players (by id)."""

    model_config = ConfigDict(extra="forbid")
    bot: StrictStr | None = Field(default=None, max_length=16)
    players: list[StrictStr] | None = Field(default=None, min_length=1, max_length=2)
    name: StrictStr | None = Field(default=None, min_length=1, max_length=NAME_MAX)


class ScorerIn(BaseModel):
    """``POST /api/tournaments/{id}/scorer/{round}/{table}``: a bound pad's result: the
    game's key and the pad's record."""

    model_config = ConfigDict(extra="forbid")
    key: StrictStr = Field(max_length=64)
    record: dict[str, Any]


class PairIn(BaseModel):
    """``POST /api/tournaments/{id}/pair`` (the director): two seeking entries made one
    pair."""

    model_config = ConfigDict(extra="forbid")
    entries: list[StrictInt] = Field(min_length=2, max_length=2)


class PracticeIn(BaseModel):
    """``POST /api/tournaments/practice``: a practice duplicate: the player (with a bot
    partner where the variant plays in pairs) against bots of ``level``, ``boards`` deals at
    ``tables`` tables (the other tables: bots' pairs on the same boards)."""

    model_config = ConfigDict(extra="forbid")
    variant: StrictStr = Field(max_length=32)
    boards: StrictInt = Field(default=8, ge=1, le=MAX_BOARDS)
    level: StrictStr = Field(default="club", max_length=16)
    tables: StrictInt = Field(default=2, ge=2, le=8)


class CorrectionIn(BaseModel):
    """``POST /api/tournaments/{id}/rounds/{round}/games/{table}/result`` (the director): a
    finished game's corrected result: the scores per side (side 0 first), each board's
    (a duplicate game), and why."""

    model_config = ConfigDict(extra="forbid")
    scores: list[Annotated[StrictInt, Field(ge=0, le=MAX_SCORE)]] = Field(
        min_length=2, max_length=4)
    board_scores: list[tuple[StrictInt, list[Annotated[StrictInt, Field(
        ge=-MAX_SCORE, le=MAX_SCORE)]]]] | None = Field(default=None, max_length=MAX_BOARDS)
    reason: StrictStr = Field(min_length=1, max_length=200)

"""The request bodies of the tournament routes (docs/TOURNAMENTS.md): checked by pydantic,
unknown fields refused, as the REST bodies of :mod:`bela.server.protocol`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

NAME_MAX = 80
MAX_ROUNDS = 30
MAX_BOARDS = 32


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


class PairIn(BaseModel):
    """``POST /api/tournaments/{id}/pair`` (the director): two seeking entries made one
    pair."""

    model_config = ConfigDict(extra="forbid")
    entries: list[StrictInt] = Field(min_length=2, max_length=2)

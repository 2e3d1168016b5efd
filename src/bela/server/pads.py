"""Score pads (bela blok) on the server: the rules a pad's form is built from, scoring a pad
record with the engine, and the pads of players with an account.

The pad page (``/pad``) scores offline with its own small kernel that follows
:func:`~bela.engine.pad.pad_rules`; online it asks ``POST /api/pad/score`` for the engine's
sheet of the same record and warns where they differ.  An account may keep up to
:data:`MAX_PADS` pads here, each under the id its browser gave it (docs/PROTOCOL.md).
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request, Response

from ..engine.errors import BelaError
from ..engine.pad import Pad, pad_rules
from ..engine.variants import TARGET_RANGE, VARIANTS
from ..engine.variants.base import OPTION_CHOICES
from ..storage import PadQuota, PadRefused
from ..storage.repos import Pads
from .answers import Done, KeptPad, PadSummary
from .auth import Player
from .errors import Conflict, Forbidden, InvalidInput, NotFound
from .offload import Offload, json_bytes
from .ratelimit import address_key

router = APIRouter()

MAX_PADS = 200  # pads one account keeps
ACCOUNT_BYTES = 1024 * 1024  # bytes of pad records one account keeps
ADDRESS_BYTES = 8 * 1024 * 1024  # bytes of pad records written from one client address
MAX_DEALS = 500  # deals in one pad record
MAX_NAME = 40  # characters of a side's name
PAD_ID = re.compile(r"[A-Za-z0-9_-]{8,40}")


def rules() -> dict[str, Any]:
    """``GET /api/pad/rules``: every variant's :func:`pad_rules`, the choices of the table
    options with a fixed set and the range of ``target`` (R25)."""
    return {"variants": {name: pad_rules(v) for name, v in VARIANTS.items()},
            "choices": {name: [str(c) for c in choice]
                        for name, choice in OPTION_CHOICES.items()},
            "ranges": {"target": list(TARGET_RANGE)}}


def read_pad(data: Any) -> Pad:
    """The pad of a record, or :class:`InvalidInput` ``bad_pad`` with the engine's reason
    (``deal 3: ...``)."""
    if isinstance(data, dict):
        deals, names = data.get("deals"), data.get("names")
        if isinstance(deals, list) and len(deals) > MAX_DEALS:
            raise InvalidInput("bad_pad", f"a pad has at most {MAX_DEALS} deals")
        if isinstance(names, list) and any(isinstance(n, str) and len(n) > MAX_NAME
                                           for n in names):
            raise InvalidInput("bad_pad", f"a name has at most {MAX_NAME} characters")
    try:
        return Pad.from_record(data)
    except BelaError as exc:
        raise InvalidInput("bad_pad", str(exc)) from None


def summary(pad_id: str, pad: Pad | None, variant: str, record: dict[str, Any],
            updated_at: datetime) -> dict[str, Any]:
    """A kept pad as ``GET /api/pads`` lists it (``totals`` and ``winner`` null for a
    record the engine no longer reads)."""
    return {"id": pad_id, "variant": variant, **facts(pad, record),
            "updated_at": _iso(updated_at)}


def facts(pad: Pad | None, record: dict[str, Any]) -> dict[str, Any]:
    """What a pad's summary shows of it: ``names``, ``deals``, ``totals``, ``winner``
    (stored with the pad when it is written: the listing scores nothing)."""
    return {"names": list(pad.names) if pad else record.get("names", []),
            "deals": len(pad.deals) if pad else None,
            "totals": list(pad.totals) if pad else None,
            "winner": pad.winner if pad else None}


def listing(kept: Pads, player_id: str, limit: int, offset: int
            ) -> tuple[list[dict[str, Any]], int]:
    """A page of an account's pads as ``GET /api/pads`` lists them, and their number: from
    the summaries stored with them (a pad written before they were is scored once, and its
    summary stored)."""
    rows, total = kept.pads(player_id, limit, offset)
    out = []
    for r in rows:
        shown = r["summary"]
        if shown is None:
            row = kept.pad(player_id, r["id"])
            if row is None:  # deleted meanwhile
                continue
            shown = facts(_stored(row), row["record"])
            kept.set_pad_summary(player_id, r["id"], shown)
        out.append({"id": r["id"], "variant": r["variant"], **shown,
                    "updated_at": _iso(r["updated_at"])})
    return out, total


def _stored(row: dict[str, Any]) -> Pad | None:
    try:
        return Pad.from_record(row["record"])
    except BelaError:
        return None


def _account(p: dict[str, Any]) -> str:
    if not p["account"]:
        raise Forbidden("not_account", "keeping pads on the server needs an account: claim "
                        "your name with a password first (POST /api/accounts)")
    player_id: str = p["id"]
    return player_id


def _pad_id(pad_id: str) -> str:
    if not PAD_ID.fullmatch(pad_id):
        raise InvalidInput("bad_pad_id", "a pad's id is 8 to 40 letters, digits, _ or -")
    return pad_id


def _iso(when: datetime) -> str:
    """A stored time in ISO 8601 (SQLite gives it back without its zone: UTC)."""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()


def _pads(request: Request) -> Pads:
    kept: Pads = request.app.state.lobby.store.db.pads
    return kept


@router.get("/api/pad/rules")
async def get_rules() -> dict[str, Any]:
    """The facts every variant's pad is built and scored from (see :func:`rules`)."""
    return rules()


def _offload(request: Request) -> Offload:
    offload: Offload = request.app.state.offload
    return offload


@router.post("/api/pad/score")
async def score_pad(data: Annotated[Any, Body()], request: Request) -> dict[str, Any]:
    """The engine's sheet of a pad record and the record as the engine writes it."""
    pad = await _offload(request).run(read_pad, data)  # a long pad: milliseconds of scoring
    return await _offload(request).run(lambda: {"sheet": pad.score(),
                                                "record": pad.to_record()})


@router.get("/api/pads", responses={200: {"model": list[PadSummary]}})
async def list_pads(request: Request, p: Player,
                    limit: Annotated[int, Query(ge=1, le=MAX_PADS)] = MAX_PADS,
                    offset: Annotated[int, Query(ge=0)] = 0) -> Response:
    """A page of the pads the account keeps, newest first (``limit`` 1 to
    :data:`MAX_PADS`, default all, from ``offset``; ``X-Total-Count`` counts them all)."""
    page, total = await _offload(request).run(listing, _pads(request), _account(p), limit,
                                              offset)
    return Response(await _offload(request).run(json_bytes, page),
                    media_type="application/json", headers={"X-Total-Count": str(total)})


@router.put("/api/pads/{pad_id}", response_model=KeptPad,
            response_model_exclude_unset=True)
async def put_pad(pad_id: str, data: Annotated[Any, Body()], request: Request,
                  p: Player) -> dict[str, Any]:
    """Keep a pad (new, or over the one of this id): its summary and the engine's
    record; 409 ``too_many_pads`` past :data:`MAX_PADS`, 409 ``pad_quota`` past the bytes
    an account (:data:`ACCOUNT_BYTES`) or a client address (:data:`ADDRESS_BYTES`) may
    keep."""
    player_id, pad_id = _account(p), _pad_id(pad_id)
    pad = await _offload(request).run(read_pad, data)
    record = pad.to_record()
    shown = facts(pad, record)
    size = len(json_bytes(record))
    address = address_key(request.client.host if request.client else None)
    try:
        written = await asyncio.to_thread(
            _pads(request).save_pad, player_id, pad_id, pad.variant.name, record, shown,
            size, address, PadQuota(MAX_PADS, ACCOUNT_BYTES, ADDRESS_BYTES))
    except PadRefused as refused:
        raise _quota_refusal(str(refused.args[0])) from None
    return {"id": pad_id, "variant": pad.variant.name, **shown, "updated_at": _iso(written),
            "record": record}


def _quota_refusal(what: str) -> Conflict:
    if what == "pads":
        return Conflict("too_many_pads", f"an account keeps at most {MAX_PADS} pads on the "
                        "server: delete one first")
    if what == "account":
        return Conflict("pad_quota", f"an account's pads take at most {ACCOUNT_BYTES} bytes "
                        "on the server: delete one first")
    return Conflict("pad_quota", f"the pads written from your address take at most "
                    f"{ADDRESS_BYTES} bytes on the server")


@router.get("/api/pads/{pad_id}", response_model=KeptPad)
async def get_pad(pad_id: str, request: Request, p: Player) -> dict[str, Any]:
    """One kept pad: its summary, record and the engine's sheet."""
    row = await asyncio.to_thread(_pads(request).pad, _account(p), _pad_id(pad_id))
    if row is None:
        raise NotFound("unknown_pad", f"you keep no pad {pad_id!r} on the server")

    def shown() -> dict[str, Any]:
        pad = _stored(row)
        return {**summary(row["id"], pad, row["variant"], row["record"], row["updated_at"]),
                "record": row["record"], "sheet": pad.score() if pad else None}

    return await _offload(request).run(shown)
@router.delete("/api/pads/{pad_id}")
async def delete_pad(pad_id: str, request: Request, p: Player) -> Done:
    """Drop a kept pad (404 ``unknown_pad`` for none)."""
    if not await asyncio.to_thread(_pads(request).delete_pad, _account(p), _pad_id(pad_id)):
        raise NotFound("unknown_pad", f"you keep no pad {pad_id!r} on the server")
    return Done(ok=True)

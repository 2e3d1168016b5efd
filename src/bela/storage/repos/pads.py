"""Score pads: the records of matches played at a real table, kept by an account."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from ..models import pads, players
from .base import Repo, now


@dataclass(frozen=True)
class PadQuota:
    """What one account's pads may take: ``pads`` of them, ``account_bytes`` of records, and
    all pads written from one client address ``address_bytes``."""

    pads: int
    account_bytes: int
    address_bytes: int


class PadRefused(Exception):
    """A pad not written: past the ``pads`` count, the ``account``'s bytes or the
    ``address``'s bytes of :class:`PadQuota` (``args[0]``)."""


class Pads(Repo):
    """An account's score pads."""

    def pads(self, player_id: str, limit: int | None = None, offset: int = 0
             ) -> tuple[list[dict[str, Any]], int]:
        """A page of the pads a player keeps, newest first, without their records (``id``,
        ``variant``, ``summary``, ``updated_at``), and how many he keeps."""
        stmt = (select(pads.c.id, pads.c.variant, pads.c.summary, pads.c.updated_at)
                .where(pads.c.player_id == player_id)
                .order_by(pads.c.updated_at.desc(), pads.c.id).offset(offset))
        if limit is not None:
            stmt = stmt.limit(limit)
        with self.begin() as conn:
            total = conn.execute(select(func.count()).select_from(pads)
                                 .where(pads.c.player_id == player_id)).scalar_one()
            return [dict(r._mapping) for r in conn.execute(stmt)], int(total)

    def set_pad_summary(self, player_id: str, pad_id: str, summary: dict[str, Any]) -> None:
        """The summary of a pad written before pads had one."""
        with self.begin() as conn:
            conn.execute(update(pads).where(pads.c.player_id == player_id, pads.c.id == pad_id,
                                            pads.c.summary.is_(None))
                         .values(summary=summary))

    def pad(self, player_id: str, pad_id: str) -> dict[str, Any] | None:
        """One pad of the player (``id``, ``variant``, ``record``, ``updated_at``)."""
        with self.begin() as conn:
            row = conn.execute(select(pads.c.id, pads.c.variant, pads.c.record,
                                      pads.c.updated_at)
                               .where(pads.c.player_id == player_id, pads.c.id == pad_id)).first()
        return None if row is None else dict(row._mapping)

    def save_pad(self, player_id: str, pad_id: str, variant: str, record: dict[str, Any],
                 summary: dict[str, Any], size: int, address: str,
                 quota: PadQuota) -> datetime:
        """Write the player's pad ``pad_id`` (a new one, or over the one kept) with its
        ``summary``, its record's ``size`` in bytes and the client ``address`` writing it:
        the time it was written.  Raises :class:`PadRefused` (nothing written) when a new
        pad is past ``quota.pads``, or the player's pads would take more than
        ``quota.account_bytes``, or the address's more than ``quota.address_bytes``.  The
        player's row is locked first (PostgreSQL), so two writes of his never both pass
        the counts."""
        written = now()
        mine = (pads.c.player_id == player_id) & (pads.c.id == pad_id)
        with self.begin() as conn:
            conn.execute(select(players.c.id).where(players.c.id == player_id)
                         .with_for_update())
            old = conn.execute(select(pads.c.size).where(mine)).first()
            if old is None:
                kept = conn.execute(select(func.count()).select_from(pads)
                                    .where(pads.c.player_id == player_id)).scalar_one()
                if kept >= quota.pads:
                    raise PadRefused("pads")
            used: int = conn.execute(select(func.coalesce(func.sum(pads.c.size), 0))
                                .where(pads.c.player_id == player_id, ~mine)).scalar_one()
            if used + size > quota.account_bytes:
                raise PadRefused("account")
            by_address: int = conn.execute(select(func.coalesce(func.sum(pads.c.size), 0))
                                      .where(pads.c.address == address, ~mine)).scalar_one()
            if by_address + size > quota.address_bytes:
                raise PadRefused("address")
            values = {"variant": variant, "record": record, "summary": summary, "size": size,
                      "address": address, "updated_at": written}
            if old is not None:
                conn.execute(update(pads).where(mine).values(**values))
            else:
                conn.execute(insert(pads).values(player_id=player_id, id=pad_id, **values))
        return written

    def delete_pad(self, player_id: str, pad_id: str) -> bool:
        """Drop the player's pad; ``False`` when he keeps none of that id."""
        with self.begin() as conn:
            return bool(conn.execute(delete(pads).where(pads.c.player_id == player_id,
                                                        pads.c.id == pad_id)).rowcount)

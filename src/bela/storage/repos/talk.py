"""Reports of table talk, kept for the server's operator."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select

from ..models import talk_reports
from .base import Repo, now


class Talk(Repo):
    """The reported lines of free text."""

    def add_report(self, report: dict[str, Any]) -> int:
        """Store a report (``table_id``, ``reporter_id``, ``reported_id``, ``text``,
        ``context``): its id."""
        with self.begin() as conn:
            done = conn.execute(insert(talk_reports).values(**report, created_at=now()))
            key = done.inserted_primary_key
            assert key is not None
            return int(key[0])

    def reports(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest reports first."""
        with self.begin() as conn:
            rows = conn.execute(select(talk_reports)
                                .order_by(talk_reports.c.id.desc()).limit(limit))
            return [dict(r._mapping) for r in rows]

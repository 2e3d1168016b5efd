"""Blocks between accounts (issue 44): ``blocks`` (the blocker, the blocked): the blocked
player's free text is not delivered to the blocker, on any device or instance
(docs/SECURITY.md, Talk).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("other_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_blocks_other", "blocks", ["other_id"])


def downgrade() -> None:
    op.drop_index("ix_blocks_other", "blocks")
    op.drop_table("blocks")

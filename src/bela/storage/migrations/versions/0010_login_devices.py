"""The browsers that logged in to an account (``devices``): a login answers a device secret,
kept here hashed, and a later login that sends it back is not held by the lock on the
account's name that other people's failed attempts set (docs/SECURITY.md, Guessing).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("device_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_devices_player", "devices", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_devices_player", "devices")
    op.drop_table("devices")

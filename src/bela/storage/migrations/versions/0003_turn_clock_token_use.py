"""A table's turn clock, and when a player's token was last used (tokens expire unused).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (a batch would copy the table, which SQLite's foreign keys refuse)
    op.add_column("tables", sa.Column("turn_clock", sa.Integer, nullable=True))
    op.add_column("players", sa.Column("last_seen_at", sa.DateTime(timezone=True),
                                       nullable=True))


def downgrade() -> None:
    op.drop_column("players", "last_seen_at")
    op.drop_column("tables", "turn_clock")

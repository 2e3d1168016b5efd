"""Private tables with an invite code, and the time of a table's last seat change.

Revision ID: 0002
Revises: 0001
Create Date: 2025-06-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (a batch would copy the table, which SQLite's foreign keys refuse)
    op.add_column("tables", sa.Column("private", sa.Boolean, nullable=False,
                                      server_default="0"))
    op.add_column("tables", sa.Column("invite_code", sa.String(32), nullable=True))
    op.add_column("tables", sa.Column("active_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("tables", "active_at")
    op.drop_column("tables", "invite_code")
    op.drop_column("tables", "private")

"""A table's stored event count (``tables.seq``): each new deal or action checks and
advances it in its transaction, so two server processes that both believe they run a table
cannot both append to its log.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("seq", sa.Integer, nullable=False, server_default="0"))
    # the tables stored before: their count is their deals and actions
    op.execute("UPDATE tables SET seq = "
               "(SELECT COUNT(*) FROM rounds WHERE rounds.table_id = tables.id) + "
               "(SELECT COUNT(*) FROM actions WHERE actions.table_id = tables.id)")


def downgrade() -> None:
    op.drop_column("tables", "seq")

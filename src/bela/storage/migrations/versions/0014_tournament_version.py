"""A tournament's version (``tournaments.version``): one more at every change of the
tournament, its entries, rounds or games, so the server answers a tournament's object
from its cache while the version is the one it was built at (docs/TOURNAMENTS.md).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN in place (SQLite 3.35+, PostgreSQL), as 0011 and 0012
    op.execute("ALTER TABLE tournaments DROP COLUMN version")

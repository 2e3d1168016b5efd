"""A pad's summary, size and writer's address: the listing reads no record and scores
nothing, and the storage a pad takes is counted per account and per client address.

``summary`` is what ``GET /api/pads`` shows of a pad (names, deals, totals, winner), scored
when the pad is written; the pads written before have none until their next listing.
``size`` is the bytes of its record, ``address`` the client address that wrote it last
(``ix_pads_address``: the sum of an address's pads is read off the index).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (a batch would copy the table, which SQLite's foreign keys refuse)
    op.add_column("pads", sa.Column("summary", sa.JSON, nullable=True))
    op.add_column("pads", sa.Column("size", sa.Integer, nullable=False, server_default="0"))
    op.add_column("pads", sa.Column("address", sa.String(64), nullable=True))
    op.create_index("ix_pads_address", "pads", ["address"])


def downgrade() -> None:
    op.drop_index("ix_pads_address", "pads")
    op.drop_column("pads", "address")
    op.drop_column("pads", "size")
    op.drop_column("pads", "summary")

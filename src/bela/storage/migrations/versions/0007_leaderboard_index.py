"""The leaderboard's index: a variant's ratings in the board's order.

``ix_ratings_board`` orders each variant's ratings by the conservative rating
``mu - 3 * sigma``, best first, then by entry (the order of ``GET /api/leaderboard``), so
that a page of the board is read off the index instead of sorting every rating.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ratings_board", "ratings",
                    ["variant", sa.text("(mu - 3 * sigma) DESC"), "entry"])


def downgrade() -> None:
    op.drop_index("ix_ratings_board", "ratings")

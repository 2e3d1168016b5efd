"""Score pads (bela blok) kept on the server for players with an account.

``pads`` holds one row per pad a player keeps: its id (the browser's, unique per player),
its variant and its pad record (docs/RECORD.md "Score pad records"), and when it was last
written.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pads",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_pads_player_updated", "pads", ["player_id", "updated_at"])
    # where a table comes from when it is not a match of its own: "analysis" (the analysis
    # board's play-on, whose log starts with rounds played elsewhere)
    op.add_column("tables", sa.Column("origin", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("origin")
    op.drop_index("ix_pads_player_updated", "pads")
    op.drop_table("pads")

"""The social side of the tables (issue 44): reports of table talk (``talk_reports``: a
line of free text a player reported, with the lines before it, kept for the server's
operator, docs/SECURITY.md, Talk); follows between accounts (``follows``: a one-way follow
is a friend request, two ways a friendship); a player's drawn avatar (``players.avatar``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "talk_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("reporter_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("reported_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("context", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_talk_reports_created", "talk_reports", ["created_at"])
    op.create_table(
        "follows",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("other_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_follows_other", "follows", ["other_id"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("avatar", sa.String(32), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+, PostgreSQL): a batch would copy ``players``
    # and drop the old table, which the rows of other tables that name a player forbid
    op.execute("ALTER TABLE players DROP COLUMN avatar")
    op.drop_index("ix_follows_other", "follows")
    op.drop_table("follows")
    op.drop_index("ix_talk_reports_created", "talk_reports")
    op.drop_table("talk_reports")

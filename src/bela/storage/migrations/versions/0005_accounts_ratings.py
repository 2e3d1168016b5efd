"""Accounts, logins, ratings and each player's line of a finished match.

``players`` gains a password hash and the account name's key (its case-folded form, unique
among accounts); ``sessions`` holds the tokens of logins (a guest's first token stays in
``players.token_hash``); ``tables.rated`` says whether a table's result moves ratings;
``ratings`` holds each rated entry's (a player, or a bot as ``bot-<name>``) skill per variant;
``match_players`` one row per seat of a finished match: the result, the stats and the rating
before and after.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("name_key", sa.String(64), nullable=True))
    op.add_column("players", sa.Column("password_hash", sa.String(255), nullable=True))
    op.add_column("players", sa.Column("account_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ux_players_name_key", "players", ["name_key"], unique=True)
    op.add_column("tables", sa.Column("rated", sa.Boolean, nullable=False,
                                      server_default=sa.false()))
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sessions_player", "sessions", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("entry", sa.String(40), primary_key=True),
        sa.Column("variant", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("wins", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "match_players",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry", sa.String(40), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("left", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("contracts", sa.JSON, nullable=False),
        sa.Column("rating_before", sa.Integer, nullable=True),
        sa.Column("rating_after", sa.Integer, nullable=True),
    )
    op.create_index("ix_match_players_entry", "match_players",
                    ["entry", "variant", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_match_players_entry", "match_players")
    op.drop_table("match_players")
    op.drop_table("ratings")
    op.drop_index("ix_sessions_player", "sessions")
    op.drop_table("sessions")
    op.drop_column("tables", "rated")
    op.drop_index("ux_players_name_key", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("account_at")
        batch.drop_column("password_hash")
        batch.drop_column("name_key")

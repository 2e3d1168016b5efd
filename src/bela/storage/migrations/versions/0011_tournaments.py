"""Tournaments (docs/TOURNAMENTS.md): a tournament, its entries, its rounds' stored plans and
their games (one table each), and the boards a duplicate table plays.

``tournament_rounds`` is keyed by (tournament, round): a round's plan is stored once, so a
restarted server, or a second instance, never pairs a round again.  ``tournament_games``
holds each planned game with the table made for it and, once it ended, its result.
``tables.boards``: the board numbers a duplicate table deals, in order (its match ends after
them); null for a table that plays to its target.  ``seats.bot``: a bot seat's own bot (a
tournament's bot entry of a level); null: the table's bot.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("director_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean, nullable=False, server_default="0"),
        sa.Column("invite_code", sa.String(32), nullable=True),
        sa.Column("round", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_round_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "created_at"])
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"),
                  nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("partner_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("bot", sa.String(16), nullable=True),
        sa.Column("name", sa.String(140), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float, nullable=True),
        sa.Column("checked_in", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tournament_entries_tournament", "tournament_entries",
                    ["tournament_id"])
    op.create_index("ix_tournament_entries_player", "tournament_entries", ["player_id"])
    op.create_index("ix_tournament_entries_partner", "tournament_entries", ["partner_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"),
                  primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("stage", sa.String(40), nullable=False),
        sa.Column("byes", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("table_no", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entries", sa.JSON, nullable=False),
        sa.Column("leg", sa.Integer, nullable=False, server_default="1"),
        sa.Column("boards", sa.JSON, nullable=False),
        # chosen and stored before its table is made (no foreign key): a server killed in
        # between makes the table with this id when it comes back, never a second one
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("present", sa.JSON, nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id", "round"],
                                ["tournament_rounds.tournament_id", "tournament_rounds.round"]),
    )
    op.create_index("ux_tournament_games_table", "tournament_games", ["table_id"], unique=True)
    op.add_column("tables", sa.Column("boards", sa.JSON, nullable=True))
    op.add_column("seats", sa.Column("bot", sa.String(32), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+, PostgreSQL): a batch would copy the table
    # and drop the old one, which the rows that name a table (seats, events) forbid
    op.execute("ALTER TABLE seats DROP COLUMN bot")
    op.execute("ALTER TABLE tables DROP COLUMN boards")
    op.drop_index("ux_tournament_games_table", "tournament_games")
    op.drop_table("tournament_games")
    op.drop_table("tournament_rounds")
    for name in ("partner", "player", "tournament"):
        op.drop_index(f"ix_tournament_entries_{name}", "tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", "tournaments")
    op.drop_table("tournaments")

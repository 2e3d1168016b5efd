"""The database schema (SQLAlchemy 2 Core tables).

The action log is the record: ``rounds`` holds each round's deal (hands in the order each
seat received them, RECORD.md) and ``actions`` every decision, one row each, numbered by a
per-table ``seq`` that also counts the deals.  Replaying both through the engine rebuilds a
table exactly.  Schema changes go through Alembic (``bela/storage/migrations``).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    literal_column,
)

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=True),  # the token's last use
    # an account: its name's key (case-folded, unique among accounts) and password hash
    Column("name_key", String(64), nullable=True),
    Column("password_hash", String(255), nullable=True),
    Column("account_at", DateTime(timezone=True), nullable=True),  # when the name was claimed
    Column("avatar", String(32), nullable=True),  # a drawn avatar's id (None: one by the id)
)
Index("ux_players_name_key", players.c.name_key, unique=True)

# the tokens of logins (a guest's first token is players.token_hash)
sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=True),
)
Index("ix_sessions_player", sessions.c.player_id)

# the browsers that logged in to an account (a login answers a device secret, kept hashed):
# a login from one of them is not held by the name's lock that others' failures set
devices = Table(
    "devices", metadata,
    Column("device_hash", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
Index("ix_devices_player", devices.c.player_id)

tables = Table(
    "tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("variant", String(16), nullable=False),
    Column("options", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("bot", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # open | running | finished | closed
    Column("owner_id", String(32), ForeignKey("players.id"), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),  # finished or closed
    Column("result", JSON, nullable=True),  # the `bela score --json` object, when finished
    Column("record", JSON, nullable=True),  # the RECORD.md object, when finished
    Column("private", Boolean, nullable=False, default=False, server_default="0"),  # unlisted
    Column("invite_code", String(32), nullable=True),  # a private table's seats need it
    Column("active_at", DateTime(timezone=True), nullable=True),  # last seat change
    Column("turn_clock", Integer, nullable=True),  # seconds a player has per turn (None: no clock)
    # events stored (deals and actions): each new event's write checks and advances it, so
    # two server processes that both believe they run the table cannot both append
    Column("seq", Integer, nullable=False, default=0, server_default="0"),
    Column("rated", Boolean, nullable=False, default=False, server_default="0"),
    # "analysis": a play-on of the analysis board (its log starts with rounds played
    # elsewhere: no player's stats count it); None: a match of its own
    Column("origin", String(16), nullable=True),
    # a duplicate tournament's table: the board numbers it deals, in order (its match ends
    # after them); None: a match to its target
    Column("boards", JSON(none_as_null=True), nullable=True),
)
Index("ix_tables_status", tables.c.status)

seats = Table(
    "seats", metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=True),
    Column("is_bot", Boolean, nullable=False, default=False),
    Column("name", String(64), nullable=False),
    Column("bot", String(32), nullable=True),  # a bot seat's own bot; None: the table's
)
Index("ix_seats_player", seats.c.player_id)

rounds = Table(
    "rounds", metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("idx", Integer, primary_key=True, autoincrement=False),
    Column("seq", Integer, nullable=False),
    Column("dealer", Integer, nullable=False),
    Column("deal", JSON, nullable=False),  # {"hands": [...], "extra": {...}} as card codes
)

# a rated entry's skill per variant (Weng-Lin mu and sigma): a player's id, or a bot's
# "bot-<name>"
ratings = Table(
    "ratings", metadata,
    Column("entry", String(40), primary_key=True),
    Column("variant", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False, default=0, server_default="0"),
    Column("wins", Integer, nullable=False, default=0, server_default="0"),
    Column("updated_at", DateTime(timezone=True), nullable=True),
)

# the leaderboard's order, the conservative rating mu - 3 sigma: the 3 a literal, so that the
# query's expression is the index's and the database reads a page off the index
BOARD_RATING = ratings.c.mu - literal_column("3") * ratings.c.sigma
Index("ix_ratings_board", ratings.c.variant, BOARD_RATING.desc(), ratings.c.entry)

# one row per seat of a finished match: result, stats, and the rating it moved
match_players = Table(
    "match_players", metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("entry", String(40), nullable=False),
    Column("variant", String(16), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("left", Boolean, nullable=False),  # he had left (a bot played for him) at the end
    Column("rated", Boolean, nullable=False),
    Column("points", Integer, nullable=False),  # his side's points over the match's deals
    Column("deals", Integer, nullable=False),
    Column("contracts", JSON, nullable=False),  # {"H": 2, "VC": 1}: the contracts he called
    Column("rating_before", Integer, nullable=True),  # shown ratings (rated matches)
    Column("rating_after", Integer, nullable=True),
)
Index("ix_match_players_entry", match_players.c.entry, match_players.c.variant,
      match_players.c.finished_at)

# the score pads (bela blok) a player with an account keeps on the server: the browser's id
# and the pad record (RECORD.md "Score pad records")
pads = Table(
    "pads", metadata,
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("id", String(40), primary_key=True),
    Column("variant", String(16), nullable=False),
    Column("record", JSON, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # what the listing shows, scored when the pad is written ({"names", "deals", "totals",
    # "winner"}; None: a pad written before migration 0008, scored at its next listing)
    Column("summary", JSON(none_as_null=True), nullable=True),
    Column("size", Integer, nullable=False, default=0, server_default="0"),  # record's bytes
    Column("address", String(64), nullable=True),  # the client address that wrote it last
)
Index("ix_pads_player_updated", pads.c.player_id, pads.c.updated_at)
Index("ix_pads_address", pads.c.address)

actions = Table(
    "actions", metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("round", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("token", Text, nullable=False),
)

# tournaments (docs/TOURNAMENTS.md): the settings are the create body's, as JSON
tournaments = Table(
    "tournaments", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("director_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("variant", String(16), nullable=False),
    Column("format", String(16), nullable=False),
    Column("settings", JSON, nullable=False),
    # registering | closed | running | paused | finished | cancelled
    Column("status", String(16), nullable=False),
    Column("private", Boolean, nullable=False, default=False, server_default="0"),
    Column("invite_code", String(32), nullable=True),
    Column("round", Integer, nullable=False, default=0, server_default="0"),  # last planned
    Column("next_round_at", DateTime(timezone=True), nullable=True),  # after a round's break
    Column("starts_at", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    # one more at every change of it, its entries, rounds or games (the views' cache key)
    Column("version", Integer, nullable=False, default=0, server_default="0"),
)
Index("ix_tournaments_status", tournaments.c.status, tournaments.c.created_at)

# an entry: one player, a pair (player and partner), or a bot of a level; its id is the
# core's entry id (bela.tournament.Entry)
tournament_entries = Table(
    "tournament_entries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", String(32), ForeignKey("tournaments.id"), nullable=False),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=True),
    Column("partner_id", String(32), ForeignKey("players.id"), nullable=True),
    Column("bot", String(16), nullable=True),
    Column("name", String(140), nullable=False),
    # invited | seeking | registered | withdrawn | removed
    Column("status", String(16), nullable=False),
    Column("rating", Float, nullable=True),  # fixed at the start
    Column("checked_in", JSON, nullable=False),  # the ids of its players who checked in
    Column("created_at", DateTime(timezone=True), nullable=False),
)
Index("ix_tournament_entries_tournament", tournament_entries.c.tournament_id)
Index("ix_tournament_entries_player", tournament_entries.c.player_id)
Index("ix_tournament_entries_partner", tournament_entries.c.partner_id)

# a round's plan, stored once (the key): nothing is paired twice
tournament_rounds = Table(
    "tournament_rounds", metadata,
    Column("tournament_id", String(32), ForeignKey("tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("stage", String(40), nullable=False),
    Column("byes", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
)

# a planned game (one table of a round) and its result
tournament_games = Table(
    "tournament_games", metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("table_no", Integer, primary_key=True, autoincrement=False),
    Column("entries", JSON, nullable=False),  # entry ids by side
    Column("leg", Integer, nullable=False, default=1, server_default="1"),
    Column("boards", JSON, nullable=False),
    # chosen and stored before its table is made (no foreign key): a server killed in
    # between makes the table with this id when it comes back, never a second one
    Column("table_id", String(32), nullable=True),
    Column("status", String(16), nullable=False),  # pending | playing | finished
    Column("present", JSON, nullable=False),  # {"seen": seats that connected, "bot_played"}
    Column("result", JSON, nullable=True),
    Column("started_at", DateTime(timezone=True), nullable=True),  # its table made
    Column("finished_at", DateTime(timezone=True), nullable=True),
    ForeignKeyConstraint(["tournament_id", "round"],
                         ["tournament_rounds.tournament_id", "tournament_rounds.round"]),
)
Index("ux_tournament_games_table", tournament_games.c.table_id, unique=True)

# A line of table talk a player reported, with the lines before it (``context``: a list of
# {player_id, name, text}), for the server's operator (docs/SECURITY.md, Talk).
talk_reports = Table(
    "talk_reports", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False),
    Column("reporter_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("reported_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("text", String(400), nullable=False),
    Column("context", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
Index("ix_talk_reports_created", talk_reports.c.created_at)

# A follow of one account by another: one way, a friend request; both ways, friends.
follows = Table(
    "follows", metadata,
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("other_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
Index("ix_follows_other", follows.c.other_id)

# A block of one account by another: the blocked player's free text never reaches the
# blocker (docs/SECURITY.md, Talk), and he cannot ask the blocker to be friends.
blocks = Table(
    "blocks", metadata,
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("other_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
Index("ix_blocks_other", blocks.c.other_id)

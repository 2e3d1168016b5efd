"""Account names' keys become confusable skeletons (:mod:`bela.storage.names`): a name made
of Cyrillic or Greek letters that look like Latin ones is the Latin name.

Each account's ``name_key`` is computed again, the oldest claim first.  Where two accounts
made before this migration now have one key, the later keeps its old key (it stays
unique, and the player logs in as before with his name's exact letters); no new account
can take such a key again.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bela.storage.names import name_key

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

players = sa.table("players", sa.column("id", sa.String), sa.column("name", sa.String),
                   sa.column("name_key", sa.String), sa.column("account_at", sa.DateTime))


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(players.c.id, players.c.name, players.c.name_key)
                        .where(players.c.name_key.is_not(None))
                        .order_by(players.c.account_at, players.c.id)).all()
    taken = {key for _, _, key in rows}
    for pid, name, old in rows:
        new = name_key(str(name))
        if new == old or new in taken or len(new) > 64:
            continue  # unchanged, or an older account's look-alike: it keeps its key
        bind.execute(players.update().where(players.c.id == pid).values(name_key=new))
        taken.discard(old)
        taken.add(new)


def downgrade() -> None:
    pass  # the skeletons stay: as keys of the earlier code they are still unique

"""Practice duplicate (issue 41 item 6): one player plays a set of boards against bots and
sees how the bots' own pairs scored on the very same cards at the other tables: a private
duplicate tournament of one round, directed by him, made and started at once.

His entry is himself (with a bot partner of the level where the variant plays in pairs:
the entry's ``bot`` plays the seats its players do not fill, :func:`.tables.game_seats`);
the other entries are bots of the level.  Never rated; his seat is his for the whole
evening (``no_show`` at its most, the table's bot plays it while he is away and the result
is marked ``bot_played``).
"""

from __future__ import annotations

from typing import Any

from ...engine.variants import VARIANTS
from ..errors import InvalidInput
from .bodies import PracticeIn, TournamentIn
from .director import Director

PRACTICE_NO_SHOW = 3600  # the most the settings allow: his seat waits for him


def start_practice(director: Director, player: dict[str, Any], body: PracticeIn) -> str:
    """The started practice tournament's id (the director's refusals: ``bad_variant``,
    ``bad_settings`` for a variant without duplicate, ``too_many_tournaments``; 422
    ``bad_level`` for a level this server does not run)."""
    if body.level not in director.levels:
        raise InvalidInput("bad_level", f"unknown level {body.level!r} (levels: "
                           f"{', '.join(director.levels)})")
    one = body.boards % 10 == 1 and body.boards % 100 != 11  # 1, 21: "dijeljenje"
    name = f"Vježba: duplikat, {body.boards} " + ("dijeljenje" if one else "dijeljenja")
    tournament_id = director.create(player, TournamentIn(
        name=name, variant=body.variant, format="duplicate", rounds=1, boards=body.boards,
        rated=False, private=True, no_show=PRACTICE_NO_SHOW, no_show_bot=True))
    rows = director.rows
    partners = VARIANTS[body.variant].partners
    rows.add_entry(tournament_id, player["name"], "registered", player_id=player["id"],
                   bot=body.level if partners else None)
    for i in range(2 * body.tables - 1):
        rows.add_entry(tournament_id, f"Bot {body.level} {i + 1}", "registered",
                       bot=body.level)
    row = rows.get(tournament_id)
    assert row is not None
    director.begin(row)
    return tournament_id

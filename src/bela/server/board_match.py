"""The match of a table: the engine's :class:`~bela.engine.Match`, and at a table that
deals duplicate boards (a duplicate tournament's table,
:attr:`~bela.server.model.Table.boards`) one where a belot (R10) wins *the board* it is
shown on, not the match, and play goes on with the next board (docs/RULES.md,
"Readings": duplicate; the engine's ``belot_board``).

The board's booked score is the variant's match-winning value (its default target: 1001 in
``bela4``) to the holder's side and 0 to the other; every table of the round holds the same
cards, so each table whose holder shows the belot books the same and the board's
matchpoints follow from who showed it.
"""

from __future__ import annotations

from typing import Any

from ..engine import Match
from ..engine.variants import get_variant


def table_match(variant: str, options: dict[str, Any], seed: int,
                boards: tuple[int, ...]) -> Match:
    """A new match for a table (a belot wins its board where the table deals boards)."""
    value = get_variant(variant).default_target if boards else None
    return Match(variant, options, seed=seed, belot_board=value)

"""The match of a table that deals duplicate boards (a duplicate tournament's table,
:attr:`~bela.server.model.Table.boards`): the engine's :class:`~bela.engine.Match`, but a
belot (R10) wins *the board* it is shown on, not the match, and play goes on with the next
board (docs/RULES.md, "Readings": duplicate).

The board's booked score is the variant's match-winning value (its default target: 1001 in
``bela4``) to the holder's side and 0 to the other; every table of the round holds the same
cards, so each table whose holder shows the belot books the same and the board's
matchpoints follow from who showed it.  A table without boards gets the engine's match
unchanged (:func:`table_match`).
"""

from __future__ import annotations

from typing import Any

from ..engine import Match
from ..engine.enums import Outcome
from ..engine.events import Event, MatchWon, RoundBooked
from ..engine.state import Round


class BoardMatch(Match):
    """A duplicate table's match: a belot wins its board (see the module)."""

    def _book(self, rnd: Round) -> tuple[Event, ...]:
        events = super()._book(rnd)
        res = rnd.result
        if res is None or res.outcome != Outcome.BELOT or res.winner is None:
            return events
        # R10 at a board table: the holder's side takes the board at the match's value
        scores = tuple(self.variant.default_target if side == res.winner else 0
                       for side in range(self.variant.sides))
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        self.sheet[-1] = tuple(b + s for b, s in zip(self.sheet[-1], scores, strict=True))
        self.winner = None
        kept = tuple(e for e in events if not isinstance(e, (MatchWon, RoundBooked)))
        return (*kept, RoundBooked(self.sheet[-1], tuple(self.totals), self.held))


def table_match(variant: str, options: dict[str, Any], seed: int,
                boards: tuple[int, ...]) -> Match:
    """A new match for a table: a :class:`BoardMatch` where the table deals boards."""
    kind = BoardMatch if boards else Match
    return kind(variant, options, seed=seed)

"""The bots' own phrases, said at natural moments: only after a deal or the match has ended,
from what every connection was just told (the round's outcome and scores, the match's
winner), so a bot's phrase can carry nothing about cards still in play.  At most one phrase
a deal and one at the match's end: a bot cannot talk often enough to make a code.

>>> from bela.engine.enums import Outcome
>>> from bela.engine.scoring import RoundResult
>>> r = RoundResult(Outcome.CAPOT, (0, 252), caller=1, contract=0)
>>> bot_phrase(r, None, [0, 1, 0, 1], [True, False, False, True])
(0, 'bravo')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...engine.enums import Outcome
from ...engine.events import Event, MatchWon, RoundOver
from ...engine.scoring import RoundResult
from ...engine.variants import get_variant
from ..model import Table


def bot_phrase(result: RoundResult | None, match_winner: int | None, side_of: Sequence[int],
               bots: Sequence[bool]) -> tuple[int, str] | None:
    """The (seat, phrase) a bot says after a deal's ``result`` or the match's end
    (``match_winner``: the winning side), if any: the other side's štiglja (R23) earns a
    "bravo", the winners of the match a "dobro" (well played) from the losers, a bot whose
    own side fell (R22) a "joj".  Each from the lowest bot seat of that side."""

    def bot_of(side: int, same: bool) -> int | None:
        return next((s for s, b in enumerate(bots)
                     if b and (side_of[s] == side) == same), None)

    if match_winner is not None:
        seat = bot_of(match_winner, False)
        return None if seat is None else (seat, "dobro")
    if result is None or not result.scores:
        return None
    if result.outcome == Outcome.CAPOT:
        winners = max(range(len(result.scores)), key=lambda side: result.scores[side])
        seat = bot_of(winners, False)
        return None if seat is None else (seat, "bravo")
    if result.outcome == Outcome.FALL and result.caller is not None:
        seat = bot_of(side_of[result.caller], True)
        return None if seat is None else (seat, "joj")
    return None


class BotTalk:
    """Lets the bots of a table say :func:`bot_phrase` after a state is sent (``say``: the
    table talk's own way of saying a phrase for a seat)."""

    def __init__(self, say: Callable[[Table, int, str], object]) -> None:
        self.say = say

    def after_state(self, table: Table, events: tuple[Event, ...]) -> None:
        """Called once the state made by ``events`` went to every connection."""
        result = next((e.result for e in events if isinstance(e, RoundOver)), None)
        winner = next((e.side for e in events if isinstance(e, MatchWon)), None)
        if result is None and winner is None:
            return
        v = get_variant(table.variant)
        said = bot_phrase(result, winner, [v.side_of(s) for s in range(v.seats)],
                          [s.is_bot for s in table.seats])
        if said is not None:
            self.say(table, *said)

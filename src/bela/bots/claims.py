"""Auzmeš by bots (R24): when a seat controlled by a bot claims.

A bot seat (and a person's seat that a bot plays for, the server's autopilot) claims as a
careful player would: as soon as its view proves that an opponent broke a duty (R17-R19),
that is right after the opponent's card that shows it held a card the duties made it play
(:func:`bela.engine.explain.shown_revokes`, carried by the views as ``revokes_shown``), and
before the next card.  It never claims what its view cannot prove: a claim the view does
not prove may be false, and a false claim gives the round to the other side.

>>> from bela.engine import Match, parse_action
>>> from bela.engine.cards import Card
>>> from bela.engine.views import seat_view
>>> m = Match("bela4", {"enforce": "off"}, first_dealer=3)
>>> rnd = m.deal([Card.parse(h) for h in ("KS 7S 8S 9S 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
...              "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")])
>>> for token in ("H", "KS", "7D", "JH", "7H", "AD", "8H", "7C", "8D", "JC", "TC"):
...     _ = m.apply(parse_action(token))        # seat 1 played a diamond on K♠: not proven yet
>>> claim_for(seat_view(m, 0)) is None
True
>>> _ = m.apply(parse_action("QS"))             # seat 1 shows it held a spade then
>>> claim_for(seat_view(m, 0)), claim_for(seat_view(m, 2)), claim_for(seat_view(m, 3))
(Claim(seat=0), Claim(seat=2), None)
"""

from __future__ import annotations

from ..engine.actions import Claim
from ..engine.views import SeatView


def claim_for(view: SeatView) -> Claim | None:
    """The claim of the view's seat if its view proves an opponent's revoke (R24) and a
    claim is allowed now, else ``None``."""
    seat = view.seat
    if seat is None or not view.claim_allowed:
        return None
    side = view.side_of(seat)
    if any(view.side_of(r.seat) != side for r in view.revokes_shown):
        return Claim(seat)
    return None

"""The engine's named values: phases, outcomes and table options, as ``StrEnum``.

Each member equals its string (``Phase.PLAY == "play"``), so records and JSON keep their
words, while code names the member and a typo is an error.

>>> Phase.PLAY == "play", Outcome("capot"), Tie("hang").name
(True, <Outcome.CAPOT: 'capot'>, 'HANG')
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """The phases of a round."""

    BIDDING = "bidding"
    DISCARD = "discard"  # bela3: the caller lays two cards away (R27)
    EXCHANGE = "exchange"  # bela2/belot2: swaps and redeals before the first lead (R32, R35)
    PLAY = "play"
    DONE = "done"


class Outcome(StrEnum):
    """How a round ended (RECORD.md ``outcome``)."""

    PASS = "pass"  # the caller's side passed (R21)
    FALL = "fall"  # the caller's side fell: the others take all (R22)
    HANG = "hang"  # an exact tie held back (R22, tie = hang)
    CAPOT = "capot"  # one side took every trick (R23)
    BELOT = "belot"  # eight of a suit declared: the match is won (R10)
    CLAIM = "claim"  # a claim (auzmeš) decided the round (R24)
    REDEAL = "redeal"  # belot2: four 7s or 8s, dealt again (R35)
    RASPAS = "raspas"  # belot2: four passes, played without a contract (R34)
    UNFINISHED = "unfinished"  # a record that stops mid-round


class EqualDeclarations(StrEnum):
    """R12: equal strongest declarations go to the earlier seat, or cancel."""

    EARLIER = "earlier"
    CANCEL = "cancel"


class Tie(StrEnum):
    """R22: on an exact tie the caller falls, or his points hang."""

    FALL = "fall"
    HANG = "hang"


class Enforce(StrEnum):
    """R24: the engine refuses cards that break a duty, or accepts them and allows claims."""

    ON = "on"
    OFF = "off"

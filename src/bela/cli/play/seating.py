"""Who is who at the table: seat and side names relative to the human (``You``, ``Right``,
``Partner``...), or neutral ones (``Seat 2``, ``seats 0+2``) when only bots play.

>>> s = Seating.make(4, 2, human=0)
>>> s.names, s.side_short(1), s.side_long(0)
(('You', 'Right', 'Partner', 'Left'), 'Them', 'You and Partner')
>>> Seating.make(4, 2, human=None).side_long(1)
'seats 1+3'
"""

from __future__ import annotations

from dataclasses import dataclass

from .texts import POSITIONS


@dataclass(frozen=True)
class Seating:
    """Names of seats and sides, relative to the human (or neutral for a bots-only match)."""

    seats: int
    sides: int
    human: int | None
    names: tuple[str, ...]

    @staticmethod
    def make(seats: int, sides: int, human: int | None) -> Seating:
        if human is None or seats not in POSITIONS:
            names = tuple(f"Seat {s}" for s in range(seats))
        else:
            names = tuple(POSITIONS[seats][(s - human) % seats] for s in range(seats))
        return Seating(seats, sides, human, names)

    @property
    def individual(self) -> bool:
        """Each player is his own side (bela3, bela2, belot2)."""
        return self.sides == self.seats

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    def short(self, seat: int) -> str:
        """A seat in a narrow column: its name, or its number in a bots-only match."""
        return str(seat) if self.human is None else self.names[seat]

    def members(self, side: int) -> list[int]:
        return [s for s in range(self.seats) if self.side_of(s) == side]

    def side_short(self, side: int) -> str:
        """A column title: Us / Them, a player's name, or the seat numbers of a side."""
        if self.individual:
            return self.names[side] if self.human is not None else str(side)
        if self.human is not None:
            return "Us" if side == self.side_of(self.human) else "Them"
        return "+".join(str(s) for s in self.members(side))

    def side_long(self, side: int) -> str:
        """For sentences: "You and Partner", "Right and Left", "seats 0+2", "Opponent"."""
        if self.individual:
            return self.names[side]
        if self.human is None:
            return "seats " + "+".join(str(s) for s in self.members(side))
        return " and ".join(self.names[s] for s in self.members(side))

    def players(self) -> list[str]:
        """Names for the record's ``players``."""
        return list(self.names)


"""The tournament's values: its settings, entries, planned games, results and standings.

Everything here is a frozen dataclass, so a plan or a standing can be compared, hashed and
recomputed: the same settings, entries and results always give the same plan.

>>> s = Settings("bela4", Format.SWISS, rounds=5)
>>> s.sides, s.format
(2, <Format.SWISS: 'swiss'>)
>>> Settings("bela3", Format.DUPLICATE, rounds=2, boards=4)
Traceback (most recent call last):
...
bela.tournament.model.TournamentError: duplicate needs two sides at a table; bela3 has 3
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..engine.errors import InvalidOptions
from ..engine.variants import get_variant


class TournamentError(ValueError):
    """Settings, entries or results that do not make a consistent tournament; nothing is
    planned or scored from them."""


class Format(StrEnum):
    """How entries are brought together."""

    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round_robin"
    DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Settings:
    """A tournament's settings (see TOURNAMENT_API.md); impossible ones raise
    :class:`TournamentError`.

    ``rounds``: swiss / duplicate, how many rounds (>= 1); knockout / round robin derive it
    (0). ``best_of``: knockout, 1 or 3 partije a tie. ``groups``: round robin groups (snake
    by rating); ``knockout_after``: then a knockout of the group winners (needs 2 groups or
    more). ``boards``: duplicate, deals a round (>= 1); ``seed``: the duplicate deals' seed.

    Knockout and round robin need two sides at a table (not bela3): a knockout of tables of
    three has no natural bracket and a round robin of triples exists only for some field
    sizes, so both are refused.  Duplicate is two-sided too (side 0 against side 1 cards).
    """

    variant: str
    format: Format
    rounds: int = 0
    best_of: int = 1
    groups: int = 1
    knockout_after: bool = False
    boards: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        try:
            fmt = Format(self.format)
        except ValueError:
            raise TournamentError(f"unknown format {self.format!r} (known: "
                                  f"{', '.join(Format)})") from None
        object.__setattr__(self, "format", fmt)
        try:
            get_variant(self.variant)
        except InvalidOptions as exc:
            raise TournamentError(str(exc)) from None
        sides = self.sides
        if fmt in (Format.SWISS, Format.DUPLICATE):
            if self.rounds < 1:
                raise TournamentError(f"{fmt} needs rounds >= 1, not {self.rounds}")
        elif self.rounds != 0:
            raise TournamentError(f"{fmt} derives its rounds: rounds must be 0, not "
                                  f"{self.rounds}")
        if self.best_of not in (1, 3):
            raise TournamentError(f"best_of must be 1 or 3, not {self.best_of}")
        if self.best_of != 1 and not (fmt == Format.KNOCKOUT or self.knockout_after):
            raise TournamentError("best_of applies only to a knockout")
        if self.groups < 1:
            raise TournamentError(f"groups must be >= 1, not {self.groups}")
        if fmt != Format.ROUND_ROBIN and (self.groups != 1 or self.knockout_after):
            raise TournamentError("groups and knockout_after apply only to a round robin")
        if self.knockout_after and self.groups < 2:
            raise TournamentError("a knockout of the group winners needs 2 groups or more")
        if fmt == Format.DUPLICATE:
            if self.boards < 1:
                raise TournamentError(f"duplicate needs boards >= 1, not {self.boards}")
        elif self.boards != 0:
            raise TournamentError("boards apply only to duplicate")
        if fmt != Format.SWISS and sides != 2:
            raise TournamentError(f"{fmt} needs two sides at a table; {self.variant} has "
                                  f"{sides}")

    @property
    def sides(self) -> int:
        """Entries at a table: the engine variant's sides."""
        return get_variant(self.variant).sides


@dataclass(frozen=True)
class Entry:
    """A player or a pair; ``rating`` of a pair is the mean of its players' (the server's)."""

    id: int
    rating: float


@dataclass(frozen=True)
class Game:
    """One table of a round: ``entries`` by side (side 0 first), ``leg`` the partija of a
    best-of-3 knockout tie, ``boards`` the duplicate boards played there."""

    table: int
    entries: tuple[int, ...]
    leg: int = 1
    boards: tuple[int, ...] = ()


@dataclass(frozen=True)
class RoundPlan:
    """A round to play: its games and the entries with a bye (a bye scores as a win).

    ``stage`` is a key for display: ``swiss``, ``duplicate``, ``round robin`` (one group),
    ``groups``, ``round of N``, ``quarter-final``, ``semi-final``, ``final``.  In a knockout
    each partija of a best-of-3 tie is a round of its own (``Game.leg`` says which); the
    bracket's byes are listed once, in the first leg of the first round.
    """

    round: int
    games: tuple[Game, ...]
    byes: tuple[int, ...]
    stage: str = ""


@dataclass(frozen=True)
class Result:
    """One finished table.  ``scores`` per side; ``winner`` an entry id or ``None`` (a draw,
    a double forfeit, a duplicate table); ``forfeit`` the entries that did not show up;
    ``board_scores`` (duplicate): ``(board, points of each side on that deal)``."""

    round: int
    table: int
    entries: tuple[int, ...]
    scores: tuple[int, ...]
    winner: int | None
    forfeit: tuple[int, ...] = ()
    leg: int = 1
    board_scores: tuple[tuple[int, tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class Standing:
    """An entry's place in the standings (see :func:`bela.tournament.standings`).

    ``played`` counts tables (byes not included); ``byes`` the byes, each also a win worth
    2 match points.  ``match_points``: 2 a win, 1 a draw, 0 a loss; at a table of three 2
    for each opponent outscored and 1 for each equal, divided by the 2 opponents; duplicate:
    the board matchpoints' sum.  ``buchholz``: the sum of the current match points of every
    opponent met (a bye adds nothing).  ``points_diff``: own points less each opponent's,
    summed over every table and opponent.  ``head_to_head``: match points won against the
    entries with the same match points (per opponent, 2 / 1 / 0).  ``percentage``:
    duplicate matchpoint percentage (``None`` otherwise).  ``group``: round robin group
    (1-based; ranks restart in each group).  ``eliminated_in`` / ``place``: knockout, the
    round that knocked the entry out and the place it shares (1 the champion, 2 the
    finalist, 3 the semi-finalists, 5 ...; ``None`` while still in).
    """

    rank: int
    entry: int
    played: int
    wins: int
    draws: int
    losses: int
    match_points: float
    buchholz: float
    points_diff: int
    head_to_head: float
    byes: int = 0
    percentage: float | None = None
    group: int | None = None
    eliminated_in: int | None = None
    place: int | None = None

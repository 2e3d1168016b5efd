"""One match in the terminal, on the project's game driver (:mod:`bela.bots.driver`).

Bots move at their seats through the driver, with its one bot-failure policy (the
heuristic bot moves for a bot that fails; the terminal warns once).  The human's actions
come from :class:`~.prompts.Prompts` and go through :meth:`Driver.apply`.  Every action's
events, as the human's seat may see them, are told by the :class:`~.narrate.Narrator`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from ...bots.base import Bot
from ...bots.driver import Driver
from ...engine.actions import Action
from ...engine.events import Event, seen_by
from ...engine.state import Match
from ...engine.views import SeatView, seat_view
from .hints import SOLVER, SolverWarmUp
from .narrate import Narrator
from .prompts import Prompts
from .screen import Screen
from .seating import Seating
from .sheet import Sheet


class Game:
    """A match with the human at seat ``human`` (None: bots at every seat) and ``bots`` at
    the others.  ``ask`` reads the human's answers (default: the console); ``solver``
    prepares the hints."""

    def __init__(self, match: Match, bots: dict[int, Bot], console: Console,
                 human: int | None, ask: Callable[[str], str] | None = None,
                 solver: SolverWarmUp = SOLVER) -> None:
        self.match = match
        self.human = human
        self.ask_line = ask
        self.seating = Seating.make(match.variant.seats, match.variant.sides, human)
        self.screen = Screen(console, match.variant, self.seating)
        self.sheet = Sheet(self.screen)
        self.narrator = Narrator(self.screen, self.sheet)
        self.driver = Driver(match, bots, on_failure=self.bot_failed)
        self.prompts = (Prompts(self.screen, self.sheet, self.submit, self.observe, solver,
                                self.ask) if human is not None else None)
        self.warned = False  # a bot failed: said once

    def observe(self) -> SeatView:
        """The human's view now (the spectator's in a bots-only match)."""
        return seat_view(self.match, self.human)

    def run(self) -> None:
        """Play the match to its end (a :class:`~.prompts.Quit` or end of input stops it)."""
        while not self.match.is_over:
            self.driver.deal()
            self.narrator.start_round(self.observe())
            while self.driver.run_bots(self.tell) is not None:
                assert self.prompts is not None  # only a person stops the bots
                self.narrator.show_announced()
                self.prompts.turn(self.observe())
            if self.prompts is not None and not self.match.is_over:
                self.prompts.between_rounds(self.observe())

    def submit(self, action: Action) -> None:
        """The human's action: applied (or refused with :class:`IllegalAction`) and told."""
        assert self.human is not None
        self.tell(self.human, self.driver.apply(self.human, action))

    def tell(self, seat: int, events: tuple[Event, ...]) -> None:
        """Narrate what ``seat``'s action caused, as the human may see it."""
        self.narrator.tell(seen_by(events, self.human), self.observe())

    def bot_failed(self, seat: int, error: BaseException) -> None:
        """The driver's report of a bot that raised or chose an illegal action: the
        heuristic bot moved for it.  Said once a match."""
        if self.warned:
            return
        self.warned = True
        rnd = self.match.round
        phase = f" in the {rnd.phase} phase" if rnd is not None else ""
        detail = f": {error}" if str(error) else ""
        self.screen.say(f"[yellow]The {escape(self.driver.bots[seat].name)} bot failed at seat "
                        f"{seat}{phase} ({escape(type(error).__name__ + detail)}); where it "
                        f"fails, the heuristic bot chooses for it.[/yellow]")

    def ask(self, prompt: str) -> str:
        """The human's answer to ``prompt``: from ``ask_line``, else the console."""
        if self.ask_line is not None:
            return self.ask_line(prompt)
        console = self.screen.console
        text = console.input(prompt)
        if not sys.stdin.isatty():
            console.print(escape(text), highlight=False)  # keep transcripts readable
        return text.strip()

"""``hint`` at any prompt of ``bela play``: what the best bot (pimc) would do, and for a card
the estimated value of every legal card.  The solver it needs gets ready in a background
thread while the human plays (:class:`SolverWarmUp`)."""

from __future__ import annotations

import threading

from rich.console import Console
from rich.markup import escape

from ...analysis.hints import BidAdvice, advise, searches
from ...engine.actions import Call, Pass, Play
from ...engine.views import SeatView
from ..text import card_markup, pretty_codes, suit_markup
from .markup import describe_bid, trump_of
from .screen import Screen


class SolverWarmUp:
    """The solver's kernels compiled (the first time after an install, about a minute) or
    loaded from Numba's cache, in a background daemon thread started with the match, so
    that the first ``hint`` does not freeze; a hint asked before it is done waits with a
    spinner that says why.  One per process: a second start does nothing."""

    MESSAGE = "Preparing the solver (first time only) …"

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.note = ""  # what the warm-up reports it is doing
        self.error: BaseException | None = None

    def start(self) -> None:
        """Start the warm-up (once); the thread also imports the solver (numba), so the
        first prompt does not wait for it."""
        if self.thread is not None:
            return
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="bela-solver-warm-up")
        self.thread.start()

    def _run(self) -> None:
        try:
            from ...solver import warm_up

            warm_up(progress=self._progress)
        except Exception as exc:  # noqa: BLE001 - the hint then tries (and reports) itself
            self.error = exc

    def _progress(self, note: str) -> None:
        self.note = note

    @property
    def busy(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def wait(self, console: Console) -> None:
        """Wait for the warm-up (starting it if needed), with a spinner while it works."""
        try:
            from ...solver import is_warm
        except ImportError:
            return
        if is_warm() and not self.busy:
            return
        self.start()
        if self.thread is None or not self.thread.is_alive():
            return
        if not console.is_terminal:  # no spinner in a pipe: one line
            console.print(self.MESSAGE, highlight=False)
            self.thread.join()
            return
        with console.status(self.MESSAGE) as status:
            while self.thread.is_alive():
                self.thread.join(0.2)
                if self.note.startswith("compiling"):
                    status.update("Preparing the solver (first time only: this can take a "
                                  "minute) …")


SOLVER = SolverWarmUp()  # the process's one warm-up


def show_hint(screen: Screen, view: SeatView, solver: SolverWarmUp) -> None:
    """The best bot's choice (:func:`~bela.analysis.hints.advise`), and for a card the mean
    double-dummy value of each legal card over the deals consistent with what you know: the
    card hinted is the best of the values shown (both come from the same sampled deals).  At
    a bid, the estimate of every bid (:func:`~bela.analysis.hints.bid_advice`): the bid
    hinted is the best of them."""
    say = screen.say
    if not view.legal:
        say("Nothing to decide right now.")
        return
    if searches(view):
        solver.wait(screen.console)
    try:
        hint = advise(view, seed=view.round_index * 1000 + len(view.tricks), samples=32,
                      budget=1.0)
    except ImportError as exc:  # the solver's numba / numpy failed to load
        missing = exc.name or str(exc)
        say(f"Hints are not available: the solver cannot load the Python package "
            f"{escape(missing)} ({escape(str(exc))}).")
        return
    except Exception as exc:  # noqa: BLE001 - a failing hint must not end the match
        say(f"The hint failed ({escape(type(exc).__name__)}: {escape(str(exc))}).")
        return
    if hint.bid is not None:
        say(bid_hint(screen, view, hint.bid))
        return
    choice, values = hint.choice, hint.cards
    trump = trump_of(view)
    if isinstance(choice, Play) and values:
        ranked = sorted(values.items(), key=lambda cv: (cv[1] if view.raspas else -cv[1], cv[0]))
        cells = ", ".join(f"{card_markup(c, trump)} {v:.0f}" for c, v in ranked)
        goal = "fewest" if view.raspas else "most"
        who = "your side takes" if screen.variant.partners else "you take"
        if view.sides == 3:  # bela3: the search plays the two others as one team (R28)
            who = ("you take" if view.seat == view.caller
                   else "you and the other player against the caller take together")
        say(f"Hint: play {card_markup(choice.card, trump)}{' with bela' if choice.bela else ''}."
            f"  Estimated points {who} in the round ({goal} is best): {cells}.")
    elif isinstance(choice, Play):
        say(f"Hint: play {card_markup(choice.card, trump)}"
            f"{' with bela' if choice.bela else ''}.")
    else:
        say(f"Hint: {pretty_codes(choice.pretty())}.")


def bid_hint(screen: Screen, view: SeatView, advice: BidAdvice) -> str:
    """The hint at a bid: the best bid of :func:`~bela.analysis.hints.bid_advice` and the
    estimates it is the best of, best first (a pass valued at the margin a call must
    reach)."""
    variant = screen.variant
    who = ("your side would make over the other" if variant.partners
           else "you would make over your opponent" if variant.sides == 2
           else "you would make over the others")
    cells = []
    for action, value in advice.ranked():
        label = ("pass" if isinstance(action, Pass) else suit_markup(action.contract)
                 if isinstance(action, Call) and action.contract < 4
                 else escape(action.token()))  # VC, BC
        cells.append(f"{label} {value:+.0f}")
    rule = variant.rule_ids["bidding"]
    passing = (f"; pass stands for the margin a call must reach ({rule})"
               if any(isinstance(a, Pass) for a in advice.values) else "")
    return (f"Hint: {describe_bid(advice.choice, view)}.  Estimated margin of each bid, from "
            f"your {len(view.hand)} cards (the points {who}): {', '.join(cells)}"
            f"{passing}.")

"""The terminal's output for one match: the console, the seat names, and where the round
stands as the human's view shows it (bids or contract, face-up cards, the trick on the
table, the last trick) and why an action was refused."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ...engine.actions import Action, Call
from ...engine.enums import Phase
from ...engine.errors import IllegalAction
from ...engine.rules import NO_TRUMPS, play_table
from ...engine.variants.base import Variant
from ...engine.views import SeatView
from ..text import card_markup, pretty_codes, suit_markup
from .markup import bid_token_markup, cards_markup, hand_markup, token_markup, trump_of
from .seating import Seating
from .texts import CONTRACT_NAMES, UNSEEN_UNTIL


class Screen:
    """Prints for the human at ``seating.human`` (or for nobody in particular when only
    bots play)."""

    def __init__(self, console: Console, variant: Variant, seating: Seating) -> None:
        self.console = console
        self.variant = variant
        self.seating = seating
        self.human = seating.human
        # the seats whose card on the table announced bela (the CardPlayed events' flag)
        self.trick_belas: set[int] = set()

    def say(self, text: str = "", **kw: Any) -> None:
        self.console.print(text, highlight=False, **kw)

    def name(self, seat: int) -> str:
        return self.seating.names[seat]

    def rule(self, phase: str) -> str:
        """The rule id of a part of the variant's rules (``discard``, ``exchange``...)."""
        return self.variant.rule_ids.get(phase, "")

    def face_up_line(self, view: SeatView) -> str:
        """The face-up cards of bela2 (turned) and belot2 (opened, bottom), if any."""
        pub = view.public
        if not pub:
            return ""
        trump = trump_of(view)
        parts = []
        if "turned" in pub:
            label = f"{self.variant.face_up_name} card"
            parts.append(f"{label} [reverse] {card_markup(pub['turned'], trump)} [/reverse]")
        if "bottom" in pub:
            parts.append(f"bottom card [reverse] {card_markup(pub['bottom'], trump)} [/reverse]")
        return "Face up: " + " · ".join(parts) + "  [dim](out of play)[/dim]"

    def contract_info(self, view: SeatView) -> str:
        """``Trump ♠ called by Right``, ``All trumps (VC) ordered by You``, ``Raspas ...``."""
        c = view.contract
        if c is None:
            return "No trump yet"
        if view.raspas:
            return (f"[bold]Raspas[/bold], {suit_markup(c)} trump: take as few points as you "
                    f"can")
        by = self.name(view.caller) if view.caller is not None else "?"
        if c < 4:
            return f"Trump {suit_markup(c)} called by {by}"
        return f"{CONTRACT_NAMES[c]} ordered by {by}"

    def show_hand(self, view: SeatView, extra: str = "") -> None:
        self.say("Your hand: " + hand_markup(view)[0] + extra)

    def show_table(self, view: SeatView, full: bool = False) -> None:
        """Where the round stands: bids or contract, face-up cards, the trick on the table
        (``full``: also your discards after the first trick)."""
        trump = trump_of(view)
        face = self.face_up_line(view)
        if view.phase == Phase.BIDDING:
            bids = ", ".join(f"{self.name(s)} {bid_token_markup(t)}"
                             for s, t in view.bids) or "none yet"
            self.say(f"Bids: {bids}.  Dealer: {self.name(view.dealer)}.")
            if face:
                self.say(face)
            if not view.unseen:
                extra = ""
            elif self.variant.discards and view.first == self.human:
                extra = (f"   [dim](+{view.unseen} talon cards and the last 2 cards after "
                         f"your call)[/dim]")
            else:
                extra = f"   [dim](+{view.unseen} {UNSEEN_UNTIL[self.variant.name]})[/dim]"
            self.show_hand(view, extra)
            return
        info = self.contract_info(view)
        if view.belas:
            info += "; bela: " + ", ".join(self.name(s) for s, _ in view.belas)
        if view.phase != Phase.PLAY:
            self.say(info + ".")
        else:
            n = len(view.tricks) + 1
            total = n - 1 + min(view.hand_sizes) + (1 if view.trick else 0)
            match = " ".join(f"{self.seating.side_short(s)} {t}"
                             for s, t in enumerate(view.totals))
            self.say(f"Trick {n} of {max(total, n)} · {info} · Match: {match}")
        if face:
            self.say("  " + face)
        if view.discards and (full or not view.tricks):
            table = play_table(view.contract if view.contract is not None else NO_TRUMPS)
            pts = sum(table.points[c] for c in view.discards)
            self.say(f"  Your discards: {cards_markup(view.discards, trump)} "
                     f"[dim]({pts} points, counting for you, R27)[/dim]")
        if view.phase != Phase.PLAY:
            return
        if view.trick:
            win = view.trick_winner  # the engine's (R20, R36); no tag on a lone lead
            cells = [f"{self.name(s)} {card_markup(c, trump)}"
                     + (" [bold]bela![/bold]" if s in self.trick_belas else "")
                     + (" [dim](winning)[/dim]" if s == win and len(view.trick) > 1 else "")
                     for s, c in view.trick]
            self.say(f"  On the table ({self.name(view.trick[0][0])} led): " + ", ".join(cells))
        elif view.turn == self.human:
            self.say("  You lead.")

    def show_last_trick(self, view: SeatView) -> None:
        if not view.tricks:
            self.say("No trick has been finished yet this round.")
            return
        cards, winner = view.tricks[-1]
        trump = trump_of(view)
        shown = ", ".join(f"{self.name(s)} {card_markup(c, trump)}" for s, c in cards)
        self.say(f"Last trick ({len(view.tricks)}): {shown} — taken by {self.name(winner)}.")

    def explain(self, exc: IllegalAction, action: Action | None = None) -> None:
        """An action the engine refused: its reason and rule, and what is allowed."""
        reason, prefix = exc.reason, ""
        if isinstance(action, Call):  # a contract token (H, VC) is a suit symbol for people
            for word in (action.token(), action.pretty()):
                if reason.startswith(word + " "):
                    prefix, reason = token_markup(action.token()), reason[len(word):]
                    break
        text = f"[bold red]Not allowed:[/bold red] {prefix}{pretty_codes(reason)}"
        if exc.rule:
            text += f" ({exc.rule})"
        if exc.legal:
            text += ".  Allowed: " + ", ".join(token_markup(t) for t in exc.legal)
            if any(t.endswith("*") for t in exc.legal):
                text += "  (a * plays the card and announces bela)"
        self.say(text + ".")

"""``bela play``: a match in the terminal, you at seat 0 and bots elsewhere (Typer + Rich).

Everything shown to the human comes from their own seat view (:mod:`bela.engine.views`); the
bots get their own views.  The loop only knows ``variant``, ``seats`` and ``sides`` from the
view, so bela3 / bela2 / belot2 can be added later by giving their phases a prompt (bidding
actions other than ``pass`` and suit calls already fall back to a numbered menu).

Input: every prompt takes a number from what it shows (``1`` is always the first choice), the
words it names, or one of the commands of :data:`HELP` (``?`` shows them).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import bots as bot_registry
from ..bots.base import Bot
from ..engine.actions import (
    CONTRACT_TOKENS,
    PASS,
    Action,
    ActionParseError,
    Call,
    Claim,
    Declare,
    Pass,
    Play,
    parse_action,
)
from ..engine.cards import (
    RANKS,
    SUIT_NAMES_EN,
    SUIT_NAMES_HR,
    SUIT_SYMBOLS,
    TEN,
    Card,
    CardParseError,
)
from ..engine.declarations import declaration_of, declaration_value, find_declarations
from ..engine.errors import BelaError, IllegalAction
from ..engine.record import to_record
from ..engine.rules import NO_TRUMPS, play_table, trick_winner_index
from ..engine.state import Match
from ..engine.variants import VARIANTS, get_variant
from ..engine.views import DeclarationInfo, SeatView, seat_view

PLAYABLE = ("bela4",)  # variants the terminal game can play now
LATER = ("bela3", "bela2", "belot2")  # in RULES.md, not playable in the terminal yet
HUMAN = 0

# Seat names relative to the human, by number of seats: play passes to seat i+1, on i's
# right (R5), so seat 1 is on your right and seat 3 on your left.
POSITIONS = {4: ("You", "Right", "Partner", "Left"), 3: ("You", "Right", "Left"),
             2: ("You", "Opponent")}
SUIT_ORDER = (0, 2, 1, 3)  # ♥ ♠ ♦ ♣: colours alternate
SUIT_WORDS = {
    "h": 0, "hearts": 0, "heart": 0, "herc": 0, "srce": 0, "♥": 0, "♡": 0,
    "d": 1, "diamonds": 1, "diamond": 1, "karo": 1, "bundeva": 1, "♦": 1, "♢": 1,
    "s": 2, "spades": 2, "spade": 2, "pik": 2, "zelje": 2, "list": 2, "♠": 2, "♤": 2,
    "c": 3, "clubs": 3, "club": 3, "tref": 3, "žir": 3, "zir": 3, "♣": 3, "♧": 3,
}
PASS_WORDS = {"pass", "p", "dalje", "dalje!", "-"}
YES_WORDS = {"", "1", "y", "yes", "da", "bela", "j"}
NO_WORDS = {"2", "n", "no", "ne"}
CLAIM_WORDS = {"claim", "auzmeš", "auzmes"}
OUTCOMES = {"pass": "pass", "fall": "fall (pad)", "capot": "štiglja", "belot": "belot",
            "claim": "auzmeš", "hang": "hang (visi)", "redeal": "redeal", "raspas": "raspas",
            "unfinished": "unfinished"}
SHORT_OUTCOMES = {"pass": "pass", "fall": "fall", "capot": "štiglja", "belot": "belot",
                  "claim": "auzmeš", "hang": "hang", "redeal": "redeal", "raspas": "raspas",
                  "unfinished": "-"}

HELP = "\n".join((
    "[bold]How to play[/bold]  (type [bold]?[/bold] at any prompt to see this again)",
    "  [bold]Bidding[/bold]  a number from the menu, a suit (H D S C, ♥ ♦ ♠ ♣, herc karo pik",
    "           tref, hearts ...) or pass / dalje.  One round of bids; when the other three",
    "           pass, the dealer must call (mus, R7).",
    "  [bold]Cards[/bold]    the number shown before a playable card, or its code: JH, 10h, j♥",
    "           (rank 7 8 9 10 J Q K A, then suit).  KH* plays K♥ and announces bela (R14).",
    "           Dimmed cards, without a number, may not be played now.",
    "  [bold]Zvanja[/bold]   before your first card you choose the declarations to announce (R13).",
    "  [bold]l[/bold] last    the last finished trick     [bold]s[/bold] sheet   the score sheet",
    "  [bold]h[/bold] hand    your hand and the table     [bold]r[/bold] rules   the play rules",
    "  [bold]claim[/bold]    (with --enforce off) auzmeš: an opponent broke R17-R19 (R24)",
    "  [bold]q[/bold] quit    leave the match (the record is saved if you gave --record FILE)",
    "           (when bidding, h and s are suits: type hand and sheet in full)",
))

RULES_REMINDER = """\
[bold]Order[/bold]   trump: J 9 A 10 K Q 8 7 (J 20, 9 14, A 11, 10 10, K 4, Q 3)
        others: A 10 K Q J 9 8 7 (A 11, 10 10, K 4, Q 3, J 2); last trick +10 (R2, R3)
[bold]Play[/bold]    follow suit and beat the best card of that suit if you can (R17, R19);
        if you cannot follow, play a trump, beating the best trump if you can (R18);
        otherwise any card.  The highest trump, else the highest card led, wins (R20).
[bold]Score[/bold]   the calling side needs more than half of all points, or it falls and the
        others take everything (R22); all tricks: štiglja, +90 (R23)."""


class Quit(Exception):
    """The human asked to leave the match."""


# -- seats and sides --------------------------------------------------------------------------
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

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    def members(self, side: int) -> list[int]:
        return [s for s in range(self.seats) if self.side_of(s) == side]

    def side_short(self, side: int) -> str:
        """A column title: Us / Them, a player's name, or the seats of a side."""
        if self.sides == self.seats:
            return self.names[side]
        if self.human is not None:
            return "Us" if side == self.side_of(self.human) else "Them"
        return "+".join(str(s) for s in self.members(side))

    def side_long(self, side: int) -> str:
        """For sentences: "You and Partner", "Right and Left", "seats 0+2"."""
        if self.sides == self.seats:
            return self.names[side]
        if self.human is None:
            return "seats " + "+".join(str(s) for s in self.members(side))
        return " and ".join(self.names[s] for s in self.members(side))

    def players(self) -> list[str]:
        """Names for the record's ``players``."""
        return list(self.names)


# -- cards as text ----------------------------------------------------------------------------
def card_text(card: Card) -> str:
    """``10♥``, ``J♠``: what a person reads (the engine's codes use ``T``)."""
    return ("10" if card.rank == TEN else RANKS[card.rank]) + SUIT_SYMBOLS[card.suit]


def card_markup(card: Card, trump: int | None = None, dim: bool = False) -> str:
    if dim:
        return f"[dim]{card_text(card)}[/dim]"
    style = "red" if card.suit in (0, 1) else ""
    if trump is not None and card.suit == trump:
        style = (style + " bold").strip()
    return f"[{style}]{card_text(card)}[/]" if style else card_text(card)


def suit_markup(suit: int) -> str:
    sym = SUIT_SYMBOLS[suit]
    return f"[red]{sym}[/red]" if suit in (0, 1) else sym


def suit_name(suit: int) -> str:
    return f"{suit_markup(suit)} {SUIT_NAMES_HR[suit]} ({SUIT_NAMES_EN[suit]})"


def cards_markup(cards: Any, trump: int | None = None) -> str:
    return " ".join(card_markup(c, trump) for c in cards)


_CODE = re.compile(r"\b[789TJQKA][HDSC]\b")


def pretty_codes(text: str) -> str:
    """Engine text (reasons, declaration names) with card codes shown as ``10♥``."""
    return _CODE.sub(lambda m: card_markup(Card.from_code(m.group(0))), escape(text))


def token_markup(token: str) -> str:
    """An engine action token (from an IllegalAction's alternatives) for people."""
    try:
        action = parse_action(token)
    except ActionParseError:
        return escape(token)
    if isinstance(action, Play):
        return card_markup(action.card) + (" with bela" if action.bela else "")
    if isinstance(action, Call) and action.contract < 4:
        return suit_markup(action.contract)
    return escape(token)


def sorted_hand(view: SeatView) -> list[list[Card]]:
    """The hand by suit (trump first, colours alternating), each suit strongest first."""
    trump = view.contract if view.contract is not None and view.contract < 4 else None
    table = play_table(view.contract if view.contract is not None else NO_TRUMPS)
    suits = ([trump] if trump is not None else []) + [s for s in SUIT_ORDER if s != trump]
    groups = []
    for s in suits:
        cards = sorted((c for c in view.hand if c.suit == s),
                       key=lambda c: table.strength[c], reverse=True)
        if cards:
            groups.append(cards)
    return groups


def trick_winner(view: SeatView) -> int | None:
    """The seat winning the current trick (R20), from the cards on the table."""
    if not view.trick or view.contract is None:
        return None
    cards = tuple(c for _, c in view.trick)
    return view.trick[trick_winner_index(cards, play_table(view.contract))][0]


def decl_text(info: DeclarationInfo, trump: int | None = None) -> str:
    text = pretty_codes(info.text)
    if info.cards is not None and "belot" not in info.text:
        text += ": " + cards_markup(info.cards, trump)
    return text + (f" ({info.value})" if info.value else "")


# -- one match --------------------------------------------------------------------------------
class Game:
    """Runs a match: bots act through their views, the human through prompts."""

    def __init__(self, match: Match, bots: dict[int, Bot], console: Console,
                 human: int | None, ask: Callable[[str], str] | None = None,
                 bot_name: str = "") -> None:
        self.match = match
        self.bots = bots
        self.console = console
        self.human = human
        self.ask_line = ask
        self.variant = match.variant
        self.seating = Seating.make(self.variant.seats, self.variant.sides, human)
        self.bot_name = bot_name
        self.declined = -1  # round index in which the human chose to announce nothing
        self.summaries: list[dict[str, Any]] = []

    # -- helpers -------------------------------------------------------------------------------
    def say(self, text: str = "", **kw: Any) -> None:
        self.console.print(text, highlight=False, **kw)

    def name(self, seat: int) -> str:
        return self.seating.names[seat]

    def observe(self) -> SeatView:
        return seat_view(self.match, self.human)

    @property
    def verbose(self) -> bool:
        return self.human is not None

    def trump_of(self, view: SeatView) -> int | None:
        return view.contract if view.contract is not None and view.contract < 4 else None

    # -- the loop ------------------------------------------------------------------------------
    def run(self) -> None:
        m = self.match
        while not m.is_over:
            rnd = m.deal()
            self.start_round()
            while not rnd.is_over:
                seat = rnd.turn
                if seat == self.human:
                    self.human_turn()
                else:
                    action = self.bots[seat].act(seat_view(m, seat))
                    self.apply(seat, action)
            self.end_round()
            if self.human is not None and not m.is_over:
                self.between_rounds()
        self.end_match()

    def apply(self, seat: int, action: Action) -> None:
        before = self.observe()
        self.match.apply(action)
        if self.verbose:
            self.narrate(seat, action, before, self.observe())

    # -- narration -----------------------------------------------------------------------------
    def start_round(self) -> None:
        view = self.observe()
        if not self.verbose:
            return
        totals = "  ".join(f"{self.seating.side_short(s)} {t}" for s, t in enumerate(view.totals))
        self.say()
        self.console.rule(f"[bold]Round {view.round_index + 1}[/bold]")
        first = ("You bid first and lead" if view.first == self.human
                 else f"{self.name(view.first)} bids first and leads")
        self.say(f"Dealer: {self.name(view.dealer)}.  {first}.  Score: {totals}  "
                 f"(to {view.options['target']})")

    def narrate(self, seat: int, action: Action, before: SeatView, after: SeatView) -> None:
        who = self.name(seat)
        trump = self.trump_of(after)
        if isinstance(action, Pass):
            self.say(f"  {who}: pass (dalje)")
        elif isinstance(action, Call) and action.contract < 4:
            side = self.seating.side_long(self.seating.side_of(seat))
            self.say(f"  {who}: {suit_markup(action.contract)}")
            self.say(f"[bold]Trump is {suit_name(action.contract)}[/bold], called by {who}: "
                     f"{side} need more than half the points (R22).")
        elif isinstance(action, Call):
            self.say(f"  {who}: {CONTRACT_TOKENS[action.contract]}")
        elif isinstance(action, Declare):
            infos = after.declared[seat] or ()
            verb = "announce" if seat == self.human else "announces"
            self.say(f"  {who} {verb}: " + ", ".join(decl_text(i, trump) for i in infos))
        elif isinstance(action, Claim):
            verb = "claim" if seat == self.human else "claims"
            self.say(f"  {who} {verb} auzmeš: an opponent broke R17-R19 (R24)!")
        elif isinstance(action, Play):
            self.narrate_card(seat, action, before, after)
        else:
            self.say(f"  {who}: {escape(action.token())}")
        if len(after.hand) > len(before.hand) and before.unseen and after.phase != "done":
            new = [c for c in after.hand if c not in before.hand]
            self.say(f"  You pick up your talon: {cards_markup(new, trump)}")
        if (after.phase == "play" and before.phase == "bidding" and self.human is not None
                and after.turn != self.human):
            self.say("Your hand: " + self.hand_markup(after)[0])

    def narrate_card(self, seat: int, action: Play, before: SeatView, after: SeatView) -> None:
        who = self.name(seat)
        trump = self.trump_of(after)
        if not before.trick:
            lead = "you lead" if seat == self.human else f"{who} leads"
            self.say(f"[bold]Trick {len(before.tricks) + 1}[/bold] — {lead}")
        line = f"  {who:<8} {card_markup(action.card, trump)}"
        if action.bela:
            line += "  [bold]bela![/bold] (20)"
        if len(after.tricks) > len(before.tricks):
            cards, winner = after.tricks[-1]
            gained = sum(after.card_points) - sum(before.card_points)
            self.say(line)
            pts = "  ".join(f"{self.seating.side_short(s)} {p}"
                            for s, p in enumerate(after.card_points))
            self.say(f"  → {self.name(winner)} {'take' if winner == self.human else 'takes'} "
                     f"the trick (+{gained}).   Card points: {pts}")
            if len(after.tricks) == 1:
                self.show_declarations(after)
            return
        if len(after.trick) > 1 and trick_winner(after) == seat:
            line += "  [dim](winning)[/dim]"
        self.say(line)

    def show_declarations(self, view: SeatView) -> None:
        """After the first trick: every announcement and whose count (R12, R13)."""
        announced = [(s, d) for s, d in enumerate(view.declared) if d]
        if not announced:
            return
        trump = self.trump_of(view)
        self.say("  Declarations (zvanja):")
        for seat, infos in announced:
            self.say(f"    {self.name(seat)}: " + ", ".join(decl_text(i, trump) for i in infos))
        side = strongest_side(view)
        if side is None:
            self.say("    The strongest declarations of both sides are equal: none count (R12).")
        else:
            self.say(f"    {self.seating.side_long(side)} hold the strongest: only their "
                     f"declarations count (R12), if they take a trick (R15).")

    def end_round(self) -> None:
        view = self.observe()
        res = view.result
        if res is None:
            return
        booked = view.sheet[-1]
        row = {
            "round": view.round_index + 1, "dealer": view.dealer,
            "caller": res.caller if res.caller is not None and res.caller >= 0 else None,
            "trump": view.trump, "outcome": res.outcome, "scores": booked,
            "declarations": res.declaration_points, "bela": res.bela_points,
            "totals": view.totals, "held": res.held,
        }
        self.summaries.append(row)
        if self.verbose:
            self.say()
            self.say(self.outcome_sentence(view))
            if res.card_points:
                self.say("  " + self.points_breakdown(res.card_points, res.declaration_points,
                                                      res.bela_points))
            self.show_sheet()
        else:
            self.say(self.compact_line(row))

    def points_breakdown(self, cards: tuple[int, ...], decls: tuple[int, ...],
                         belas: tuple[int, ...]) -> str:
        """``Us 92 + zvanja 20 = 112 · Them 70``: what each side made this round."""
        parts = []
        for side, pts in enumerate(cards):
            text = f"{self.seating.side_short(side)} {pts} in tricks"
            extra = [(decls[side] if side < len(decls) else 0, "zvanja"),
                     (belas[side] if side < len(belas) else 0, "bela")]
            extra = [(v, n) for v, n in extra if v]
            if extra:
                text += "".join(f" + {v} {n}" for v, n in extra)
                text += f" = {pts + sum(v for v, _ in extra)}"
            parts.append(text)
        return "Made: " + " · ".join(parts) + "."

    def outcome_sentence(self, view: SeatView) -> str:
        res = view.result
        assert res is not None
        st = self.seating
        caller_side = st.side_of(res.caller) if res.caller is not None and res.caller >= 0 else None
        total = res.total
        if res.outcome == "pass" and caller_side is not None:
            return (f"[bold]{st.side_long(caller_side)} pass[/bold] (prolaz): "
                    f"{res.scores[caller_side]} of {total} points.")
        if res.outcome == "fall" and caller_side is not None:
            other = 1 - caller_side if st.sides == 2 else None
            taker = st.side_long(other) if other is not None else "the others"
            return (f"[bold]{st.side_long(caller_side)} fall[/bold] (pad): {taker} take all "
                    f"{total} points.")
        if res.outcome == "capot":
            side = res.scores.index(max(res.scores))
            return (f"[bold]Štiglja![/bold] {st.side_long(side)} took every trick: "
                    f"{total} + 90 = {res.scores[side]}.")
        if res.outcome == "hang":
            return (f"[bold]Exact tie[/bold]: the round hangs (visi), {res.held} points held "
                    f"for the side that scores more next round (R22).")
        if res.outcome == "claim":
            claimant = res.extra.get("claimant")
            valid = res.extra.get("valid")
            side = res.scores.index(max(res.scores))
            who = self.name(claimant) if isinstance(claimant, int) else "?"
            verdict = ("were " if claimant == self.human else "was ") + (
                "right" if valid else "wrong")
            return (f"[bold]Auzmeš[/bold]: {who} claimed a revoke and {verdict}: "
                    f"{st.side_long(side)} score {res.scores[side]} (R24).")
        if res.outcome == "belot":
            side = res.winner if res.winner is not None else 0
            return f"[bold]Belot![/bold] All eight of one suit: {st.side_long(side)} win the match."
        return f"Round over: {OUTCOMES.get(res.outcome, res.outcome)}."

    def short(self, seat: int) -> str:
        """A seat in a narrow column: its name, or its number in a bots-only match."""
        return str(seat) if self.human is None else self.name(seat)

    def compact_line(self, row: dict[str, Any]) -> str:
        caller, trump = row["caller"], row["trump"]
        called = (f"{self.short(caller)} {suit_markup('HDSC'.index(trump))}"
                  if caller is not None and trump in ("H", "D", "S", "C") else "-")
        scores = " : ".join(f"{s:>3}" for s in row["scores"])
        totals = " : ".join(f"{t:>4}" for t in row["totals"])
        return (f"Round {row['round']:>2}  dealer {self.short(row['dealer'])}  caller {called}  "
                f"{SHORT_OUTCOMES.get(row['outcome'], row['outcome']):<8} {scores}   "
                f"totals {totals}")

    def sheet_table(self) -> Table:
        st = self.seating
        names = [st.side_short(s) for s in range(st.sides)]
        t = Table(title="Score sheet", box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True,
                  title_justify="left", caption=f"Zvanja and bela: {'/'.join(names)}.",
                  caption_justify="left")
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column("Dealer", no_wrap=True)
        t.add_column("Caller", no_wrap=True)
        t.add_column("Trump", justify="center", no_wrap=True)
        t.add_column("Zvanja", justify="right", no_wrap=True)
        t.add_column("Bela", justify="right", no_wrap=True)
        for n in names:
            t.add_column(n, justify="right", no_wrap=True)
        t.add_column("Result", no_wrap=True)
        for n in names:
            t.add_column(f"Σ {n}", justify="right", no_wrap=True)

        def pairs(values: tuple[int, ...]) -> str:
            return "/".join(map(str, values)) if values and any(values) else "-"

        for row in self.summaries:
            trump = row["trump"]
            trump_cell = (suit_markup("HDSC".index(trump)) if trump in ("H", "D", "S", "C")
                          else (trump or "-"))
            result = SHORT_OUTCOMES.get(row["outcome"], row["outcome"])
            if row["held"]:
                result += f" {row['held']}"
            t.add_row(str(row["round"]), self.short(row["dealer"]),
                      self.short(row["caller"]) if row["caller"] is not None else "-",
                      trump_cell, pairs(row["declarations"]), pairs(row["bela"]),
                      *map(str, row["scores"]), result, *map(str, row["totals"]))
        return t

    def show_sheet(self) -> None:
        if not self.summaries:
            self.say("No round finished yet.")
            return
        self.console.print(self.sheet_table())

    def end_match(self) -> None:
        m = self.match
        if not self.verbose:
            self.say()
            self.show_sheet()
        st = self.seating
        winner = m.winner
        totals = " : ".join(map(str, m.totals))
        if winner is None:
            self.say(f"The match is not over.  Totals {totals}.")
            return
        if self.human is not None:
            mine = st.side_of(self.human) == winner
            who = st.side_long(winner)
            mood = "Well played!" if mine else "Better luck next time."
            self.say(f"\n[bold]{who} win the match[/bold], {totals}.  {mood}")
        else:
            self.say(f"Winner: side {winner} ({st.side_long(winner)}), totals {totals}.")

    # -- the human -----------------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        if self.ask_line is not None:
            return self.ask_line(prompt)
        text = self.console.input(prompt)
        if not sys.stdin.isatty():
            self.console.print(escape(text), highlight=False)  # keep transcripts readable
        return text.strip()

    def command(self, text: str, view: SeatView) -> bool:
        """Handle the commands every prompt accepts; True when ``text`` was one."""
        word = text.lower()
        if word in ("?", "help", "pomoć", "pomoc"):
            self.say(HELP)
        elif word in ("q", "quit", "exit", "kraj"):
            raise Quit
        elif word in ("l", "last"):
            self.show_last_trick(view)
        elif word in ("s", "sheet", "score"):
            self.show_sheet()
        elif word in ("r", "rules"):
            self.say(RULES_REMINDER)
        elif word in ("h", "hand", "t", "table"):
            self.show_table(view)
        else:
            return False
        return True

    def show_last_trick(self, view: SeatView) -> None:
        if not view.tricks:
            self.say("No trick has been finished yet this round.")
            return
        cards, winner = view.tricks[-1]
        trump = self.trump_of(view)
        shown = ", ".join(f"{self.name(s)} {card_markup(c, trump)}" for s, c in cards)
        self.say(f"Last trick ({len(view.tricks)}): {shown} — taken by {self.name(winner)}.")

    def explain(self, exc: IllegalAction) -> None:
        text = f"[bold red]Not allowed:[/bold red] {pretty_codes(exc.reason)}"
        if exc.rule:
            text += f" ({exc.rule})"
        if exc.legal:
            text += ".  Allowed: " + ", ".join(token_markup(t) for t in exc.legal)
        self.say(text + ".")

    def hand_markup(self, view: SeatView,
                    playable: list[Card] | None = None) -> tuple[str, list[Card]]:
        """The hand sorted by suit; ``playable`` cards get numbers, the others are dimmed."""
        trump = self.trump_of(view)
        numbered: list[Card] = []
        parts = []
        for group in sorted_hand(view):
            cells = []
            for c in group:
                if playable is None:
                    cells.append(card_markup(c, trump))
                elif c in playable:
                    numbered.append(c)
                    cells.append(f"[bold cyan]{len(numbered)}[/]:{card_markup(c, trump)}")
                else:
                    cells.append(card_markup(c, trump, dim=True))
            label = " [bold]trump[/bold]" if group[0].suit == trump else ""
            parts.append(f"{suit_markup(group[0].suit)}{label} " + " ".join(cells))
        return "  │  ".join(parts), numbered

    def show_table(self, view: SeatView) -> None:
        """Where the round stands: bids or trump, the trick on the table, the hand."""
        trump = self.trump_of(view)
        if view.phase == "bidding":
            bids = ", ".join(f"{self.name(s)} {escape(t) if t != 'pass' else 'pass'}"
                             for s, t in view.bids) or "none yet"
            self.say(f"Bids: {bids}.  Dealer: {self.name(view.dealer)}.")
            extra = f"   [dim](+{view.unseen} talon cards after your bid)[/dim]" \
                if view.unseen else ""
            self.say("Your hand: " + self.hand_markup(view)[0] + extra)
            return
        if view.caller is not None and trump is not None:
            info = f"Trump {suit_markup(trump)} called by {self.name(view.caller)}"
        else:
            info = f"Contract {view.trump}"
        if view.belas:
            info += "; bela: " + ", ".join(self.name(s) for s, _ in view.belas)
        n = len(view.tricks) + 1
        total = n - 1 + min(h for h in view.hand_sizes) + (1 if view.trick else 0)
        self.say(f"Trick {n} of {max(total, n)} · {info}")
        if view.trick:
            win = trick_winner(view)
            cells = [f"{self.name(s)} {card_markup(c, trump)}"
                     + (" [dim](winning)[/dim]" if s == win and len(view.trick) > 1 else "")
                     for s, c in view.trick]
            self.say(f"  On the table ({self.name(view.trick[0][0])} led): " + ", ".join(cells))
        elif view.turn == self.human:
            self.say("  You lead.")

    # -- prompts -------------------------------------------------------------------------------
    def human_turn(self) -> None:
        view = self.observe()
        if view.phase == "bidding":
            self.ask_bid(view)
            return
        if view.phase != "play":
            self.ask_menu(view)  # phases of the other variants (discard, exchange) for now
            return
        asked = False
        if (any(isinstance(a, Declare) for a in view.legal)
                and self.declined != view.round_index):
            if self.ask_declarations(view):
                return  # announced: the same seat now plays its first card
            self.declined = view.round_index
            asked = True
        self.ask_card(self.observe(), header=not asked)

    def ask_bid(self, view: SeatView) -> None:
        options = list(view.legal)
        self.say()
        if view.turn == view.dealer and not any(isinstance(a, Pass) for a in options):
            self.say("The others passed: as the dealer you must call trump (mus, R7).")
        self.show_table(view)
        menu = "   ".join(f"[bold cyan]{i}[/]) {self.describe_bid(a)}"
                           for i, a in enumerate(options, 1))
        self.say("  " + menu)
        while True:
            text = self.ask("Your bid: ")
            action = self.parse_bid(text, options)  # first: here h and s are suits
            if action is None and self.command(text, view):
                continue
            if action is None:
                self.say("Type a number from the menu, a suit (H D S C, ♥ ♦ ♠ ♣, herc karo pik "
                         "tref) or pass.  [bold]?[/bold] shows help.")
                continue
            try:
                self.apply(self.human_seat, action)
                return
            except IllegalAction as exc:
                self.explain(exc)

    def ask_menu(self, view: SeatView) -> None:
        """Any decision without a prompt of its own: a numbered menu of the legal actions."""
        options = list(view.legal)
        self.say()
        self.show_table(view)
        self.say("  " + "   ".join(f"[bold cyan]{i}[/]) {pretty_codes(a.token())}"
                                   for i, a in enumerate(options, 1)))
        while True:
            text = self.ask(f"Your choice ({view.phase}): ")
            if self.command(text, view):
                continue
            word = text.strip()
            action: Action | None = None
            if word.isdigit() and 1 <= int(word) <= len(options):
                action = options[int(word) - 1]
            else:
                try:
                    action = parse_action(word)
                except ActionParseError:
                    self.say("Type a number from the menu or an action token.  "
                             "[bold]?[/bold] shows help.")
                    continue
            try:
                self.apply(self.human_seat, action)
                return
            except IllegalAction as exc:
                self.explain(exc)

    def describe_bid(self, action: Action) -> str:
        if isinstance(action, Pass):
            return "pass (dalje)"
        if isinstance(action, Call) and action.contract < 4:
            return f"{suit_markup(action.contract)} {SUIT_NAMES_HR[action.contract]}"
        return escape(action.token())

    def parse_bid(self, text: str, options: list[Action]) -> Action | None:
        word = text.strip().lower()
        if word.isdigit():
            i = int(word)
            return options[i - 1] if 1 <= i <= len(options) else None
        if word in PASS_WORDS:
            return PASS
        if word in CLAIM_WORDS:
            return Claim(self.human_seat)  # the engine explains when a claim is allowed
        if word in SUIT_WORDS:
            return Call(SUIT_WORDS[word])
        try:
            return parse_action(text)
        except ActionParseError:
            return None

    def ask_declarations(self, view: SeatView) -> bool:
        """Ask which declarations to announce; True when one was announced (applied)."""
        full = next(a for a in view.legal if isinstance(a, Declare))  # all of them, largest first
        held = find_declarations(view.hand.mask, self.variant.belot_wins)
        trump = self.trump_of(view)
        self.say()
        self.show_table(view)
        self.say("Your hand: " + self.hand_markup(view)[0])
        self.say("You can announce (zvanja, R13):")
        for i, group in enumerate(full.groups, 1):
            d = declaration_of(group, held)
            value = declaration_value(d, self.variant.declaration_values) if d else 0
            name = pretty_codes(str(d)) if d else "?"
            worth = f" — {value}" if value else " — wins the match (R10)"
            self.say(f"  [bold cyan]{i}[/]) {name}: {cards_markup(group, trump)}{worth}")
        while True:
            text = self.ask("Announce which? [Enter/a = all, n = none, or numbers like 1 2]: ")
            if self.command(text, view):
                continue
            word = text.strip().lower()
            if word in ("", "a", "all", "sve", "y", "yes", "da"):
                chosen = list(range(len(full.groups)))
            elif word in ("n", "none", "no", "ne", "0", "-"):
                return False
            else:
                try:
                    nums = sorted({int(x) for x in word.replace(",", " ").split()})
                except ValueError:
                    nums = []
                if not nums or not all(1 <= n <= len(full.groups) for n in nums):
                    self.say(f"Type Enter for all, n for none, or numbers 1-{len(full.groups)}.")
                    continue
                chosen = [n - 1 for n in nums]
            action = Declare(tuple(full.groups[i] for i in chosen))
            try:
                self.apply(self.human_seat, action)
            except IllegalAction as exc:
                self.explain(exc)
                continue
            self.ask_card(self.observe(), header=False)
            return True

    @property
    def human_seat(self) -> int:
        return HUMAN if self.human is None else self.human

    def rule_abiding(self, view: SeatView) -> set[Card]:
        """Cards that keep R17-R19 (with enforce off every card may be played, R24)."""
        if view.contract is None:
            return set(view.hand)
        table = play_table(view.contract)
        if not view.trick:
            return set(view.hand)
        cards = tuple(c for _, c in view.trick)
        win = cards[trick_winner_index(cards, table)]
        legal = self.variant.duties(view.hand.mask, cards[0].suit, win, table)
        return {c for c in view.hand if legal >> c & 1}

    def ask_card(self, view: SeatView, header: bool = True) -> None:
        playable = [a.card for a in view.legal if isinstance(a, Play) and not a.bela]
        bela_ok = {a.card for a in view.legal if isinstance(a, Play) and a.bela}
        trump = self.trump_of(view)
        enforce_off = view.options.get("enforce") == "off"
        if header:
            self.say()
            self.show_table(view)
        line, numbered = self.hand_markup(view, playable)
        self.say("Your hand: " + line)
        if bela_ok:
            kq = " ".join(card_markup(c, trump) for c in sorted(bela_ok, reverse=True))
            self.say(f"  [dim]You hold bela ({kq}): announce it with the first of the two "
                     f"you play (R14).[/dim]")
        fair = self.rule_abiding(view)
        if enforce_off and len(fair) < len(view.hand):
            self.say("  [dim]By the rules (R17-R19): "
                     + " ".join(card_markup(c, trump) for c in numbered if c in fair)
                     + "; any card is accepted at this table, but a revoke can be claimed "
                       "(auzmeš, R24).[/dim]")
        if enforce_off and view.claim_allowed:
            self.say("  [dim]Type claim to claim auzmeš.[/dim]")
        while True:
            choices = "1" if len(numbered) == 1 else f"1-{len(numbered)}"
            text = self.ask(f"Your card [{choices} or a code like JH, ? for help]: ")
            if self.command(text, view):
                continue
            word = text.strip().lower()
            if word in CLAIM_WORDS:
                action: Action = Claim(self.human_seat)
            else:
                card, star = self.parse_card(word, numbered)
                if card is None:
                    continue
                if card not in view.hand:
                    self.say(f"You do not hold {card_markup(card)}.")
                    continue
                if star:
                    action = Play(card, True)
                elif card in bela_ok:
                    answer = self.ask_bela(card, view)
                    if answer is None:
                        continue
                    action = Play(card, answer)
                else:
                    action = Play(card)
            try:
                self.apply(self.human_seat, action)
                return
            except IllegalAction as exc:
                self.explain(exc)

    def parse_card(self, word: str, numbered: list[Card]) -> tuple[Card | None, bool]:
        if word.isdigit():
            i = int(word)
            if 1 <= i <= len(numbered):
                return numbered[i - 1], False
            if numbered:
                choices = "1" if len(numbered) == 1 else f"1-{len(numbered)}"
                self.say(f"There is no card {i}: choose {choices}, or type a card code.")
            return None, False
        star = word.endswith("*")
        code = word[:-1] if star else word
        try:
            return Card.from_code(code), star
        except CardParseError:
            self.say(f"{escape(word)!s} is not a card.  Type the number of a card, or its code "
                     "(rank 7 8 9 10 J Q K A, then suit H D S C: JH, 10h, j♥).  "
                     "[bold]?[/bold] shows help.")
            return None, False

    def ask_bela(self, card: Card, view: SeatView) -> bool | None:
        while True:
            text = self.ask(f"Announce bela with {card_markup(card, self.trump_of(view))}? "
                            "[1/y = yes (20 points), 2/n = no]: ")
            word = text.strip().lower()
            if word in YES_WORDS:
                return True
            if word in NO_WORDS:
                return False
            if self.command(text, view):
                continue
            self.say("Answer y (announce bela) or n.")

    def between_rounds(self) -> None:
        view = self.observe()
        while True:
            text = self.ask(f"Enter for round {view.round_index + 2} (s = sheet, q = quit): ")
            if text.strip().lower() in ("h", "hand", "t", "table"):
                continue
            if not self.command(text, view):
                return


def strongest_side(view: SeatView) -> int | None:
    """The side whose declarations compare strongest (R11, R12), from announced values."""
    best: dict[int, tuple[int, int]] = {}
    for seat, infos in enumerate(view.declared):
        for info in infos or ():
            key = (info.strength, -((seat - view.first) % view.seats))
            side = view.side_of(seat)
            if side not in best or key > best[side]:
                best[side] = key
    if not best:
        return None
    ranked = sorted(best.items(), key=lambda kv: kv[1], reverse=True)
    if (len(ranked) > 1 and ranked[0][1][0] == ranked[1][1][0]
            and view.options.get("equal_declarations") == "cancel"):
        return None
    return ranked[0][0]


# -- the command ------------------------------------------------------------------------------
class EqualDeclarations(StrEnum):
    earlier = "earlier"
    cancel = "cancel"


class Tie(StrEnum):
    fall = "fall"
    hang = "hang"


class Enforce(StrEnum):
    on = "on"
    off = "off"


def bot_seed(seed: int, seat: int) -> int:
    """A bot's seed, derived from the match seed and its seat (same seed, same match)."""
    return random.Random(f"bela-play:{seed}:{seat}").getrandbits(48)


def resolve_bot(name: str, console: Console) -> str:
    known = bot_registry.BOTS
    if name in known:
        return name
    if name == "heuristic" and known:
        fallback = "random" if "random" in known else next(iter(known))
        console.print(f"[yellow]The heuristic bot is not available in this build; "
                      f"playing against the {fallback} bot.[/yellow]", highlight=False)
        return fallback
    raise typer.BadParameter(f"unknown bot {name!r} (known: {', '.join(known)})",
                             param_hint="--bot")


def save_record(match: Match, path: Path, players: list[str], extra: dict[str, Any],
                console: Console) -> None:
    data = to_record(match, players) | extra  # extra keys are ignored by readers (RECORD.md)
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        console.print(f"[red]Could not save the record to {escape(str(path))}: "
                      f"{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"Record saved to {escape(str(path))}", highlight=False)


def play(
    seed: Optional[int] = typer.Option(  # noqa: UP045 (typer reads the annotation)
        None, "--seed", help="Seed for the shuffle and the bots: same seed, same match."),
    target: Optional[int] = typer.Option(  # noqa: UP045
        None, "--target", min=1, help="Points to win the match (bela4: 1001; 501 is common)."),
    variant: str = typer.Option("bela4", "--variant", help="Variant to play (bela4 for now)."),
    equal_declarations: Optional[EqualDeclarations] = typer.Option(  # noqa: UP045
        None, "--equal-declarations",
        help="Equal strongest declarations: the earlier seat wins, or both cancel (R12). "
             "(default: earlier)"),
    tie: Optional[Tie] = typer.Option(  # noqa: UP045
        None, "--tie", help="An exact tie: the caller falls, or the round hangs (R22). "
                            "(default: fall)"),
    enforce: Optional[Enforce] = typer.Option(  # noqa: UP045
        None, "--enforce", help="Refuse illegal cards (on), or accept them and allow claims "
                                "of auzmeš (off, R24). (default: on)"),
    bot: str = typer.Option("heuristic", "--bot", help="Bot for the other seats: heuristic, "
                                                       "random, or any registered bot."),
    record: Optional[Path] = typer.Option(  # noqa: UP045
        None, "--record", dir_okay=False, help="Save the match record (JSON) to this file."),
    all_bots: bool = typer.Option(False, "--all-bots",
                                  help="Bots in every seat: play a whole match without input."),
) -> None:
    """Play a match in the terminal: you at seat 0, your partner at seat 2, bots elsewhere."""
    console = Console(highlight=False, emoji=False)
    if not console.is_terminal:
        console.soft_wrap = True  # piped or captured: whole lines, no wrapping at 80 columns
    if variant not in PLAYABLE:
        if variant in LATER:
            msg = (f"{variant} is not playable in the terminal yet "
                   f"(playable now: {', '.join(PLAYABLE)})")
        else:
            msg = (f"unknown variant {variant!r} (variants: {', '.join(PLAYABLE + LATER)}; "
                   f"playable now: {', '.join(PLAYABLE)})")
        raise typer.BadParameter(msg, param_hint="--variant")
    if variant not in VARIANTS:
        raise typer.BadParameter(f"the engine has no variant {variant!r}", param_hint="--variant")
    options: dict[str, Any] = {}
    if target is not None:
        options["target"] = target
    for key, value in (("equal_declarations", equal_declarations), ("tie", tie),
                       ("enforce", enforce)):
        if value is not None:
            options[key] = value.value
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    try:
        match = Match(get_variant(variant), options, seed=seed)
    except BelaError as exc:
        raise typer.BadParameter(str(exc)) from None
    bot_name = resolve_bot(bot, console)
    human = None if all_bots else HUMAN
    bots = {s: bot_registry.make_bot(bot_name, bot_seed(seed, s))
            for s in range(match.variant.seats) if s != human}
    game = Game(match, bots, console, human, bot_name=bot_name)
    players = game.seating.players()
    extra = {"seed": seed, "bots": {str(s): bot_name for s in sorted(bots)}}
    opts = match.options
    house = [f"target {opts.target}"]
    if opts.equal_declarations != "earlier":
        house.append("equal declarations cancel")
    if opts.tie != "fall":
        house.append("ties hang")
    if opts.enforce != "on":
        house.append("enforce off (auzmeš)")
    if human is None:
        console.print(f"Bela ({variant}), {', '.join(house)}: {bot_name} bots in every seat, "
                      f"seed {seed}.", highlight=False)
    else:
        console.print(f"[bold]Bela[/bold] ({variant}), {', '.join(house)}.  You (seat 0) and "
                      f"Partner (seat 2) against Right (seat 1) and Left (seat 3), "
                      f"{bot_name} bots.  Seed {seed}.  Type [bold]?[/bold] for help.",
                      highlight=False)
    code = 0
    try:
        game.run()
    except Quit:
        console.print("You left the match.", highlight=False)
    except EOFError:
        console.print("\nInput ended: the match stops here.", highlight=False)
        code = 1
    except KeyboardInterrupt:
        console.print("\nInterrupted: the match stops here.", highlight=False)
        code = 130
    if record is not None:
        save_record(match, record, players, extra, console)
    elif human is not None and not match.is_over:
        console.print("[dim]Not saved: use --record FILE to keep the match record.[/dim]",
                      highlight=False)
    if code:
        raise typer.Exit(code)

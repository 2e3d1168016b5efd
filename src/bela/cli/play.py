"""``bela play``: a match in the terminal, you at seat 0 and bots elsewhere (Typer + Rich).

Every variant of RULES.md: ``bela4`` (you and Partner against Right and Left), ``bela3`` (you,
Right and Left, each for himself), ``bela2`` and ``belot2`` (you against Opponent).  Everything
shown to the human comes from their own seat view (:mod:`bela.engine.views`): the hand, the
face-up cards (``view.public``), their own discards; the bots get their own views.

Each phase has its prompt: bidding (per variant, R7, R26, R31, R34), the bela3 discard (R27),
the swap of the 7 of trump and the belot2 redeal (R32, R35), declarations and cards.

Input: every prompt takes a number from what it shows (``1`` is always the first choice), the
words it names, or one of the commands of the help (``?`` shows them).
"""

from __future__ import annotations

import json
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.cells import cell_len
from rich.columns import Columns
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .. import bots as bot_registry
from ..bots.base import Bot
from ..engine.actions import (
    DECLINE,
    PASS,
    Action,
    ActionParseError,
    Call,
    Claim,
    Declare,
    Decline,
    Discard,
    Pass,
    Play,
    Redeal,
    Swap,
    parse_action,
)
from ..engine.cards import (
    EIGHT,
    RANKS,
    SEVEN,
    SUIT_NAMES_EN,
    SUIT_NAMES_HR,
    Card,
    CardParseError,
)
from ..engine.declarations import declaration_of, declaration_value, find_declarations
from ..engine.errors import BelaError, IllegalAction
from ..engine.record import to_record
from ..engine.rules import ALL_TRUMPS, NO_TRUMPS, play_table
from ..engine.state import Match
from ..engine.variants import VARIANTS, get_variant
from ..engine.views import DeclarationInfo, SeatView, seat_view
from .text import card_markup, card_text, contract_text, pretty_codes, suit_markup

PLAYABLE = ("bela4", "bela3", "bela2", "belot2")  # variants the terminal game can play
HUMAN = 0

# Seat names relative to the human, by number of seats: play passes to seat i+1, on i's
# right (R5), so seat 1 is on your right and the last seat on your left.
POSITIONS = {4: ("You", "Right", "Partner", "Left"), 3: ("You", "Right", "Left"),
             2: ("You", "Opponent")}
TITLES = {"bela4": "Bela", "bela3": "Bela for three", "bela2": "Bela for two",
          "belot2": "Belot for two"}
TABLES = {4: "You (seat 0) and Partner (seat 2) against Right (seat 1) and Left (seat 3)",
          3: "You (seat 0), Right (seat 1) and Left (seat 2), each for himself",
          2: "You (seat 0) against Opponent (seat 1)"}
SUIT_ORDER = (0, 2, 1, 3)  # ♥ ♠ ♦ ♣: colours alternate
SUIT_WORDS = {  # R1: English, Croatian and German-suited (Hungarian pack) names, symbols
    "hearts": 0, "heart": 0, "herc": 0, "srce": 0, "♥": 0, "♡": 0,
    "diamonds": 1, "diamond": 1, "karo": 1, "pumpkin": 1, "pumpkins": 1, "bundeva": 1,
    "bell": 1, "bells": 1, "♦": 1, "♢": 1,
    "spades": 2, "spade": 2, "pik": 2, "leaf": 2, "leaves": 2, "zelje": 2, "list": 2, "♠": 2,
    "♤": 2,
    "clubs": 3, "club": 3, "tref": 3, "acorn": 3, "acorns": 3, "žir": 3, "zir": 3, "♣": 3,
    "♧": 3,
}
# One letter is never a bid: h and s mean hand and sheet at every prompt, and a call of
# trump cannot be taken back (R7), so it must not hang on an ambiguous letter.
SUIT_LETTERS = {"h": 0, "d": 1, "s": 2, "c": 3}
SUIT_HELP = "herc karo pik tref, hearts diamonds spades clubs, or ♥ ♦ ♠ ♣"
CONTRACT_WORDS = {  # belot2 (R34): all trumps / no trumps by name
    "vc": ALL_TRUMPS, "sve adut": ALL_TRUMPS, "sve aduti": ALL_TRUMPS, "svi aduti": ALL_TRUMPS,
    "sve": ALL_TRUMPS, "all trumps": ALL_TRUMPS, "all trump": ALL_TRUMPS,
    "bc": NO_TRUMPS, "bez aduta": NO_TRUMPS, "bez adut": NO_TRUMPS, "bez": NO_TRUMPS,
    "no trumps": NO_TRUMPS, "no trump": NO_TRUMPS, "nt": NO_TRUMPS,
}
CONTRACT_NAMES = {ALL_TRUMPS: "All trumps (VC)", NO_TRUMPS: "No trumps (BC, points doubled)"}
ACCEPT_WORDS = {"accept", "take", "yes", "y", "da", "uzimam", "uzmi", "igram"}
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

_BIDDING_HELP = {
    "bela4": "a number from the menu, a suit by name or symbol (herc karo pik tref, hearts "
             "..., ♥ ♦ ♠ ♣) or pass / dalje.  One round of bids; when the other three pass, "
             "the dealer must call (mus, R7).",
    "bela3": "the first seat must call trump on its first 6 cards, no passing (R26): a number "
             "from the menu or a suit by name or symbol (herc karo pik tref, hearts ..., "
             "♥ ♦ ♠ ♣).",
    "bela2": "round 1: accept the turned card's suit (accept, or the suit) or pass; round 2: "
             "name another suit or pass again; then the dealer must name one of the other "
             "three suits (R31).  Suits by name or symbol: herc karo pik tref, hearts ..., "
             "♥ ♦ ♠ ♣.",
    "belot2": "round 1: take the opened card's suit (take, or the suit) or pass; round 2: "
              "another suit, vc (all trumps, sve adut) or bc (no trumps, bez aduta: every "
              "point doubled), or pass.  Four passes: raspas, where each tries to take as few "
              "points as he can (R34).  Suits by name or symbol: herc karo pik tref, hearts "
              "..., ♥ ♦ ♠ ♣.",
}


def help_rows(variant: str) -> list[tuple[str, str]]:
    """The ``?`` help of a variant: (what you type, what it does)."""
    v = get_variant(variant)
    rows = [("Bidding", _BIDDING_HELP[variant])]
    if v.discards:
        rows.append(("Discard", "the caller discards two of his 12 cards face down: two "
                                "numbers (1 5) or codes (7C 8C), or one and then the other; "
                                "the numbers stay the same.  Their points count for him "
                                "(R27)."))
    if "exchange" in v.rule_ids:
        rule = v.rule_ids["exchange"]
        rows.append(("Swap", "holding the 7 of trump when trump is the turned suit, you may "
                             f"swap it for the turned card before the first lead: y or n "
                             f"({rule})."))
    if v.redeal_ranks:
        rows.append(("Redeal", "with four 7s or four 8s you may demand a redeal: y or n "
                               "(R35)."))
    decl_rule = v.rule_ids["declarations"]
    rows += [
        ("Cards", "the number shown before a playable card, or its code: JH, 10h, j♥ (rank "
                  "7 8 9 10 J Q K A, then suit).  KH* or 2* plays K♥ or card 2 and announces "
                  "bela.  Dimmed cards, without a number, may not be played now."),
        ("Zvanja", f"before your first card you choose the declarations to announce "
                   f"({decl_rule})."),
        ("l  last", "the last finished trick"),
        ("s  sheet", "the score sheet"),
        ("h  hand", "your hand and the table, numbered as the prompt asks"),
        ("r  rules", "the play rules"),
        ("hint", "what the best bot (pimc) would do, with the estimated value of every legal "
                 "card (the points your side takes in the round)"),
    ]
    if "enforce" in v.options:
        rows.append(("claim", "(with --enforce off) auzmeš: an opponent broke R17-R19 (R24).  "
                              "You confirm it first: a false claim gives the other side 162."))
    rows += [("q  quit", "leave the match (the record is saved if you gave --record FILE)"),
             ("", "One letter is never a bid: h and s always mean hand and sheet.  Call "
                  "trump by the suit's name or symbol, or its number in the menu.")]
    return rows


def help_table(variant: str) -> Table:
    """The ``?`` help as a grid: the second column wraps within itself on a narrow screen."""
    grid = Table.grid(padding=(0, 2), pad_edge=True)
    grid.title = "How to play  (type ? at any prompt to see this again)"
    grid.title_justify = "left"
    grid.title_style = "bold"
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for key, text in help_rows(variant):
        grid.add_row(key, text)
    return grid


def help_text(variant: str) -> str:
    """The help as plain lines (for documentation)."""
    lines = ["How to play  (type ? at any prompt to see this again)"]
    lines += [f"  {key:<9} {text}" for key, text in help_rows(variant)]
    return "\n".join(lines)


_ORDER = """\
[bold]Order[/bold]   trump: J 9 A 10 K Q 8 7 (J 20, 9 14, A 11, 10 10, K 4, Q 3)
        others: A 10 K Q J 9 8 7 (A 11, 10 10, K 4, Q 3, J 2); last trick +10 (R2, R3)"""
_BELA_PLAY = """
[bold]Play[/bold]    follow suit and beat the best card of that suit if you can (R17, R19);
        if you cannot follow, play a trump, beating the best trump if you can (R18);
        otherwise any card.  The highest trump, else the highest card led, wins (R20)."""
_SCORE = {
    "bela4": """
[bold]Score[/bold]   the calling side needs more than half of all points, or it falls and the
        others take everything (R22); all tricks: štiglja, +90 (R23).""",
    "bela3": """
[bold]Score[/bold]   the caller's two discards count for him (R27).  He needs more than the
        other two together: then everyone scores his own points; else he scores 0 and
        the others their own (R28).  All tricks: štiglja, the total +90.""",
    "bela2": """
[bold]Score[/bold]   only the 20 cards in the hands are played (R30).  The caller needs more
        than half of the points, or he falls and the other takes everything (R22, R33);
        all tricks: štiglja, +90 (R23).""",
    "belot2": """
[bold]Play[/bold]    follow suit; if you cannot, play a trump; otherwise any card.  When trump
        is led, beat it with a higher trump if you can; no other duty to beat (R36).
        All trumps (VC): every suit is trump, beat the led suit's best card if you can,
        and the highest card of the led suit wins.  No trumps (BC): every point doubled.
[bold]Score[/bold]   the bidder must score more than the opponent, or the opponent takes
        everything (also on a tie, R34).  Raspas: each scores minus the points he took
        (R37).  No štiglja bonus.""",
}


# When the cards a seat has not seen yet come (R6, R27, R32, R35).
_UNSEEN_UNTIL = {"bela4": "talon cards after your bid", "bela3": "cards after the bidding",
                 "bela2": "cards after the bidding", "belot2": "cards after the bidding"}

# The cards a seat picks up after the bidding (R6, R27, R32, R35).
_PICKED_UP = {"bela4": "your talon", "bela3": "your talon", "bela2": "your talon",
              "belot2": "{n} more cards"}

# What the caller (or his side) needs to pass, per variant (R22, R28, R33, R34).
_CALLER_NEEDS = {
    "bela4": "{side} need more than half the points (R22).",
    "bela3": "{who} {needs} more points than the other two together (R28).",
    "bela2": "{who} {needs} more than half the points (R22, R33).",
    "belot2": "{who} must score more than {other} (R34).",
}


def rules_reminder(variant: str) -> str:
    play = _BELA_PLAY if get_variant(variant).iber else ""  # belot2 says its own (R36)
    return _ORDER + play + _SCORE[variant]


RULES_REMINDER = rules_reminder("bela4")


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
            from ..solver import warm_up

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
            from ..solver import is_warm
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


SOLVER = SolverWarmUp()


class Quit(Exception):
    """The human asked to leave the match."""


def conj(subject: str, verb: str) -> str:
    """The verb for a subject: ``You pass``, ``You and Partner pass``, ``Right passes``."""
    if subject == "You" or " and " in subject or subject.startswith("seats "):
        return verb
    if verb == "have":
        return "has"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


def possessive(subject: str) -> str:
    if subject == "You":
        return "your"
    if " and " in subject or subject.startswith("seats "):
        return "their"
    return subject + "'s"


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
        """A column title: Us / Them, a player's name, or the seat numbers of a side."""
        if self.sides == self.seats:
            return self.names[side] if self.human is not None else str(side)
        if self.human is not None:
            return "Us" if side == self.side_of(self.human) else "Them"
        return "+".join(str(s) for s in self.members(side))

    def side_long(self, side: int) -> str:
        """For sentences: "You and Partner", "Right and Left", "seats 0+2", "Opponent"."""
        if self.sides == self.seats:
            return self.names[side]
        if self.human is None:
            return "seats " + "+".join(str(s) for s in self.members(side))
        return " and ".join(self.names[s] for s in self.members(side))

    def players(self) -> list[str]:
        """Names for the record's ``players``."""
        return list(self.names)


# -- cards as text ----------------------------------------------------------------------------
def is_trump_suit(suit: int, trump: int | None) -> bool:
    """``trump`` is a suit, ``ALL_TRUMPS`` (VC: every suit) or None (no trump, BC)."""
    return trump is not None and (trump == ALL_TRUMPS or suit == trump)


def suit_name(suit: int) -> str:
    return f"{suit_markup(suit)} {SUIT_NAMES_HR[suit]} ({SUIT_NAMES_EN[suit]})"


def cards_markup(cards: Any, trump: int | None = None) -> str:
    return " ".join(card_markup(c, trump) for c in cards)


def token_markup(token: str) -> str:
    """An engine action token (from an IllegalAction's alternatives) for people."""
    try:
        action = parse_action(token)
    except ActionParseError:
        return escape(token)
    if isinstance(action, Play):  # K♦* is how you type a card with bela
        return card_markup(action.card) + ("*" if action.bela else "")
    if isinstance(action, Call) and action.contract < 4:
        return suit_markup(action.contract)
    if isinstance(action, Call):
        return CONTRACT_NAMES[action.contract]
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


def decl_text(info: DeclarationInfo, trump: int | None = None) -> str:
    text = pretty_codes(info.text)
    if info.cards is not None and "belot" not in info.text:
        text += ": " + cards_markup(info.cards, trump)
    return text + (f" ({info.value})" if info.value else "")


def four_of(view: SeatView) -> str:
    """``four 7s`` / ``four 8s``: why the seat may demand a redeal (R35)."""
    for r in (SEVEN, EIGHT):
        if all(Card.make(r, s) in view.hand for s in range(4)):
            return f"four {RANKS[r]}s"
    return "four 7s or four 8s"


def parse_words(text: str) -> str:
    """Lower case, single spaces: ``Sve  Adut`` -> ``sve adut``."""
    return " ".join(text.strip().lower().split())


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
        self.vname = match.variant.name
        self.seating = Seating.make(self.variant.seats, self.variant.sides, human)
        self.bot_name = bot_name
        self.declined = -1  # round index in which the human chose to announce nothing
        self.prompt_hand: str | None = None  # the numbered hand of the prompt asking now
        self.trick_lines: list[str] = []  # the trick being played, shown when it is over
        self.announced: list[str] = []  # announcements made within that trick (R13)
        self.summaries: list[dict[str, Any]] = []
        self.bot_trouble: set[int] = set()  # seats whose bot failed (warned once)
        self.fallback: dict[int, random.Random] = {}

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

    @property
    def individual(self) -> bool:
        """Each player is his own side (bela3, bela2, belot2)."""
        return self.variant.sides == self.variant.seats

    def trump_of(self, view: SeatView) -> int | None:
        """The trump suit, ``ALL_TRUMPS`` in VC (every suit is trump), None in BC."""
        if view.contract is None or view.contract == NO_TRUMPS:
            return None
        return view.contract

    def turned_suit(self, view: SeatView) -> int | None:
        """The suit of the face-up card (bela2, belot2): the swap keeps its suit."""
        card = view.public.get("turned")
        return None if card is None else card.suit

    @property
    def turned_word(self) -> str:
        """What the face-up card is called: bela2 "turned", belot2 "opened" (R30, R34)."""
        return self.variant.face_up_name

    def rule(self, phase: str, default: str = "") -> str:
        return self.variant.rule_ids.get(phase, default)

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
                    self.apply(seat, self.bot_action(seat))
            self.end_round()
            if self.human is not None and not m.is_over:
                self.between_rounds()
        self.end_match()

    def bot_action(self, seat: int) -> Action:
        """The bot's choice.  A bot that fails on a position of this variant (an exception)
        plays a random legal action there instead, seeded by the match: the match goes on,
        reproducibly, and the failure is shown once."""
        view = seat_view(self.match, seat)
        try:
            return self.bots[seat].act(view)
        except Exception as exc:  # noqa: BLE001 - any bot error: keep the match playable
            if not self.bot_trouble:
                self.say(f"[yellow]The {escape(self.bot_name)} bot failed at seat {seat} in the "
                         f"{view.phase} phase ({escape(type(exc).__name__)}"
                         f"{': ' + escape(str(exc)) if str(exc) else ''}); where it fails it "
                         f"plays a random legal choice instead.[/yellow]")
            self.bot_trouble.add(seat)
            rng = self.fallback.setdefault(
                seat, random.Random(f"bela-play-fallback:{self.match.seed}:{seat}"))
            return view.legal[rng.randrange(len(view.legal))]

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
        you = view.first == self.human
        if self.variant.callable_suits(0, self.turned_suit(view))[1]:  # R26: must call
            first = ("You call trump and lead" if you
                     else f"{self.name(view.first)} calls trump and leads")
        else:
            first = ("You bid first and lead" if you
                     else f"{self.name(view.first)} bids first and leads")
        self.say(f"Dealer: {self.name(view.dealer)}.  {first}.  Score: {totals}  "
                 f"(to {view.options['target']})")
        face = self.face_up_line(view)
        if face and view.turn != self.human:  # else the bidding prompt shows it at once
            self.say(face)

    def face_up_line(self, view: SeatView) -> str:
        """The face-up cards of bela2 (turned) and belot2 (opened, bottom), if any."""
        pub = view.public
        if not pub:
            return ""
        trump = self.trump_of(view)
        parts = []
        if "turned" in pub:
            label = f"{self.variant.face_up_name} card"
            parts.append(f"{label} [reverse] {card_markup(pub['turned'], trump)} [/reverse]")
        if "bottom" in pub:
            parts.append(f"bottom card [reverse] {card_markup(pub['bottom'], trump)} [/reverse]")
        return "Face up: " + " · ".join(parts) + "  [dim](out of play)[/dim]"

    def narrate(self, seat: int, action: Action, before: SeatView, after: SeatView) -> None:
        who = self.name(seat)
        trump = self.trump_of(after)
        if isinstance(action, Pass):
            self.say(f"  {who}: pass (dalje)")
            if after.raspas and not before.raspas:
                self.announce_raspas(after)
        elif isinstance(action, Call):
            self.say(f"  {who}: {self.describe_bid(action, before)}")
            self.announce_contract(seat, action.contract, after)
        elif isinstance(action, Discard):
            if seat == self.human:
                table = play_table(before.contract if before.contract is not None else NO_TRUMPS)
                pts = sum(table.points[c] for c in action.cards)
                self.say(f"  You discard {cards_markup(action.cards, trump)} face down: their "
                         f"{pts} points count for you ({self.rule('discard')}).")
            else:
                self.say(f"  {who} discards two cards face down (their points count for "
                         f"{who}, {self.rule('discard')}).")
        elif isinstance(action, Swap):
            old, new = before.public.get("turned"), after.public.get("turned")
            if old is not None and new is not None:
                mine = "your" if seat == self.human else "the"
                self.say(f"  {who} {conj(who, 'swap')} {mine} {card_markup(new, trump)} for the "
                         f"{self.turned_word} {card_markup(old, trump)} "
                         f"({self.rule('exchange')}): the face-up card is now "
                         f"{card_markup(new, trump)}.")
            else:
                self.say(f"  {who} {conj(who, 'swap')} the 7 of trump for the {self.turned_word} "
                         f"card.")
        elif isinstance(action, Redeal):
            which = four_of(before) if seat == self.human else "four 7s or four 8s"
            self.say(f"  [bold]{who} {conj(who, 'demand')} a redeal[/bold]: {which} "
                     f"({self.rule('exchange')}).")
        elif isinstance(action, Decline):
            if seat == self.human:
                self.say("  You keep your cards.")
        elif isinstance(action, Declare):
            infos = after.declared[seat] or ()
            line = f"  {who} {conj(who, 'announce')}: " + ", ".join(decl_text(i, trump)
                                                                     for i in infos)
            if self.trick_lines and seat != self.human:
                self.announced.append(line)  # shown before your prompt, or with the trick
                self.trick_lines.append(line)
            else:
                self.say(line)
        elif isinstance(action, Claim):
            self.flush_trick()  # the cards of the unfinished trick, then the claim
            self.say(f"  {who} {conj(who, 'claim')} auzmeš: an opponent broke R17-R19 (R24)!")
        elif isinstance(action, Play):
            self.narrate_card(seat, action, before, after)
        else:
            self.say(f"  {who}: {escape(action.token())}")
        if len(after.hand) > len(before.hand) and before.unseen and after.phase != "done":
            picked = [c for c in after.hand if c not in before.hand]
            what = _PICKED_UP[self.vname].format(n=len(picked))
            if self.variant.discards and after.caller == self.human:
                what = "your talon and the last 2 cards"
            self.say(f"  You pick up {what}: {cards_markup(picked, trump)}")
        if (before.phase == "bidding" and after.phase not in ("bidding", "done")
                and self.human is not None and after.turn != self.human):
            self.say("Your hand: " + self.hand_markup(after)[0])

    def announce_contract(self, seat: int, contract: int, view: SeatView) -> None:
        """The contract is fixed: what it is and what the caller needs."""
        who = self.name(seat)
        st = self.seating
        need = _CALLER_NEEDS[self.vname].format(
            who=who, needs=conj(who, "need"), side=st.side_long(st.side_of(seat)),
            other=self.name((seat + 1) % self.variant.seats))
        if contract < 4:
            self.say(f"[bold]Trump is {suit_name(contract)}[/bold], called by {who}: {need}")
        elif contract == ALL_TRUMPS:
            self.say(f"[bold]All trumps (VC)[/bold], ordered by {who}: every suit is trump, and "
                     f"each suit's K+Q is a bela (R36, R37).  {need}")
        else:
            self.say(f"[bold]No trumps (BC, points doubled)[/bold], ordered by {who}: no suit is "
                     f"trump and every point counts double (R36).  {need}")
        if self.variant.discards and seat != self.human:
            self.say(f"  {who} takes the talon and the last 2 cards, then discards two face "
                     f"down (R27).")

    def announce_raspas(self, view: SeatView) -> None:
        suit = view.contract if view.contract is not None else 0
        self.say(f"[bold]Raspas![/bold] Four passes: {suit_name(suit)} is trump, with no "
                 f"declarations, bela or swap.  [bold]Take as few points as you can[/bold]: "
                 f"each scores minus the points he takes (R34, R37).")

    def narrate_card(self, seat: int, action: Play, before: SeatView, after: SeatView) -> None:
        """A trick is shown whole once it is over (no stale "winning" tags); while it is being
        played, your prompt shows the cards on the table and the one winning now."""
        who = self.name(seat)
        trump = self.trump_of(after)
        if not before.trick:
            lead = "you lead" if seat == self.human else f"{who} leads"
            self.trick_lines = [f"[bold]Trick {len(before.tricks) + 1}[/bold] — {lead}"]
        line = f"  {who:<8} {card_markup(action.card, trump)}"
        if action.bela:
            line += "  [bold]bela![/bold] (20)"
        self.trick_lines.append(line)
        if len(after.tricks) > len(before.tricks):
            cards, winner = after.tricks[-1]
            gained = sum(after.card_points) - sum(before.card_points)
            self.flush_trick()
            pts = "  ".join(f"{self.seating.side_short(s)} {p}"
                            for s, p in enumerate(after.card_points))
            self.say(f"  → {self.name(winner)} {'take' if winner == self.human else 'takes'} "
                     f"the trick (+{gained}).   Card points: {pts}")
            if len(after.tricks) == 1:
                self.show_declarations(after)

    def show_announced(self) -> None:
        """Announcements made within the trick before your turn: public at once (R13), so
        shown before your prompt (the cards are on the table line), not again later."""
        for line in self.announced:
            self.say(line)
            self.trick_lines.remove(line)
        self.announced = []

    def flush_trick(self) -> None:
        self.announced = []
        for line in self.trick_lines:
            self.say(line)
        self.trick_lines = []

    def show_declarations(self, view: SeatView) -> None:
        """After the first trick: every announcement and whose count (R12, R13, R37)."""
        announced = [(s, d) for s, d in enumerate(view.declared) if d]
        if not announced:
            return
        trump = self.trump_of(view)
        self.say("  Declarations (zvanja):")
        for seat, infos in announced:
            self.say(f"    {self.name(seat)}: " + ", ".join(decl_text(i, trump) for i in infos))
        side = view.declarations_side
        if side is None:
            self.say("    The strongest declarations are equal: none count (R12).")
            return
        tie = self.tie_to_earlier_seat(view, side)
        if tie is not None:
            self.say(f"    The strongest declarations are equal: the tie goes to "
                     f"{self.name(tie)}, the earlier seat in turn order (R12).")
        who = self.seating.side_long(side)
        subject = {"You": "you"}.get(who, "they" if possessive(who) == "their" else "he")
        if self.variant.trump_sequence_first:  # R37: belot2's own seniority
            self.say(f"    {who} {conj(who, 'hold')} the senior declaration: only "
                     f"{possessive(who)} declarations count, if {subject} "
                     f"{conj(who, 'take')} a trick (R37).")
        else:
            self.say(f"    {who} {conj(who, 'hold')} the strongest: only {possessive(who)} "
                     f"declarations count (R12), if {subject} {conj(who, 'take')} a trick (R15).")

    def tie_to_earlier_seat(self, view: SeatView, side: int) -> int | None:
        """The seat that won a tie of equal strongest declarations by its place in turn order
        (R12: nearer the dealer's right), or None when there was no tie.  Not in belot2,
        where seniority has its own order (R37)."""
        if self.variant.trump_sequence_first:
            return None
        best: dict[int, int] = {}
        for seat, infos in enumerate(view.declared):
            for info in infos or ():
                s = self.seating.side_of(seat)
                best[s] = max(best.get(s, info.strength), info.strength)
        top = best.get(side)
        if top is None or not any(v == top for s, v in best.items() if s != side):
            return None
        order = [(view.first + k) % self.seating.seats for k in range(self.seating.seats)]
        return next((seat for seat in order if self.seating.side_of(seat) == side
                     and any(i.strength == top for i in view.declared[seat] or ())), None)

    def end_round(self) -> None:
        view = self.observe()
        res = view.result
        if res is None:
            return
        if self.trick_lines and self.verbose:  # a claim ended the round within a trick
            self.flush_trick()
        booked = view.sheet[-1]
        row = {
            "round": view.round_index + 1, "dealer": view.dealer,
            "caller": res.caller,
            "trump": None if res.outcome == "redeal" else view.trump,
            "outcome": res.outcome, "scores": booked,
            "declarations": res.declaration_points, "bela": res.bela_points,
            "totals": view.totals, "held": res.held,
        }
        self.summaries.append(row)
        if self.verbose:
            self.say()
            self.say(self.outcome_sentence(view))
            if res.card_points:
                self.say("  " + self.points_breakdown(view))
            self.show_sheet()
        else:
            self.say(self.compact_line(row))

    def points_breakdown(self, view: SeatView) -> str:
        """``Us 92 + zvanja 20 = 112 · Them 70``: what each side made this round."""
        res = view.result
        assert res is not None
        cards, decls, belas = res.card_points, res.declaration_points, res.bela_points
        parts = []
        for side, pts in enumerate(cards):
            where = "in tricks"
            if res.caller is not None and self.variant.discards \
                    and side == res.caller:
                where = "in tricks and discards"
            text = f"{self.seating.side_short(side)} {pts} {where}"
            extra = [(decls[side] if side < len(decls) else 0, "zvanja"),
                     (belas[side] if side < len(belas) else 0, "bela")]
            extra = [(v, n) for v, n in extra if v]
            if extra:
                text += "".join(f" + {v} {n}" for v, n in extra)
                text += f" = {pts + sum(v for v, _ in extra)}"
            parts.append(text)
        lead = "Taken" if res.outcome == "raspas" else "Made"
        note = "  (BC: every point doubled)" if view.contract == NO_TRUMPS else ""
        return f"{lead}: " + " · ".join(parts) + "." + note

    def outcome_sentence(self, view: SeatView) -> str:
        res = view.result
        assert res is not None
        st = self.seating
        caller_side = st.side_of(res.caller) if res.caller is not None else None
        total = res.total
        if res.outcome == "pass" and caller_side is not None:
            who = st.side_long(caller_side)
            text = (f"[bold]{who} {conj(who, 'pass')}[/bold] (prolaz): "
                    f"{res.scores[caller_side]} of {total} points.")
            if self.variant.discards:  # R28: the caller against two, each for himself
                text += "  Everyone scores his own points (R28)."
            return text
        if res.outcome == "fall" and caller_side is not None:
            who = st.side_long(caller_side)
            if st.sides == 2:
                taker = st.side_long(1 - caller_side)
                return (f"[bold]{who} {conj(who, 'fall')}[/bold] (pad): {taker} "
                        f"{conj(taker, 'take')} all {total} points.")
            return (f"[bold]{who} {conj(who, 'fall')}[/bold] (pad) and {conj(who, 'score')} 0; "
                    f"the others score their own points (R28).")
        if res.outcome == "capot":
            side = res.scores.index(max(res.scores))
            who = st.side_long(side)
            return (f"[bold]Štiglja![/bold] {who} took every trick: "
                    f"{total} + {self.variant.capot_bonus} = {res.scores[side]}.")
        if res.outcome == "hang":
            return (f"[bold]Exact tie[/bold]: the round hangs (visi), {res.held} points held "
                    f"for the side that scores more next round (R22).")
        if res.outcome == "raspas":
            scores = ", ".join(f"{st.side_short(s)} {p}" for s, p in enumerate(res.scores))
            return (f"[bold]Raspas[/bold] over: each scores minus the points he took "
                    f"(R37): {scores}.")
        if res.outcome == "redeal":
            dealer = self.name(view.dealer)
            return (f"[bold]Redeal[/bold]: four 7s or four 8s (R35).  Nothing is scored; "
                    f"{dealer} {conj(dealer, 'deal')} again (R37).")
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
            who = st.side_long(side)
            return (f"[bold]Belot![/bold] All eight of one suit: {who} {conj(who, 'win')} "
                    f"the match.")
        return f"Round over: {OUTCOMES.get(res.outcome, res.outcome)}."

    def short(self, seat: int) -> str:
        """A seat in a narrow column: its name, or its number in a bots-only match."""
        return str(seat) if self.human is None else self.name(seat)

    def compact_line(self, row: dict[str, Any]) -> str:
        caller, trump = row["caller"], row["trump"]
        if caller is not None and trump is not None:
            called = f"{self.short(caller)} {contract_text(trump)}"
        elif row["outcome"] == "raspas":
            called = f"- {contract_text(trump)}"
        else:
            called = "-"
        scores = " : ".join(f"{s:>3}" for s in row["scores"])
        totals = " : ".join(f"{t:>4}" for t in row["totals"])
        return (f"Round {row['round']:>2}  dealer {self.short(row['dealer'])}  caller {called}  "
                f"{SHORT_OUTCOMES.get(row['outcome'], row['outcome']):<8} {scores}   "
                f"totals {totals}")

    def sheet_table(self, tight: bool = False, compact: bool = False,
                    running: bool = True) -> Table:
        """The score sheet.  ``tight``: one space between columns; ``compact``: caller and
        trump in one column, zvanja and bela in one, each running total in its score's cell;
        without ``running`` only a total row at the end (the narrowest terminals)."""
        st = self.seating
        names = [st.side_short(s) for s in range(st.sides)]
        merged = self.individual or compact  # zvanja and bela in one column
        t = Table(title="Score sheet", box=box.SIMPLE_HEAD, padding=(0, 0 if tight else 1),
                  collapse_padding=True, show_edge=False, title_justify="left",
                  caption=f"Zvanja{' + ' if merged else ' and '}bela: {'/'.join(names)}."
                  + ("  Running totals in brackets." if compact and running else ""),
                  caption_justify="left")
        t.add_column("#", justify="right", no_wrap=True, min_width=2)
        t.add_column("Dealer", no_wrap=True)
        if compact:
            t.add_column("Called", no_wrap=True)
        else:
            t.add_column("Caller", no_wrap=True)
            t.add_column("Trump", justify="center", no_wrap=True, min_width=5)
        if merged:
            t.add_column("Zv+bela", justify="right", no_wrap=True, min_width=7)
        else:
            t.add_column("Zvanja", justify="right", no_wrap=True)
            t.add_column("Bela", justify="right", no_wrap=True)
        for n in names:
            t.add_column(n, justify="right", no_wrap=True, min_width=len(n))
        t.add_column("Result", no_wrap=True, min_width=6)
        if not compact:
            for n in names:
                t.add_column(f"Σ {n}", justify="right", no_wrap=True, min_width=len(n) + 2)

        def pairs(values: tuple[int, ...]) -> str:
            return "/".join(map(str, values)) if values and any(values) else "-"

        for row in self.summaries:
            result = SHORT_OUTCOMES.get(row["outcome"], row["outcome"])
            if row["held"]:
                result += f" {row['held']}"
            if merged:
                decl, bela = row["declarations"], row["bela"]
                extra = [pairs(tuple(d + b for d, b in zip(decl, bela)))
                         if decl and bela else pairs(decl or bela)]
            else:
                extra = [pairs(row["declarations"]), pairs(row["bela"])]
            caller = self.short(row["caller"]) if row["caller"] is not None else "-"
            trump = contract_text(row["trump"])
            if compact:
                called = [f"{caller} {trump}" if row["trump"] is not None else caller]
                scores = ([f"{s} ({tot})" for s, tot in zip(row["scores"], row["totals"])]
                          if running else list(map(str, row["scores"])))
                t.add_row(str(row["round"]), self.short(row["dealer"]), *called, *extra,
                          *scores, result)
            else:
                t.add_row(str(row["round"]), self.short(row["dealer"]), caller, trump, *extra,
                          *map(str, row["scores"]), result, *map(str, row["totals"]))
        if compact and not running:
            t.add_section()
            t.add_row("", "", "", "Σ", *map(str, self.summaries[-1]["totals"]), "")
        return t

    def show_sheet(self) -> None:
        """The widest layout of the sheet that fits the terminal (nothing cut or wrapped)."""
        if not self.summaries:
            self.say("No round finished yet.")
            return
        wide = self.console.options.update_width(10_000)
        for tight, compact, running in ((False, False, True), (True, False, True),
                                        (False, True, True), (True, True, True),
                                        (False, True, False), (True, True, False)):
            table = self.sheet_table(tight, compact, running)
            if self.console.measure(table, options=wide).maximum <= self.console.width:
                break
        self.console.print(table)

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
            self.say(f"\n[bold]{who} {conj(who, 'win')} the match[/bold], {totals}.  {mood}")
        elif self.individual:
            self.say(f"Winner: seat {winner}, totals {totals}.")
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
        word = text.strip().lower()
        if word in ("?", "help", "pomoć", "pomoc"):
            self.console.print(help_table(self.vname), highlight=False)
        elif word in ("q", "quit", "exit", "kraj"):
            raise Quit
        elif word in ("l", "last"):
            self.show_last_trick(view)
        elif word in ("s", "sheet", "score"):
            self.show_sheet()
        elif word in ("r", "rules"):
            self.say(rules_reminder(self.vname))
        elif word in ("h", "hand", "t", "table"):
            self.show_table(view, full=True)
            if view.phase != "bidding":  # with the numbers the prompt asks for
                self.say("Your hand: " + (self.prompt_hand or self.hand_markup(view)[0]))
        elif word in ("hint", "savjet"):
            self.show_hint(view)
        else:
            return False
        return True

    def show_hint(self, view: SeatView) -> None:
        """The best bot's choice, and for a card the mean double-dummy value of each legal
        card over the deals consistent with what you know: the card hinted is the best of
        the values shown (both come from the same sampled deals)."""
        if not view.legal:
            self.say("Nothing to decide right now.")
            return
        try:
            from ..bots.pimc import PimcBot
        except ImportError as exc:  # the solver's numba / numpy failed to load
            missing = exc.name or str(exc)
            self.say(f"Hints are not available: the solver cannot load the Python package "
                     f"{escape(missing)} ({escape(str(exc))}).")
            return
        SOLVER.wait(self.console)
        advisor = PimcBot(seed=view.round_index * 1000 + len(view.tricks), samples=32,
                          budget=1.0)
        try:
            choice, values = advisor.advise(view)
        except Exception as exc:  # noqa: BLE001 - a failing hint must not end the match
            self.say(f"The hint failed ({escape(type(exc).__name__)}: {escape(str(exc))}).")
            return
        trump = self.trump_of(view)
        if isinstance(choice, Play) and values:
            ranked = sorted(values.items(),
                            key=lambda cv: (cv[1] if view.raspas else -cv[1], cv[0]))
            cells = ", ".join(f"{card_markup(c, trump)} {v:.0f}" for c, v in ranked)
            goal = "fewest" if view.raspas else "most"
            self.say(f"Hint: play {card_markup(choice.card, trump)}"
                     f"{' with bela' if choice.bela else ''}.  Estimated points your side "
                     f"takes in the round ({goal} is best): {cells}.")
        elif isinstance(choice, (Call, Pass)):
            self.say(f"Hint: {self.describe_bid(choice, view)}.{self.bid_reason(view, advisor)}")
        elif isinstance(choice, Play):
            self.say(f"Hint: play {card_markup(choice.card, trump)}"
                     f"{' with bela' if choice.bela else ''}.")
        else:
            self.say(f"Hint: {pretty_codes(choice.pretty())}.")

    def bid_reason(self, view: SeatView, advisor: Any) -> str:
        """bela4: the bot's estimate for each suit it may call, as the points the calling
        side makes over the other; it passes when none reaches its threshold (R7)."""
        scores_of = getattr(getattr(advisor, "fallback", None), "suit_scores", None)
        if not self.variant.partners or scores_of is None:  # the partnership estimate
            return ""
        calls = [a.contract for a in view.legal if isinstance(a, Call) and a.contract < 4]
        if not calls:
            return ""
        scores = scores_of(view.hand.mask)
        cells = ", ".join(f"{suit_markup(c)} {scores[c]:+.0f}"
                          for c in sorted(calls, key=lambda c: -scores[c]))
        return (f"  Estimated margin if you call, from your 6 cards (the points your side "
                f"would make over the other): {cells}.")

    def show_last_trick(self, view: SeatView) -> None:
        if not view.tricks:
            self.say("No trick has been finished yet this round.")
            return
        cards, winner = view.tricks[-1]
        trump = self.trump_of(view)
        shown = ", ".join(f"{self.name(s)} {card_markup(c, trump)}" for s, c in cards)
        self.say(f"Last trick ({len(view.tricks)}): {shown} — taken by {self.name(winner)}.")

    def explain(self, exc: IllegalAction, action: Action | None = None) -> None:
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

    def hand_markup(self, view: SeatView, playable: list[Card] | None = None,
                    marked: Card | None = None) -> tuple[str, list[Card]]:
        """The hand sorted by suit; ``playable`` cards get numbers, the others are dimmed;
        ``marked`` (a card already chosen) keeps its number, struck through."""
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
                    shown = card_markup(c, trump)
                    if c == marked:
                        shown = f"[strike dim]{card_text(c)}[/] [dim](chosen)[/dim]"
                    cells.append(f"[bold cyan]{len(numbered)}[/]:{shown}")
                else:
                    cells.append(card_markup(c, trump, dim=True))
            label = " [bold]trump[/bold]" if is_trump_suit(group[0].suit, trump) else ""
            parts.append(f"{suit_markup(group[0].suit)}{label} " + " ".join(cells))
        return "  │  ".join(parts), numbered

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
        verb = "ordered"
        return f"{CONTRACT_NAMES[c]} {verb} by {by}"

    def show_table(self, view: SeatView, full: bool = False) -> None:
        """Where the round stands: bids or contract, face-up cards, the trick on the table
        (``full``: also your discards after the first trick)."""
        trump = self.trump_of(view)
        face = self.face_up_line(view)
        if view.phase == "bidding":
            bids = ", ".join(f"{self.name(s)} {self.bid_token_text(t)}"
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
                extra = f"   [dim](+{view.unseen} {_UNSEEN_UNTIL[self.vname]})[/dim]"
            self.say("Your hand: " + self.hand_markup(view)[0] + extra)
            return
        info = self.contract_info(view)
        if view.belas:
            info += "; bela: " + ", ".join(self.name(s) for s, _ in view.belas)
        if view.phase != "play":
            self.say(info + ".")
        else:
            n = len(view.tricks) + 1
            total = n - 1 + min(h for h in view.hand_sizes) + (1 if view.trick else 0)
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
        if view.phase != "play":
            return
        if view.trick:
            win = view.trick_winner  # the engine's (R20, R36); no tag on a lone lead
            cells = [f"{self.name(s)} {card_markup(c, trump)}"
                     + (" [dim](winning)[/dim]" if s == win and len(view.trick) > 1 else "")
                     for s, c in view.trick]
            self.say(f"  On the table ({self.name(view.trick[0][0])} led): " + ", ".join(cells))
        elif view.turn == self.human:
            self.say("  You lead.")

    def bid_token_text(self, token: str) -> str:
        if token == "pass":
            return "pass"
        if token in ("H", "D", "S", "C"):
            return suit_markup("HDSC".index(token))
        return escape(token)

    # -- prompts -------------------------------------------------------------------------------
    def human_turn(self) -> None:
        view = self.observe()
        self.prompt_hand = None
        self.show_announced()
        if view.phase == "bidding":
            self.ask_bid(view)
            return
        if view.phase == "discard":
            self.ask_discard(view)
            return
        if view.phase == "exchange":
            self.ask_exchange(view)
            return
        if view.phase != "play":
            self.ask_menu(view)  # a phase without a prompt of its own
            return
        asked = False
        if (any(isinstance(a, Declare) for a in view.legal)
                and self.declined != view.round_index):
            if self.ask_declarations(view):
                return  # announced: the same seat now plays its first card
            self.declined = view.round_index
            asked = True
        self.ask_card(self.observe(), header=not asked)

    def bid_intro(self, view: SeatView) -> str:
        """What the human may bid now, per variant (R7, R26, R31, R34)."""
        intro = {"bela4": self._bela4_intro, "bela3": self._bela3_intro,
                 "bela2": self._bela2_intro, "belot2": self._belot2_intro}[self.vname]
        turned = self.turned_suit(view)
        return intro(view, any(isinstance(a, Pass) for a in view.legal), len(view.bids),
                     suit_markup(turned) if turned is not None else "?")

    def _bela4_intro(self, view: SeatView, can_pass: bool, n: int, t: str) -> str:
        if view.turn == view.dealer and not can_pass:
            return "The others passed: as the dealer you must call trump (mus, R7)."
        return ""

    def _bela3_intro(self, view: SeatView, can_pass: bool, n: int, t: str) -> str:
        return ("You bid first: call trump on your first 6 cards, no passing (R26).  Then "
                "you take your talon of 4 and the last 2 cards, and discard 2 (R27).")

    def _bela2_intro(self, view: SeatView, can_pass: bool, n: int, t: str) -> str:
        if n < 2:
            return f"Round 1: accept the turned suit {t} as trump, or pass (R31)."
        if can_pass:
            return (f"Round 2: name another suit as trump, or pass again: then "
                    f"{self.name(view.dealer)} must name one (R31).")
        return (f"{self.name(view.first)} passed again: as the dealer you must name one of "
                f"the three suits other than {t} (R31).")

    def _belot2_intro(self, view: SeatView, can_pass: bool, n: int, t: str) -> str:
        if n < 2:
            return f"Round 1: take the opened suit {t} as trump, or pass (R34)."
        text = ("Round 2: order another suit, all trumps (VC) or no trumps (BC, every point "
                "doubled), or pass (R34).")
        if n == 3:
            text += (f"  If you pass too, it is [bold]raspas[/bold]: {t} trump, and each tries "
                     f"to take as few points as he can.")
        return text

    def ask_bid(self, view: SeatView) -> None:
        options = list(view.legal)
        self.say()
        intro = self.bid_intro(view)
        if intro:
            self.say(intro)
        self.show_table(view)
        items = [f"[bold cyan]{i}[/]) {self.describe_bid(a, view)}"
                 for i, a in enumerate(options, 1)]
        width = sum(cell_len(Text.from_markup(item).plain) + 3 for item in items) + 2
        if width <= self.console.width:
            self.say("  " + "   ".join(items))
        else:  # a narrow terminal: whole items in columns, never "5) ♣" / "tref"
            self.console.print(Padding(Columns(items, padding=(0, 3)), (0, 0, 0, 2)),
                               highlight=False)
        while True:
            text = self.ask("Your bid: ")
            if self.command(text, view):  # h and s are hand and sheet here too
                continue
            action = self.parse_bid(text, options, view)
            if action is None:
                word = parse_words(text)
                extra = ", vc or bc" if self.variant.extra_contracts else ""
                if word in SUIT_LETTERS:
                    suit = SUIT_LETTERS[word]
                    self.say(f"One letter is not a bid (h and s show your hand and the sheet): "
                             f"to call {suit_markup(suit)}, type {SUIT_NAMES_HR[suit]}, "
                             f"{SUIT_NAMES_EN[suit]}, {suit_markup(suit)} or its number from "
                             f"the menu.")
                else:
                    self.say(f"Type a number from the menu, a suit ({SUIT_HELP}){extra} or "
                             f"pass.  [bold]?[/bold] shows help.")
                continue
            try:
                self.apply(self.human_seat, action)
                return
            except IllegalAction as exc:
                self.explain(exc, action)

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

    def describe_bid(self, action: Action, view: SeatView | None = None) -> str:
        if isinstance(action, Pass):
            return "pass (dalje)"
        if isinstance(action, Call) and action.contract < 4:
            text = f"{suit_markup(action.contract)} {SUIT_NAMES_HR[action.contract]}"
            if view is not None and action.contract == self.turned_suit(view):
                text += f" (the {self.variant.face_up_name} suit)"
            return text
        if isinstance(action, Call):
            return CONTRACT_NAMES[action.contract]
        return escape(action.token())

    def parse_bid(self, text: str, options: list[Action],
                  view: SeatView | None = None) -> Action | None:
        word = parse_words(text)
        if word.isdigit():
            i = int(word)
            return options[i - 1] if 1 <= i <= len(options) else None
        if word in PASS_WORDS:
            return PASS
        if word in CLAIM_WORDS:
            return Claim(self.human_seat)  # the engine explains when a claim is allowed
        if word in SUIT_WORDS:
            return Call(SUIT_WORDS[word])
        if word in CONTRACT_WORDS:
            return Call(CONTRACT_WORDS[word])
        if view is not None and word in ACCEPT_WORDS:
            turned = self.turned_suit(view)
            if turned is not None:
                return Call(turned)
        if len(word) < 2:
            return None  # one letter is never a bid (SUIT_LETTERS)
        try:
            return parse_action(text)
        except ActionParseError:
            return None

    def ask_discard(self, view: SeatView) -> None:
        """bela3, R27: the caller discards two of his 12 cards face down.  Two cards at once
        (numbers or codes), or one, and then the second; the numbers never change."""
        self.say()
        self.show_table(view)
        self.say(f"You hold {len(view.hand)} cards: your 6, your talon of 4 and the last 2 of the "
                 f"pack.  [bold]Discard two[/bold] face down (R27): they are out of play, but "
                 f"their card points count for you.")
        line, numbered = self.hand_markup(view, list(view.hand))
        self.say("Your hand: " + line)
        while True:
            self.prompt_hand = line
            text = self.ask("Discard two cards \\[two numbers like 1 5, or codes like 7C 8C]: ")
            if self.command(text, view):
                continue
            words = text.replace(",", " ").split()
            if words and words[0].lower() == "discard":
                words = words[1:]
            if len(words) not in (1, 2):
                self.say(f"Name two cards: two numbers 1-{len(numbered)} (like 1 5) or two codes "
                         "(like 7C 8C), or one card and then the other.")
                continue
            cards = [self.parse_hand_card(w, numbered, view) for w in words]
            if any(c is None for c in cards):
                continue
            first = cards[0]
            assert first is not None
            if len(cards) == 1:
                more = self.ask_second_discard(first, numbered, view)
                if more is None:
                    self.say("Your hand: " + line)
                    continue
                cards = [first, more] if isinstance(more, Card) else list(more)
            if cards[0] == cards[1]:
                self.say("Name two different cards.")
                continue
            a, b = sorted(c for c in cards if c is not None)
            if self.try_apply(Discard((a, b))):
                self.prompt_hand = None
                return

    def ask_second_discard(self, first: Card, numbered: list[Card], view: SeatView
                           ) -> Card | tuple[Card, Card] | None:
        """The second discard, by the same numbers as the first prompt (``first`` shown as
        chosen); two cards here replace the first choice; None: start over."""
        trump = self.trump_of(view)
        line, _ = self.hand_markup(view, numbered, marked=first)
        self.say(f"Discarding {card_markup(first, trump)}; the other card from: {line}")
        choices = f"1-{len(numbered)}"
        while True:
            self.prompt_hand = line
            text = self.ask(f"Second card to discard \\[{choices} or a code, - to choose again]: ")
            if text.strip() in ("-", "0"):
                return None
            if self.command(text, view):
                continue
            words = text.replace(",", " ").split()
            if len(words) == 2:  # two cards: a new choice of both
                cards = [self.parse_hand_card(w, numbered, view) for w in words]
                if cards[0] is not None and cards[1] is not None:
                    return cards[0], cards[1]
                continue
            if len(words) != 1:
                self.say(f"Name one more card: a number {choices} or a code.")
                continue
            card = self.parse_hand_card(words[0], numbered, view)
            if card is None:
                continue
            if card == first:
                self.say(f"You are already discarding {card_markup(card, trump)}: name another "
                         "card.")
                continue
            return card

    def parse_hand_card(self, word: str, numbered: list[Card], view: SeatView) -> Card | None:
        """A card of the hand, by its number in ``numbered`` or its code (explained if not)."""
        if word.isdigit():
            i = int(word)
            if not 1 <= i <= len(numbered):
                self.say(f"There is no card {i}: choose numbers 1-{len(numbered)}, or codes.")
                return None
            return numbered[i - 1]
        try:
            card = Card.from_code(word)
        except CardParseError:
            self.say(f"{escape(word)} is not a card.  Type numbers 1-{len(numbered)} or codes "
                     "(rank 7 8 9 10 J Q K A, then suit H D S C: 7C, 10h, j♥).")
            return None
        if card not in view.hand:
            self.say(f"You do not hold {card_markup(card)}: discard two of the "
                     f"{len(view.hand)} cards in your hand.")
            return None
        return card

    def ask_exchange(self, view: SeatView) -> None:
        """bela2 R32, belot2 R35: swap the 7 of trump for the turned card; belot2: redeal."""
        options = list(view.legal)
        swap = next((a for a in options if isinstance(a, Swap)), None)
        redeal = next((a for a in options if isinstance(a, Redeal)), None)
        trump = self.trump_of(view)
        rule = self.rule("exchange")
        self.say()
        self.show_table(view)
        self.say("Your hand: " + self.hand_markup(view)[0])
        turned = view.public.get("turned")
        seven = (Card.make(SEVEN, view.contract)
                 if view.contract is not None and view.contract < 4 else None)
        which = four_of(view)
        if swap is not None and redeal is not None:
            choices: list[tuple[Action, str]] = [
                (swap, f"swap your {card_markup(seven, trump) if seven is not None else '7'} "
                       f"for the {self.turned_word} "
                       f"{card_markup(turned, trump) if turned else '?'}"),
                (redeal, f"demand a redeal ({which})"),
                (DECLINE, "keep your cards"),
            ]
            self.say(f"Before the first lead ({rule}):  " + "   ".join(
                f"[bold cyan]{i}[/]) {text}" for i, (_, text) in enumerate(choices, 1)))
            while True:
                text = self.ask("Your choice [1-3]: ")
                word = parse_words(text)
                answers: dict[str, Action] = {
                    "1": swap, "swap": swap, "2": redeal, "redeal": redeal, "3": DECLINE,
                    "keep": DECLINE, "n": DECLINE, "no": DECLINE}
                chosen = answers.get(word)
                if chosen is None:
                    if not self.command(text, view):
                        self.say("Type 1 (swap), 2 (redeal) or 3 (keep).")
                    continue
                if self.try_apply(chosen):
                    return
        if swap is not None:
            s7 = card_markup(seven, trump) if seven is not None else "7 of trump"
            tc = card_markup(turned, trump) if turned is not None else "turned card"
            self.say(f"You hold the {s7}: you may swap it for the face-up {tc} ({rule}).")
            question = f"Swap your {s7} for the {self.turned_word} {tc}? [Y/n]: "
            default: Action = swap
            yes: Action = swap
        elif redeal is not None:
            dealer = self.name(view.dealer)
            self.say(f"You hold {which}: you may demand a redeal ({rule}); the round is not "
                     f"scored and {dealer} {conj(dealer, 'deal')} again.")
            question = "Demand a redeal? \\[y/N]: "
            default = DECLINE
            yes = redeal
        else:
            self.ask_menu(view)
            return
        while True:
            text = self.ask(question)
            word = parse_words(text)
            if word == "":
                chosen = default
            elif word in YES_WORDS or word in ("swap", "redeal"):
                chosen = yes
            elif word in NO_WORDS or word in ("keep",):
                chosen = DECLINE
            else:
                if not self.command(text, view):
                    self.say("Answer y or n.")
                continue
            if self.try_apply(chosen):
                return

    def try_apply(self, action: Action) -> bool:
        try:
            self.apply(self.human_seat, action)
            return True
        except IllegalAction as exc:
            self.explain(exc)
            return False

    def ask_declarations(self, view: SeatView) -> bool:
        """Ask which declarations to announce; True when one was announced (applied)."""
        full = next(a for a in view.legal if isinstance(a, Declare))  # all of them, largest first
        held = find_declarations(view.hand.mask, self.variant.belot_wins)
        trump = self.trump_of(view)
        rule = self.variant.rule_ids["declarations"]
        self.say()
        self.show_table(view)
        self.say("Your hand: " + self.hand_markup(view)[0])
        self.say(f"You can announce (zvanja, {rule}):")
        for i, group in enumerate(full.groups, 1):
            d = declaration_of(group, held)
            value = declaration_value(d, self.variant.declaration_values) if d else 0
            name = pretty_codes(str(d)) if d else "?"
            worth = f" — {value}" if value else " — wins the match (R10)"
            self.say(f"  [bold cyan]{i}[/]) {name}: {cards_markup(group, trump)}{worth}")
        if self.variant.trump_sequence_first:  # R37: belot2's own seniority
            self.say("  [dim]Your most senior one is compared; if it wins, all you announce "
                     "count, once you take a trick (R37).[/dim]")
        count = len(full.groups)
        if count == 1:
            question = "Announce it? \\[Enter/y/1 = yes, n = no]: "
            again = "Type Enter (or y, or 1) to announce it, or n for none."
        else:
            question = f"Announce which? \\[Enter/a = all, n = none, or numbers like 1 {count}]: "
            again = f"Type Enter for all, n for none, or numbers from 1 to {count}."
        while True:
            text = self.ask(question)
            if self.command(text, view):
                continue
            word = text.strip().lower()
            if word in ("", "a", "all", "sve", "y", "yes", "da"):
                chosen = list(range(count))
            elif word in ("n", "none", "no", "ne", "0", "-"):
                return False
            else:
                try:
                    nums = sorted({int(x) for x in word.replace(",", " ").split()})
                except ValueError:
                    nums = []
                if not nums or not all(1 <= n <= count for n in nums):
                    self.say(again)
                    continue
                chosen = [n - 1 for n in nums]
            action = Declare(tuple(full.groups[i] for i in chosen))
            try:
                self.apply(self.human_seat, action)
            except IllegalAction as exc:
                self.explain(exc, action)
                continue
            self.ask_card(self.observe(), header=False)
            return True

    @property
    def human_seat(self) -> int:
        return HUMAN if self.human is None else self.human

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
        refused = {r.card for r in view.refusals}  # with enforce off: the cards that revoke
        if enforce_off and refused:
            self.say("  [dim]By the rules (R17-R19): "
                     + " ".join(card_markup(c, trump) for c in numbered if c not in refused)
                     + "; any card is accepted at this table, but a revoke can be claimed "
                       "(auzmeš, R24).[/dim]")
        if enforce_off and view.claim_allowed:
            self.say("  [dim]Type claim to claim auzmeš.[/dim]")
        while True:
            choices = "1" if len(numbered) == 1 else f"1-{len(numbered)}"
            self.prompt_hand = line
            text = self.ask(f"Your card [{choices} or a code like JH, ? for help]: ")
            if self.command(text, view):
                continue
            word = text.strip().lower()
            if word in CLAIM_WORDS:
                if view.claim_allowed and not self.confirm_claim(view):
                    continue
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
                self.prompt_hand = None
                return
            except IllegalAction as exc:
                self.explain(exc, action)

    def confirm_claim(self, view: SeatView) -> bool:
        """Auzmeš ends the round and cannot be taken back: a false claim gives the other
        side 162 and every declaration and bela (R24)."""
        self.say("  A claim ends the round at once (R24): if an opponent broke R17-R19 this "
                 "round, your side scores 162 plus every declaration and bela announced; if "
                 "not, the other side does.")
        while True:
            text = self.ask("Claim auzmeš? \\[y/N]: ")
            word = parse_words(text)
            if word in ("y", "yes", "da", "1", "claim"):
                return True
            if word in ("", "n", "no", "ne", "2"):
                self.say("No claim.")
                return False
            if not self.command(text, view):
                self.say("Answer y (claim auzmeš) or n.")

    def parse_card(self, word: str, numbered: list[Card]) -> tuple[Card | None, bool]:
        star = word.endswith("*")
        code = word[:-1] if star else word
        if code.isdigit():
            i = int(code)
            if 1 <= i <= len(numbered):
                return numbered[i - 1], star
            if numbered:
                choices = "1" if len(numbered) == 1 else f"1-{len(numbered)}"
                self.say(f"There is no card {i}: choose {choices}, or type a card code.")
            return None, False
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
        None, "--target", min=1,
        help="Points to win the match (default per variant: bela4 1001, bela3 701, bela2 501, "
             "belot2 1001)."),
    variant: str = typer.Option(
        "bela4", "--variant",
        help="Variant to play: bela4 (four, in pairs), bela3 (three, each for himself), bela2 "
             "(two) or belot2 (two-player Belot with VC/BC and raspas)."),
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
    """Play a match in the terminal: you at seat 0, bots in the other seats."""
    console = Console(highlight=False, emoji=False)
    if not console.is_terminal:
        console.soft_wrap = True  # piped or captured: whole lines, no wrapping at 80 columns
    if variant not in PLAYABLE:
        raise typer.BadParameter(f"unknown variant {variant!r} (variants: {', '.join(PLAYABLE)})",
                                 param_hint="--variant")
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
    if human is not None:
        SOLVER.start()  # hints: the solver's kernels get ready while you play
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
        console.print(f"[bold]{TITLES[variant]}[/bold] ({variant}), {', '.join(house)}.  "
                      f"{TABLES[match.variant.seats]}, {bot_name} bots.  Seed {seed}.  "
                      f"Type [bold]?[/bold] for help.", highlight=False)
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

"""The words of ``bela play``: seat names, titles, the words the human may type, the help,
the rules reminder and the per-variant sentences, in English with the Croatian words
players use (RULES.md, "Words players use").

>>> [f"{who} {conj(who, 'pass')}" for who in ("You", "Right", "You and Partner")]
['You pass', 'Right passes', 'You and Partner pass']
>>> possessive("Left"), possessive("Right and Left")
("Left's", 'their')
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from rich.table import Table

from ...engine.actions import Pass
from ...engine.enums import Outcome
from ...engine.rules import ALL_TRUMPS, NO_TRUMPS
from ...engine.state import Match
from ...engine.variants import get_variant
from ...engine.views import SeatView
from ..text import suit_markup

# Seat names relative to the human, by number of seats: play passes to seat i+1, on i's
# right (R5), so seat 1 is on your right and the last seat on your left.
POSITIONS = {4: ("You", "Right", "Partner", "Left"), 3: ("You", "Right", "Left"),
             2: ("You", "Opponent")}
TITLES = {"bela4": "Bela", "bela3": "Bela for three", "bela2": "Bela for two",
          "belot2": "Belot for two"}
TABLES = {4: "You (seat 0) and Partner (seat 2) against Right (seat 1) and Left (seat 3)",
          3: "You (seat 0), Right (seat 1) and Left (seat 2), each for himself",
          2: "You (seat 0) against Opponent (seat 1)"}
CONTRACT_NAMES = {ALL_TRUMPS: "All trumps (VC)", NO_TRUMPS: "No trumps (BC, points doubled)"}
# "made" (prolaz), never "pass": in the bidding pass is dalje
SHORT_OUTCOMES = {Outcome.PASS: "made", Outcome.FALL: "fall", Outcome.CAPOT: "štiglja",
                  Outcome.BELOT: "belot", Outcome.CLAIM: "auzmeš", Outcome.HANG: "hang",
                  Outcome.REDEAL: "redeal", Outcome.RASPAS: "raspas", Outcome.UNFINISHED: "-"}


# -- what the human may type --------------------------------------------------------------
SUIT_WORDS = {  # R1: English, Croatian and German-suited (Hungarian pack) names, symbols
    "hearts": 0, "heart": 0, "herc": 0, "srce": 0, "♥": 0, "♡": 0,
    "diamonds": 1, "diamond": 1, "karo": 1, "pumpkin": 1, "pumpkins": 1, "bundeva": 1,
    "bell": 1, "bells": 1, "♦": 1, "♢": 1,
    "spades": 2, "spade": 2, "pik": 2, "leaf": 2, "leaves": 2, "zelje": 2, "list": 2, "♠": 2,
    "♤": 2,
    "clubs": 3, "club": 3, "tref": 3, "acorn": 3, "acorns": 3, "žir": 3, "zir": 3, "♣": 3,
    "♧": 3,
}
# One letter never calls trump: h and s mean hand and sheet at every prompt, and a call of
# trump cannot be taken back (R7), so it must not hang on an ambiguous letter (p, for pass,
# names no suit).
SUIT_LETTERS = {"h": 0, "d": 1, "s": 2, "c": 3}
SUIT_HELP = "herc karo pik tref, hearts diamonds spades clubs, or ♥ ♦ ♠ ♣"
CONTRACT_WORDS = {  # belot2 (R34): all trumps / no trumps by name
    "vc": ALL_TRUMPS, "sve adut": ALL_TRUMPS, "sve aduti": ALL_TRUMPS, "svi aduti": ALL_TRUMPS,
    "sve": ALL_TRUMPS, "all trumps": ALL_TRUMPS, "all trump": ALL_TRUMPS,
    "bc": NO_TRUMPS, "bez aduta": NO_TRUMPS, "bez adut": NO_TRUMPS, "bez": NO_TRUMPS,
    "no trumps": NO_TRUMPS, "no trump": NO_TRUMPS, "nt": NO_TRUMPS,
}
ACCEPT_WORDS = {"accept", "take", "yes", "y", "da", "uzimam", "uzmi", "igram"}
PASS_WORDS = {"pass", "p", "pas", "dalje", "dalje!", "-"}
YES_WORDS = {"", "1", "y", "yes", "da", "bela", "j"}
NO_WORDS = {"2", "n", "no", "ne"}
CLAIM_WORDS = {"claim", "auzmeš", "auzmes"}


def parse_words(text: str) -> str:
    """Lower case, single spaces: ``Sve  Adut`` -> ``sve adut``."""
    return " ".join(text.strip().lower().split())


# -- the help, the rules reminder, the sentences of each variant ----------------------------
_BIDDING_HELP = {
    "bela4": "a number from the menu, a suit by name or symbol (herc karo pik tref, hearts "
             "..., ♥ ♦ ♠ ♣) or pass / dalje / pas.  One round of bids; when the other three pass, "
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
        rule, face_up = v.rule_ids["exchange"], v.face_up_name
        rows.append(("Swap", f"holding the 7 of trump when trump is the {face_up} card's "
                             f"suit, you may swap it for the {face_up} card before the first "
                             f"lead: y or n ({rule})."))
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
                 f"card (the points {'your side takes' if v.partners else 'you take'} in the "
                 "round); at a bid, the estimate of every bid"),
    ]
    if "enforce" in v.options:
        rows.append(("claim", "(with --enforce off) auzmeš: an opponent broke R17-R19 (R24).  "
                              "You confirm it first: a false claim gives the other side 162."))
    rows += [("q  quit", "leave the match (the record is saved if you gave --record FILE)"),
             ("", "One letter never calls trump: h and s always mean hand and sheet"
                  f"{' (p is pass)' if can_pass(variant) else ''}.  Call trump by the suit's "
                  "name or symbol, or its number in the menu.")]
    return rows


@cache
def can_pass(variant: str) -> bool:
    """Whether a seat of ``variant`` may ever pass at the bid (bela3: never, R26), asked of
    the engine: the first bid of a deal offers a pass wherever any bid does."""
    rnd = Match(variant, seed=0).deal()
    return any(isinstance(a, Pass) for a in rnd.legal_actions())


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


_ORDER = """\
[bold]Order[/bold]   trump: J 9 A 10 K Q 8 7 (J 20, 9 14, A 11, 10 10, K 4, Q 3)
        others: A 10 K Q J 9 8 7 (A 11, 10 10, K 4, Q 3, J 2); last trick +10 (R2, R3)"""
_BELA_PLAY = """
[bold]Play[/bold]    follow suit and beat the best card of that suit if you can, except
        when a side suit was led and a trump is already in the trick (R17, R19);
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
UNSEEN_UNTIL = {"bela4": "talon cards after your bid", "bela3": "cards after the bidding",
                 "bela2": "cards after the bidding", "belot2": "cards after the bidding"}

# The cards a seat picks up after the bidding (R6, R27, R32, R35).
PICKED_UP = {"bela4": "your talon", "bela3": "your talon", "bela2": "your talon",
              "belot2": "{n} more cards"}

# What the caller (or his side) needs to pass, per variant (R22, R28, R33, R34).
CALLER_NEEDS = {
    "bela4": "{side} need more than half the points (R22).",
    "bela3": "{who} {needs} more points than the other two together (R28).",
    "bela2": "{who} {needs} more than half the points (R22, R33).",
    "belot2": "{who} must score more than {other} (R34).",
}


def rules_reminder(variant: str) -> str:
    """What ``r`` shows: the card order, the play duties and the scoring of ``variant``."""
    play = _BELA_PLAY if get_variant(variant).iber else ""  # belot2 says its own (R36)
    return _ORDER + play + _SCORE[variant]


def bid_intro(view: SeatView, name: Callable[[int], str]) -> str:
    """What the human may bid now, per variant (R7, R26, R31, R34); ``name`` names a seat."""
    turned = view.public.get("turned")
    t = suit_markup(turned.suit) if turned is not None else "?"
    can_pass = any(isinstance(a, Pass) for a in view.legal)
    return _BID_INTROS[view.variant](view, name, can_pass, len(view.bids), t)


def _bela4_intro(view: SeatView, name: Callable[[int], str], can_pass: bool, n: int,
                 t: str) -> str:
    if view.turn == view.dealer and not can_pass:
        return "The others passed: as the dealer you must call trump (mus, R7)."
    return ""


def _bela3_intro(view: SeatView, name: Callable[[int], str], can_pass: bool, n: int,
                 t: str) -> str:
    return ("You bid first: call trump on your first 6 cards, no passing (R26).  Then "
            "you take your talon of 4 and the last 2 cards, and discard 2 (R27).")


def _bela2_intro(view: SeatView, name: Callable[[int], str], can_pass: bool, n: int,
                 t: str) -> str:
    if n < 2:
        return f"Round 1: accept the turned suit {t} as trump, or pass (R31)."
    if can_pass:
        return (f"Round 2: name another suit as trump, or pass again: then "
                f"{name(view.dealer)} must name one (R31).")
    return (f"{name(view.first)} passed again: as the dealer you must name one of "
            f"the three suits other than {t} (R31).")


def _belot2_intro(view: SeatView, name: Callable[[int], str], can_pass: bool, n: int,
                  t: str) -> str:
    if n < 2:
        return f"Round 1: take the opened suit {t} as trump, or pass (R34)."
    text = ("Round 2: order another suit, all trumps (VC) or no trumps (BC, every point "
            "doubled), or pass (R34).")
    if n == 3:
        text += (f"  If you pass too, it is [bold]raspas[/bold]: {t} trump, and each tries "
                 f"to take as few points as he can.")
    return text


_BID_INTROS = {"bela4": _bela4_intro, "bela3": _bela3_intro, "bela2": _bela2_intro,
               "belot2": _belot2_intro}


def conj(subject: str, verb: str) -> str:
    """The verb for a subject: ``You pass``, ``You and Partner pass``, ``Right passes``."""
    if subject == "You" or " and " in subject or subject.startswith("seats "):
        return verb
    if verb == "have":
        return "has"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s")


def possessive(subject: str) -> str:
    """``your``, ``their`` (a side of two, or seats), else ``Right's``."""
    if subject == "You":
        return "your"
    if " and " in subject or subject.startswith("seats "):
        return "their"
    return subject + "'s"


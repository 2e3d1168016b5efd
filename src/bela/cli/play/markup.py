"""Cards, hands, bids and declarations as Rich markup for ``bela play``: pure functions of
a seat view (:mod:`bela.engine.views`) and engine values.

>>> from bela.engine.cards import CardSet
>>> cards_markup(CardSet.parse("7S TS"), trump=2)
'[bold]7♠[/] [bold]10♠[/]'
>>> token_markup("KD*"), token_markup("VC")
('[red]K♦[/]*', 'All trumps (VC)')
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.markup import escape

from ...engine.actions import Action, ActionParseError, Call, Pass, Play, parse_action
from ...engine.cards import EIGHT, RANKS, SEVEN, SUIT_NAMES_EN, SUIT_NAMES_HR, Card, CardSet
from ...engine.rules import ALL_TRUMPS, NO_TRUMPS, play_table
from ...engine.variants import get_variant
from ...engine.views import DeclarationInfo, SeatView
from ..text import card_markup, card_text, pretty_codes, suit_markup
from .texts import CONTRACT_NAMES

SUIT_ORDER = (0, 2, 1, 3)  # ♥ ♠ ♦ ♣: colours alternate
NATURAL_STRENGTH = play_table(NO_TRUMPS).strength  # the order of a hand before a contract


def trump_of(view: SeatView) -> int | None:
    """The trump suit, ``ALL_TRUMPS`` in VC (every suit is trump), None in BC or before."""
    if view.contract is None or view.contract == NO_TRUMPS:
        return None
    return view.contract


def turned_suit(view: SeatView) -> int | None:
    """The suit of the face-up card (bela2, belot2): the swap keeps its suit."""
    card = view.public.get("turned")
    return None if card is None else card.suit


def is_trump_suit(suit: int, trump: int | None) -> bool:
    """``trump`` is a suit, ``ALL_TRUMPS`` (VC: every suit) or None (no trump, BC)."""
    return trump is not None and (trump == ALL_TRUMPS or suit == trump)


def suit_name(suit: int) -> str:
    """``♥ herc (hearts)``."""
    return f"{suit_markup(suit)} {SUIT_NAMES_HR[suit]} ({SUIT_NAMES_EN[suit]})"


def cards_markup(cards: Iterable[Card], trump: int | None = None) -> str:
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


def bid_token_markup(token: str) -> str:
    """A bid of the view's ``bids`` (``pass``, ``H``, ``VC``) for the table line."""
    if token == "pass":
        return "pass"
    if token in ("H", "D", "S", "C"):
        return suit_markup("HDSC".index(token))
    return escape(token)


def describe_bid(action: Action, view: SeatView | None = None) -> str:
    """A bid for the menu and the narration: ``♥ herc (the turned suit)``, ``pass (dalje)``."""
    if isinstance(action, Pass):
        return "pass (dalje)"
    if isinstance(action, Call) and action.contract < 4:
        text = f"{suit_markup(action.contract)} {SUIT_NAMES_HR[action.contract]}"
        if view is not None and action.contract == turned_suit(view):
            text += f" (the {get_variant(view.variant).face_up_name} suit)"
        return text
    if isinstance(action, Call):
        return CONTRACT_NAMES[action.contract]
    return escape(action.token())


def sorted_hand(view: SeatView) -> list[list[Card]]:
    """The hand by suit (trump first, colours alternating), each suit strongest first in
    the contract's trick order (the view's ``strength``)."""
    trump = view.contract if view.contract is not None and view.contract < 4 else None
    strength = view.strength if view.strength is not None else NATURAL_STRENGTH
    suits = ([trump] if trump is not None else []) + [s for s in SUIT_ORDER if s != trump]
    groups = []
    for s in suits:
        cards = sorted((c for c in view.hand if c.suit == s), key=lambda c: strength[c],
                       reverse=True)
        if cards:
            groups.append(cards)
    return groups


def hand_markup(view: SeatView, playable: list[Card] | None = None,
                marked: Card | None = None) -> tuple[str, list[Card]]:
    """The hand sorted by suit, and the cards numbered: ``playable`` cards get numbers, the
    others are dimmed; ``marked`` (a card already chosen) keeps its number, struck through."""
    trump = trump_of(view)
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


def declaration_markup(text: str, cards: CardSet | None, value: int,
                       trump: int | None = None) -> str:
    """An announced declaration: its words, its cards when the reader may see them, its
    value (a belot's is the match, R10)."""
    out = pretty_codes(text)
    if cards is not None and "belot" not in text:
        out += ": " + cards_markup(cards, trump)
    return out + (f" ({value})" if value else "")


def info_markup(info: DeclarationInfo, trump: int | None = None) -> str:
    """A declaration of the view (its cards once shown, R13)."""
    return declaration_markup(info.text, info.cards, info.value, trump)


def four_of(view: SeatView) -> str:
    """``four 7s`` / ``four 8s``: why the seat may demand a redeal (R35)."""
    for r in (SEVEN, EIGHT):
        if all(Card.make(r, s) in view.hand for s in range(4)):
            return f"four {RANKS[r]}s"
    return "four 7s or four 8s"

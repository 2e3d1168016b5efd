"""Actions: frozen, hashable, and each with its RECORD.md token.

>>> parse_action("KH*")
Play(card=Card.KH, bela=True)
>>> parse_action("declare JH TH 9H; AS AC AD AH").token()
'declare JH TH 9H; AS AC AD AH'
>>> parse_action("claim 3").token(), parse_action("vc").token()
('claim 3', 'VC')
>>> parse_action("TH*").pretty(), parse_action("S").pretty()   # for people: 10, suit symbols
('10♥ with bela', '♠')
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CODES, SUIT_SYMBOLS, SUITS, Card, CardParseError

CONTRACT_TOKENS = ("H", "D", "S", "C", "VC", "BC")
CONTRACT_LABELS: tuple[str, ...] = (*SUIT_SYMBOLS, "VC", "BC")  # for people (VC, BC as said)


class ActionParseError(ValueError):
    """A token that is not an action of RECORD.md."""


@dataclass(frozen=True, slots=True)
class Pass:
    def token(self) -> str:
        return "pass"

    def pretty(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Call:
    """Call (or accept) a contract: a suit 0..3, or 4 = VC, 5 = BC (belot2)."""

    contract: int

    def token(self) -> str:
        return CONTRACT_TOKENS[self.contract]

    def pretty(self) -> str:
        return CONTRACT_LABELS[self.contract]


@dataclass(frozen=True, slots=True)
class Discard:
    cards: tuple[Card, Card]

    def token(self) -> str:
        return "discard " + " ".join(map(str, self.cards))

    def pretty(self) -> str:
        return "discard " + " ".join(c.pretty() for c in self.cards)


@dataclass(frozen=True, slots=True)
class Swap:
    def token(self) -> str:
        return "swap"

    def pretty(self) -> str:
        return "swap"


@dataclass(frozen=True, slots=True)
class Redeal:
    def token(self) -> str:
        return "redeal"

    def pretty(self) -> str:
        return "redeal"


@dataclass(frozen=True, slots=True)
class Decline:
    """Keep one's cards when asked in the exchange (bela2, belot2): every seat is asked, and
    for a seat without a swap or redeal right it is the only choice.  Records leave it out: a
    record names only the swaps and redeals that were made (RECORD.md)."""

    def token(self) -> str:
        return "keep"

    def pretty(self) -> str:
        return "keep"


@dataclass(frozen=True, slots=True)
class Declare:
    """Announce declarations (R13): each group is the cards of one declaration."""

    groups: tuple[tuple[Card, ...], ...]

    def token(self) -> str:
        return "declare " + "; ".join(" ".join(map(str, g)) for g in self.groups)

    def pretty(self) -> str:
        return "declare " + "; ".join(" ".join(c.pretty() for c in g) for g in self.groups)


@dataclass(frozen=True, slots=True)
class Play:
    card: Card
    bela: bool = False

    def token(self) -> str:
        return CODES[self.card] + "*" if self.bela else CODES[self.card]

    def pretty(self) -> str:
        return self.card.pretty() + (" with bela" if self.bela else "")


@dataclass(frozen=True, slots=True)
class Claim:
    """Auzmeš (R24): ``seat`` claims that an opponent broke R17-R19."""

    seat: int

    def token(self) -> str:
        return f"claim {self.seat}"

    def pretty(self) -> str:
        return f"claim by seat {self.seat}"


Action = Pass | Call | Discard | Swap | Redeal | Decline | Declare | Play | Claim

PASS = Pass()
SWAP = Swap()
REDEAL = Redeal()
DECLINE = Decline()
CALLS = tuple(Call(c) for c in range(6))
PLAYS = tuple(Play(c) for c in Card.ALL)
BELA_PLAYS = tuple(Play(c, True) for c in Card.ALL)


def parse_action(token: str) -> Action:
    """Parse one RECORD.md action token (case ignored)."""
    text = token.strip()
    word, _, rest = text.partition(" ")
    low = word.lower()
    try:
        if low == "pass" and not rest:
            return PASS
        if low == "swap" and not rest:
            return SWAP
        if low == "redeal" and not rest:
            return REDEAL
        if low == "keep" and not rest:
            return DECLINE
        if low == "claim":
            if not rest.strip().isdigit():
                raise ActionParseError(f"'claim' needs a seat number: {token!r}")
            return Claim(int(rest))
        if low == "discard":
            cards = Card.parse(rest)
            if len(cards) != 2:
                raise ActionParseError(f"'discard' needs exactly 2 cards: {token!r}")
            return Discard((cards[0], cards[1]))
        if low == "declare":
            groups = tuple(Card.parse(g) for g in rest.split(";"))
            if not groups or any(not g for g in groups):
                raise ActionParseError(
                    f"'declare' needs cards, ';' between declarations: {token!r}")
            return Declare(groups)
        if not rest and word.upper() in CONTRACT_TOKENS:
            return CALLS[CONTRACT_TOKENS.index(word.upper())]
        if not rest:
            bela = word.endswith("*")
            card = Card.from_code(word[:-1] if bela else word)
            return BELA_PLAYS[card] if bela else PLAYS[card]
    except CardParseError as exc:
        raise ActionParseError(f"bad action {token!r}: {exc}") from None
    raise ActionParseError(
        f"unknown action {token!r} (expected pass, {'/'.join(SUITS)}, VC, BC, a card such as JH, "
        "KH*, declare ..., discard ..., swap, redeal or claim N)"
    )

"""The human's prompts between the bidding and the first card: the bela3 discard (R27),
the swap of the 7 of trump (R32, R35) and the belot2 redeal (R35)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from ...engine.actions import DECLINE, Action, Discard, Redeal, Swap
from ...engine.cards import SEVEN, Card, CardParseError
from ...engine.views import SeatView
from ..text import card_markup
from .markup import four_of, hand_markup, trump_of
from .texts import NO_WORDS, YES_WORDS, conj, parse_words

if TYPE_CHECKING:
    from .prompts import Prompts


def ask_discard(p: Prompts, view: SeatView) -> None:
    """bela3, R27: the caller discards two of his 12 cards face down.  Two cards at once
    (numbers or codes), or one, and then the second; the numbers never change."""
    p.say()
    p.screen.show_table(view)
    p.say(f"You hold {len(view.hand)} cards: your 6, your talon of 4 and the last 2 of the "
          f"pack.  [bold]Discard two[/bold] face down (R27): they are out of play, but "
          f"their card points count for you.")
    line, numbered = hand_markup(view, list(view.hand))
    p.say("Your hand: " + line)
    while True:
        p.prompt_hand = line
        text = p.ask("Discard two cards \\[two numbers like 1 5, or codes like 7C 8C]: ")
        if p.command(text, view):
            continue
        words = text.replace(",", " ").split()
        if words and words[0].lower() == "discard":
            words = words[1:]
        if len(words) not in (1, 2):
            p.say(f"Name two cards: two numbers 1-{len(numbered)} (like 1 5) or two codes "
                  "(like 7C 8C), or one card and then the other.")
            continue
        cards = [hand_card(p, w, numbered, view) for w in words]
        if any(c is None for c in cards):
            continue
        first = cards[0]
        assert first is not None
        if len(cards) == 1:
            more = ask_second_discard(p, first, numbered, view)
            if more is None:
                p.say("Your hand: " + line)
                continue
            cards = [first, more] if isinstance(more, Card) else list(more)
        if cards[0] == cards[1]:
            p.say("Name two different cards.")
            continue
        a, b = sorted(c for c in cards if c is not None)
        if p.try_submit(Discard((a, b))):
            p.prompt_hand = None
            return


def ask_second_discard(p: Prompts, first: Card, numbered: list[Card], view: SeatView
                       ) -> Card | tuple[Card, Card] | None:
    """The second discard, by the same numbers as the first prompt (``first`` shown as
    chosen); two cards here replace the first choice; None: start over."""
    trump = trump_of(view)
    line, _ = hand_markup(view, numbered, marked=first)
    p.say(f"Discarding {card_markup(first, trump)}; the other card from: {line}")
    choices = f"1-{len(numbered)}"
    while True:
        p.prompt_hand = line
        text = p.ask(f"Second card to discard \\[{choices} or a code, - to choose again]: ")
        if text.strip() in ("-", "0"):
            return None
        if p.command(text, view):
            continue
        words = text.replace(",", " ").split()
        if len(words) == 2:  # two cards: a new choice of both
            cards = [hand_card(p, w, numbered, view) for w in words]
            if cards[0] is not None and cards[1] is not None:
                return cards[0], cards[1]
            continue
        if len(words) != 1:
            p.say(f"Name one more card: a number {choices} or a code.")
            continue
        card = hand_card(p, words[0], numbered, view)
        if card is None:
            continue
        if card == first:
            p.say(f"You are already discarding {card_markup(card, trump)}: name another card.")
            continue
        return card


def hand_card(p: Prompts, word: str, numbered: list[Card], view: SeatView) -> Card | None:
    """A card of the hand, by its number in ``numbered`` or its code (explained if not)."""
    if word.isdigit():
        i = int(word)
        if not 1 <= i <= len(numbered):
            p.say(f"There is no card {i}: choose numbers 1-{len(numbered)}, or codes.")
            return None
        return numbered[i - 1]
    try:
        card = Card.from_code(word)
    except CardParseError:
        p.say(f"{escape(word)} is not a card.  Type numbers 1-{len(numbered)} or codes "
              "(rank 7 8 9 10 J Q K A, then suit H D S C: 7C, 10h, j♥).")
        return None
    if card not in view.hand:
        p.say(f"You do not hold {card_markup(card)}: discard two of the {len(view.hand)} "
              f"cards in your hand.")
        return None
    return card


def ask_exchange(p: Prompts, view: SeatView) -> None:
    """bela2 R32, belot2 R35: swap the 7 of trump for the turned card; belot2: redeal.

    Every seat is asked, holder or not, so that nobody learns who holds what; a seat whose
    only choice is to keep its cards is answered for at once: at a local table there is no
    one to hide the timing from."""
    if tuple(view.legal) == (DECLINE,):
        p.submit(DECLINE)
        return
    swap = next((a for a in view.legal if isinstance(a, Swap)), None)
    redeal = next((a for a in view.legal if isinstance(a, Redeal)), None)
    trump = trump_of(view)
    rule = p.screen.rule("exchange")
    turned_word = p.variant.face_up_name
    p.say()
    p.screen.show_table(view)
    p.screen.show_hand(view)
    turned = view.public.get("turned")
    seven = (Card.make(SEVEN, view.contract)
             if view.contract is not None and view.contract < 4 else None)
    which = four_of(view)
    if swap is not None and redeal is not None:
        choices: list[tuple[Action, str]] = [
            (swap, f"swap your {card_markup(seven, trump) if seven is not None else '7'} "
                   f"for the {turned_word} {card_markup(turned, trump) if turned else '?'}"),
            (redeal, f"demand a redeal ({which})"),
            (DECLINE, "keep your cards"),
        ]
        p.say(f"Before the first lead ({rule}):  " + "   ".join(
            f"[bold cyan]{i}[/]) {text}" for i, (_, text) in enumerate(choices, 1)))
        answers: dict[str, Action] = {
            "1": swap, "swap": swap, "2": redeal, "redeal": redeal, "3": DECLINE,
            "keep": DECLINE, "n": DECLINE, "no": DECLINE}
        while True:
            text = p.ask("Your choice [1-3]: ")
            chosen = answers.get(parse_words(text))
            if chosen is None:
                if not p.command(text, view):
                    p.say("Type 1 (swap), 2 (redeal) or 3 (keep).")
                continue
            if _answer(p, chosen):
                return
    if swap is not None:
        s7 = card_markup(seven, trump) if seven is not None else "7 of trump"
        tc = card_markup(turned, trump) if turned is not None else "turned card"
        p.say(f"You hold the {s7}: you may swap it for the face-up {tc} ({rule}).")
        question = f"Swap your {s7} for the {turned_word} {tc}? [Y/n]: "
        default: Action = swap
        yes: Action = swap
    else:
        assert redeal is not None  # the exchange phase offers a swap or a redeal
        dealer = p.screen.name(view.dealer)
        p.say(f"You hold {which}: you may demand a redeal ({rule}); the round is not "
              f"scored and {dealer} {conj(dealer, 'deal')} again.")
        question = "Demand a redeal? \\[y/N]: "
        default = DECLINE
        yes = redeal
    while True:
        text = p.ask(question)
        word = parse_words(text)
        if word == "":
            chosen = default
        elif word in YES_WORDS or word in ("swap", "redeal"):
            chosen = yes
        elif word in NO_WORDS or word in ("keep",):
            chosen = DECLINE
        else:
            if not p.command(text, view):
                p.say("Answer y or n.")
            continue
        if _answer(p, chosen):
            return


def _answer(p: Prompts, chosen: Action) -> bool:
    """Submit the player's answer to the exchange; a kept hand is said here, where it was a
    choice (a lone keep, answered for him, and the others' keeps go unsaid)."""
    if not p.try_submit(chosen):
        return False
    if chosen == DECLINE:
        p.say("  You keep your cards.")
    return True

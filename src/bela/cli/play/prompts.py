"""The human's prompts in ``bela play``: bids, declarations and cards (the bela3 discard,
the swap and the redeal are in :mod:`.exchange_prompts`).

Every prompt takes a number from what it shows (``1`` is always the first choice), the
words it names, or one of the commands of the help (``?`` shows them).  An action goes to
the engine, which refuses an illegal one with its rule: the refusal is shown and the
question asked again.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.columns import Columns
from rich.markup import escape
from rich.padding import Padding
from rich.text import Text

from ...engine.actions import (
    PASS,
    Action,
    ActionParseError,
    Call,
    Claim,
    Declare,
    Play,
    parse_action,
)
from ...engine.cards import SUIT_NAMES_EN, SUIT_NAMES_HR, Card, CardParseError
from ...engine.declarations import declaration_of, declaration_value, find_declarations
from ...engine.enums import Enforce, Phase
from ...engine.errors import IllegalAction
from ...engine.views import SeatView
from ..text import card_markup, pretty_codes, suit_markup
from .exchange_prompts import ask_discard, ask_exchange
from .hints import SolverWarmUp, show_hint
from .markup import cards_markup, describe_bid, hand_markup, trump_of, turned_suit
from .screen import Screen
from .sheet import Sheet
from .texts import (
    ACCEPT_WORDS,
    CLAIM_WORDS,
    CONTRACT_WORDS,
    NO_WORDS,
    PASS_WORDS,
    SUIT_HELP,
    SUIT_LETTERS,
    SUIT_WORDS,
    YES_WORDS,
    bid_intro,
    help_table,
    parse_words,
    rules_reminder,
)


class Quit(Exception):
    """The human asked to leave the match."""


class Prompts:
    """Asks the human at ``screen.human`` for each decision.  ``submit`` applies an action
    for that seat (raising :class:`IllegalAction` when the engine refuses it), ``observe``
    gives the seat's view now, ``ask`` reads the answer to a prompt."""

    def __init__(self, screen: Screen, sheet: Sheet, submit: Callable[[Action], object],
                 observe: Callable[[], SeatView], solver: SolverWarmUp,
                 ask: Callable[[str], str]) -> None:
        assert screen.human is not None
        self.screen = screen
        self.seat = screen.human
        self.sheet = sheet
        self.submit = submit
        self.observe = observe
        self.solver = solver
        self.ask = ask
        self.say = screen.say
        self.variant = screen.variant
        self.declined = -1  # round index in which the human chose to announce nothing
        self.prompt_hand: str | None = None  # the numbered hand of the prompt asking now

    # -- commands ---------------------------------------------------------------------------
    def command(self, text: str, view: SeatView) -> bool:
        """Handle the commands every prompt accepts; True when ``text`` was one."""
        word = text.strip().lower()
        if word in ("?", "help", "pomoć", "pomoc"):
            self.screen.console.print(help_table(self.variant.name), highlight=False)
        elif word in ("q", "quit", "exit", "kraj"):
            raise Quit
        elif word in ("l", "last"):
            self.screen.show_last_trick(view)
        elif word in ("s", "sheet", "score"):
            self.sheet.show()
        elif word in ("r", "rules"):
            self.say(rules_reminder(self.variant.name))
        elif word in ("h", "hand", "t", "table"):
            self.screen.show_table(view, full=True)
            if view.phase != Phase.BIDDING:  # with the numbers the prompt asks for
                self.say("Your hand: " + (self.prompt_hand or hand_markup(view)[0]))
        elif word in ("hint", "savjet"):
            show_hint(self.screen, view, self.solver)
        else:
            return False
        return True

    def try_submit(self, action: Action) -> bool:
        """Submit ``action``; when the engine refuses it, say why and return False."""
        try:
            self.submit(action)
        except IllegalAction as exc:
            self.screen.explain(exc, action)
            return False
        return True

    # -- the human's turn -----------------------------------------------------------------
    def turn(self, view: SeatView) -> None:
        """Ask for the decision of ``view``'s phase and submit it."""
        self.prompt_hand = None
        if view.phase == Phase.BIDDING:
            self.ask_bid(view)
        elif view.phase == Phase.DISCARD:
            ask_discard(self, view)
        elif view.phase == Phase.EXCHANGE:
            ask_exchange(self, view)
        else:
            asked = False
            if (any(isinstance(a, Declare) for a in view.legal)
                    and self.declined != view.round_index):
                if self.ask_declarations(view):
                    return  # announced: the same seat now plays its first card
                self.declined = view.round_index
                asked = True
            self.ask_card(self.observe(), header=not asked)

    def between_rounds(self, view: SeatView) -> None:
        while True:
            text = self.ask(f"Enter for round {view.round_index + 2} (s = sheet, q = quit): ")
            if text.strip().lower() in ("h", "hand", "t", "table"):
                continue
            if not self.command(text, view):
                return

    # -- bidding --------------------------------------------------------------------------
    def ask_bid(self, view: SeatView) -> None:
        options = list(view.legal)
        self.say()
        intro = bid_intro(view, self.screen.name)
        if intro:
            self.say(intro)
        self.screen.show_table(view)
        items = [f"[bold cyan]{i}[/]) {describe_bid(a, view)}" for i, a in enumerate(options, 1)]
        width = sum(cell_len(Text.from_markup(item).plain) + 3 for item in items) + 2
        if width <= self.screen.console.width:
            self.say("  " + "   ".join(items))
        else:  # a narrow terminal: whole items in columns, never "5) ♣" / "tref"
            self.screen.console.print(Padding(Columns(items, padding=(0, 3)), (0, 0, 0, 2)),
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
                    suits = [a.contract for a in options
                             if isinstance(a, Call) and a.contract < 4]
                    if suits and suit not in suits:  # name a suit that may be called
                        suit = suits[0]
                    self.say(f"One letter is not a bid (h and s show your hand and the sheet): "
                             f"to call {suit_markup(suit)}, type {SUIT_NAMES_HR[suit]}, "
                             f"{SUIT_NAMES_EN[suit]}, {suit_markup(suit)} or its number from "
                             f"the menu.")
                else:
                    if word.isdigit():
                        choices = "1" if len(options) == 1 else f"1-{len(options)}"
                        self.say(f"There is no {word} in the menu: choose {choices}.")
                        continue
                    can_pass = PASS in options
                    last = " or pass" if can_pass else ""  # bela3's first seat must call (R26)
                    self.say(f"Type a number from the menu, a suit ({SUIT_HELP}){extra}{last}.  "
                             f"[bold]?[/bold] shows help.")
                continue
            if self.try_submit(action):
                return

    def parse_bid(self, text: str, options: list[Action], view: SeatView) -> Action | None:
        """A bid by menu number, suit or contract word, ``pass``, ``accept``, or token."""
        word = parse_words(text)
        if word.isdigit():
            i = int(word)
            return options[i - 1] if 1 <= i <= len(options) else None
        if word in PASS_WORDS:
            return PASS
        if word in CLAIM_WORDS:
            return Claim(self.seat)  # the engine explains when a claim is allowed
        if word in SUIT_WORDS:
            return Call(SUIT_WORDS[word])
        if word in CONTRACT_WORDS:
            return Call(CONTRACT_WORDS[word])
        turned = turned_suit(view)
        if word in ACCEPT_WORDS and turned is not None:
            return Call(turned)
        if len(word) < 2:
            return None  # one letter is never a bid (SUIT_LETTERS)
        try:
            return parse_action(text)
        except ActionParseError:
            return None

    # -- declarations and cards -----------------------------------------------------------
    def ask_declarations(self, view: SeatView) -> bool:
        """Ask which declarations to announce; True when one was announced (and the first
        card then played)."""
        full = next(a for a in view.legal if isinstance(a, Declare))  # all, largest first
        held = find_declarations(view.hand.mask, self.variant.belot_wins)
        trump = trump_of(view)
        rule = self.variant.rule_ids["declarations"]
        self.say()
        self.screen.show_table(view)
        self.screen.show_hand(view)
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
            if self.try_submit(Declare(tuple(full.groups[i] for i in chosen))):
                self.ask_card(self.observe(), header=False)
                return True

    def ask_card(self, view: SeatView, header: bool = True) -> None:
        """Ask for a card (numbers for the playable ones, R17-R19 as the view refuses
        them), with bela (R14) and, with ``enforce = off``, a claim (R24)."""
        playable = [a.card for a in view.legal if isinstance(a, Play) and not a.bela]
        bela_ok = {a.card for a in view.legal if isinstance(a, Play) and a.bela}
        trump = trump_of(view)
        enforce_off = view.options.get("enforce") == Enforce.OFF
        if header:
            self.say()
            self.screen.show_table(view)
        line, numbered = hand_markup(view, playable)
        self.say("Your hand: " + line)
        if bela_ok:
            kq = " ".join(card_markup(c, trump) for c in sorted(bela_ok, reverse=True))
            self.say(f"  [dim]You hold bela ({kq}): announce it with the first of the two "
                     f"you play ({self.variant.rule_ids.get('bela', 'R14')}).[/dim]")
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
                action: Action = Claim(self.seat)
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
                    action = Play(card, self.ask_bela(card, view))
                else:
                    action = Play(card)
            if self.try_submit(action):
                self.prompt_hand = None
                return

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
        """A card by its number in ``numbered`` or its code, and whether a ``*`` announces
        bela with it; (None, False) after saying what is wrong."""
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
            what = f"{escape(word)!s} is not a card.  " if word else ""
            self.say(f"{what}Type the number of a card, or its code "
                     "(rank 7 8 9 10 J Q K A, then suit H D S C: JH, 10h, j♥).  "
                     "[bold]?[/bold] shows help.")
            return None, False

    def ask_bela(self, card: Card, view: SeatView) -> bool:
        """Whether to announce bela with ``card`` (R14)."""
        while True:
            text = self.ask(f"Announce bela with {card_markup(card, trump_of(view))}? "
                            "[1/y = yes (20 points), 2/n = no]: ")
            word = text.strip().lower()
            if word in YES_WORDS:
                return True
            if word in NO_WORDS:
                return False
            if self.command(text, view):
                continue
            self.say("Answer y (announce bela) or n.")

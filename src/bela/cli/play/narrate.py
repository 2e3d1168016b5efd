"""The table talk of ``bela play``, told from events (:mod:`bela.engine.events`).

Each action's events, as the human's seat may see them (``seen_by``; a spectator's when
only bots play), say what happened: bids, the contract, the talon picked up, discards,
swaps, declarations, cards and tricks, claims, the round's end and the match's.  What a
seat may not see never reaches the narrator.  A trick is shown whole once it is over (no
stale "winning" tags); while it is played, the human's prompt shows the table.
"""

from __future__ import annotations

from ...engine.cards import CardSet
from ...engine.declarations import declaration_value
from ...engine.enums import Outcome, Phase
from ...engine.events import (
    BidMade,
    CardPlayed,
    Claimed,
    ContractFixed,
    Declared,
    Discarded,
    Event,
    MatchWon,
    RoundBooked,
    RoundOver,
    Swapped,
    TalonTaken,
    TrickTaken,
)
from ...engine.rules import ALL_TRUMPS, NO_TRUMPS, play_table
from ...engine.scoring import RoundResult
from ...engine.views import SeatView
from ..text import card_markup, winner_line
from .markup import (
    cards_markup,
    declaration_markup,
    describe_bid,
    four_of,
    info_markup,
    suit_name,
    trump_of,
    turned_suit,
)
from .screen import Screen
from .sheet import Sheet
from .texts import CALLER_NEEDS, PICKED_UP, conj, possessive


class Narrator:
    """Tells events on ``screen`` for its human (``screen.human``).  With no human only the
    end of each round (a compact line) and of the match are told."""

    def __init__(self, screen: Screen, sheet: Sheet) -> None:
        self.screen = screen
        self.sheet = sheet
        self.human = screen.human
        self.verbose = self.human is not None
        self.variant = screen.variant
        self.trick_lines: list[str] = []  # the trick being played, shown when it is over
        self.announced: list[str] = []  # announcements made within that trick (R13)
        self.result: RoundResult | None = None  # the round's, between RoundOver and booking

    def say(self, text: str = "") -> None:
        self.screen.say(text)

    def name(self, seat: int) -> str:
        return self.screen.name(seat)

    # -- a round begins -------------------------------------------------------------------
    def start_round(self, view: SeatView) -> None:
        """The round's header: dealer, who bids first, the match score, face-up cards."""
        if not self.verbose:
            return
        st = self.screen.seating
        totals = "  ".join(f"{st.side_short(s)} {t}" for s, t in enumerate(view.totals))
        self.say()
        self.screen.console.rule(f"[bold]Round {view.round_index + 1}[/bold]")
        you = view.first == self.human
        if self.variant.callable_suits(0, turned_suit(view))[1]:  # R26: must call
            first = ("You call trump and lead" if you
                     else f"{self.name(view.first)} calls trump and leads")
        else:
            first = ("You bid first and lead" if you
                     else f"{self.name(view.first)} bids first and leads")
        self.say(f"Dealer: {self.name(view.dealer)}.  {first}.  Score: {totals}  "
                 f"(to {view.options['target']})")
        face = self.screen.face_up_line(view)
        if face and view.turn != self.human:  # else the bidding prompt shows it at once
            self.say(face)

    # -- events ---------------------------------------------------------------------------
    def tell(self, events: tuple[Event, ...], view: SeatView) -> None:
        """Tell one action's ``events`` (as the human may see them); ``view`` is the
        human's view (the spectator's without one) after the action."""
        for event in events:
            if self.verbose or isinstance(event, (RoundOver, RoundBooked, MatchWon)):
                self.tell_one(event, view)
        if not self.verbose:
            return
        picked = next((e.cards for e in events if isinstance(e, TalonTaken)
                       and e.seat == self.human and e.cards), None)
        if picked is not None:  # told after the contract, which made it the human's
            what = PICKED_UP[self.variant.name].format(n=len(picked))
            if self.variant.discards and view.caller == self.human:
                what = "your talon and the last 2 cards"
            self.say(f"  You pick up {what}: {cards_markup(picked, trump_of(view))}")
        if (any(isinstance(e, ContractFixed) for e in events) and view.phase != Phase.DONE
                and view.turn != self.human):
            self.screen.show_hand(view)

    def tell_one(self, event: Event, view: SeatView) -> None:
        """One event: a line, or the trick it adds to, or the round's end."""
        trump = trump_of(view)
        match event:
            case BidMade(seat, action):
                self.say(f"  {self.name(seat)}: {describe_bid(action, view)}")
            case ContractFixed(contract, caller, raspas):
                if raspas:
                    self.announce_raspas(contract)
                elif caller is not None:
                    self.announce_contract(caller, contract)
            case Discarded(seat, cards):
                self.tell_discard(seat, cards, view)
            case Swapped(seat, given, taken):
                who = self.name(seat)
                mine = "your" if seat == self.human else "the"
                self.say(f"  {who} {conj(who, 'swap')} {mine} {card_markup(given, trump)} for "
                         f"the {self.variant.face_up_name} {card_markup(taken, trump)} "
                         f"({self.screen.rule('exchange')}): the face-up card is now "
                         f"{card_markup(given, trump)}.")
            case Declared(seat, declarations):
                own = seat == self.human
                who = self.name(seat)
                line = f"  {who} {conj(who, 'announce')}: " + ", ".join(
                    declaration_markup(d.pretty() if own else d.public(),
                                       CardSet(d.mask) if own else None,
                                       declaration_value(d, self.variant.declaration_values),
                                       trump)
                    for d in declarations)
                if self.trick_lines and not own:
                    self.announced.append(line)  # shown before your prompt, or with the trick
                    self.trick_lines.append(line)
                else:
                    self.say(line)
            case CardPlayed(seat, card, bela):
                who = self.name(seat)
                if view.trick == ((seat, card),):  # the lead
                    lead = "you lead" if seat == self.human else f"{who} leads"
                    self.trick_lines = [f"[bold]Trick {len(view.tricks) + 1}[/bold] — {lead}"]
                    self.screen.trick_belas = set()
                line = f"  {who:<8} {card_markup(card, trump)}"
                if bela:
                    self.screen.trick_belas.add(seat)
                    line += "  [bold]bela![/bold] (20)"
                self.trick_lines.append(line)
            case TrickTaken(seat, _, points):
                self.flush_trick()
                pts = "  ".join(f"{self.screen.seating.side_short(s)} {p}"
                                for s, p in enumerate(view.card_points))
                doubled = ("  [dim](doubled in the score, BC)[/dim]"
                           if view.contract == NO_TRUMPS else "")
                self.say(f"  → {self.name(seat)} {'take' if seat == self.human else 'takes'} "
                         f"the trick (+{points}).   Card points: {pts}{doubled}")
                if len(view.tricks) == 1:
                    self.show_declarations(view)
            case Claimed(seat):
                who = self.name(seat)
                self.flush_trick()  # the cards of the unfinished trick, then the claim
                self.say(f"  {who} {conj(who, 'claim')} auzmeš: an opponent broke R17-R19 "
                         f"(R24)!")
            case RoundOver(result):
                self.result = result
                if self.verbose:
                    self.flush_trick()  # a claim or a belot may end the round within a trick
                if self.verbose and result.outcome == Outcome.REDEAL:
                    self.tell_redeal(result, view)
            case RoundBooked():
                self.tell_booking(event, view)
            case MatchWon(side):
                self.tell_winner(side, view)

    def announce_contract(self, seat: int, contract: int) -> None:
        """The contract is fixed: what it is and what the caller needs."""
        who = self.name(seat)
        st = self.screen.seating
        need = CALLER_NEEDS[self.variant.name].format(
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

    def announce_raspas(self, suit: int) -> None:
        self.say(f"[bold]Raspas![/bold] Four passes: {suit_name(suit)} is trump, with no "
                 f"declarations, bela or swap.  [bold]Take as few points as you can[/bold]: "
                 f"each scores minus the points he takes (R34, R37).")

    def tell_discard(self, seat: int, cards: CardSet | None, view: SeatView) -> None:
        """bela3 (R27): the human's own discards by name; the event hides another's."""
        rule = self.screen.rule("discard")
        if seat == self.human and cards is not None and view.contract is not None:
            pts = sum(play_table(view.contract).points[c] for c in cards)
            self.say(f"  You discard {cards_markup(cards, trump_of(view))} face down: their "
                     f"{pts} points count for you ({rule}).")
        else:
            who = self.name(seat)
            self.say(f"  {who} discards two cards face down (their points count for {who}, "
                     f"{rule}).")

    def tell_redeal(self, result: RoundResult, view: SeatView) -> None:
        seat = result.extra.get("seat")
        if not isinstance(seat, int):
            return
        who = self.name(seat)
        which = four_of(view) if seat == self.human else "four 7s or four 8s"
        self.say(f"  [bold]{who} {conj(who, 'demand')} a redeal[/bold]: {which} "
                 f"({self.screen.rule('exchange')}).")

    # -- the trick and the declarations ---------------------------------------------------
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
        """After the first trick: every announcement and whose count (R12, R13, R37), as
        the view says (``declarations_side``, ``_seat``, ``_tie``)."""
        announced = [(s, d) for s, d in enumerate(view.declared) if d]
        if not announced:
            return
        trump = trump_of(view)
        self.say("  Declarations (zvanja):")
        for seat, infos in announced:
            self.say(f"    {self.name(seat)}: " + ", ".join(info_markup(i, trump) for i in infos))
        side = view.declarations_side
        if side is None:
            self.say("    The strongest declarations are equal: none count (R12).")
            return
        holder = view.declarations_seat
        if (view.declarations_tie and holder is not None
                and not self.variant.trump_sequence_first):  # belot2 has no R12 (R37)
            self.say(f"    The strongest declarations are equal: the tie goes to "
                     f"{self.name(holder)}, the earlier seat in turn order (R12).")
        who = self.screen.seating.side_long(side)
        subject = {"You": "you"}.get(who, "they" if possessive(who) == "their" else "he")
        if self.variant.trump_sequence_first:  # R37: belot2's own seniority
            self.say(f"    {who} {conj(who, 'hold')} the senior declaration: only "
                     f"{possessive(who)} declarations count, if {subject} "
                     f"{conj(who, 'take')} a trick (R37).")
        else:
            self.say(f"    {who} {conj(who, 'hold')} the strongest: only {possessive(who)} "
                     f"declarations count (R12), if {subject} {conj(who, 'take')} a trick (R15).")

    # -- a round and the match end --------------------------------------------------------
    def tell_booking(self, booked: RoundBooked, view: SeatView) -> None:
        """The round on the sheet: how it ended and the sheet, or one compact line."""
        result = self.result
        assert result is not None  # RoundOver comes first
        row = self.sheet.book(result, booked, view)
        if not self.verbose:
            self.say(self.sheet.compact_line(row))
            return
        self.say()
        self.say(self.sheet.outcome_sentence(result, view))
        if result.card_points:
            self.say("  " + self.sheet.points_breakdown(result))
        self.sheet.show()

    def tell_winner(self, side: int, view: SeatView) -> None:
        st = self.screen.seating
        totals = " : ".join(map(str, view.totals))
        if self.human is not None:
            who = st.side_long(side)
            mood = "Well played!" if st.side_of(self.human) == side else "Better luck next time."
            self.say(f"\n[bold]{who} {conj(who, 'win')} the match[/bold], {totals}.  {mood}")
            return
        self.say()
        self.sheet.show()
        self.say(winner_line(st.names, st.members(side), view.totals))

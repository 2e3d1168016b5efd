"""The score sheet of ``bela play``: a row per booked round, the sentence that says how the
round ended, what each side made, the compact line of a bots-only match, and the sheet as a
table that fits the terminal."""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.table import Table

from ...engine.cards import Card
from ...engine.enums import Outcome
from ...engine.events import RoundBooked
from ...engine.rules import NO_TRUMPS
from ...engine.scoring import RoundResult
from ...engine.views import SeatView
from ..text import card_markup, contract_text
from .screen import Screen
from .texts import SHORT_OUTCOMES, conj


@dataclass(frozen=True)
class RoundRow:
    """One round on the sheet."""

    round: int  # from 1
    dealer: int
    caller: int | None
    trump: str | None  # the contract token (H, VC, BC); None after a redeal
    outcome: Outcome
    scores: tuple[int, ...]  # as booked (held points of R22 included)
    declarations: tuple[int, ...]
    bela: tuple[int, ...]
    totals: tuple[int, ...]
    held: int  # R22 hang: the points this round held back


class Sheet:
    """The rows booked so far, and how they are told."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.seating = screen.seating
        self.variant = screen.variant
        self.rows: list[RoundRow] = []

    def book(self, result: RoundResult, booked: RoundBooked, view: SeatView) -> RoundRow:
        """Add the round that ``result`` ended and the match ``booked``."""
        row = RoundRow(view.round_index + 1, view.dealer, result.caller,
                       None if result.outcome == Outcome.REDEAL else view.trump,
                       result.outcome, booked.scores, result.declaration_points,
                       result.bela_points, booked.totals, result.held)
        self.rows.append(row)
        return row

    def points_breakdown(self, res: RoundResult) -> str:
        """``Us 92 + zvanja 20 = 112 · Them 70``: what each side made this round."""
        cards, decls, belas = res.card_points, res.declaration_points, res.bela_points
        parts = []
        for side, pts in enumerate(cards):
            where = "in tricks"
            if res.caller is not None and self.variant.discards and side == res.caller:
                where = "in tricks and discards"
            text = f"{self.seating.side_short(side)} {pts} {where}"
            extra = [(decls[side] if side < len(decls) else 0, "zvanja"),
                     (belas[side] if side < len(belas) else 0, "bela")]
            extra = [(v, n) for v, n in extra if v]
            if extra:
                text += "".join(f" + {v} {n}" for v, n in extra)
                text += f" = {pts + sum(v for v, _ in extra)}"
            parts.append(text)
        lead = "Taken" if res.outcome == Outcome.RASPAS else "Made"
        note = "  (BC: every point doubled)" if res.contract == NO_TRUMPS else ""
        return f"{lead}: " + " · ".join(parts) + "." + note

    def outcome_sentence(self, res: RoundResult, view: SeatView) -> str:
        """How the round ended, in a sentence (R21-R24, R28, R34-R37)."""
        st = self.seating
        caller_side = st.side_of(res.caller) if res.caller is not None else None
        total = res.total
        if res.outcome == Outcome.PASS and caller_side is not None:
            who = st.side_long(caller_side)
            text = (f"[bold]{who} made it[/bold] (prolaz): "
                    f"{res.scores[caller_side]} of {total} points.")
            if self.variant.discards:  # R28: the caller against two, each for himself
                text += "  Everyone scores his own points (R28)."
            return text
        if res.outcome == Outcome.FALL and caller_side is not None:
            who = st.side_long(caller_side)
            if st.sides == 2:
                taker = st.side_long(1 - caller_side)
                return (f"[bold]{who} {conj(who, 'fall')}[/bold] (pad): {taker} "
                        f"{conj(taker, 'take')} all {total} points.")
            return (f"[bold]{who} {conj(who, 'fall')}[/bold] (pad) and {conj(who, 'score')} 0; "
                    f"the others score their own points (R28).")
        if res.outcome == Outcome.CAPOT:
            side = view.tricks_won.index(max(view.tricks_won))
            who = st.side_long(side)
            return (f"[bold]Štiglja![/bold] {who} took every trick: "
                    f"{total} + {self.variant.capot_bonus} = {res.scores[side]}.")
        if res.outcome == Outcome.HANG:
            return (f"[bold]Exact tie[/bold]: the round hangs (visi), {res.held} points held "
                    f"for the side that scores more next round (R22).")
        if res.outcome == Outcome.RASPAS:
            scores = ", ".join(f"{st.side_short(s)} {p}" for s, p in enumerate(res.scores))
            return (f"[bold]Raspas[/bold] over: each scores minus the points he took "
                    f"(R37): {scores}.")
        if res.outcome == Outcome.REDEAL:
            dealer = self.screen.name(view.dealer)
            return (f"[bold]Redeal[/bold]: four 7s or four 8s (R35).  Nothing is scored; "
                    f"{dealer} {conj(dealer, 'deal')} again (R37).")
        if res.outcome == Outcome.CLAIM:
            claimant = res.extra.get("claimant")
            valid = res.extra.get("valid")
            side = res.scores.index(max(res.scores))
            who = self.screen.name(claimant) if isinstance(claimant, int) else "?"
            verdict = ("were " if claimant == self.seating.human else "was ") + (
                "right" if valid else "wrong")
            offender, card = res.extra.get("offender"), res.extra.get("card")
            how = ""
            if isinstance(offender, int) and isinstance(card, str):  # the first revoke
                whose = ("your" if offender == self.seating.human
                         else f"{self.screen.name(offender)}'s")
                how = f" ({whose} {card_markup(Card.from_code(card))})"
            return (f"[bold]Auzmeš[/bold]: {who} claimed a revoke and {verdict}{how}: "
                    f"{st.side_long(side)} score {res.scores[side]} (R24).")
        side = res.winner if res.winner is not None else 0  # Outcome.BELOT (R10)
        who = st.side_long(side)
        return f"[bold]Belot![/bold] All eight of one suit: {who} {conj(who, 'win')} the match."

    def compact_line(self, row: RoundRow) -> str:
        """A round in one line (a bots-only match)."""
        short = self.seating.short
        if row.caller is not None and row.trump is not None:
            called = f"{short(row.caller)} {contract_text(row.trump)}"
        elif row.outcome == Outcome.RASPAS:
            called = f"- {contract_text(row.trump)}"
        else:
            called = "-"
        scores = " : ".join(f"{s:>3}" for s in row.scores)
        totals = " : ".join(f"{t:>4}" for t in row.totals)
        return (f"Round {row.round:>2}  dealer {short(row.dealer)}  caller {called}  "
                f"{SHORT_OUTCOMES[row.outcome]:<8} {scores}   totals {totals}")

    def table(self, tight: bool = False, compact: bool = False,
                    running: bool = True) -> Table:
        """The score sheet.  ``tight``: one space between columns; ``compact``: caller and
        trump in one column, zvanja and bela in one, each running total in its score's cell;
        without ``running`` only a total row at the end (the narrowest terminals)."""
        st = self.seating
        names = [st.side_short(s) for s in range(st.sides)]
        merged = st.individual or compact  # zvanja and bela in one column
        t = Table(title="Score sheet", box=box.SIMPLE_HEAD, padding=(0, 0 if tight else 1),
                  collapse_padding=True, show_edge=False, title_justify="left",
                  caption=(f"{'Zv+bela column' if merged else 'Zvanja and Bela columns'}: "
                           f"{'/'.join(names)}, in that order.")
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

        for row in self.rows:
            result = SHORT_OUTCOMES[row.outcome]
            if row.held:
                result += f" {row.held}"
            decl, bela = row.declarations, row.bela
            if merged:
                extra = [pairs(tuple(d + b for d, b in zip(decl, bela)))
                         if decl and bela else pairs(decl or bela)]
            else:
                extra = [pairs(decl), pairs(bela)]
            caller = st.short(row.caller) if row.caller is not None else "-"
            trump = contract_text(row.trump)
            if compact:
                called = [f"{caller} {trump}" if row.trump is not None else caller]
                scores = ([f"{s} ({tot})" for s, tot in zip(row.scores, row.totals)]
                          if running else list(map(str, row.scores)))
                t.add_row(str(row.round), st.short(row.dealer), *called, *extra, *scores,
                          result)
            else:
                t.add_row(str(row.round), st.short(row.dealer), caller, trump, *extra,
                          *map(str, row.scores), result, *map(str, row.totals))
        if compact and not running:
            t.add_section()
            t.add_row("", "", "", "Σ", *map(str, self.rows[-1].totals), "")
        return t

    def show(self) -> None:
        """The widest layout of the sheet that fits the terminal (nothing cut or wrapped)."""
        console = self.screen.console
        if not self.rows:
            self.screen.say("No round finished yet.")
            return
        wide = console.options.update_width(10_000)
        for tight, compact, running in ((False, False, True), (True, False, True),
                                        (False, True, True), (True, True, True),
                                        (False, True, False), (True, True, False)):
            table = self.table(tight, compact, running)
            if console.measure(table, options=wide).maximum <= console.width:
                break
        console.print(table)

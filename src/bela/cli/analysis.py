"""``bela solve`` and ``bela review``: double-dummy analysis of game records."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from ..analysis.review import review_match
from ..engine.cards import Card
from ..engine.record import Record, RecordError, read_record, replay
from ..engine.rules import play_table, trick_winner_index
from ..engine.state import Round
from .text import card_markup, pretty_codes, record_error_markup


def _load(file: Path) -> Record:
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {file}: {exc}") from None
    return read_record(text)


def _fail(exc: RecordError, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(exc.as_json(), ensure_ascii=False))
    else:
        Console(stderr=True).print(f"[red]invalid record:[/red] {record_error_markup(exc)}",
                                   highlight=False)
    raise typer.Exit(1)


def _solver() -> Any:
    try:
        from ..solver import dd
    except ImportError as exc:  # numba / numpy did not load
        typer.echo(f"the solver cannot load the Python package {exc.name or exc} ({exc})",
                   err=True)
        raise typer.Exit(2) from None
    return dd


def solve(
    file: Path = typer.Argument(..., help="A record whose last round stops during the play: "
                                "quit a 'bela play --record FILE' match with q at a card."),
    as_json: bool = typer.Option(False, "--json", help='Print {"seat": S, "values": {...}}.'),
) -> None:
    """Double-dummy values of every legal card of the seat to play, and the best line."""
    dd = _solver()
    try:
        record = _load(file)
        match = replay(record)
        rnd = match.round
        if rnd is None or rnd.phase != "play":
            where = ("it has no round" if rnd is None else "that round is over"
                     if rnd.is_over else f"it stops in the {rnd.phase}")
            raise RecordError(f"the last round must stop during the play of the cards, and "
                              f"{where} (to make such a record, quit a match played with "
                              f"--record FILE with q at a card)",
                              len(match.rounds) - 1 if match.rounds else None)
    except RecordError as exc:
        _fail(exc, as_json)
        return
    sol = dd.solve(rnd, line=True)
    values = {str(c): v for c, v in sorted(sol.values.items(), key=lambda cv: -cv[1])}
    if as_json:
        typer.echo(json.dumps({"seat": sol.seat, "values": values}))
        return
    console = Console(highlight=False)
    names = record.players or [f"Seat {s}" for s in range(len(rnd.hands))]
    goal = "fewest points (raspas)" if sol.minimize else "most points"
    side = "his" if match.variant.sides == match.variant.seats else "his side"
    console.print(f"{escape(names[sol.seat])} to play; values are the card points {side} "
                  f"takes in the round with best play by all ({goal} is best).")
    table = Table()
    table.add_column("card")
    table.add_column("value", justify="right")
    for card, v in sorted(sol.values.items(), key=lambda cv: -cv[1]):
        table.add_row(card_markup(card) + (" *" if card == sol.best else ""), str(v))
    console.print(table)
    console.print("Best line, trick by trick:")
    for number, trick in line_by_trick(rnd, list(sol.line)):
        console.print(f"  trick {number}: " + ", ".join(
            f"{escape(names[seat])} {card_markup(card)}" for seat, card in trick))


def line_by_trick(rnd: Round, line: list[Card]) -> list[tuple[int, list[tuple[int, Card]]]]:
    """The solver's line from ``rnd``'s position in tricks (numbered from 1), each card
    with the seat that plays it: the cards already on the table open the first."""
    table = play_table(rnd.contract) if rnd.contract is not None else None
    assert table is not None
    seats = len(rnd.hands)
    trick = [(seat, Card(card)) for seat, card in zip(_trick_seats(rnd), rnd.trick,
                                                       strict=True)]
    turn = rnd.turn
    out = []
    number = len(rnd.tricks) + 1
    for card in line:
        trick.append((turn, card))
        turn = (turn + 1) % seats
        if len(trick) == seats:
            out.append((number, trick))
            turn = trick[trick_winner_index([int(c) for _, c in trick], table)][0]
            trick, number = [], number + 1
    if trick:
        out.append((number, trick))
    return out


def _trick_seats(rnd: Round) -> list[int]:
    """The seats that played the cards of the trick on the table, in order."""
    n, seats = len(rnd.trick), len(rnd.hands)
    return [(rnd.turn - n + i) % seats for i in range(n)]


def review(
    file: Path = typer.Argument(..., help="A game record (RECORD.md)."),
    as_json: bool = typer.Option(False, "--json", help="Print the costly plays as JSON."),
    min_loss: int = typer.Option(1, min=1, help="Only list plays that lost at least this "
                                 "(the points lost by seat still count every play)."),
) -> None:
    """Each seat's costly plays: double-dummy card points lost at each decision."""
    try:
        record = _load(file)
        replay(record)
    except RecordError as exc:
        _fail(exc, as_json)
        return
    _solver()  # says what is missing when the solver cannot load
    steps = sum(len(r.actions) for r in record.rounds)
    show = not as_json and sys.stderr.isatty()
    with Progress(disable=not show, transient=True) as bar:
        task = bar.add_task("reviewing", total=steps)
        plays = review_match(record, lambda: bar.advance(task))
    seats = max(len(r.hands) for r in record.rounds) if record.rounds else 0
    totals = [sum(p.loss for p in plays if p.seat == s) for s in range(seats)]  # every play
    listed = [p for p in plays if p.loss >= min_loss]
    if as_json:
        typer.echo(json.dumps({"plays": [p.__dict__ for p in listed], "loss_by_seat": totals}))
        return
    console = Console(highlight=False)
    names = record.players or [f"seat {s}" for s in range(seats)]
    if not plays:
        console.print("No costly plays: every card kept its double-dummy value.")
        return
    if listed:
        title = "Costly plays (double-dummy points lost)"
        if min_loss > 1:
            title = f"Plays that lost {min_loss} points or more (double-dummy)"
        table = Table(title=title)
        for col in ("round", "trick", "seat", "played", "best", "lost"):
            table.add_column(col, justify="right" if col in ("round", "trick", "lost")
                             else "left")
        for p in listed:
            table.add_row(str(p.round + 1), str(p.trick), escape(names[p.seat]),
                          pretty_codes(p.played), pretty_codes(p.best), str(p.loss))
        console.print(table)
    else:
        console.print(f"No play lost {min_loss} points or more; {len(plays)} "
                      f"{'play' if len(plays) == 1 else 'plays'} lost less "
                      f"(at most {max(p.loss for p in plays)}).")
    console.print(("Points lost by seat" + (", every costly play counted" if min_loss > 1
                                             else "") + ": ")
                  + ", ".join(f"{escape(names[s])} {t}" for s, t in enumerate(totals)))

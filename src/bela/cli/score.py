"""``bela score FILE``: replay a game record and print its score sheet (RECORD.md)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engine.record import RecordError, read_record, replay
from ..engine.record import score as score_record
from ..engine.variants import get_variant
from .text import contract_text, pretty_codes, record_error_markup, winner_line

# "made", never "pass": in the bidding pass is dalje; the JSON keeps "pass" (RECORD.md)
OUTCOME_NAMES = {"pass": "made (prolaz)", "fall": "fall (pad)", "capot": "štiglja",
                 "belot": "belot", "claim": "auzmeš", "hang": "visi",
                 "redeal": "redeal", "raspas": "raspas", "unfinished": "unfinished"}
SHORT_OUTCOMES = {**OUTCOME_NAMES, "pass": "made", "fall": "fall", "unfinished": "-"}


def seat_names(variant: str, players: list[str] | None) -> list[str]:
    """The record's ``players``, else ``Seat N`` as a bots-only ``bela play`` names them."""
    seats = get_variant(variant).seats
    if players and len(players) == seats:
        return list(players)
    return [f"Seat {s}" for s in range(seats)]


def side_seats(variant: str, side: int) -> list[int]:
    v = get_variant(variant)
    return [s for s in range(v.seats) if v.side_of(s) == side]


def side_names(variant: str, players: list[str] | None, sides: int) -> list[str]:
    """Column names for the sides of a score sheet: ``You & Partner``, ``Left``, or
    ``Seats 0+2`` where the names are the default ``Seat N``."""
    names = seat_names(variant, players)
    out = []
    for side in range(sides):
        seats = side_seats(variant, side)
        if len(seats) > 1 and all(names[s] == f"Seat {s}" for s in seats):
            out.append("Seats " + "+".join(map(str, seats)))
        else:
            out.append(" & ".join(names[s] for s in seats))
    return out


@dataclass(frozen=True)
class Layout:
    """How much of the sheet fits: the widest layout that fits the console is chosen."""

    boxed: bool  # ruled cells (a paper sheet), or only a line under the header
    names: bool  # player names in the cells and side names as headers, or seat numbers
    running: bool  # the running total in each score cell, "65 (182)"
    short: bool = False  # short headers, caller and trump in one column ("2 ♠")
    tight: bool = False  # one space between the columns


# Names (as the game names the seats) go last: seat numbers under a legend only where
# nothing else fits.
LAYOUTS = (Layout(True, True, True), Layout(False, True, True),
           Layout(False, True, True, short=True),
           Layout(False, True, True, short=True, tight=True),
           Layout(False, True, False, short=True),
           Layout(False, True, False, short=True, tight=True),
           Layout(False, False, True, short=True),
           Layout(False, False, True, short=True, tight=True),
           Layout(False, False, False, short=True),
           Layout(False, False, False, short=True, tight=True))


def seat_count(result: dict[str, Any], variant: str) -> int:
    for rd in result["rounds"]:
        if "declared" in rd:
            return len(rd["declared"])
    return get_variant(variant).seats


def sheet_table(result: dict[str, Any], variant: str, players: list[str] | None,
                layout: Layout) -> Table:
    """The score sheet of a ``bela score --json`` object in one layout."""
    sides = len(result["totals"])
    if layout.names:
        heads = side_names(variant, players, sides)
        labels = [escape(n) for n in seat_names(variant, players)]
    else:
        heads = ["+".join(map(str, side_seats(variant, side))) for side in range(sides)]
        labels = [str(s) for s in range(seat_count(result, variant))]
    boxed = layout.boxed
    table = Table(title=f"{variant} score sheet", title_justify="left",
                  box=box.HEAVY_HEAD if boxed else box.SIMPLE_HEAD, show_edge=boxed,
                  padding=(0, 0 if layout.tight else 1), collapse_padding=not boxed)
    first: tuple[str, ...]
    if layout.short:
        first = ("#", "dlr", "call", "zv.", "bela")
    else:
        first = ("#", "dealer", "caller", "trump", "decl.", "bela")
    for col in first:
        table.add_column(col, no_wrap=True, justify="right" if col == "#" else "left")
    for head in heads:
        table.add_column(escape(head), justify="right", no_wrap=True)
    table.add_column("result" if layout.short else "outcome", no_wrap=True)
    outcomes = SHORT_OUTCOMES if layout.short or not layout.names else OUTCOME_NAMES
    running = [0] * sides
    for i, rd in enumerate(result["rounds"]):
        running = [t + s for t, s in zip(running, rd["scores"])]
        announced = any(rd.get("declared", []))
        counted = rd.get("declarations") or []
        decls = "/".join(map(str, counted)) if any(counted) else ("0" if announced else "-")
        bela_points = rd.get("bela") or []  # per side, as the game's sheet: 20/0
        bela = "/".join(map(str, bela_points)) if any(bela_points) else ""
        if layout.running:
            cells = [f"{s} ({t})" for s, t in zip(rd["scores"], running)]
        else:
            cells = [str(s) for s in rd["scores"]]
        caller = "-" if rd["caller"] is None else labels[rd["caller"]]
        trump = contract_text(rd["trump"])
        called = [f"{caller} {trump}" if rd["trump"] else caller] if layout.short \
            else [caller, trump]
        table.add_row(str(i + 1), labels[rd["dealer"]], *called, decls, bela or "-",
                      *cells, outcomes.get(rd["outcome"], rd["outcome"]))
    table.add_section()
    blanks = len(first) - 1
    table.add_row(*[""] * blanks, "total", *map(str, result["totals"]), "")
    return table


def render_sheet(result: dict[str, Any], variant: str, players: list[str] | None,
                 console: Console) -> None:
    """Print a paper-like score sheet from a ``bela score --json`` object, in the widest
    layout that fits the console (80 columns when piped): no cell is cut or wrapped."""
    wide = console.options.update_width(10_000)
    for layout in LAYOUTS:
        table = sheet_table(result, variant, players, layout)
        if console.measure(table, options=wide).maximum <= console.width:
            break
    if not layout.names and players and players != [f"Seat {i}" for i in range(len(players))]:
        console.print("Seats: " + ", ".join(f"{i} {escape(p)}" for i, p in enumerate(players)),
                      highlight=False)
    console.print(table, highlight=False)
    names = seat_names(variant, players)
    for i, rd in enumerate(result["rounds"]):
        announced = [f"{escape(names[s])}: {', '.join(pretty_codes(x) for x in d)}"
                     for s, d in enumerate(rd.get("declared", [])) if d]
        if announced:
            console.print(f"  declared in round {i + 1}: " + "; ".join(announced),
                          highlight=False)
    if result["winner"] is None:
        console.print("The match is not over.", highlight=False)
    else:
        seats = side_seats(variant, result["winner"])
        console.print(escape(winner_line(names, seats, result["totals"])), highlight=False)


def score(
    file: Path = typer.Argument(..., help="Game record (RECORD.md JSON); '-' reads stdin."),
    as_json: bool = typer.Option(False, "--json", help="Print the RECORD.md JSON contract."),
) -> None:
    """Replay a game record under the rules and print its score sheet."""
    try:
        try:
            text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"cannot read {file}: {exc}") from None
        record = read_record(text)
        result = score_record(replay(record))
    except RecordError as exc:
        if as_json:
            typer.echo(json.dumps(exc.as_json(), ensure_ascii=False))
        else:
            Console(stderr=True).print(f"[red]invalid record:[/red] {record_error_markup(exc)}",
                                       highlight=False)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        render_sheet(result, record.variant, record.players, Console(highlight=False))

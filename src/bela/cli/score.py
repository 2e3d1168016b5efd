"""``bela score FILE``: replay a game record and print its score sheet (RECORD.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..engine.record import RecordError, read_record, replay
from ..engine.record import score as score_record

OUTCOME_NAMES = {"pass": "pass", "fall": "fall (pad)", "capot": "štiglja",
                 "belot": "belot", "claim": "auzmeš", "hang": "visi",
                 "redeal": "redeal", "raspas": "raspas", "unfinished": "unfinished"}


def side_names(variant: str, players: list[str] | None, sides: int) -> list[str]:
    """Column names for the sides of a score sheet."""
    names = players or []
    if variant == "bela4":
        if len(names) == 4:
            return [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"]
        return ["Seats 0+2", "Seats 1+3"]
    return [names[i] if i < len(names) else f"Seat {i}" for i in range(sides)]


def render_sheet(result: dict[str, Any], variant: str, players: list[str] | None,
                 console: Console) -> None:
    """Print a paper-like score sheet from a ``bela score --json`` object."""
    sides = len(result["totals"])
    names = side_names(variant, players, sides)
    seat_name = (lambda s: players[s]) if players else (lambda s: f"seat {s}")
    table = Table(title=f"{variant} score sheet", show_lines=False)
    for col in ("#", "dealer", "caller", "trump", "decl.", "bela"):
        table.add_column(col)
    for name in names:
        table.add_column(name, justify="right")
    table.add_column("outcome", no_wrap=True)
    running = [0] * sides
    notes = []
    for i, rd in enumerate(result["rounds"]):
        running = [t + s for t, s in zip(running, rd["scores"])]
        announced = [f"{seat_name(s)}: {', '.join(d)}" for s, d in enumerate(rd.get("declared", []))
                     if d]
        if announced:
            notes.append(f"round {i + 1}: " + "; ".join(announced))
        counted = rd.get("declarations") or []
        decls = "/".join(map(str, counted)) if any(counted) else ("0" if announced else "-")
        bela = ", ".join(seat_name(s) for s in rd.get("belas", []))
        cells = [f"{s} ({t})" for s, t in zip(rd["scores"], running)]
        caller = "" if rd["caller"] is None else seat_name(rd["caller"])
        table.add_row(str(i + 1), seat_name(rd["dealer"]), caller, rd["trump"] or "-",
                      decls, bela or "-", *cells, OUTCOME_NAMES.get(rd["outcome"], rd["outcome"]))
    table.add_section()
    table.add_row("", "", "", "", "", "total", *map(str, result["totals"]), "")
    console.print(table)
    for note in notes:
        console.print(f"  declared in {note}")
    if result["winner"] is None:
        console.print("The match is not over.")
    else:
        console.print(f"Winner: {names[result['winner']]}")


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
            Console(stderr=True).print(f"[red]invalid record[/red] {exc}", highlight=False)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        render_sheet(result, record.variant, record.players, Console(highlight=False))

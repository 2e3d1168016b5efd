"""``bela play``: a match in the terminal, you at seat 0 and bots elsewhere (Typer + Rich).

Every variant of RULES.md: ``bela4`` (you and Partner against Right and Left), ``bela3`` (you,
Right and Left, each for himself), ``bela2`` and ``belot2`` (you against Opponent).  Everything
shown to the human comes from their own seat view (:mod:`bela.engine.views`) and the events of
each action as their seat may see them (:mod:`bela.engine.events`); the bots get their own
views, through the project's game driver (:mod:`bela.bots.driver`).

The package: :mod:`.game` (the match loop), :mod:`.prompts` and :mod:`.exchange_prompts`
(the human's input), :mod:`.narrate` (the table talk, from events), :mod:`.sheet` (the score
sheet), :mod:`.screen` and :mod:`.markup` (what the table looks like), :mod:`.texts` (the
words), :mod:`.seating` (who is who) and :mod:`.hints` (``hint`` and the solver's warm-up).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape

from ... import bots as bot_registry
from ...engine.enums import Enforce, EqualDeclarations, Tie
from ...engine.errors import BelaError
from ...engine.record import to_record
from ...engine.state import Match
from ...engine.variants import DEFAULT_VARIANT, TARGET_RANGE, VARIANTS, get_variant
from .game import Game
from .hints import SOLVER, SolverWarmUp
from .prompts import Quit
from .texts import TABLES, TITLES

__all__ = ["Game", "SOLVER", "SolverWarmUp", "bot_seed", "play"]

PLAYABLE = tuple(VARIANTS)  # every variant: texts.py words each (tests/cli)
HUMAN = 0


def bot_seed(seed: int, seat: int) -> int:
    """A bot's seed, derived from the match seed and its seat (same seed, same match)."""
    return random.Random(f"bela-play:{seed}:{seat}").getrandbits(48)


def resolve_bot(name: str, console: Console) -> str:
    """A registered bot's spec (its name, with settings: ``learned:model=m.npz``); without
    the heuristic bot, the default falls back."""
    known = bot_registry.BOTS
    try:
        base, _ = bot_registry.parse_spec(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot") from None
    if base in known:
        try:
            bot_registry.make_bot(name, 0)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--bot") from None
        return name
    if name == "heuristic" and known:
        fallback = "random" if "random" in known else next(iter(known))
        console.print(f"[yellow]The heuristic bot is not available in this build; "
                      f"playing against the {fallback} bot.[/yellow]", highlight=False)
        return fallback
    raise typer.BadParameter(f"unknown bot {name!r} (known: {', '.join(known)})",
                             param_hint="--bot")


def save_record(match: Match, path: Path, players: list[str], extra: dict[str, Any],
                console: Console) -> None:
    """Write the match record (RECORD.md) to ``path``, or exit with the reason."""
    data = to_record(match, players) | extra  # extra keys are ignored by readers (RECORD.md)
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        console.print(f"[red]Could not save the record to {escape(str(path))}: "
                      f"{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"Record saved to {escape(str(path))}", highlight=False)


def play(
    seed: Optional[int] = typer.Option(  # noqa: UP045 (typer reads the annotation)
        None, "--seed", help="Seed for the shuffle and the bots: same seed, same match."),
    target: Optional[int] = typer.Option(  # noqa: UP045
        None, "--target", min=TARGET_RANGE[0], max=TARGET_RANGE[1],
        help="Points to win the match (default per variant: bela4 1001, bela3 701, bela2 501, "
             "belot2 1001)."),
    variant: str = typer.Option(
        DEFAULT_VARIANT, "--variant",
        help="Variant to play: bela4 (four, in pairs), bela3 (three, each for himself), bela2 "
             "(two) or belot2 (two-player Belot with VC/BC and raspas)."),
    equal_declarations: Optional[EqualDeclarations] = typer.Option(  # noqa: UP045
        None, "--equal-declarations",
        help="Equal strongest declarations: the earlier seat wins, or both cancel (R12). "
             "(default: earlier)"),
    tie: Optional[Tie] = typer.Option(  # noqa: UP045
        None, "--tie", help="An exact tie: the caller falls, or the round hangs (R22). "
                            "(default: fall)"),
    enforce: Optional[Enforce] = typer.Option(  # noqa: UP045
        None, "--enforce", help="Refuse illegal cards (on), or accept them and allow claims "
                                "of auzmeš (off, R24). (default: on)"),
    bot: str = typer.Option("heuristic", "--bot", help="Bot for the other seats: a level "
                            "(beginner, club, expert, master), heuristic, random, or any "
                            "registered bot."),
    record: Optional[Path] = typer.Option(  # noqa: UP045
        None, "--record", dir_okay=False, help="Save the match record (JSON) to this file."),
    all_bots: bool = typer.Option(False, "--all-bots",
                                  help="Bots in every seat: play a whole match without input."),
) -> None:
    """Play a match in the terminal: you at seat 0, bots in the other seats."""
    console = Console(highlight=False, emoji=False)
    if not console.is_terminal:
        console.soft_wrap = True  # piped or captured: whole lines, no wrapping at 80 columns
    if variant not in PLAYABLE:
        raise typer.BadParameter(f"unknown variant {variant!r} (variants: {', '.join(PLAYABLE)})",
                                 param_hint="--variant")
    options: dict[str, Any] = {}
    if target is not None:
        options["target"] = target
    for key, value in (("equal_declarations", equal_declarations), ("tie", tie),
                       ("enforce", enforce)):
        if value is not None:
            options[key] = value
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    try:
        match = Match(get_variant(variant), options, seed=seed)
    except BelaError as exc:
        raise typer.BadParameter(str(exc)) from None
    bot_name = resolve_bot(bot, console)
    human = None if all_bots else HUMAN
    bots = {s: bot_registry.make_bot(bot_name, bot_seed(seed, s))
            for s in range(match.variant.seats) if s != human}
    if human is not None:
        SOLVER.start()  # hints: the solver's kernels get ready while you play
    game = Game(match, bots, console, human, solver=SOLVER)
    players = game.seating.players()
    extra = {"seed": seed, "bots": {str(s): bot_name for s in sorted(bots)}}
    opts = match.options
    house = [f"target {opts.target}"]
    if opts.equal_declarations == EqualDeclarations.CANCEL:
        house.append("equal declarations cancel")
    if opts.tie == Tie.HANG:
        house.append("ties hang")
    if opts.enforce == Enforce.OFF:
        house.append("enforce off (auzmeš)")
    if human is None:
        console.print(f"Bela ({variant}), {', '.join(house)}: {bot_name} bots in every seat, "
                      f"seed {seed}.", highlight=False)
    else:
        console.print(f"[bold]{TITLES[variant]}[/bold] ({variant}), {', '.join(house)}.  "
                      f"{TABLES[match.variant.seats]}, {bot_name} bots.  Seed {seed}.  "
                      f"Type [bold]?[/bold] for help.", highlight=False)
    code = 0
    try:
        game.run()
    except Quit:
        console.print("You left the match.", highlight=False)
    except EOFError:
        console.print("\nInput ended: the match stops here.", highlight=False)
        code = 1
    except KeyboardInterrupt:
        console.print("\nInterrupted: the match stops here.", highlight=False)
        code = 130
    if record is not None:
        save_record(match, record, players, extra, console)
    elif human is not None and not match.is_over:
        console.print("[dim]Not saved: use --record FILE to keep the match record.[/dim]",
                      highlight=False)
    if code:
        raise typer.Exit(code)

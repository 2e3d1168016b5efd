"""Scoring a round (R12, R14, R15, R21-R24) and booking it in a match (R22 hang, R25)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .cards import iter_cards
from .declarations import Declaration, declaration_value
from .enums import EqualDeclarations, Outcome

if TYPE_CHECKING:
    from .state import Round
    from .variants.base import Variant


@dataclass(frozen=True)
class RoundResult:
    """What a round writes on the score sheet, with the details behind it.

    ``scores`` are per side before held points of R22 are added (the match adds them and
    keeps the booked numbers in :attr:`bela.engine.state.Match.sheet`).
    """

    outcome: Outcome
    scores: tuple[int, ...]
    caller: int | None
    contract: int | None
    total: int = 0
    card_points: tuple[int, ...] = ()
    declaration_points: tuple[int, ...] = ()
    bela_points: tuple[int, ...] = ()
    held: int = 0  # R22 hang: the calling side's points held back
    winner: int | None = None  # R10 belot: the side that wins the match at once
    declarations_to: int | None = None  # the side whose declarations count (R12)
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class DeclarationStanding:
    """Whose announced declarations count (R11, R12, R37), known as soon as announced."""

    side: int | None  # the side holding the strongest; None: nothing announced, or cancelled
    seat: int | None  # the seat holding it
    tie: bool  # another side's strongest was as strong: the seat order decided, or they
    # cancelled (``side`` None, ``equal_declarations = cancel``)


def declaration_standing(variant: Variant, declared: Sequence[Sequence[Declaration] | None],
                         first: int, contract: int | None,
                         equal_declarations: str) -> DeclarationStanding:
    """The standing of the announced ``declared`` (per seat): R11 seniority, ties to the
    earlier seat in turn order from ``first`` or cancelled (R12), belot2's R37 order."""
    best: dict[int, tuple[tuple[int, ...], int]] = {}
    for seat, decls in enumerate(declared):
        for d in decls or ():
            key = variant.declaration_key(seat, d, first, contract)
            side = variant.side_of(seat)
            if side not in best or key > best[side][0]:
                best[side] = (key, seat)
    if not best:
        return DeclarationStanding(None, None, False)
    ranked = sorted(best.items(), key=lambda kv: kv[1][0], reverse=True)
    tie = len(ranked) > 1 and ranked[0][1][0][0] == ranked[1][1][0][0]
    if tie and equal_declarations == EqualDeclarations.CANCEL:
        return DeclarationStanding(None, None, True)  # R12 option: equal ones cancel
    side, (_, seat) = ranked[0]
    return DeclarationStanding(side, seat, tie)


def round_standing(rnd: Round) -> DeclarationStanding:
    """The round's :func:`declaration_standing`."""
    return declaration_standing(rnd.variant, rnd.declared, rnd.first, rnd.contract,
                                rnd.options.equal_declarations)


def strongest_side(rnd: Round) -> int | None:
    """The side holding the single strongest announced declaration (R11, R12), or None when
    nothing was announced or, with ``equal_declarations = cancel``, the strongest are equal."""
    return round_standing(rnd).side


def declaration_winner(rnd: Round) -> int | None:
    """The side whose declarations count (R12), if it won a trick (R15), or None."""
    side = strongest_side(rnd)
    if side is None or rnd.tricks_won[side] == 0:
        return None  # R15: no side scores declarations
    return side


def announced_points(decls: tuple[Declaration, ...] | None, rnd: Round) -> int:
    return sum(declaration_value(d, rnd.variant.declaration_values) for d in decls or ())


def score_played_round(rnd: Round) -> RoundResult:
    """Score a round whose tricks are all played (R21-R23, bela4/bela3/bela2)."""
    v = rnd.variant
    sides = v.sides
    caller = rnd.caller
    assert caller is not None  # these variants have no round without a caller
    cards = list(rnd.card_points)
    if rnd.discards:  # R27: the caller's discards count for him
        assert rnd.table is not None
        cards[v.side_of(caller)] += sum(rnd.table.points[c] for c in iter_cards(rnd.discards))
    decl = [0] * sides
    to = declaration_winner(rnd)
    if to is not None:
        for seat in range(v.seats):
            if v.side_of(seat) == to:
                decl[to] += announced_points(rnd.declared[seat], rnd)
    bela = [0] * sides
    for seat, _suit in rnd.belas:
        side = v.side_of(seat)
        if rnd.tricks_won[side]:  # R15
            bela[side] += 20
    own = [cards[s] + decl[s] + bela[s] for s in range(sides)]
    total = sum(own)
    caller_side = v.side_of(caller)
    common = dict(caller=rnd.caller, contract=rnd.contract, total=total,
                  card_points=tuple(cards), declaration_points=tuple(decl),
                  bela_points=tuple(bela), declarations_to=to)
    tricks = rnd.tricks_won
    n_tricks = sum(tricks)
    for side in range(sides):
        if tricks[side] == n_tricks:  # R23 štiglja
            scores = [0] * sides
            scores[side] = total + v.capot_bonus
            return RoundResult(Outcome.CAPOT, tuple(scores), **common)  # type: ignore[arg-type]
    mine = own[caller_side]
    others = total - mine
    if 2 * mine > total:
        return RoundResult(Outcome.PASS, tuple(own), **common)  # type: ignore[arg-type]
    return v.fall(rnd, own, total, others == mine, common)


def claim_result(rnd: Round, claimant: int) -> RoundResult:
    """R24 auzmeš: 162 plus all announced declarations and bela to the side in the right."""
    v = rnd.variant
    side = v.side_of(claimant)
    right = any(rnd.revoked[s] for s in range(v.seats) if v.side_of(s) != side)
    offenders = [s for s in range(v.seats) if v.side_of(s) != side]
    winner = side if right else v.side_of(offenders[0])
    total = 162 + sum(announced_points(d, rnd) for d in rnd.declared) + 20 * len(rnd.belas)
    scores = [0] * v.sides
    scores[winner] = total
    return RoundResult(Outcome.CLAIM, tuple(scores), rnd.caller, rnd.contract, total=total,
                       extra={"claimant": claimant, "valid": right})

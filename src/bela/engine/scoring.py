"""Scoring a round (R12, R14, R15, R21-R24) and booking it in a match (R22 hang, R25)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .cards import Card, iter_cards
from .declarations import Declaration, declaration_value
from .enums import EqualDeclarations, Outcome

if TYPE_CHECKING:
    from .state import Round
    from .variants.base import TableOptions, Variant


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


_NOTHING = DeclarationStanding(None, None, False)  # nothing announced (frozen: shared)


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
        return _NOTHING
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
    """Score a round whose tricks are all played (R21-R23, bela4/bela3/bela2): its points
    gathered from the tricks, then :meth:`Variant.score_points`."""
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
        if rnd.tricks_won[side] or not v.bela_needs_trick:  # R15
            bela[side] += 20
    tricks = rnd.tricks_won
    capot = next((side for side in range(sides) if tricks[side] == sum(tricks)), None)
    return v.score_points(rnd.options, caller, rnd.contract, cards, decl, bela, capot,
                          declarations_to=to)


def score_points(variant: Variant, options: TableOptions, caller: int, contract: int | None,
                 cards: Sequence[int], declarations: Sequence[int], bela: Sequence[int],
                 capot: int | None, declarations_to: int | None = None) -> RoundResult:
    """The round result of these points per side (R21): ``cards`` (with the last trick's
    10), the ``declarations`` and ``bela`` that count (R12, R14, R15), and the side that
    took every trick (``capot``, R23), for the seat ``caller``: štiglja (R23), pass (more
    than half of the total, R21) or the variant's fall (R22, R28).  The rules of a played
    round and of a score pad's deal (:mod:`bela.engine.pad`) are these.

    >>> from .variants import get_variant
    >>> v = get_variant("bela4")
    >>> r = score_points(v, v.make_options({}), 0, 0, [92, 70], [20, 0], [0, 0], None)
    >>> r.outcome.value, r.scores
    ('pass', (112, 70))
    >>> score_points(v, v.make_options({}), 1, 0, [92, 70], [20, 0], [0, 0], None).scores
    (182, 0)
    """
    sides = variant.sides
    own = [cards[s] + declarations[s] + bela[s] for s in range(sides)]
    total = sum(own)
    common: dict[str, Any] = dict(
        caller=caller, contract=contract, total=total, card_points=tuple(cards),
        declaration_points=tuple(declarations), bela_points=tuple(bela),
        declarations_to=declarations_to)
    if capot is not None:  # R23 štiglja
        scores = [0] * sides
        scores[capot] = total + variant.capot_bonus
        return RoundResult(Outcome.CAPOT, tuple(scores), **common)
    mine = own[variant.side_of(caller)]
    if 2 * mine > total:
        return RoundResult(Outcome.PASS, tuple(own), **common)
    return variant.fall(options, caller, own, total, 2 * mine == total, common)


@dataclass(frozen=True)
class Booking:
    """A round written on the score sheet: the numbers it writes (held points of R22
    included), the totals after it, the points still held, and the match's winner (R10,
    R25) if it is decided."""

    scores: tuple[int, ...]
    totals: tuple[int, ...]
    held: int
    winner: int | None


def book(res: RoundResult, totals: Sequence[int], held: int, winner: int | None,
         target: int, belot_board: int | None = None) -> Booking:
    """Write ``res`` on a sheet whose ``totals``, ``held`` points and ``winner`` are these
    (a match's, or a score pad's): R10 belot wins at once; R22 a hang holds the caller's
    points back, and the held points go to the side scoring more in the next round that
    has a single best; R25 the match is won by the single side at or over ``target``.

    ``belot_board``: a match of duplicate boards (a tournament's, docs/RULES.md
    "Readings"), where a belot wins *its board*: the holder's side books this many points,
    the others nothing, and the match goes on.

    >>> won = RoundResult(Outcome.BELOT, (0, 0), 0, 0, winner=1)
    >>> book(won, (0, 0), 0, None, 1001).winner
    1
    >>> b = book(won, (0, 0), 0, None, 5001, belot_board=1001)
    >>> b.scores, b.winner
    ((0, 1001), None)

    >>> from .enums import Outcome
    >>> hang = RoundResult(Outcome.HANG, (81, 0), 0, 0, held=81)
    >>> b = book(hang, (0, 0), 0, None, 1001)
    >>> b.scores, b.held
    ((81, 0), 81)
    >>> book(RoundResult(Outcome.PASS, (100, 62), 1, 0), b.totals, b.held, None, 1001).scores
    (181, 62)
    """
    scores = list(res.scores)
    if res.outcome == Outcome.BELOT and belot_board is not None:
        scores = [s + (belot_board if side == res.winner else 0)
                  for side, s in enumerate(scores)]
    elif res.outcome == Outcome.BELOT:
        winner = res.winner
    elif res.outcome == Outcome.HANG:
        held += res.held
    elif held and res.outcome not in (Outcome.REDEAL, Outcome.UNFINISHED):
        top = max(scores)
        if scores.count(top) == 1:  # R22: held points go to the side scoring more
            scores[scores.index(top)] += held
            held = 0
    after = tuple(t + s for t, s in zip(totals, scores))
    if winner is None and max(after) >= target:  # R25
        top = max(after)
        if after.count(top) == 1:
            winner = after.index(top)
    return Booking(tuple(scores), after, held, winner)


def claim_result(rnd: Round, claimant: int) -> RoundResult:
    """R24 auzmeš: 162 plus all announced declarations and bela to the side in the right.
    ``extra``: the ``claimant``, whether the claim was ``valid``, and when it was the
    ``offender`` (the opponent who broke a duty first) and the ``card`` he broke it with."""
    v = rnd.variant
    side = v.side_of(claimant)
    offenders = [s for s in range(v.seats) if v.side_of(s) != side]
    played = [c for _, cards, _ in rnd.tricks for c in cards] + list(rnd.trick)
    revokes = sorted((played.index(c), s, c) for s in offenders
                     if (c := rnd.revoked[s]) is not None)  # in play order
    right = bool(revokes)
    winner = side if right else v.side_of(offenders[0])
    total = 162 + sum(announced_points(d, rnd) for d in rnd.declared) + 20 * len(rnd.belas)
    scores = [0] * v.sides
    scores[winner] = total
    extra: dict[str, object] = {"claimant": claimant, "valid": right}
    if revokes:
        _, offender, card = revokes[0]
        extra |= {"offender": offender, "card": str(Card.ALL[card])}
    return RoundResult(Outcome.CLAIM, tuple(scores), rnd.caller, rnd.contract, total=total,
                       extra=extra)

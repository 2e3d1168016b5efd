"""A score pad (bela blok) for matches played with real cards.

Most Bela is played with real cards and scored on paper.  A pad keeps that paper: per deal
the players write who called, the trump, each side's card points, the declarations and bela
that count and whether a side took every trick; the pad scores the deal with the engine's
rules (:meth:`Variant.score_points`, R21-R23, R28, R34-R37) and books it on the sheet with
the match's (:func:`~bela.engine.scoring.book`: R10, R22, R25).  An entry that cannot be
(points that do not add up to the deal's 162, declarations of two sides, štiglja with points
for the other side...) raises :class:`PadError` with the reason.

A pad's sides are the match's: bela4 two pairs (side 0 and side 1), the other variants each
player alone.  ``caller`` is a side; a pad record is RECORD.md's format without cards
(:meth:`Pad.to_record`, docs/RECORD.md "Score pad records").

>>> pad = Pad("bela4")
>>> pad.add(PadDeal(caller=0, trump="H", points=(92, None), declarations=(20, 0)))
>>> pad.add(PadDeal(caller=1, trump="S", points=(100, 62)))  # side 1 fell (R22)
>>> pad.sheet, pad.totals
([(112, 70), (162, 0)], (274, 70))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .actions import CONTRACT_TOKENS
from .enums import Outcome
from .errors import BelaError
from .rules import NO_TRUMPS
from .scoring import RoundResult, book
from .state import Match
from .variants import VARIANTS, Variant, get_variant
from .variants.base import TableOptions
from .variants.belot2 import raspas_result

DEAL_POINTS = 162  # R2, R3: the cards' points and the last trick's 10
BELA = 20  # R14
RECORD_VERSION = 1


class PadError(BelaError):
    """A deal written on the pad that cannot be: nothing is booked."""


@dataclass(frozen=True)
class PadDeal:
    """One deal as written on the pad.

    ``points``: card points per side, the last trick's 10 in them (bela3: the caller's
    discards too, R27); where every card is played (bela4, bela3) one of them may be
    ``None``: the rest of 162.  ``declarations``:
    the points of the declarations that count, per side (only one side's count, R12);
    ``bela``: how many belas each side called (R14; belot2 VC: one per suit).  ``capot``:
    the side that took every trick (R23).  ``belot``: the side that showed eight of a suit:
    it wins the match, nothing else of the deal counts (R10).  belot2 only: ``raspas``
    (four passes, R34: each scores minus his points; no caller) and ``redeal`` (R35).
    """

    caller: int | None = None
    trump: str | None = None
    points: tuple[int | None, ...] = ()
    declarations: tuple[int, ...] = ()
    bela: tuple[int, ...] = ()
    capot: int | None = None
    belot: int | None = None
    raspas: bool = False
    redeal: bool = False

    def to_json(self) -> dict[str, Any]:
        """The deal as a pad record writes it (only what was written)."""
        if self.belot is not None:
            return {"belot": self.belot}
        if self.redeal:
            return {"redeal": True}
        out: dict[str, Any] = {}
        if self.raspas:
            out["raspas"] = True
        else:
            out["caller"] = self.caller
            out["trump"] = self.trump
        out["points"] = list(self.points)
        if any(self.declarations):
            out["declarations"] = list(self.declarations)
        if any(self.bela):
            out["bela"] = list(self.bela)
        if self.capot is not None:
            out["capot"] = self.capot
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PadDeal:
        """A deal of a pad record; raises :class:`PadError` for a malformed one."""
        if not isinstance(data, Mapping):
            raise PadError("a deal is a JSON object")
        known = {"caller", "trump", "points", "declarations", "bela", "capot", "belot",
                 "raspas", "redeal"}
        unknown = set(data) - known
        if unknown:
            raise PadError(f"unknown keys in a deal: {', '.join(sorted(unknown))}")
        return cls(caller=_opt_int(data, "caller"), trump=_opt_str(data, "trump"),
                   points=tuple(_ints(data, "points", allow_none=True)),
                   declarations=tuple(_ints(data, "declarations")),
                   bela=tuple(_ints(data, "bela")), capot=_opt_int(data, "capot"),
                   belot=_opt_int(data, "belot"), raspas=_flag(data, "raspas"),
                   redeal=_flag(data, "redeal"))


def written(match: Match, index: int) -> PadDeal:
    """What the players write on the pad of round ``index`` of a match the engine played:
    the calling side, the trump, the card points (belot2 BC: before R36 doubles them), the
    declarations and bela that counted, štiglja; a belot, a redeal or raspas as such.

    >>> m = Match("bela4", seed=3)
    >>> rnd = m.deal()
    >>> while not rnd.is_over:
    ...     _ = m.apply(rnd.legal_actions()[0])
    >>> deal = written(m, 0)
    >>> score_deal(m.variant, m.options, deal).scores == m.sheet[0]
    True
    """
    rnd = match.rounds[index]
    res = rnd.result
    if res is None:
        raise PadError(f"round {index} is not over")
    v = match.variant
    if res.outcome == Outcome.BELOT:
        return PadDeal(belot=res.winner)
    if res.outcome == Outcome.REDEAL:
        return PadDeal(redeal=True)
    if res.outcome == Outcome.CLAIM:
        raise PadError("a claim (R24) is settled at the table, not written on a pad")
    factor = 2 if rnd.contract == NO_TRUMPS else 1  # the result doubled BC's points (R36)
    cards = tuple(c // factor for c in res.card_points)
    if res.outcome == Outcome.RASPAS:
        return PadDeal(raspas=True, points=cards)
    tricks = rnd.tricks_won
    capot = next((s for s in range(v.sides) if tricks[s] == sum(tricks)), None)
    assert res.caller is not None
    return PadDeal(caller=v.side_of(res.caller), trump=rnd.trump_name, points=cards,
                   declarations=tuple(d // factor for d in res.declaration_points),
                   bela=tuple(b // BELA for b in res.bela_points), capot=capot)


def score_deal(variant: Variant, options: TableOptions, deal: PadDeal) -> RoundResult:
    """The round result of a written deal (raises :class:`PadError` when it cannot be).

    >>> v = get_variant("bela4")
    >>> score_deal(v, v.make_options({}), PadDeal(0, "H", (81, 81))).scores  # R22: a tie
    (0, 162)
    >>> score_deal(v, v.make_options({}), PadDeal(0, "H", (80, 80)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bela.engine.pad.PadError: the card points add up to 160, not 162: ...
    """
    sides = variant.sides
    if deal.belot is not None:
        if not variant.belot_wins:
            raise PadError(f"{variant.name} has no belot that wins the match (R10)")
        _side(deal.belot, sides, "belot")
        return RoundResult(Outcome.BELOT, (0,) * sides, None, None, winner=deal.belot)
    if deal.redeal:
        if not variant.redeal_ranks:
            raise PadError(f"{variant.name} has no redeal (R35)")
        return RoundResult(Outcome.REDEAL, (0,) * sides, None, None)
    cards = _points(deal.points, sides, all_cards_played(variant))
    if deal.raspas:
        if not variant.raspas:
            raise PadError(f"{variant.name} has no raspas (R34)")
        if deal.caller is not None or any(deal.declarations) or any(deal.bela):
            raise PadError("raspas has no caller, no declarations and no bela (R34, R37)")
        return raspas_result(cards)
    if deal.caller is None:
        raise PadError("write who called")
    _side(deal.caller, sides, "caller")
    contract = _contract(variant, deal.trump)
    decl = _per_side(deal.declarations, sides, "declarations")
    bela = _per_side(deal.bela, sides, "bela")
    for points in decl:
        if points and points not in declaration_sums(variant):
            raise PadError(f"no declarations make {points} points (R9)")
    if sum(1 for d in decl if d) > 1:
        raise PadError("only one side's declarations count (R12): write the others' as 0")
    most = variant.bela_suits(contract).bit_count()  # R14; belot2 R37: VC each suit, BC none
    if sum(bela) > most:
        raise PadError(f"at most {most} bela in this contract (R14)" if most else
                       "there is no bela without a trump (R37)")
    capot = deal.capot
    if capot is not None:
        _side(capot, sides, "capot")
        if variant.capot_bonus == 0:
            capot = None  # R36: taking every trick is a pass like any other
        elif any(cards[s] for s in range(sides) if s != capot):
            raise PadError("the side that took every trick has all the card points (R23)")
        elif any(decl[s] or bela[s] for s in range(sides) if s != capot):
            raise PadError("a side without a trick scores no declarations and no bela (R15)")
    seat = next(s for s in range(variant.seats) if variant.side_of(s) == deal.caller)
    return variant.score_points(options, seat, contract, cards, decl,
                                [BELA * b for b in bela], capot)


@dataclass
class Pad:
    """A match on paper: its variant, table options, names (one per side) and deals, and
    the sheet the engine books from them."""

    variant_name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    names: Sequence[str] = ()
    deals: list[PadDeal] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.variant = get_variant(self.variant_name)
        self.table_options = self.variant.make_options(dict(self.options))
        sides = self.variant.sides
        if self.names and len(self.names) != sides:
            raise PadError(f"{self.variant.name} has {sides} sides: give {sides} names")
        self.names = list(self.names) or [f"{i + 1}" for i in range(sides)]
        self._book()

    def _book(self) -> None:
        self.results: list[RoundResult] = []
        self.sheet: list[tuple[int, ...]] = []
        self.totals: tuple[int, ...] = (0,) * self.variant.sides
        self.held = 0
        self.winner: int | None = None
        for i, deal in enumerate(self.deals):
            if self.winner is not None:
                raise PadError(f"deal {i + 1} comes after the match was won (R25)")
            try:
                res = score_deal(self.variant, self.table_options, deal)
            except PadError as exc:
                raise PadError(f"deal {i + 1}: {exc}") from None
            b = book(res, self.totals, self.held, self.winner, self.table_options.target)
            self.results.append(res)
            self.sheet.append(b.scores)
            self.totals, self.held, self.winner = b.totals, b.held, b.winner

    def add(self, deal: PadDeal) -> None:
        """Write the next deal (raises :class:`PadError`, changing nothing, when it cannot
        be or the match is over)."""
        self.replace(len(self.deals), deal)

    def replace(self, index: int, deal: PadDeal) -> None:
        """Correct deal ``index`` (``len(deals)``: add one); the sheet is booked again."""
        if not 0 <= index <= len(self.deals):
            raise PadError(f"there is no deal {index + 1}")
        before = list(self.deals)
        self.deals[index:index + 1] = [deal]
        try:
            self._book()
        except PadError:
            self.deals = before
            self._book()
            raise

    def remove(self, index: int) -> None:
        """Strike deal ``index`` out."""
        if not 0 <= index < len(self.deals):
            raise PadError(f"there is no deal {index + 1}")
        before = list(self.deals)
        del self.deals[index]
        try:
            self._book()
        except PadError:  # the match would end earlier: a later deal comes after its end
            self.deals = before
            self._book()
            raise

    def score(self) -> dict[str, Any]:
        """The sheet as ``bela score --json`` gives it (RECORD.md): per deal ``caller``
        (a side), ``trump``, ``outcome``, ``scores``; ``totals``, ``winner``, ``held``."""
        rounds = [{"caller": d.caller if r.caller is not None else None, "trump": d.trump,
                   "outcome": str(r.outcome), "scores": list(s)}
                  for d, r, s in zip(self.deals, self.results, self.sheet)]
        return {"rounds": rounds, "totals": list(self.totals), "winner": self.winner,
                "held": self.held}

    def to_record(self) -> dict[str, Any]:
        """The pad record (RECORD.md's format for a match scored on paper)."""
        default = self.variant.make_options({}).as_dict()
        options = {k: v for k, v in self.table_options.as_dict().items()
                   if k in self.variant.options and default[k] != v}
        return {"pad": RECORD_VERSION, "variant": self.variant.name, "options": options,
                "names": list(self.names), "deals": [d.to_json() for d in self.deals]}

    @classmethod
    def from_record(cls, data: Any) -> Pad:
        """A pad from its record; raises :class:`PadError` (or the engine's option errors,
        also :class:`~bela.engine.errors.BelaError`) for one that is not valid."""
        if not isinstance(data, Mapping) or data.get("pad") != RECORD_VERSION:
            raise PadError(f'a pad record is a JSON object with "pad": {RECORD_VERSION}')
        variant = data.get("variant")
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise PadError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
        options, names, deals = data.get("options", {}), data.get("names", []), data.get("deals")
        if not isinstance(options, Mapping):
            raise PadError("options is a JSON object")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise PadError("names is a list of strings")
        if not isinstance(deals, list):
            raise PadError("deals is a list")
        return cls(variant, dict(options), names, [PadDeal.from_json(d) for d in deals])


MOST_DECLARATIONS = 6  # a side's declarations at most: three in each of bela4's two hands


def declaration_sums(variant: Variant) -> frozenset[int]:
    """The points a side's declarations can make in ``variant``: sums of up to
    :data:`MOST_DECLARATIONS` declaration values (R9, R12: a side scores all its players'
    declarations; belot2 R37).  Worked out once per variant.

    >>> sorted(declaration_sums(get_variant("bela4")))[:6]
    [20, 40, 50, 60, 70, 80]
    >>> 380 in declaration_sums(get_variant("bela4"))  # 200 + 20 + 20 and 100 + 20 + 20
    True
    """
    return _sums(variant.name)


@cache
def _sums(variant_name: str) -> frozenset[int]:
    values = _declaration_values(get_variant(variant_name))
    sums = {0}
    for _ in range(MOST_DECLARATIONS):
        sums |= {s + v for s in sums for v in values}
    return frozenset(sums - {0})


def _declaration_values(variant: Variant) -> set[int]:
    v = variant.declaration_values
    return {*v["four"].values(), *v["sequence"].values(), v["long"]}


def pad_rules(variant: Variant) -> dict[str, Any]:
    """The facts of ``variant`` a score pad's form is built from (and a browser scores a
    deal with, checked against :func:`score_deal` by the web tests)."""
    return {"variant": variant.name, "sides": variant.sides, "seats": variant.seats,
            "deal_points": DEAL_POINTS, "all_cards": all_cards_played(variant),
            "capot_bonus": variant.capot_bonus,
            "contracts": [CONTRACT_TOKENS[c] for c in variant_contracts(variant)],
            "belot_wins": variant.belot_wins, "raspas": variant.raspas,
            "redeal": bool(variant.redeal_ranks), "options": list(variant.options),
            "defaults": variant.make_options({}).as_dict(),
            "declarations": sorted(declaration_sums(variant)),
            "declaration_values": sorted(_declaration_values(variant)),
            # R14, R37: the most bela per contract (belot2 VC: one per suit, BC none)
            "bela": {CONTRACT_TOKENS[c]: variant.bela_suits(c).bit_count()
                     for c in variant_contracts(variant)},
            # R36: the contracts that double every point (belot2 BC)
            "doubled": [CONTRACT_TOKENS[c] for c in variant.extra_contracts
                        if c == NO_TRUMPS],
            # a falling caller: R22 the other side takes the total; R28 (three sides) he
            # scores 0 and the others their own
            "fall": "own" if variant.sides > 2 else "others"}


def variant_contracts(variant: Variant) -> list[int]:
    """The contracts a caller may choose: the four suits, and belot2's VC and BC."""
    return list(range(4)) + list(variant.extra_contracts)


# -- checks of a written deal -------------------------------------------------------------------
def _points(points: Sequence[int | None], sides: int, fixed: bool) -> list[int]:
    """The card points per side; with ``fixed`` (every card is played) they add up to 162
    and one may be left out; otherwise (two players, R33) each is written, and they add up
    to the cards played and the last trick's 10: at most 162."""
    if len(points) != sides:
        raise PadError(f"write the card points of each of the {sides} sides")
    missing = [i for i, p in enumerate(points) if p is None]
    if len(missing) > (1 if fixed else 0):
        raise PadError("write the card points of every side but one at most" if fixed else
                       "write the card points of every player: not every card is played "
                       "(R33), so the rest of 162 says nothing")
    given = [p for p in points if p is not None]
    if any(p < 0 or p > DEAL_POINTS for p in given):
        raise PadError(f"card points are 0 to {DEAL_POINTS}")
    cards = [0 if p is None else p for p in points]
    if missing:
        rest = DEAL_POINTS - sum(given)
        if rest < 0:
            raise PadError(f"the card points add up to {sum(given)}, more than "
                           f"{DEAL_POINTS}")
        cards[missing[0]] = rest
    if fixed and sum(cards) != DEAL_POINTS:
        raise PadError(f"the card points add up to {sum(cards)}, not {DEAL_POINTS}: a deal "
                       "has 152 in its cards and 10 for the last trick (R2, R3)")
    if not fixed and not 10 <= sum(cards) <= DEAL_POINTS:
        raise PadError(f"the card points add up to {sum(cards)}: with the last trick's 10 "
                       f"they are 10 to {DEAL_POINTS} (R3, R33)")
    return cards


def all_cards_played(variant: Variant) -> bool:
    """Whether a deal plays (or discards) all 32 cards, so its card points are always 162
    (bela4, bela3); two players play only part of the deck (R33).

    >>> {name: all_cards_played(v) for name, v in VARIANTS.items()}
    {'bela4': True, 'bela3': True, 'bela2': False, 'belot2': False}
    """
    return variant.seats * variant.hand_cards + variant.discards >= 32


def _per_side(values: Sequence[int], sides: int, what: str) -> list[int]:
    if not values:
        return [0] * sides
    if len(values) != sides or any(v < 0 for v in values):
        raise PadError(f"{what}: one number per side ({sides}), none below 0")
    return list(values)


def _side(side: int, sides: int, what: str) -> None:
    if not 0 <= side < sides:
        raise PadError(f"{what}: a side 0 to {sides - 1}")


def _contract(variant: Variant, trump: str | None) -> int:
    allowed = {CONTRACT_TOKENS[c]: c for c in variant_contracts(variant)}
    if trump not in allowed:
        raise PadError(f"write the trump: {', '.join(allowed)}")
    return allowed[trump]


def _opt_int(data: Mapping[str, Any], key: str) -> int | None:
    v = data.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise PadError(f"{key} is a whole number or null")
    return v


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    v = data.get(key)
    if v is not None and not isinstance(v, str):
        raise PadError(f"{key} is a string or null")
    return v


def _flag(data: Mapping[str, Any], key: str) -> bool:
    v = data.get(key, False)
    if not isinstance(v, bool):
        raise PadError(f"{key} is true or false")
    return v


def _ints(data: Mapping[str, Any], key: str, allow_none: bool = False) -> list[Any]:
    v = data.get(key, [])
    if not isinstance(v, list) or not all(
            (x is None and allow_none) or (isinstance(x, int) and not isinstance(x, bool))
            for x in v):
        raise PadError(f"{key} is a list of whole numbers"
                       + (" (null for the one to work out)" if allow_none else ""))
    return v


__all__ = ["DEAL_POINTS", "Pad", "PadDeal", "PadError", "declaration_sums", "pad_rules",
           "score_deal", "written"]

"""Fixed action spaces and observation vectors built from seat views only.

Every action a variant can produce has one index, enumerated once from the engine's own
vocabulary (:mod:`bela.engine.actions`), in this order:

- the 32 cards (``Card`` order), then the 8 bela plays of a king or queen (``KH*`` ...);
- ``pass`` and the variant's contracts (``H D S C``, belot2 also ``VC BC``);
- the exchange (bela2 ``swap keep``; belot2 ``swap redeal keep``);
- bela3's discards: the 496 pairs of cards, in ``Card`` order;
- 15 declaration slots: announcing is a choice among the subsets of the declarations the hand
  holds (R13), combinatorial in cards but small in count: a hand of at most 10 cards holds at
  most 4 declarations.  Slot ``b - 1`` announces the subset ``b`` (a bit mask) of the held
  declarations in the order the engine lists them (the largest option, announcing all,
  names them), so slot 0 is "the first declaration alone";
- ``claim`` (the acting seat's claim, R24) where the table may turn the duties off.

>>> from bela.engine import Match
>>> from bela.engine.views import seat_view
>>> space = ActionSpace.for_variant("bela3")
>>> space.n, space.labels[40], space.labels[-1]
(556, 'pass', 'declare#15')
>>> m = Match("bela3", seed=1); _ = m.deal(); view = seat_view(m, m.round.turn)
>>> [space.labels[i] for i in space.mask(view).nonzero()[0]]
['H', 'D', 'S', 'C']
>>> space.action(space.index(view.legal[1], view), view).token()
'D'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt

from ..engine.actions import (
    BELA_PLAYS,
    CALLS,
    CONTRACT_TOKENS,
    DECLINE,
    PASS,
    PLAYS,
    REDEAL,
    SWAP,
    Action,
    Claim,
    Declare,
    Discard,
)
from ..engine.cards import Card
from ..engine.enums import Phase
from ..engine.variants import get_variant
from ..engine.variants.base import Variant
from ..engine.views import SeatView

DECLARE_SLOTS = 15  # subsets of at most 4 held declarations
BELA_CARDS = tuple(c for c in Card.ALL if c % 8 in (5, 6))  # the queens and kings (R14)
PHASES = tuple(Phase)


def _has_exchange(v: Variant) -> bool:
    return type(v).exchange_options is not Variant.exchange_options


@dataclass(frozen=True)
class ActionSpace:
    """The indices of one variant's actions (see the module's docstring)."""

    variant: str
    actions: tuple[Action | None, ...]  # None: a declaration slot or the claim
    labels: tuple[str, ...]
    declare_at: int  # the index of declaration slot 0
    claim_at: int | None
    fixed: dict[Action, int] = field(compare=False, hash=False, repr=False)

    @staticmethod
    @cache
    def for_variant(name: str) -> ActionSpace:
        v = get_variant(name)
        acts: list[Action | None] = [*PLAYS, *(BELA_PLAYS[c] for c in BELA_CARDS), PASS,
                                     *(CALLS[c] for c in (0, 1, 2, 3, *v.extra_contracts))]
        if _has_exchange(v):
            acts += [SWAP, *([REDEAL] if v.redeal_ranks else []), DECLINE]
        if v.discards:
            acts += [Discard((a, b)) for a in Card.ALL for b in Card.ALL[a + 1:]]
        labels = [a.token() for a in acts if a is not None]
        declare_at = len(acts)
        acts += [None] * DECLARE_SLOTS
        labels += [f"declare#{i + 1}" for i in range(DECLARE_SLOTS)]
        claim_at = None
        if "enforce" in v.options:
            claim_at = len(acts)
            acts.append(None)
            labels.append("claim")
        fixed = {a: i for i, a in enumerate(acts) if a is not None}
        return ActionSpace(name, tuple(acts), tuple(labels), declare_at, claim_at, fixed)

    @property
    def n(self) -> int:
        return len(self.actions)

    def index(self, action: Action, view: SeatView) -> int:
        """The index of ``action``, one of ``view.legal`` (or the seat's claim)."""
        if isinstance(action, Claim):
            if self.claim_at is None or action.seat != view.seat:
                raise ValueError(f"{action.token()!r} has no index for seat {view.seat}")
            return self.claim_at
        if isinstance(action, Declare):
            held = _held(view)
            bits = 0
            for g in action.groups:
                if g not in held:
                    raise ValueError(f"{action.token()!r} is not a declaration the hand holds")
                bits |= 1 << held.index(g)
            if not 0 < bits <= DECLARE_SLOTS:
                raise ValueError(f"{action.token()!r} is beyond the declaration slots")
            return self.declare_at + bits - 1
        try:
            return self.fixed[action]
        except KeyError:
            raise ValueError(f"{self.variant} has no action {action.token()!r}") from None

    def action(self, index: int, view: SeatView) -> Action:
        """The action at ``index`` for ``view`` (raises ``ValueError`` unless legal)."""
        if not 0 <= index < self.n:
            raise ValueError(f"action index {index} is not in 0..{self.n - 1}")
        act = self.actions[index]
        if act is None:
            if index == self.claim_at:
                if view.claim_allowed and view.seat is not None and view.turn == view.seat:
                    return Claim(view.seat)
                raise ValueError("a claim is not allowed now (R24)")
            bits = index - self.declare_at + 1
            held = _held(view)
            if bits >> len(held):
                raise ValueError(f"declaration slot {bits} is not held now")
            act = Declare(tuple(g for i, g in enumerate(held) if bits >> i & 1))
        if act not in view.legal:
            raise ValueError(f"{self.labels[index]!r} is not legal now")
        return act

    def mask(self, view: SeatView) -> npt.NDArray[np.int8]:
        """1 for each index whose action is legal for ``view`` (all 0 off turn)."""
        out = np.zeros(self.n, dtype=np.int8)
        for a in view.legal:
            out[self.index(a, view)] = 1
        if (self.claim_at is not None and view.claim_allowed and view.seat is not None
                and view.turn == view.seat):
            out[self.claim_at] = 1
        return out


def _held(view: SeatView) -> tuple[tuple[Card, ...], ...]:
    """The declarations the seat may announce, named by its largest option (all of them)."""
    for a in view.legal:
        if isinstance(a, Declare):
            return a.groups  # the engine lists the full subset first
    return ()


# -- observations ---------------------------------------------------------------------------

BIDS = ("pass", *CONTRACT_TOKENS)
EXCHANGES = ("swap", "redeal", "keep")


def observation_size(variant: str) -> int:
    """The length of :func:`observe`'s vector for ``variant`` (its parts, in order).

    >>> observation_size("bela4"), observation_size("bela2")
    (806, 496)
    """
    v = get_variant(variant)
    n, s = v.seats, v.sides
    parts = [32, 1, n, n * 32, n, n * 32, 32, 32, 32, 32, n * 32, 7, n + 1, 1,
             n * (len(BIDS) + 1), n * 3, n * (4 + 32), n * 4, n + 1, 1, s, s, n + 1,
             s, len(PHASES), n, n, n + 1, 1]
    return sum(parts)


def observe(view: SeatView) -> npt.NDArray[np.float32]:
    """The observation vector of a seat's view, every entry in 0..1, seats relative to the
    viewer (0 = the viewer, 1 = the next seat ...) and sides relative to the viewer's side.

    Parts, in order: own hand (32); own unseen cards / 8; hand sizes / 12 per seat; the
    current trick's card per seat (32 each) and its leader; the cards each seat has played
    this round (32 each); the face-up ``turned`` and ``bottom`` cards, the first card turned
    up, own discards (bela3) (32 each); per seat the cards its plays showed it does not hold
    (32 each); the contract (6 + none); the caller (per seat + none); raspas; per seat its
    last bid (pass + 6 contracts) and its number of bids / 4; per seat its swap, redeal and
    (own) keep; per seat its declarations: announced, count / 4, value / 200, seniority, and
    the cards shown (32); per seat its bela suits; the seat holding the strongest declaration
    (+ none) and whether there was a tie; card points / 162 and tricks won / 10 per side; the
    seat winning the trick so far (+ none); totals / target per side; the phase; the dealer,
    the first seat, the seat to act (+ none); whether a claim is allowed.
    """
    assert view.seat is not None, "a player's view"
    n, me = view.seats, view.seat
    out: list[float] = []

    def rel(seat: int | None) -> int | None:
        return None if seat is None else (seat - me) % n

    def one_hot(i: int | None, size: int) -> None:
        v = [0.0] * size
        if i is not None:
            v[i] = 1.0
        out.extend(v)

    def seat_hot(seat: int | None, none: bool) -> None:
        r = rel(seat)
        one_hot(n if r is None and none else r, n + none)

    def cards(mask: int) -> None:
        out.extend(float(mask >> c & 1) for c in range(32))

    def by_seat(masks: dict[int, int]) -> None:
        for r in range(n):
            cards(masks.get((me + r) % n, 0))

    def side_values(values: tuple[int, ...], scale: float) -> None:
        s = view.sides
        mine = me % s
        out.extend(min(max(values[(mine + i) % s] / scale, 0.0), 1.0) for i in range(s))

    cards(view.hand.mask)
    out.append(view.unseen / 8)
    out.extend(view.hand_sizes[(me + r) % n] / 12 for r in range(n))
    by_seat({s: 1 << c for s, c in view.trick})
    seat_hot(view.trick[0][0] if view.trick else None, False)
    played: dict[int, int] = {}
    for trick, _ in view.tricks:
        for s, c in trick:
            played[s] = played.get(s, 0) | 1 << c
    for s, c in view.trick:
        played[s] = played.get(s, 0) | 1 << c
    by_seat(played)
    for key in ("turned", "bottom"):
        card = view.public.get(key)
        cards(0 if card is None else 1 << card)
    cards(0 if view.opened is None else 1 << view.opened)
    cards(view.discards.mask if view.discards is not None else 0)
    by_seat({s: m.mask for s, m in enumerate(view.ruled_out)})
    one_hot(6 if view.contract is None else view.contract, 7)
    seat_hot(view.caller, True)
    out.append(float(view.raspas))
    last: dict[int, str] = {}
    count = [0] * n
    for s, token in view.bids:
        last[s] = token
        count[s] += 1
    for r in range(n):
        s = (me + r) % n
        one_hot(BIDS.index(last[s]) if s in last else None, len(BIDS))
        out.append(min(count[s] / 4, 1.0))
    exch = {(s, t) for s, t in view.exchanges}
    for r in range(n):
        out.extend(float(((me + r) % n, t) in exch) for t in EXCHANGES)
    for r in range(n):
        decls = view.declared[(me + r) % n]
        if decls is None:
            out.extend([0.0] * (4 + 32))
            continue
        shown = 0
        for d in decls:
            shown |= d.cards.mask if d.cards is not None else 0
        out.extend([1.0, min(len(decls) / 4, 1.0),
                    min(sum(d.value for d in decls) / 200, 1.0),
                    min(max((d.strength for d in decls), default=0) / 10_000, 1.0)])
        cards(shown)
    belas = {(s, suit) for s, suit in view.belas}
    for r in range(n):
        out.extend(float(((me + r) % n, suit) in belas) for suit in range(4))
    seat_hot(view.declarations_seat, True)
    out.append(float(view.declarations_tie))
    side_values(view.card_points, 162)
    side_values(view.tricks_won, 10)
    seat_hot(view.trick_winner, True)
    side_values(view.totals, float(view.options["target"]))
    one_hot(PHASES.index(view.phase), len(PHASES))
    seat_hot(view.dealer, False)
    seat_hot(view.first, False)
    seat_hot(view.turn, True)
    out.append(float(view.claim_allowed))
    return np.asarray(out, dtype=np.float32)

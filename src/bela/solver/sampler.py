"""Deal sampler: full deals consistent with one seat's view (the input of PIMC and friends).

>>> import random
>>> from bela.engine import Match
>>> from bela.engine.views import seat_view
>>> m = Match("bela4", seed=3); rnd = m.deal()
>>> view = seat_view(m, 1)
>>> deals = sample_deals(view, 5, random.Random(0))
>>> all(d.hands[1] & view.hand.mask == view.hand.mask for d in deals)
True
>>> view_differences(view, replay_view(view, deals[0]))
[]

:func:`sample_deals` draws deals uniformly among all deals consistent with the hard
constraints of the view (:mod:`bela.solver.inference`: cards seen, voids and the other
duties, declarations, bela, face-up cards, the exchange), reweighted by the soft evidence of
the bids and of two habits of play (:class:`~bela.solver.inference.BidModel`, by exact
rejection against an upper bound; ``soft=False`` turns it off).  The hard part is exact:

1. the view leaves a few discrete *hypotheses* open (the suit of an unshown sequence, a swap
   of the 7 of trump); each fixes some cards per seat and forbids others;
2. the unknown cards are grouped by the set of places (seats, the viewer's unseen talon, the
   cards out of play) that may hold them; a dynamic programme over these groups counts the
   completions that fill every place exactly (:class:`_Counter`);
3. a hypothesis is drawn with probability proportional to its count, then each group's split
   over its places, then which cards go where.  No rejection is needed for the hard
   constraints, so a sample costs a few dozen microseconds, and an unsatisfiable view is
   reported at once (:class:`~bela.solver.inference.InconsistentView`).

A :class:`SampledDeal` has the hands as they are now and the deal as dealt, so that
:func:`to_round` can rebuild an engine :class:`~bela.engine.state.Round` whose view for the
seat is the original view (the property the tests check on random rounds of every variant).

With ``inference=False`` only the cards seen count (own hand, cards played, face-up cards,
own discards, shown declarations): the arena's baseline.  Such deals need not replay to the
view (a seat may get a card of a suit it showed void in); ``to_round(..., strict=False)``
still builds a playable position from them.

Cost (one core, CPython 3.11): compiling a view takes well under a millisecond and one deal
about 15 microseconds: 100 deals of a bela4 view after four tricks take about 1.5 ms, and
2.5 ms (90th percentile 5 ms) with the bid model, which rejects some deals.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from math import factorial
from typing import cast

from ..engine.actions import (
    DECLINE,
    REDEAL,
    SWAP,
    Action,
    Claim,
    Declare,
    Discard,
    Play,
    parse_action,
)
from ..engine.cards import KING, QUEEN, Card, iter_cards
from ..engine.declarations import Declaration, find_declarations
from ..engine.enums import Phase
from ..engine.errors import IllegalAction
from ..engine.state import Match, Round
from ..engine.variants import get_variant
from ..engine.variants.base import Deal, TableOptions
from ..engine.views import SeatView, seat_view
from .inference import (
    DEFAULT_BID_MODEL,
    FULL,
    BidModel,
    Hypothesis,
    InconsistentView,
    Knowledge,
    bid_bound,
    bid_likelihood,
    candidates,
    deciding_seat,
    gather,
    habit_checks,
    revokes_in_order,
    tricks_of,
)

__all__ = [
    "DealSampler",
    "InconsistentView",
    "SampledDeal",
    "sample_deals",
    "to_round",
    "replay_view",
    "view_differences",
    "check_deal",
    "ROUND_FIELDS",
]

_FACT = [factorial(i) for i in range(33)]
PILE = -1  # the place of the cards out of play (stock, bottom, extra, unknown discards)


@dataclass(frozen=True)
class SampledDeal:
    """One full deal consistent with a view (card sets are 32-bit masks).

    - ``hands``: the cards each seat holds now, the viewer's unseen talon cards included (as
      in the engine): the input of a double-dummy search;
    - ``start``: each seat's hand at the start of play (after discards and swaps; before
      that, the current hand);
    - ``dealt``: each seat's hand as dealt, and ``seen`` the part of it the seat saw before
      its bid (the first 6 cards: the viewer's visible cards while it has unseen ones, a
      random part for the seats whose bids the bid model weighs, else the lowest cards, as
      nothing observable depends on it); ``extra``: the variant's other dealt cards by RECORD.md
      key (bela3 ``extra``, bela2/belot2 ``turned``, belot2 ``bottom``); :attr:`deal` is the
      engine :class:`~bela.engine.variants.base.Deal` made of them;
    - ``out``: the cards out of play (bela2/belot2 stock, face-up cards, bela3 discards);
    - ``discards``: the bela3 caller's discards; ``swap`` / ``redeal``: the seat that swapped
      the 7 of trump / demanded a redeal (R32, R35), or None;
    - ``declarations``: each seat's announced declarations as concrete cards (``None``: not
      announced yet, or not known with ``inference=False``);
    - ``weight``: the likelihood of the bids (and habits) under the bid model, already
      accounted for by the sampling (informative only; 1.0 without the model).
    """

    hands: tuple[int, ...]
    start: tuple[int, ...]
    dealt: tuple[int, ...]
    seen: tuple[int, ...]
    extra: tuple[tuple[str, int], ...]
    out: int
    discards: int
    swap: int | None
    redeal: int | None
    declarations: tuple[tuple[Declaration, ...] | None, ...]
    weight: float = 1.0

    @cached_property
    def deal(self) -> Deal:
        """The deal as the engine takes it: per seat the seen cards first, then the talon."""
        hands = tuple(tuple(iter_cards(seen)) + tuple(iter_cards(dealt & ~seen))
                      for dealt, seen in zip(self.dealt, self.seen))
        return Deal(hands, {k: tuple(iter_cards(m)) for k, m in self.extra})


# -- counting and drawing completions ---------------------------------------------------------

def _splits(m: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to split ``m`` cards over places with capacities ``caps``."""
    k = len(caps)
    if k == 1:
        if m <= caps[0]:
            yield (m,)
        return
    rest = sum(caps[1:])
    for first in range(max(0, m - rest), min(m, caps[0]) + 1):
        for tail in _splits(m - first, caps[1:]):
            yield (first, *tail)


class _Counter:
    """Counts and draws assignments of card groups to places with exact quotas.

    ``classes[i] = (places, cards)``: the cards that may go to exactly these places.  The
    number of completions from group ``i`` with quotas ``q`` is
    ``sum over splits k of multinomial(len(cards); k) * count(i + 1, q - k)``.
    """

    def __init__(self, classes: list[tuple[tuple[int, ...], list[int]]], places: int) -> None:
        self.classes = classes
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.choices: dict[tuple[int, tuple[int, ...]],
                           tuple[list[int], list[tuple[tuple[int, ...], tuple[int, ...]]]]] = {}
        # cap[i][p]: cards of groups i.. that may go to place p (prunes hopeless quotas)
        cap = [[0] * places for _ in range(len(classes) + 1)]
        for i in range(len(classes) - 1, -1, -1):
            cap[i] = list(cap[i + 1])
            for p in classes[i][0]:
                cap[i][p] += len(classes[i][1])
        self.cap = cap

    def _options(self, i: int, q: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...],
                                                                      tuple[int, ...]]]:
        locs, cards = self.classes[i]
        m = len(cards)
        for k in _splits(m, [q[p] for p in locs]):
            q2 = list(q)
            for p, kk in zip(locs, k):
                q2[p] -= kk
            t2 = tuple(q2)
            sub = self.count(i + 1, t2)
            if sub:
                ways = _FACT[m]
                for kk in k:
                    ways //= _FACT[kk]
                yield ways * sub, k, t2

    def count(self, i: int, q: tuple[int, ...]) -> int:
        if i == len(self.classes):
            return 0 if any(q) else 1
        key = (i, q)
        got = self.memo.get(key)
        if got is None:
            cap = self.cap[i]
            if any(qq > cc for qq, cc in zip(q, cap)):
                got = 0
            else:
                got = sum(w for w, _, _ in self._options(i, q))
            self.memo[key] = got
        return got

    def draw(self, q: tuple[int, ...], rng: random.Random) -> list[tuple[int, ...]]:
        """One split per group, drawn with probability proportional to its completions."""
        out = []
        for i in range(len(self.classes)):
            key = (i, q)
            ch = self.choices.get(key)
            if ch is None:
                cum: list[int] = []
                opts: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
                total = 0
                for w, k, q2 in self._options(i, q):
                    total += w
                    cum.append(total)
                    opts.append((k, q2))
                ch = (cum, opts)
                self.choices[key] = ch
            cum, opts = ch
            k, q = opts[bisect_right(cum, rng.randrange(cum[-1]))]
            out.append(k)
        return out


@dataclass
class _Plan:
    """One hypothesis, ready to draw from."""

    hyp: Hypothesis
    places: list[int]  # seat per place (PILE for the cards out of play)
    fixed: list[int]  # cards each place holds for sure (the viewer's visible cards, musts)
    quotas: tuple[int, ...]
    counter: _Counter
    count: int


# The likelihood, in (0, 1], of a view's public bids given each seat's bid-time cards (None
# for the viewer): another reading of the bids than :class:`BidModel`'s
BidLikelihood = Callable[[SeatView, Sequence[int | None]], float]


class DealSampler:
    """The constraints of one view, compiled once; :meth:`draw` returns one deal.

    ``inference=False`` keeps only the cards seen (own hand, played, face-up, own discards,
    shown declarations); ``soft`` applies the bid model by rejection (``model`` to tune it,
    or ``bids`` to read the bids another way, e.g.
    :class:`bela.bots.contracts.EstimateBids`; the habits of play stay ``model``'s).
    """

    def __init__(self, view: SeatView, inference: bool = True, soft: bool = True,
                 model: BidModel = DEFAULT_BID_MODEL, bids: BidLikelihood | None = None
                 ) -> None:
        self.view = view
        self.inference = inference
        self.know: Knowledge = gather(view, inference)
        self.variant = self.know.variant
        self.habits = habit_checks(view, self.variant, model) if soft and inference else ()
        self.soft = soft and inference and bool(view.bids or self.habits)
        # seats whose bid-time cards matter (the bid model); the others' split between the
        # first 6 cards and the talon is unobservable and left in card order
        self.bidders = {s for s, _ in view.bids if s != view.seat} if self.soft else set()
        self.model = model
        self.bids = bids
        self.n = self.variant.seats
        plans = [p for p in (self._plan(h) for h in self.know.hypotheses) if p is not None]
        if not plans:
            raise InconsistentView(
                f"no deal of {view.variant} is consistent with the view of seat {view.seat}")
        self.plans = plans
        self.cum: list[int] = []
        total = 0
        for p in plans:
            total += p.count
            self.cum.append(total)
        self.worlds = total  # the number of consistent deals (hard constraints)
        self.bound = 1.0
        if self.soft and bids is None:
            k = self.know
            loose = FULL & ~k.known
            face_up = sum(1 << int(c) for c in view.public.values())
            possible: list[int | None] = [
                None if s == k.viewer else
                k.played[s] | face_up | (loose if self.variant.discards  # R27: a card
                                         else loose & ~k.forbid[s])  # may be discarded
                for s in range(self.n)]
            self.bound = bid_bound(view, possible, model)

    # -- compiling ----------------------------------------------------------------------------
    def _plan(self, h: Hypothesis) -> _Plan | None:
        k = self.know
        viewer = k.viewer
        places: list[int] = []
        fixed: list[int] = []
        quotas: list[int] = []
        forbids: list[int] = []
        used = 0
        for s in range(self.n):
            own = k.played[s] | (k.visible if s == viewer else 0)
            if h.absent[s] & own:
                return None
            must = h.must[s] & ~own
            if must & (k.known | used) or must & (k.forbid[s] | h.absent[s]):
                return None
            used |= must
            size = k.unseen if s == viewer else k.sizes[s]
            quota = size - must.bit_count()
            if quota < 0:
                return None
            if s == viewer and not k.unseen and not must:
                continue
            places.append(s)
            fixed.append(must | (k.visible if s == viewer else 0))
            quotas.append(quota)
            forbids.append(k.forbid[s] | h.absent[s])
        pool = FULL & ~k.known & ~used
        pile = pool.bit_count() - sum(quotas)
        if pile < 0:
            return None
        places.append(PILE)
        fixed.append(0)
        quotas.append(pile)
        forbids.append(0)
        groups: dict[tuple[int, ...], list[int]] = {}
        for c in iter_cards(pool):
            allowed = tuple(i for i, f in enumerate(forbids) if quotas[i] and not f >> c & 1)
            if not allowed:
                return None
            groups.setdefault(allowed, []).append(int(c))
        classes = sorted(groups.items(), key=lambda kv: (len(kv[0]), kv[0]))
        counter = _Counter(classes, len(places))
        q = tuple(quotas)
        count = counter.count(0, q)
        if not count:
            return None
        return _Plan(h, places, fixed, q, counter, count)

    # -- drawing ------------------------------------------------------------------------------
    def draw_hard(self, rng: random.Random, soft: bool = False) -> SampledDeal | None:
        """One deal uniform among those meeting the hard constraints, or None when it is
        rejected: by an ordered-option or claim check (rare), or with ``soft`` by the bid
        model (with probability ``1 - likelihood / bound``); draw again then."""
        plan = self.plans[bisect_right(self.cum, rng.randrange(self.worlds))]
        splits = plan.counter.draw(plan.quotas, rng)
        holding = list(plan.fixed)
        for (locs, cards), k in zip(plan.counter.classes, splits):
            if len(locs) > 1:
                cards = list(cards)
                _shuffle_head(cards, len(cards) - k[-1], rng)
            at = 0
            for p, kk in zip(locs, k):
                m = 0
                for c in cards[at:at + kk]:
                    m |= 1 << c
                holding[p] |= m
                at += kk
        return self._build(plan, holding, rng, soft and self.soft)

    def _build(self, plan: _Plan, holding: list[int], rng: random.Random,
               soft: bool) -> SampledDeal | None:
        k = self.know
        view = self.view
        h = plan.hyp
        n = self.n
        hands = [0] * n
        pile = 0
        for p, m in zip(plan.places, holding):
            if p == PILE:
                pile = m
            else:
                hands[p] = m
        if k.viewer is not None and k.viewer not in plan.places:
            hands[k.viewer] = k.visible
        start = [hands[s] | k.played[s] for s in range(n)]
        for seat, earlier in h.first_options:
            if any(start[seat] & m == m for m in earlier):
                return None
        if k.must_revoke:  # a valid claim: an opponent broke a duty, the first as named
            revokes = [r for r in revokes_in_order(view, self.variant, hands)
                       if r[0] in k.must_revoke]
            if not revokes or (k.first_revoke is not None and revokes[0] != k.first_revoke):
                return None
        # the deal as dealt
        dealt = list(start)
        extra: list[tuple[str, int]] = []
        discards = 0
        keys = self.variant.deal_keys
        out = pile
        for c in view.public.values():
            out |= 1 << int(c)
        if "extra" in keys:  # bela3: the first seat's 2 extra cards, then its discards
            caller = view.first
            if view.phase == "bidding":
                extra.append(("extra", pile))
            else:
                if view.phase != "discard":
                    discards = view.discards.mask if view.discards is not None else pile
                    out |= discards
                twelve = start[caller] | discards
                two = _subset(twelve, 2, rng)
                dealt[caller] = twelve & ~two
                extra.append(("extra", two))
        elif "turned" in keys:
            turned = int(view.public["turned"])
            if h.swap is not None:
                w, x = h.swap
                dealt[w] = dealt[w] & ~(1 << x) | 1 << turned
                turned = x
            extra.append(("turned", 1 << turned))
            if "bottom" in keys:
                bottom = view.public.get("bottom")
                extra.append(("bottom", _subset(pile, 1, rng) if bottom is None
                              else 1 << int(bottom)))
        k6 = self.variant.seen_before_bid
        seen = [k.visible if s == k.viewer and k.unseen
                else _subset(dealt[s], k6, rng) if s in self.bidders
                else _lowest(dealt[s], k6) for s in range(n)]
        weight = 1.0
        if self.soft:
            others = [None if s == k.viewer else seen[s] for s in range(n)]
            weight = (bid_likelihood(view, others, self.model) if self.bids is None
                      else self.bids(view, others))
            for seat, card, factor in self.habits:
                if hands[seat] >> card & 1:
                    weight *= factor
            if soft and rng.random() * self.bound >= weight:
                return None
        decls = h.decls
        if not self.inference:
            decls = tuple(_guess_declarations(view, s, start[s]) for s in range(n))
        return SampledDeal(tuple(hands), tuple(start), tuple(dealt), tuple(seen), tuple(extra),
                           out, discards, h.swap[0] if h.swap else None, h.redeal, decls,
                           weight)

    def draw(self, rng: random.Random, max_tries: int = 10_000) -> SampledDeal:
        """One deal from the posterior: uniform over the consistent deals, times the bid
        likelihood (rejection).  After ``max_tries`` rejections by the bid model the next
        deal meeting the hard constraints is returned as it is."""
        for _ in range(max_tries):
            d = self.draw_hard(rng, soft=True)
            if d is not None:
                return d
        for _ in range(max_tries):
            d = self.draw_hard(rng)
            if d is not None:
                return d
        raise InconsistentView("the claim or exchange checks reject every sampled deal")


_BYTE_BITS = tuple(tuple(tuple(base + i for i in range(8) if b >> i & 1) for b in range(256))
                   for base in (0, 8, 16, 24))


def _bits(mask: int) -> list[int]:
    """The cards of a mask, lowest first."""
    t0, t1, t2, t3 = _BYTE_BITS
    return [*t0[mask & 0xFF], *t1[mask >> 8 & 0xFF], *t2[mask >> 16 & 0xFF], *t3[mask >> 24]]


def _lowest(mask: int, k: int) -> int:
    """The ``k`` lowest cards of a mask."""
    m = 0
    for c in _bits(mask)[:k]:
        m |= 1 << c
    return m


def _shuffle_head(cards: list[int], k: int, rng: random.Random) -> None:
    """Put a uniformly random ``k`` of ``cards`` (in random order) at its front, in place."""
    n = len(cards)
    rand = rng.random
    for i in range(min(k, n - 1)):
        j = i + int(rand() * (n - i))
        cards[i], cards[j] = cards[j], cards[i]


def _subset(mask: int, k: int, rng: random.Random) -> int:
    """A uniformly random ``k``-card subset of ``mask`` (all of it if it has ``k`` or fewer)."""
    cards = _bits(mask)
    if len(cards) <= k:
        return mask
    _shuffle_head(cards, k, rng)
    m = 0
    for c in cards[:k]:
        m |= 1 << c
    return m


def _guess_declarations(view: SeatView, seat: int,
                        hand: int) -> tuple[Declaration, ...] | None:
    """Without inference: the announced declarations the sampled hand happens to hold."""
    infos = view.declared[seat]
    if infos is None:
        return None
    if not infos:
        return ()
    variant = get_variant(view.variant)
    held = find_declarations(hand, variant.belot_wins)
    out: list[Declaration] = []
    for info in infos:
        for d, _ in candidates(info, variant):
            if d in held and d not in out:
                out.append(d)
                break
    return tuple(out)


def sample_deals(view: SeatView, n: int, rng: random.Random, inference: bool = True,
                 soft: bool = True, model: BidModel = DEFAULT_BID_MODEL) -> list[SampledDeal]:
    """``n`` deals consistent with ``view``.

    With ``inference`` (the default) every deal meets every hard constraint of the view and
    replays to it exactly (:func:`to_round`), and ``soft`` weighs the deals by the bids.
    With ``inference=False`` only the cards seen are respected: the unknown cards are spread
    uniformly over the hands and the cards out of play by their sizes.
    """
    sampler = DealSampler(view, inference, soft, model)
    return [sampler.draw(rng) for _ in range(n)]


# -- rebuilding a round -------------------------------------------------------------------------

def _bela_flag(rnd: Round, seat: int, card: int, belas: set[tuple[int, int]]) -> bool:
    suit, rank = card >> 3, card & 7
    if rank not in (KING, QUEEN) or (seat, suit) not in belas or (seat, suit) in rnd.belas:
        return False
    other = 8 * suit + (QUEEN if rank == KING else KING)
    return bool(rnd.hands[seat] >> other & 1)


def to_round(view: SeatView, deal: SampledDeal, strict: bool = True) -> Round:
    """An engine round dealt as ``deal`` with the view's public history replayed: bids,
    bela3 discards, exchanges, declarations, bela and every card played (and a claim).

    With ``strict`` (for deals sampled with inference) every action must be legal, and the
    round's view for ``view.seat`` equals ``view`` (:func:`replay_view`).  With
    ``strict=False`` (deals sampled without inference) the cards are replayed with the
    duties off, declarations and bela the hand does not hold are left out, and the table
    options are restored afterwards: a playable position, not the same view.
    """
    variant = get_variant(view.variant)
    options = TableOptions(**view.options)
    replay = options if strict else TableOptions(**{**view.options, "enforce": "off"})
    rnd = Round(variant, replay, view.dealer, deal.deal)

    def act(action: Action) -> bool:
        if not strict and not rnd.can_apply(action):
            return False
        rnd.apply(action)
        return True

    for seat, token in view.bids:
        if rnd.turn != seat:
            raise InconsistentView(f"bid {token!r} of seat {seat} out of turn in the replay")
        act(parse_action(token))
    if rnd.phase == Phase.DISCARD and view.phase != "discard":
        a, b = iter_cards(deal.discards)
        act(Discard((a, b)))
    deciding = deciding_seat(view) if view.phase == "exchange" else -1
    # the asks depend on public facts only: each seat once in turn, and after a swap (made
    # at the swapper's first ask) each seat once again from the swapper (R32, R35); the
    # redeal, which ends the round, comes after the swap
    pending = deal.swap
    while rnd.phase == Phase.EXCHANGE:
        seat = rnd.turn
        if seat == pending:  # a swap is public: it was made (R32, R35)
            pending = None
            if act(SWAP):
                continue
        if pending is None and view.phase == "exchange" and seat == deciding:
            break  # the seat asked now
        if not act(REDEAL if deal.redeal == seat and pending is None else DECLINE):
            act(DECLINE)
    belas = set(view.belas)

    def declare(seat: int) -> None:
        decls = deal.declarations[seat]
        if view.declared[seat] and decls and rnd.declared[seat] is None:
            act(Declare(tuple(d.cards for d in decls)))

    for trick in tricks_of(view):
        for seat, card in trick:
            if rnd.phase == Phase.DONE:
                break
            declare(seat)
            bela = _bela_flag(rnd, seat, card, belas)
            if not act(Play(Card.ALL[card], bela)) and bela:
                act(Play(Card.ALL[card]))
    if rnd.phase != Phase.DONE:
        declare(rnd.turn)  # announced, card not played yet
    res = view.result
    if res is not None and res.outcome == "claim" and rnd.phase != Phase.DONE:
        act(Claim(cast(int, res.extra["claimant"])))
    if not strict:
        rnd.set_options(options)
    return rnd


ROUND_FIELDS = tuple(f.name for f in fields(SeatView)
                     if f.name not in ("options", "totals", "sheet", "winner", "round_index"))


def replay_view(view: SeatView, deal: SampledDeal) -> SeatView:
    """The view of ``view.seat`` of the round :func:`to_round` rebuilds (match-level fields:
    totals, sheet, winner, round index, come from a fresh match)."""
    rnd = to_round(view, deal)
    variant = get_variant(view.variant)
    match = Match(variant, {k: v for k, v in view.options.items() if k in variant.options})
    match.rounds.append(rnd)
    return seat_view(match, view.seat, rnd)


def view_differences(a: SeatView, b: SeatView) -> list[str]:
    """The round-level fields (:data:`ROUND_FIELDS`) in which two views differ."""
    return [f for f in ROUND_FIELDS if getattr(a, f) != getattr(b, f)]


def check_deal(view: SeatView, deal: SampledDeal) -> None:
    """Raise :class:`InconsistentView` unless ``deal`` replays to ``view``."""
    try:
        diff = view_differences(view, replay_view(view, deal))
    except IllegalAction as exc:
        raise InconsistentView(f"the deal does not replay: {exc}") from exc
    if diff:
        raise InconsistentView(f"the replayed view differs in {', '.join(diff)}")


"""What one seat's view says about the hidden cards: the constraints of the deal sampler.

Everything here reads a :class:`~bela.engine.views.SeatView` only.  It turns the view into

- *known cards*: the seat's own visible hand, every card played, the face-up cards
  (bela2/belot2 turned card, belot2 bottom card), the bela3 caller's own discards;
- *hard constraints per seat*, on the cards the seat holds now ("forbidden") and on the hand
  it held at the start of play ("must hold" / "must not hold"):

  * duties (R17-R19, R36): a card that was legal only because the seat lacked some cards
    proves that it lacked them (a void in the led suit, no trump when it discarded, no card
    beating the winning card when it did not overtake or overtrump).  The engine's own duty
    function is the oracle: card ``x`` is ruled out by a play of ``c`` when ``c`` would not be
    legal from the hand ``{c, x}``.  This is exact because every duty of the engine is a
    conjunction of "holds none of M" conditions (checked by the tests);
  * announced declarations (R13, R37): the declaration is held at full length, so its cards
    are held and, for a sequence, the cards just below and above it are not; the suit of an
    unshown sequence is a hypothesis; shown declarations are exact;
  * bela (R14): the K and Q of the suit were both held when the first was played;
  * the exchange (R32, R35): after a swap the swapper held the old turned card; a seat
    that redealt held four 7s or four 8s.  Every seat is asked, holder or not, so being
    asked (or keeping) says nothing;
- *hypotheses*: the joint choices a view leaves open (the suit of each unshown sequence,
  whether and by whom the 7 of trump was swapped and for which card, which four a redealer
  held), each a set of must/must-not cards per seat;
- *soft evidence* from the bidding and two habits of play (:class:`BidModel`): a likelihood
  in (0, 1] of the bids given the cards each seat saw when bidding, used by the sampler for
  rejection.

The sampler weighs each hypothesis by the exact number of deals it allows.  A deal that fits
two declaration hypotheses (a seat that holds two sequences of 3 to K and announced one) is
counted under both: a slight bias toward such rare hands, which no view can tell apart.

A swap is public (``view.exchanges`` names the swapper, ``view.opened`` the card first face
up), and so is the seat asked in the exchange: every seat is asked, holder or not, so the
exchange phase itself constrains no hidden card (see :func:`exchange_alternatives`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from ..engine.actions import CONTRACT_TOKENS
from ..engine.cards import (
    ACE,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_MASKS,
    SEVEN,
    SUIT_MASKS,
    Card,
)
from ..engine.declarations import FOUR_RANKS, Declaration, declaration_value
from ..engine.rules import play_table
from ..engine.scoring import declaration_standing
from ..engine.variants import get_variant
from ..engine.variants.base import Variant
from ..engine.views import DeclarationInfo, SeatView

__all__ = [
    "BidModel",
    "DEFAULT_BID_MODEL",
    "Hypothesis",
    "InconsistentView",
    "Knowledge",
    "bid_bound",
    "bid_likelihood",
    "gather",
    "habit_checks",
]

FULL = (1 << 32) - 1


class InconsistentView(ValueError):
    """No deal is consistent with the view (a bug, or a view that was not made by the engine)."""


def bit(card: int) -> int:
    return 1 << card


def mask_of_cards(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


# -- duties ---------------------------------------------------------------------------------

def tricks_of(view: SeatView) -> list[tuple[tuple[int, int], ...]]:
    """Every trick of the round so far, the current one last, as ``(seat, card)`` plays."""
    out = [tuple((s, int(c)) for s, c in cards) for cards, _ in view.tricks]
    if view.trick:
        out.append(tuple((s, int(c)) for s, c in view.trick))
    return out


def revokes_in_order(view: SeatView, variant: Variant, hands_now: Sequence[int]
                     ) -> list[tuple[int, int]]:
    """Every card that broke a duty in this round, as (seat, card) in the order played, if
    the seats now hold ``hands_now`` (R24)."""
    out: list[tuple[int, int]] = []
    if view.contract is None:
        return out
    table = play_table(view.contract)
    later = list(hands_now)  # a seat's hand at a play: now + what it played from then on
    plays = [(i, s, c) for i, trick in enumerate(tricks_of(view)) for s, c in trick]
    held_at: dict[tuple[int, int], int] = {}
    for i, s, c in reversed(plays):
        later[s] |= 1 << c
        held_at[(i, c)] = later[s]
    for trick_i, trick in enumerate(tricks_of(view)):
        lead = win = -1
        for s, c in trick:
            if lead < 0:
                lead, win = c >> 3, c
                continue
            if not variant.duties(held_at[(trick_i, c)], lead, win, table) >> c & 1:
                out.append((s, c))
            if table.beats[win] >> c & 1:
                win = c
    return out


# -- declarations ---------------------------------------------------------------------------

@cache
def catalogue(belot_wins: bool) -> tuple[tuple[Declaration, int], ...]:
    """Every declaration a hand can hold, with the cards that must then be absent (the
    neighbours of a maximal sequence, R8)."""
    out: list[tuple[Declaration, int]] = []
    for suit in range(4):
        for start in range(8):
            for end in range(start + 2, 8):
                length = end - start + 1
                if length == 8 and belot_wins:
                    out.append((Declaration("belot", SUIT_MASKS[suit], 8, ACE, suit), 0))
                    continue
                m = ((1 << length) - 1) << (8 * suit + start)
                nb = 0
                if start > 0:
                    nb |= 1 << (8 * suit + start - 1)
                if end < 7:
                    nb |= 1 << (8 * suit + end + 1)
                out.append((Declaration("sequence", m, length, end, suit), nb))
    for r in FOUR_RANKS:
        out.append((Declaration("four", RANK_MASKS[r], 4, r, None), 0))
    return tuple(out)


def candidates(info: DeclarationInfo, variant: Variant) -> list[tuple[Declaration, int]]:
    """The declarations an announced one may be: the exact one once its cards are shown,
    else every declaration with the same public text, value and seniority (R13)."""
    cat = catalogue(variant.belot_wins)
    if info.cards is not None:
        return [(d, nb) for d, nb in cat if d.mask == info.cards.mask]
    return [(d, nb) for d, nb in cat
            if d.public() == info.text and d.strength == info.strength
            and declaration_value(d, variant.declaration_values) == info.value]


@dataclass(frozen=True)
class DeclAlt:
    """One joint choice of the concrete declarations behind every seat's announcements."""

    decls: tuple[tuple[Declaration, ...] | None, ...]
    must: tuple[int, ...]  # per seat, cards held at the start of play
    absent: tuple[int, ...]  # per seat, cards not held at the start of play


def declaration_alternatives(view: SeatView, variant: Variant) -> list[DeclAlt]:
    """Every joint assignment of concrete declarations consistent with the announcements and
    with the side whose declarations were shown (R12, R13, R37 seniority)."""
    n = variant.seats
    per_seat: list[list[tuple[tuple[Declaration, ...] | None, int, int]]] = []
    for s in range(n):
        infos = view.declared[s]
        if not infos:
            per_seat.append([(None if infos is None else (), 0, 0)])
            continue
        opts: list[tuple[tuple[Declaration, ...] | None, int, int]] = []
        for choice in itertools.product(*(candidates(i, variant) for i in infos)):
            ds = tuple(d for d, _ in choice)
            if len(set(ds)) != len(ds):
                continue
            must = absent = 0
            for d, nb in choice:
                must |= d.mask
                absent |= nb
            if must & absent:
                continue
            opts.append((ds, must, absent))
        if not opts:
            raise InconsistentView(f"seat {s} announced declarations no hand can hold")
        per_seat.append(opts)
    check_side = bool(view.tricks) or view.phase == "done"
    out: list[DeclAlt] = []
    for combo in itertools.product(*per_seat):
        used = 0
        ok = True
        for _, must, _ in combo:
            if used & must:
                ok = False
                break
            used |= must
        if not ok:
            continue
        decls = tuple(c[0] for c in combo)
        if check_side and declaration_standing(
                variant, decls, view.first, view.contract,
                view.options["equal_declarations"]).side != view.declarations_side:
            continue
        out.append(DeclAlt(decls, tuple(c[1] for c in combo), tuple(c[2] for c in combo)))
    return out


# -- the exchange (bela2, belot2) -------------------------------------------------------------

@dataclass(frozen=True)
class ExchAlt:
    """One hypothesis on the exchange: who swapped the 7 of trump for which face-up card,
    who redealt, and which redeal option the redealer held."""

    swap: tuple[int, int] | None = None  # (seat, the card that was face up before the swap)
    redeal: int | None = None
    must: tuple[tuple[int, int], ...] = ()  # (seat, cards held at the start of play)
    # (seat, masks of earlier options): a sample where the seat holds all of one of them is
    # rejected, so that overlapping options are not counted twice.
    first_options: tuple[tuple[int, tuple[int, ...]], ...] = ()


def deciding_seat(view: SeatView) -> int:
    """The seat asked in the exchange now: every seat is asked in turn, holder or not, and
    the turn is public (R32, R35)."""
    assert view.turn is not None
    return view.turn


def exchange_alternatives(view: SeatView, variant: Variant) -> list[ExchAlt]:
    """Hypotheses on the exchange phase (R32, R35), from the public exchange record.

    - A swap is public (``view.exchanges`` and ``view.opened``): the swapper held the card
      that was face up before it.
    - A redealer held four 7s or four 8s (one hypothesis per rank).
    - Every seat is asked, holder or not, and a keep is silent: being asked, deciding now or
      (for the viewer) having kept tells nothing about the cards.
    """
    opened = view.opened
    if opened is None or view.contract is None or view.phase == "bidding":
        return [ExchAlt()]
    redeal_opts = [RANK_MASKS[r] for r in variant.redeal_ranks]
    swapper = next((s for s, token in view.exchanges if token == "swap"), None)
    sw = (swapper, int(opened)) if swapper is not None else None
    base: tuple[tuple[int, int], ...] = () if sw is None else ((sw[0], 1 << sw[1]),)
    redealer = next((s for s, token in view.exchanges if token == "redeal"), None)
    if redealer is None or not redeal_opts:
        return [ExchAlt(sw, redealer, base)]
    return [ExchAlt(sw, redealer, (*base, (redealer, m)),
                    ((redealer, tuple(redeal_opts[:i])),) if i else ())
            for i, m in enumerate(redeal_opts)]


# -- bidding evidence -----------------------------------------------------------------------

@dataclass(frozen=True)
class BidModel:
    """Soft evidence from the bids: the likelihood of a seat's bid given the cards it saw
    when bidding (its first 6 cards), a product of the factors below, each in (0, 1].

    - A caller of a suit with neither its J nor its 9 is less likely (``caller_no_top``), and
      the likelihood grows with the trump length (``caller_length[k]`` for k trumps, the last
      entry for more).
    - A forced call (bela4 "mus" after three passes, the bela3 first seat, the bela2 dealer
      naming a suit) says less: its factor is raised to ``forced_power``.
    - A seat that passed is less likely to have held a strong trump in each suit it could
      have called: factor ``passer_strong`` per such suit, where strong means J and 9, or the
      J with two more cards, or 9 and A with one more, or four cards with the J or the 9.
    - belot2 VC / BC callers: ``vc_weak`` unless holding two J or J+9 counting three,
      ``bc_weak`` unless holding two aces.

    Two habits of play are weighed the same way (set a factor to 1.0 to ignore it):

    - ``silent_bela``: a seat that played the K or Q of a bela suit without announcing bela
      (R14) is unlikely to have held the other one then (bela is 20 points for nothing);
    - ``kept_seven``: when the 7 of trump could be swapped for the face-up card (R32, R35)
      and no swap was made, a seat is unlikely to have held it.
    """

    caller_no_top: float = 0.35
    caller_length: tuple[float, ...] = (0.3, 0.5, 0.8, 1.0)
    forced_power: float = 0.5
    passer_strong: float = 0.4
    vc_weak: float = 0.4
    bc_weak: float = 0.4
    silent_bela: float = 0.1
    kept_seven: float = 0.2


DEFAULT_BID_MODEL = BidModel()


def _strong(hand: int, suit: int) -> bool:
    s = hand >> (8 * suit) & 0xFF
    n = s.bit_count()
    jack, nine = s >> JACK & 1, s >> NINE & 1
    return bool((jack and (nine or n >= 3)) or (nine and s >> ACE & 1 and n >= 3)
                or (n >= 4 and (jack or nine)))


def _call_factor(hand: int, contract: int, model: BidModel) -> float:
    if contract == 4:  # VC
        js = (hand & RANK_MASKS[JACK]).bit_count()
        tops = js + (hand & RANK_MASKS[NINE]).bit_count()
        return 1.0 if js >= 2 or tops >= 3 else model.vc_weak
    if contract == 5:  # BC
        return 1.0 if (hand & RANK_MASKS[ACE]).bit_count() >= 2 else model.bc_weak
    s = hand >> (8 * contract) & 0xFF
    f = 1.0 if (s >> JACK & 1 or s >> NINE & 1) else model.caller_no_top
    lengths = model.caller_length
    return f * lengths[min(s.bit_count(), len(lengths) - 1)]


def turned_suit(view: SeatView) -> int | None:
    """The suit of the card turned up for the bidding (bela2 R31, belot2 R34), else None."""
    turned = view.public.get("turned")
    return int(turned) >> 3 if turned is not None else None


def bids_with_cards(view: SeatView, cards: Sequence[int | None],
                    ) -> Iterator[tuple[int, int, str, int]]:
    """``(index, seat, token, cards[seat])`` for each of ``view``'s bids in order (``index``:
    its place in the bidding), skipping the seats whose ``cards`` are ``None``.

    >>> from bela.engine import Match
    >>> from bela.engine.views import seat_view
    >>> m = Match("bela4", seed=1); r = m.deal()
    >>> for _ in range(2): _ = r.apply(r.legal_actions()[0])  # two passes
    >>> seat_view(m, 0).bids
    ((0, 'pass'), (1, 'pass'))
    >>> list(bids_with_cards(seat_view(m, 0), [None, 5, 6, 7]))
    [(1, 1, 'pass', 5)]
    """
    for index, (seat, token) in enumerate(view.bids):
        held = cards[seat]
        if held is not None:
            yield index, seat, token, held


def bid_likelihood(view: SeatView, bid_hands: Sequence[int | None],
                   model: BidModel = DEFAULT_BID_MODEL) -> float:
    """The likelihood of the public bids given each seat's bid-time cards (``None``: skip
    that seat, e.g. the viewer)."""
    variant = get_variant(view.variant)
    tsuit = turned_suit(view)
    like = 1.0
    for index, _, token, hand in bids_with_cards(view, bid_hands):
        suits, forced = variant.callable_suits(index, tsuit)
        if token == "pass":
            for s in suits:
                if _strong(hand, s):
                    like *= model.passer_strong
            continue
        f = _call_factor(hand, CONTRACT_TOKENS.index(token), model)
        like *= f ** model.forced_power if forced else f
    return like


def bid_bound(view: SeatView, possible: Sequence[int | None],
              model: BidModel = DEFAULT_BID_MODEL) -> float:
    """An upper bound of :func:`bid_likelihood` over every deal in which each seat's
    bid-time cards lie within ``possible[seat]`` (``None``: skipped seat), so that rejection
    by ``likelihood / bound`` stays exact while rejecting less: e.g. when the J and 9 of trump
    are known to lie elsewhere, no deal can escape the caller's ``caller_no_top`` factor."""
    bound = 1.0
    variant = get_variant(view.variant)
    tsuit = turned_suit(view)
    for index, _, token, cards in bids_with_cards(view, possible):
        if token == "pass":
            continue
        contract = CONTRACT_TOKENS.index(token)
        if contract >= 4:
            continue
        s = cards >> (8 * contract) & 0xFF
        f = 1.0 if (s >> JACK & 1 or s >> NINE & 1) else model.caller_no_top
        lengths = model.caller_length
        f *= max(lengths[:min(s.bit_count(), len(lengths) - 1) + 1])
        _, forced = variant.callable_suits(index, tsuit)
        bound *= f ** model.forced_power if forced else f
    return bound


def habit_checks(view: SeatView, variant: Variant,
                 model: BidModel = DEFAULT_BID_MODEL) -> tuple[tuple[int, int, float], ...]:
    """``(seat, card, factor)``: the likelihood of the play so far is multiplied by
    ``factor`` when the seat holds ``card`` now (the habits of :class:`BidModel`: silent
    bela, kept seven).  Only checks that depend on hidden cards are listed."""
    out: list[tuple[int, int, float]] = []
    if view.contract is None or view.raspas:
        return ()
    suits = variant.bela_suits(view.contract)
    announced = set(view.belas)
    plays = [(s, c) for trick in tricks_of(view) for s, c in trick]
    done_by: dict[int, int] = {}
    for s, c in plays:
        done_by[c] = s
    for s, c in plays:
        suit, rank = c >> 3, c & 7
        if s == view.seat or rank not in (KING, QUEEN) or not suits >> suit & 1:
            continue
        if (s, suit) in announced:
            continue
        other = 8 * suit + (QUEEN if rank == KING else KING)
        if other not in done_by and not view.hand.mask >> other & 1:
            out.append((s, other, model.silent_bela))  # the seat may hold it now
    turned = view.public.get("turned")
    if (turned is not None and view.contract < 4 and int(turned) >> 3 == view.contract
            and view.phase in ("play", "done")
            and not (view.result is not None and view.result.outcome == "redeal")):
        seven = 8 * view.contract + SEVEN
        if int(turned) != seven and seven not in done_by and not view.hand.mask >> seven & 1:
            out += [(s, seven, model.kept_seven) for s in range(variant.seats)
                    if s != view.seat]
    return tuple(out)


# -- everything together --------------------------------------------------------------------

@dataclass(frozen=True)
class Hypothesis:
    """One joint hypothesis: per seat, the cards it held at the start of play (``must``) and
    the cards it did not hold then (``absent``), with the latent choices behind them."""

    must: tuple[int, ...]
    absent: tuple[int, ...]
    decls: tuple[tuple[Declaration, ...] | None, ...]  # the concrete announced declarations
    swap: tuple[int, int] | None
    redeal: int | None
    first_options: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Knowledge:
    """What a view fixes, and the hypotheses it leaves open."""

    variant: Variant
    viewer: int | None
    visible: int  # the viewer's own visible cards
    unseen: int  # the viewer's own cards not seen yet (bela4 talon before the own bid)
    sizes: tuple[int, ...]  # cards each seat holds now
    played: tuple[int, ...]  # cards each seat played this round
    known: int  # every card whose place is known: visible, played, face up, own discards
    forbid: tuple[int, ...]  # per seat, cards the duties prove it does not hold now
    hypotheses: tuple[Hypothesis, ...]
    must_revoke: frozenset[int]  # a valid claim: one of these seats broke a duty (R24)
    first_revoke: tuple[int, int] | None = None  # and this (seat, card) was the first revoke


def gather(view: SeatView, inference: bool = True) -> Knowledge:
    """Read the constraints of ``view`` (with ``inference`` off: only the cards seen)."""
    variant = get_variant(view.variant)
    n = variant.seats
    visible = view.hand.mask
    played = [0] * n
    for trick in tricks_of(view):
        for s, c in trick:
            played[s] |= 1 << c
    parts = [visible, *played, *(1 << int(c) for c in view.public.values())]
    if view.discards is not None:
        parts.append(view.discards.mask)
    known = 0
    for m in parts:
        if known & m:
            raise InconsistentView("a card appears twice in the view")
        known |= m
    must_revoke: frozenset[int] = frozenset()
    first_revoke: tuple[int, int] | None = None
    hyps: list[Hypothesis] = []
    forbid = [0] * n
    if not inference:
        must = [0] * n
        for s, infos in enumerate(view.declared):
            for info in infos or ():
                if info.cards is not None:  # shown cards were seen
                    must[s] |= info.cards.mask
        hyps.append(Hypothesis(tuple(must), (0,) * n, (None,) * n, None, None, ()))
    else:
        result = view.result
        if (view.options.get("enforce", "on") == "off" and result is not None
                and result.outcome == "claim" and result.extra.get("valid")):
            claimant = int(cast(int, result.extra["claimant"]))
            must_revoke = frozenset(s for s in range(n)  # R24: one of them broke a duty
                                    if variant.side_of(s) != variant.side_of(claimant))
            offender, card = result.extra.get("offender"), result.extra.get("card")
            if isinstance(offender, int) and isinstance(card, str):  # the claim named them
                first_revoke = (offender, int(Card.from_code(card)))
        forbid = [m.mask for m in view.ruled_out]  # what the plays proved (the engine's fact)
        bela_must = [0] * n
        for s, suit in view.belas:
            bela_must[s] |= (1 << (8 * suit + KING)) | (1 << (8 * suit + QUEEN))
        exch = exchange_alternatives(view, variant)
        for d in declaration_alternatives(view, variant):
            for e in exch:
                must = [d.must[s] | bela_must[s] for s in range(n)]
                for s, m in e.must:
                    must[s] |= m
                hyps.append(Hypothesis(tuple(must), d.absent, d.decls, e.swap, e.redeal,
                                       e.first_options))
    return Knowledge(variant, view.seat, visible, view.unseen, tuple(view.hand_sizes),
                     tuple(played), known, tuple(forbid), tuple(hyps), must_revoke,
                     first_revoke)

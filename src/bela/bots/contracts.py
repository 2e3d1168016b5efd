"""What the heuristic bot does before the first card in bela3, bela2 and belot2.

* Hand features per contract (a trump suit, VC, BC) on the cards a seat sees when it bids,
  and linear estimates of the caller's margin (its round score less the opponents', per deal)
  fitted by least squares on heuristic self-play rounds with a forced contract
  (:mod:`bela.training.fit`), kept in each variant's profile (:mod:`bela.bots.profiles`);
  bela4 bids on the heuristic's own fit (its ``bid_*`` knobs).
* Bidding: bela3 (R26) calls the best suit on its first 6 cards; bela2 (R31) and belot2
  (R34) accept the turned suit when its estimate reaches a threshold (a seat holding the 7 of
  that suit counts the turned card as its own: it will swap, R32/R35; otherwise the turned
  card may go to the opponent), and in round 2 order the best other contract, when strong
  enough (the dealer of bela2 must name one).
* bela3 discards (R27): keep trumps, aces and guarded tens; throw cheap singletons and short
  side suits to make voids, and points that would likely be lost (a bare ten): the
  discards' points are the caller's.
* Exchanges (R32, R35): always swap the 7 of trump for the turned card (it is higher); with
  four 7s or four 8s in belot2, ask for a redeal when the hand's expected margin is negative
  (estimated by playing the round out against sampled opponent hands; in raspas low cards
  are good, so such hands mostly keep).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from ..engine.actions import (
    CONTRACT_TOKENS,
    DECLINE,
    PASS,
    REDEAL,
    SWAP,
    Action,
    Call,
    Discard,
    parse_action,
)
from ..engine.cards import RANK_MASKS, SUIT_MASKS, Card
from ..engine.declarations import FOUR_RANKS, declaration_value, find_declarations
from ..engine.enums import Phase
from ..engine.rules import ALL_TRUMPS, NO_TRUMPS, TRUMP_POINTS, play_table
from ..engine.state import Match
from ..engine.variants import get_variant
from ..engine.views import SeatView, seat_view
from ..solver.inference import bids_with_cards, turned_suit
from .base import Bot
from .profiles import HeuristicParams, profile

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

# Constants of the heuristic's contracts (no variant's profile varies them)
DISCARD_TRUMP = 60.0  # bela3 discards (R27): a trump kept is worth this ...
DISCARD_VOID = 8.0  # ... and a void (with two trumps or more) this
REDEAL_BELOW = 0.0  # belot2 (R35): redeal when the simulated mean margin is below this

SUIT_FEATURES = ("base", "t7", "t8", "t9", "tT", "tJ", "tQ", "tK", "tA", "len3", "len4",
                 "len5+", "side_A", "side_T_with_A", "side_T_guarded", "side_T_bare", "side_K",
                 "voids", "bela", "decl", "lead", "opp_turned")
VC_FEATURES = ("base", "J", "9", "A", "T", "K", "Q", "J9", "bela", "decl", "lead", "low")
BC_FEATURES = ("base", "A", "T_with_A", "T_guarded", "T_bare", "K", "Q", "J", "low", "decl",
               "lead", "A_long")

def _hand_declarations(hand: int, variant: str) -> int:
    """The points of every declaration in ``hand``: each suit's sequences, then the fours."""
    sequences, fours = _declaration_tables(variant)
    total = sum(sequences[hand >> (8 * s) & 0xFF] for s in range(4))
    for mask, value in fours:
        if hand & mask == mask:
            total += value
    return total


@cache
def _declaration_tables(variant: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """Per 8 cards of a suit, the points of their sequences (or belot); each four's cards
    and points (:func:`~bela.engine.declarations.find_declarations`)."""
    v = get_variant(variant)
    sequences = tuple(sum(declaration_value(d, v.declaration_values)
                          for d in find_declarations(b, v.belot_wins)) for b in range(256))
    fours = tuple((RANK_MASKS[r], declaration_value(find_declarations(RANK_MASKS[r])[0],
                                                    v.declaration_values))
                  for r in FOUR_RANKS)
    return sequences, fours


def suit_features(hand: int, trump: int, lead: bool, turned: int, variant: str) -> list[float]:
    """Features of ``hand`` with ``trump`` as trump.  ``turned`` is the face-up card of bela2 /
    belot2 when ``trump`` is its suit: a hand holding the 7 of trump counts it as its own
    (R32, R35), otherwise ``opp_turned`` is its trump points / 10 (the opponent may swap)."""
    opp_turned = 0.0
    if turned >= 0 and turned >> 3 == trump:
        seven = 1 << (8 * trump)
        if hand & seven:
            hand = hand & ~seven | (1 << turned)
        else:
            opp_turned = TRUMP_POINTS[turned & 7] / 10
    bits = hand >> (8 * trump) & 0xFF
    f = [1.0] + [float(bits >> r & 1) for r in range(8)]
    n = bits.bit_count()
    f += [float(n == 3), float(n == 4), float(n >= 5)]
    aces = ten_a = ten_g = ten_b = kings = voids = 0
    for s in range(4):
        if s == trump:
            continue
        sb = hand >> (8 * s) & 0xFF
        if not sb:
            voids += 1
            continue
        if sb >> ACE & 1:
            aces += 1
            ten_a += sb >> TEN & 1
        elif sb >> TEN & 1:
            if sb & ~(1 << TEN):
                ten_g += 1
            else:
                ten_b += 1
        kings += sb >> KING & 1
    f += [aces, ten_a, ten_g, ten_b, kings, voids]
    f.append(float(bits >> KING & 1 and bits >> QUEEN & 1))
    f.append(_hand_declarations(hand, variant) / 10)
    f += [float(lead), opp_turned]
    return f


def vc_features(hand: int, lead: bool, variant: str) -> list[float]:
    """Features of ``hand`` in VC (all trumps, R36) with ``variant``'s declarations."""
    def count(rank: int) -> float:
        return float(sum(hand >> (8 * s + rank) & 1 for s in range(4)))
    j9 = bela = 0
    for s in range(4):
        sb = hand >> (8 * s) & 0xFF
        j9 += sb >> JACK & 1 and sb >> NINE & 1
        bela += sb >> KING & 1 and sb >> QUEEN & 1
    return [1.0, count(JACK), count(NINE), count(ACE), count(TEN), count(KING), count(QUEEN),
            float(j9), float(bela), _hand_declarations(hand, variant) / 10, float(lead),
            count(SEVEN) + count(EIGHT)]


def bc_features(hand: int, lead: bool, variant: str) -> list[float]:
    """Features of ``hand`` in BC (no trumps, R36) with ``variant``'s declarations."""
    aces = ten_a = ten_g = ten_b = kings = queens = jacks = low = a_long = 0
    for s in range(4):
        sb = hand >> (8 * s) & 0xFF
        if sb >> ACE & 1:
            aces += 1
            ten_a += sb >> TEN & 1
            a_long += sb.bit_count() >= 3
        elif sb >> TEN & 1:
            if sb & ~(1 << TEN):
                ten_g += 1
            else:
                ten_b += 1
        kings += sb >> KING & 1
        queens += sb >> QUEEN & 1
        jacks += sb >> JACK & 1
        low += (sb & 0b111).bit_count()
    return [1.0, aces, ten_a, ten_g, ten_b, kings, queens, jacks, low,
            _hand_declarations(hand, variant) / 10, float(lead), a_long]


def features(variant: str, contract: int, hand: int, lead: bool, turned: int = -1
             ) -> tuple[str, list[float]]:
    """The model kind (``suit``, ``VC``, ``BC``) and the feature vector of a contract."""
    if contract == ALL_TRUMPS:
        return "VC", vc_features(hand, lead, variant)
    if contract == NO_TRUMPS:
        return "BC", bc_features(hand, lead, variant)
    return "suit", suit_features(hand, contract, lead, turned, variant)


def estimate(variant: str, contract: int, hand: int, lead: bool, turned: int = -1) -> float:
    """The expected margin of the caller of ``contract`` holding ``hand`` (seen cards): the
    weights of the variant's profile times the :func:`features`.

    >>> from bela.engine.cards import Card
    >>> hand = sum(1 << int(c) for c in Card.parse("JH 9H AH 10S 7C 8D"))
    >>> kind, f = features("belot2", 0, hand, True)
    >>> w = profile("belot2").weights[kind]
    >>> estimate("belot2", 0, hand, True) == sum(a * b for a, b in zip(w, f))
    True
    """
    return estimates(variant, (contract,), hand, lead, turned)[0]


def estimates(variant: str, contracts: Sequence[int], hand: int, lead: bool,
              turned: int = -1) -> list[float]:
    """:func:`estimate` of each of ``contracts``, from per-suit tables of the weights (each
    suit's 8 cards add their part of the features), the declarations found once."""
    weights = profile(variant).weights
    decls: dict[int, int] = {}
    out = []
    for contract in contracts:
        kind = "VC" if contract == ALL_TRUMPS else "BC" if contract == NO_TRUMPS else "suit"
        w = weights[kind]
        held = hand
        opp_turned = 0.0
        if kind == "suit":
            if turned >= 0 and turned >> 3 == contract:  # suit_features: the 7 and the swap
                seven = 1 << (8 * contract)
                if hand & seven:
                    held = hand & ~seven | (1 << turned)
                else:
                    opp_turned = TRUMP_POINTS[turned & 7] / 10
            trump, side = _suit_tables(variant)
            total = trump[held >> (8 * contract) & 0xFF] + sum(
                side[held >> (8 * s) & 0xFF] for s in range(4) if s != contract)
        else:
            base, table = _contract_table(variant, kind)
            total = base + sum(table[held >> (8 * s) & 0xFF] for s in range(4))
        if held not in decls:
            decls[held] = _hand_declarations(held, variant)
        decl, at_lead = _DECL_LEAD[kind]
        total += w[decl] * (decls[held] / 10) + w[at_lead] * float(lead)
        out.append(total + w[-1] * opp_turned if kind == "suit" else total)
    return out


# where the declarations' and the lead's weights stand in each kind's features
_DECL_LEAD = {"suit": (SUIT_FEATURES.index("decl"), SUIT_FEATURES.index("lead")),
              "VC": (VC_FEATURES.index("decl"), VC_FEATURES.index("lead")),
              "BC": (BC_FEATURES.index("decl"), BC_FEATURES.index("lead"))}


def _linear(kind: str, variant: str, hand: int) -> float:
    """The estimate of ``hand`` (hearts trump) without the lead and the declarations: the
    part that is a sum over the suits."""
    w = profile(variant).weights[kind]
    f = (suit_features(hand, 0, False, -1, variant) if kind == "suit"
         else vc_features(hand, False, variant) if kind == "VC"
         else bc_features(hand, False, variant))
    decl = _DECL_LEAD[kind][0]
    return sum(a * b for a, b in zip(w, f, strict=True)) - w[decl] * f[decl]


@cache
def _suit_tables(variant: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per 8 cards of a suit, read off :func:`suit_features`: their part of a suit
    contract's estimate as the trump suit (with the base and the other suits' voids) and as
    a side suit (over a void)."""
    empty = _linear("suit", variant, 0)
    return (tuple(_linear("suit", variant, b) for b in range(256)),
            tuple(_linear("suit", variant, b << 8) - empty for b in range(256)))


@cache
def _contract_table(variant: str, kind: str) -> tuple[float, tuple[float, ...]]:
    """The VC or BC estimate of an empty hand (belot2), and per 8 cards of a suit their part
    over a void, read off :func:`vc_features` / :func:`bc_features`."""
    empty = _linear(kind, variant, 0)
    return empty, tuple(_linear(kind, variant, b) - empty for b in range(256))


# -- bidding ---------------------------------------------------------------------------------

def bid(view: SeatView, params: HeuristicParams) -> Action:
    """Bid in bela3 (R26), bela2 (R31) or belot2 (R34)."""
    legal = view.legal
    calls = [a for a in legal if isinstance(a, Call)]
    if not calls:
        return legal[0]
    turned = view.public.get("turned")
    lead = view.seat == view.first
    hand = view.hand.mask
    est = dict(zip((a.contract for a in calls),
                   estimates(view.variant, [a.contract for a in calls], hand, lead,
                             -1 if turned is None else int(turned)), strict=True))
    best = max(calls, key=lambda a: (est[a.contract], -a.contract))
    if PASS not in legal:
        return best
    thr = order_threshold(params, len(view.bids) >= 2, view.seat == view.dealer)
    return best if est[best.contract] >= thr else PASS


def order_threshold(params: HeuristicParams, second_round: bool, dealer: bool) -> float:
    """The estimated margin from which a bidder of bela2 (R31) or belot2 (R34) orders: takes
    the face-up card's suit in the first round, orders another contract in the second."""
    return (params.order if second_round else params.accept)[dealer]


def bid_contracts(variant: str, index: int, turned_suit: int | None) -> tuple[list[int], bool]:
    """The contracts the bid number ``index`` of a round may order in bela3, bela2 or
    belot2, and whether it must order one: the suits it may name and, where it may name
    more than the turned suit, the variant's other contracts (belot2's VC and BC, R34)."""
    v = get_variant(variant)
    suits, forced = v.callable_suits(index, turned_suit)
    return suits + list(v.extra_contracts) * (len(suits) > 1), forced


@dataclass(frozen=True)
class EstimateBids:
    """Soft evidence from the bids for the deal sampler
    (:class:`~bela.solver.sampler.DealSampler`'s ``bids``), read as :func:`bid` bids with
    ``params``: a bidder orders when its best :func:`estimate` on the cards it saw reaches
    its :func:`order_threshold` (a logistic step ``softness`` points wide), and orders a
    contract estimated ``d`` points below its best ``exp(-d / choice)`` times as often;
    every bid keeps a likelihood of at least ``floor``, for bidders who bid otherwise.
    Every bot of this package orders or passes so (the search bots choose the contract by
    their own means: ``pimc``'s second-round contracts were its best estimated 7 times in
    10, the others spread down to 90 points below, hence ``choice``).  :meth:`__call__`
    gives the likelihood of the public bids given each seat's bid-time cards (``None``:
    skip the seat), in (0, 1].

    >>> from bela.engine import Match
    >>> from bela.engine.views import seat_view
    >>> m = Match("belot2", seed=5); rnd = m.deal()
    >>> bids = EstimateBids(profile("belot2").heuristic)
    >>> 0 < bids(seat_view(m, 0), [None, 0xFF]) <= 1
    True
    """

    params: HeuristicParams
    softness: float = 5.0
    choice: float = 25.0
    floor: float = 0.01

    def __call__(self, view: SeatView, hands: Sequence[int | None]) -> float:
        turned = view.public.get("turned")
        tsuit = turned_suit(view)
        like = 1.0
        for index, seat, token, hand in bids_with_cards(view, hands):
            contracts, forced = bid_contracts(view.variant, index, tsuit)
            lead = seat == view.first
            est = estimates(view.variant, contracts, hand, lead,
                            -1 if turned is None else int(turned))
            best = max(est)
            p_order = 1.0
            if not forced:
                thr = order_threshold(self.params, index >= 2, seat == view.dealer)
                p_order = 1 / (1 + math.exp(max(-50.0, min(50.0, (thr - best) / self.softness))))
            if token == "pass":
                p = 1 - p_order
            else:
                chosen = est[contracts.index(CONTRACT_TOKENS.index(token))]
                p = p_order * math.exp((chosen - best) / self.choice)
            like *= self.floor + (1 - self.floor) * p
        return like


# -- bela3 discards (R27) --------------------------------------------------------------------

def keep_value(hand: int, trump: int, params: HeuristicParams) -> float:
    """How much the 10 cards ``hand`` are worth to the bela3 caller in tricks (a rough count
    for comparing discards): trumps above all, aces, guarded tens, voids to ruff with."""
    trumps = (hand & SUIT_MASKS[trump]).bit_count()
    v = DISCARD_TRUMP * trumps
    for s in range(4):
        if s == trump:
            continue
        sb = hand >> (8 * s) & 0xFF
        n = sb.bit_count()
        if n == 0:
            v += DISCARD_VOID if trumps >= 2 else DISCARD_VOID / 2
            continue
        if sb >> ACE & 1:
            v += 22
            if sb >> TEN & 1:
                v += 18
            if sb >> TEN & 1 and sb >> KING & 1:
                v += 6
        elif sb >> TEN & 1:
            v += 9 if n >= 3 else 7 if n == 2 else 2
        elif sb >> KING & 1 and n >= 3:
            v += 2
    return v


def discard(view: SeatView, params: HeuristicParams) -> Action:
    """The bela3 caller's two discards (R27): the best kept hand plus the banked points."""
    ranked = ranked_discards(view, params)
    return ranked[0] if ranked else view.legal[0]


def ranked_discards(view: SeatView, params: HeuristicParams) -> list[Discard]:
    """The bela3 caller's legal discards (R27), best first (:func:`discard_order`)."""
    assert view.contract is not None
    legal = {tuple(int(c) for c in a.cards): a for a in view.legal if isinstance(a, Discard)}
    return [legal[pair] for pair in discard_order(view.hand.mask, view.contract, params)
            if pair in legal]


def discard_order(hand: int, trump: int, params: HeuristicParams) -> list[tuple[int, int]]:
    """Every two cards of ``hand`` the bela3 caller may discard (R27), best first by the
    banked points plus :func:`keep_value` of the kept hand (then the lower ranks, then the
    lower cards).

    >>> from bela.engine.cards import CardSet
    >>> hand = CardSet.parse("7H 8H AH TH JS 9S AS KD QD 7C 8C TC").mask
    >>> [str(Card(c)) for c in discard_order(hand, 2, profile("bela3").heuristic)[0]]
    ['QD', 'KD']
    """
    pts = play_table(trump).points

    def key(pair: tuple[int, int]) -> tuple[float, ...]:
        x, y = pair
        value = pts[x] + pts[y] + keep_value(hand & ~(1 << x) & ~(1 << y), trump, params)
        return (value, -(x & 7) - (y & 7), -x - y)

    cards = [c for c in range(32) if hand >> c & 1]
    return sorted(itertools.combinations(cards, 2), key=key, reverse=True)


# -- swaps and redeals (R32, R35) ------------------------------------------------------------

def exchange(view: SeatView, params: HeuristicParams, playout: Bot) -> Action:
    """Swap the 7 of trump for the turned card; redeal four 7s / 8s when the hand is weak
    (the rounds simulated with ``playout`` at both seats); keep when that is the only
    choice (every seat is asked, holder or not, R32, R35)."""
    legal = view.legal
    if legal == (DECLINE,):
        return DECLINE
    keep = SWAP if SWAP in legal else DECLINE
    if REDEAL in legal and params.redeal_samples > 0:
        if simulated_margin(view, keep, params.redeal_samples, playout) < REDEAL_BELOW:
            return REDEAL
    return keep


def simulated_margin(view: SeatView, action: Action, samples: int, playout: Bot) -> float:
    """The mean round margin (own score less the opponent's) of taking ``action`` at this
    seat's next exchange decision of a two-player round (a later one, e.g. the redeal still
    open after a swap, is the bot's), over ``samples`` opponent hands drawn from the unseen
    cards, the round played out by ``playout`` at both seats (the heuristic passes itself
    without the redeal simulation)."""
    assert view.seat is not None
    me = view.seat
    opp = 1 - me
    v = get_variant(view.variant)
    opened = view.public["turned"] if view.opened is None else view.opened
    extra = {k: [int(c)] for k, c in view.public.items()}
    extra["turned"] = [int(opened)]
    out = {int(c) for c in view.public.values()} | {int(opened)}
    swapped = {s for s, t in view.exchanges if t == "swap"}
    # a seat that swapped was dealt the 7 of trump, now face up, and took the opened card
    seven = int(view.public["turned"])
    held = [seven] if opp in swapped else []
    mine = [int(c) for c in view.hand]
    if me in swapped:
        mine = [c for c in mine if c != opened] + [seven]
    pool = [int(c) for c in Card.ALL if c not in view.hand and c not in out]
    rng = random.Random(view.hand.mask * 1_000_003 + view.round_index)
    total = 0.0
    for _ in range(samples):
        rng.shuffle(pool)
        hands: list[list[int]] = [[], []]
        hands[me] = mine
        hands[opp] = held + pool[:v.hand_cards - len(held)]
        m = Match(v, options={"target": 5001}, first_dealer=view.dealer)  # one round
        rnd = m.deal(hands, extra)
        for _seat, token in view.bids:
            m.apply(parse_action(token))
        for asked, token in view.exchanges:  # the seats asked before kept (silently)
            while rnd.phase == Phase.EXCHANGE and rnd.turn != asked:
                m.apply(DECLINE)
            m.apply(parse_action(token))
        while rnd.phase == Phase.EXCHANGE and rnd.turn != me:
            m.apply(DECLINE)  # nothing public happened before this seat's turn: all kept
        pending = True  # ``action`` at this seat's next exchange decision, then the bot's
        while not rnd.is_over:
            seat = rnd.turn
            if pending and seat == me and rnd.phase == Phase.EXCHANGE:
                m.apply(action)
                pending = False
            else:  # duties enforced (the default), so no revoke and no claim to make
                m.apply(playout.act(seat_view(m, seat, rnd)))
        assert rnd.result is not None
        total += rnd.result.scores[me] - rnd.result.scores[opp]
    return total / samples

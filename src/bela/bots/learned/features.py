"""The learned bot's inputs: a feature vector of a seat's view in the card play.

Only the :class:`~bela.engine.views.SeatView` is read, so what a seat cannot see never
reaches the network (two deals that differ only in hidden cards give the same vector).
The suits are turned so that the trump suit is always suit 0 (suit contracts; ``VC`` and
``BC`` keep their suits): one network then plays every trump suit alike.  The card outputs
come back in the turned order; :func:`unturn_card` maps them to the real cards.

Parts, seats relative to the viewer (0 = the viewer), each card part 32 wide in turned
card order: own hand; legal cards; cards whose place is unknown to the viewer; cards he
knows are out of the play or elsewhere (bela3's own discards, face-up cards not in his
hand); own cards that no card outside his hand and the played cards can beat in their suit
(R20; counted conservatively: a card out of play still counts); then per seat the cards it
played this round, its card in the current trick, the cards its plays showed it does not
hold (R17-R19 inferences, from the engine), its shown declaration cards not yet played.
Then, in this order: the contract kind (suit, VC, BC), raspas, the current trick's points,
the unknown and the own cards per suit, the own hand's size, the caller (per seat, or
none), the number of cards in the trick, the seat winning it (or none), card points and
tricks per side.  After those per-seat card parts, before the scalars: the legal cards that
would take the trick in progress if played now (R20), and per other seat the cards it may still hold
(unknown and not ruled out, or shown) and the cards it surely holds (shown, or the only seat
that may hold an unknown card when the other hands hold every unknown card, or a hand that
may hold no more cards than its size).  Not encoded yet: the cards a bela, an announced
declaration's top or a swap of the face-up card tell about a hand (they stay unknown).

A model keeps the version of this layout (:data:`FEATURES_VERSION`) in its ``features``
metadata; the bot refuses a model of another layout (retrain it with ``bela train``).

>>> from bela.engine import Match
>>> from bela.engine.views import seat_view
>>> from bela.bots.heuristic import HeuristicBot
>>> m = Match("bela4", seed=2); rnd = m.deal()
>>> while rnd.phase != "play":
...     _ = m.apply(HeuristicBot(0).act(seat_view(m, rnd.turn)))
>>> x, turn = play_features(seat_view(m, rnd.turn))
>>> x.shape == (feature_size("bela4"),), turn == rnd.contract
(True, True)
"""

from __future__ import annotations

from functools import cache
from itertools import permutations

import numpy as np
import numpy.typing as npt

from ...engine.actions import CONTRACT_TOKENS
from ...engine.rules import play_table
from ...engine.variants import get_variant
from ...engine.views import SeatView

FULL = (1 << 32) - 1
FEATURES_VERSION = 2  # this layout's version; bela train keeps it in a model's metadata
_SCALARS = 3 + 1 + 1 + 8 + 1  # contract kind, raspas, trick points, suit counts, hand size


def card_parts(variant: str) -> int:
    """How many 32-card parts open :func:`play_features`' vector (the scalars follow)."""
    n = get_variant(variant).seats
    return 5 + 4 * n + 1 + 2 * (n - 1)


@cache
def feature_size(variant: str) -> int:
    """The length of :func:`play_features`' vector for ``variant``."""
    v = get_variant(variant)
    n, s = v.seats, v.sides
    return 32 * card_parts(variant) + _SCALARS + (n + 1) + n + (n + 1) + 2 * s


def raspas_index(variant: str) -> int:
    """Where :func:`play_features` puts the raspas flag."""
    return 32 * card_parts(variant) + 3


def suit_counts_index(variant: str) -> int:
    """Where :func:`play_features` puts the unknown cards per suit (the own cards per suit
    follow)."""
    return 32 * card_parts(variant) + 5


def turn_mask(mask: int, turn: int) -> int:
    """``mask`` with suit ``turn`` moved to suit 0 (every suit ``s`` to ``s - turn``).

    >>> hex(turn_mask(0x0000FF00, 1)), hex(turn_mask(0x000000FF, 1))
    ('0xff', '0xff000000')
    """
    if turn == 0:
        return mask
    k = 8 * turn
    return ((mask >> k) | (mask << (32 - k))) & FULL


def turn_card(card: int, turn: int) -> int:
    """A card's index in the turned order."""
    return (((card >> 3) - turn) % 4) * 8 + (card & 7)


def unturn_card(index: int, turn: int) -> int:
    """The real card of a turned index (inverse of :func:`turn_card`)."""
    return (((index >> 3) + turn) % 4) * 8 + (index & 7)


def turn_of(contract: int) -> int:
    """How far the suits turn for a contract: the trump suit to 0, none for VC and BC."""
    return contract if contract < 4 else 0


def _bits(masks: list[int]) -> npt.NDArray[np.float32]:
    raw = np.asarray(masks, dtype="<u4").view(np.uint8)
    return np.unpackbits(raw, bitorder="little").astype(np.float32)


def play_features(view: SeatView) -> tuple[npt.NDArray[np.float32], int]:
    """The feature vector of a seat's view in the play phase and the suit turn used."""
    if view.seat is None or view.contract is None:
        raise ValueError("the learned bot's features need a seat's view of the card play")
    v = get_variant(view.variant)
    n, s, me = v.seats, v.sides, view.seat
    contract = view.contract
    turn = turn_of(contract)
    table = play_table(0 if contract < 4 else contract)

    def t(mask: int) -> int:
        return turn_mask(mask, turn)

    hand = t(view.hand.mask)
    legal = 0
    for a in view.legal:
        card = getattr(a, "card", None)
        if card is not None:
            legal |= 1 << card
    legal_real, legal = legal, t(legal)
    played = [0] * n
    for cards, _ in view.tricks:
        for seat, c in cards:
            played[seat] |= 1 << c
    trick = [0] * n
    trick_points = 0
    points = play_table(contract).points
    for seat, c in view.trick:
        played[seat] |= 1 << c
        trick[seat] = 1 << c
        trick_points += points[c]
    all_played = 0
    for m in played:
        all_played |= m
    known_out = 0
    if view.discards is not None:
        known_out |= view.discards.mask
    for card in view.public.values():
        known_out |= 1 << card
    known_out &= ~(view.hand.mask | all_played)
    shown = [0] * n
    for seat, decls in enumerate(view.declared):
        for d in decls or ():
            if d.cards is not None and seat != me:
                shown[seat] |= d.cards.mask
    for seat in range(n):
        shown[seat] &= ~all_played
        known_out &= ~shown[seat]
    unknown = FULL & ~(view.hand.mask | all_played | known_out)
    for m in shown:
        unknown &= ~m
    others = t(FULL & ~(view.hand.mask | all_played))  # unplayed cards of other hands
    above = table.above
    master = 0
    h = hand
    while h:
        low = (h & -h).bit_length() - 1
        h &= h - 1
        if not above[low] & others:
            master |= 1 << low
    rel = [(me + r) % n for r in range(n)]
    masks = [hand, legal, t(unknown), t(known_out), master]
    masks += [t(played[q]) for q in rel]
    masks += [t(trick[q]) for q in rel]
    masks += [t(view.ruled_out[q].mask) for q in rel]
    masks += [t(shown[q]) for q in rel]
    masks.append(t(_wins_now(view, legal_real)))
    possible, certain = _holders(view, me, unknown, shown)
    masks += [t(possible[q]) for q in rel[1:]]
    masks += [t(certain[q]) for q in rel[1:]]
    out = np.zeros(feature_size(view.variant), dtype=np.float32)
    k = 32 * len(masks)
    out[:k] = _bits(masks)
    out[k + (0 if contract < 4 else contract - 3)] = 1.0
    k += 3
    out[k] = float(view.raspas)
    out[k + 1] = trick_points / 40
    k += 2
    unk, mine = t(unknown), hand
    for suit in range(4):
        out[k + suit] = (unk >> 8 * suit & 255).bit_count() / 8
        out[k + 4 + suit] = (mine >> 8 * suit & 255).bit_count() / 8
    k += 8
    out[k] = view.hand.mask.bit_count() / 12
    k += 1
    out[k + (n if view.caller is None else (view.caller - me) % n)] = 1.0
    k += n + 1
    out[k + len(view.trick) % n] = 1.0
    k += n
    win = view.trick_winner
    out[k + (n if win is None else (win - me) % n)] = 1.0
    k += n + 1
    side = me % s
    for i in range(s):
        out[k + i] = view.card_points[(side + i) % s] / 162
        out[k + s + i] = view.tricks_won[(side + i) % s] / 12
    return out, turn


def _wins_now(view: SeatView, legal: int) -> int:
    """The legal cards that would take the trick in progress if played now (R20); none
    when leading."""
    if not view.trick or view.contract is None:
        return 0
    winning = dict(view.trick)[view.trick_winner] if view.trick_winner is not None else (
        view.trick[0][1])
    return legal & play_table(view.contract).beats[winning]


def _holders(view: SeatView, me: int, unknown: int, shown: list[int]
             ) -> tuple[list[int], list[int]]:
    """Per seat, the cards it may still hold and those it surely holds (see the module
    docstring); the viewer's (``me``) own entries are empty."""
    n = len(view.hand_sizes)
    possible = [0 if q == me else (unknown & ~view.ruled_out[q].mask) | shown[q]
                for q in range(n)]
    certain = list(shown)
    certain[me] = 0
    others = sum(view.hand_sizes[q] for q in range(n) if q != me)
    everything_held = others == unknown.bit_count() + sum(
        shown[q].bit_count() for q in range(n) if q != me)
    for q in range(n):
        if q == me:
            continue
        if possible[q].bit_count() <= view.hand_sizes[q]:
            certain[q] |= possible[q]
        if everything_held:
            elsewhere = 0
            for o in range(n):
                if o not in (q, me):
                    elsewhere |= possible[o]
            certain[q] |= possible[q] & ~elsewhere
    return possible, certain


# -- bidding ---------------------------------------------------------------------------------

BID_STATES = 4  # per seat: no bid yet, passed, called this contract, called another


@cache
def bid_feature_size(variant: str) -> int:
    """The length of :func:`bid_features`' vector for ``variant``."""
    v = get_variant(variant)
    n, s = v.seats, v.sides
    return 32 * 3 + 3 + n * (BID_STATES + 1) + n + 2 + s


def bid_features(view: SeatView, contract: int) -> npt.NDArray[np.float32]:
    """The feature vector of a seat's bidding view for one contract it may order, the suits
    turned so that this contract's trump is suit 0: own visible cards, the face-up
    ``turned`` and ``bottom`` cards (bela2, belot2), the contract kind, each seat's bids so
    far (none, pass, this contract, another; their number), the seat's place from the first
    seat, own cards not seen yet, whether passing is allowed, and the totals per side."""
    if view.seat is None:
        raise ValueError("the learned bot's features need a seat's view")
    v = get_variant(view.variant)
    n, s, me = v.seats, v.sides, view.seat
    turn = turn_of(contract)
    masks = [turn_mask(view.hand.mask, turn)]
    for key in ("turned", "bottom"):
        card = view.public.get(key)
        masks.append(0 if card is None else turn_mask(1 << card, turn))
    out = np.zeros(bid_feature_size(view.variant), dtype=np.float32)
    k = 96
    out[:k] = _bits(masks)
    out[k + (0 if contract < 4 else contract - 3)] = 1.0
    k += 3
    last: dict[int, str] = {}
    count = [0] * n
    for seat, token in view.bids:
        last[seat] = token
        count[seat] += 1
    mine = CONTRACT_TOKENS[contract]
    for r in range(n):
        seat = (me + r) % n
        bid = last.get(seat)
        state = 0 if bid is None else 1 if bid == "pass" else 2 if bid == mine else 3
        out[k + state] = 1.0
        out[k + BID_STATES] = min(count[seat] / 4, 1.0)
        k += BID_STATES + 1
    out[k + (me - view.first) % n] = 1.0
    k += n
    out[k] = view.unseen / 8
    out[k + 1] = float(any(a.token() == "pass" for a in view.legal))
    k += 2
    side = me % s
    target = float(view.options.get("target", 1001))
    for i in range(s):
        out[k + i] = min(view.totals[(side + i) % s] / target, 1.0)
    return out


# -- symmetry -------------------------------------------------------------------------------

@cache
def suit_orders(variant: str, net: str) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    """The six orders of the side suits 1..3 (suit 0 is the trump after the features'
    turn; in VC and BC every suit is alike, and averaging over all 24 orders there played
    no better than over these six), as column indices of the inputs and of the card
    outputs: the same position with its side suits renamed, which multiplies the training
    positions six times and is what the bot averages over (``symmetric``).

    >>> orders = suit_orders("bela2", "play")
    >>> len(orders), orders[0][1][:10].tolist()
    (6, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    if net == "play":
        size, masks, suit_parts = feature_size(variant), card_parts(variant), 2
        counts = suit_counts_index(variant)  # unknown, then own cards per suit
    else:
        size, masks, suit_parts, counts = bid_feature_size(variant), 3, 0, 0
    out = []
    for order in permutations((1, 2, 3)):
        suit = (0, *order)
        cols = np.arange(size)
        for m in range(masks):
            for s in range(4):
                cols[32 * m + 8 * s:32 * m + 8 * s + 8] = np.arange(8) + 32 * m + 8 * suit[s]
        for part in range(suit_parts):
            for s in range(4):
                cols[counts + 4 * part + s] = counts + 4 * part + suit[s]
        outs = np.concatenate([np.arange(8) + 8 * suit[s] for s in range(4)]) if (
            net == "play") else np.arange(1)
        out.append((cols, outs))
    return out

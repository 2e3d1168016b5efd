"""Compiled inner loops of the vector environment (Numba): many matches stepped in one call.

Every game of a batch is one row of an ``int64`` state array ``S`` (the slots below); the
rules are read from one flat ``int64`` array ``R`` (:meth:`bela.rl.vector.tables.Tables.
rules`, at the offsets ``F_*``: derived from the engine's own definitions).  Cards and
masks are in the engine's numbering (``8 * suit + rank``).  Each game has its own
xorshift64* generator (``rng``), so a game's deals depend on its seed only.

What a step does, per game: apply the action of the seat to act (bids R6, R7, R26, R31,
R34; bela3's discards R27; the swaps and redeals R32, R35; declarations R8-R13, R37 and
bela R14 before the first card; cards R16-R20, R36; a claim R24), score a finished deal
(R12, R15, R21-R23, R28, R36, R37 raspas) and book it (R22 hang, R25 target, R10 belot),
then deal the next one (R39; the same dealer after a redeal) or, when the match ends or
``max_deals`` deals were played, a new match (auto-reset).  The
observation and the action mask of a seat are written into preallocated rows, the same
numbers as :func:`bela.rl.spaces.observe` and :meth:`bela.rl.spaces.ActionSpace.mask`
(tests/rl/test_vector_equivalence.py replays trajectories through the engine).
"""

from __future__ import annotations

import numpy as np

from ...solver.greedy import greedy_card as shared_greedy_card
from ...solver.kernels import low_index, njit, popcount
from .tables import (
    B_CALL_GAINS,
    B_CALL_THEN,
    B_LEGAL,
    B_NEXT,
    B_PASS_FIXES,
    B_PASS_REVEALS,
    B_PASS_THEN,
    B_RASPAS,
    F_BEATS,
    F_BELAI,
    F_BELAM,
    F_BIDS,
    F_DEALAT,
    F_DISC,
    F_FACTOR,
    F_FM,
    F_FORB,
    F_FS,
    F_FV,
    F_KEY,
    F_OFF,
    F_P,
    F_PAIRS,
    F_PTS,
    F_REDEAL,
    F_SEQB,
    F_SEQM,
    F_SEQN,
    F_SEQS,
    F_SEQV,
    F_TEAMS,
    F_XP,
    MAX_BIDS,
    O_BELAS,
    O_BIDS,
    O_BOTTOM,
    O_CALLER,
    O_CLAIM,
    O_CONTRACT,
    O_CP,
    O_DEALER,
    O_DECL,
    O_DISCARDS,
    O_DSEAT,
    O_DTIE,
    O_EXCH,
    O_FIRST,
    O_HAND,
    O_LEADER,
    O_OPENED,
    O_PHASE,
    O_PLAYED,
    O_RASPAS,
    O_RULED,
    O_SIZE,
    O_SIZES,
    O_TOTALS,
    O_TRICK,
    O_TURN,
    O_TURNED,
    O_TW,
    O_TWINNER,
    O_UNSEEN,
    P_BELA_TRICK,
    P_BOTTOM_POS,
    P_CALL_AT,
    P_CANCEL,
    P_CAPOT,
    P_CAPOT_USED,
    P_CLAIM_AT,
    P_DECLARE_AT,
    P_DISCARD_AT,
    P_ENFORCE_OFF,
    P_EXTRA_POS,
    P_FALL_KEEPS,
    P_HAND,
    P_HANG,
    P_KEEP_AT,
    P_LAST,
    P_MAX_DEALS,
    P_PASS_AT,
    P_REDEAL_AT,
    P_REWARD,
    P_SEATS,
    P_SEEN,
    P_SHOW_BOTTOM,
    P_SIDES,
    P_SIZE,
    P_SWAP_AT,
    P_TARGET,
    P_TRUMP_SEQ,
    P_TURNED_POS,
    P_ZERO_SUM,
    PH_BIDDING,
    PH_DISCARD,
    PH_DONE,
    PH_EXCHANGE,
    PH_PLAY,
)

# -- the state slots (per seat: 4 slots, per side: 3) --------------------------------------
HAND = 0  # full hands (the unseen talon included)
HID = 4  # the cards each seat has not seen yet (R6)
PLAYED = 8  # cards each seat played this round
RULED = 12  # cards each seat's plays showed it does not hold
TRICK = 16  # each seat's card in the trick in progress, -1
DECN = 20  # declarations announced: -1 not yet (None), else how many
DVAL = 24  # their points (R9)
DSTR = 28  # the strongest one's seniority (R11), -1 for none
DMASK = 32  # their cards
BELA = 36  # bela suits announced (bits)
LASTBID = 40  # last bid: -1 none, 0 pass, 1 + contract
NBIDS = 44
DEALT = 48  # the hands as dealt
DEALT_HID = 52  # the cards dealt unseen
CP = 56  # card points per side
TW = 59  # tricks won per side
TOT = 62  # match totals per side
SCORE = 65  # the last booked deal's scores per side
NTR = 68  # cards in the trick in progress
LEADER = 69
LEAD = 70  # the led suit
WIN = 71  # the card winning the trick so far
WSEAT = 72
PHASE = 73
DEALER = 74
FIRST = 75
TURN = 76
CONTRACT = 77  # -1 none
CALLER = 78  # -1 none (raspas too, R34)
HELD = 79  # R22 hang
WINNER = 80  # the match's winning side, -1
NTRICKS = 81  # tricks completed this round
ROUNDS = 82  # deals of this match so far
DSIDE = 83  # the standing of the declarations (R11, R12): the side whose count, -1
DSEAT = 84  # the seat holding the strongest, -1
DTIE = 85  # whether the strongest were equal
DKEY = 86  # per seat: its strongest declaration's key (seniority, then trump, R37)
EXCH = 90  # per seat: swapped (1), redealt (2), kept (4) (R32, R35)
XQ = 94  # the seats still to be asked in the exchange, in order
XQN = 98  # how many
TURNED = 99  # the face-up card now (-1: none)
OPENED = 100  # the card first turned face up
BOTTOM = 101  # the bottom card once shown (belot2, R35), -1
BOTTOM_CARD = 102  # the bottom card dealt
EXTRA = 103  # the caller's extra cards (bela3, R26)
DISCARDS = 104  # the caller's discards (bela3, R27)
RASPAS = 105  # R34
NBID = 106  # bids so far
REDEALT = 107  # the last deal ended in a redeal (R35, R37: the same dealer deals)
REVOKED = 108  # per seat its first card that broke a duty (enforce = off, R24), -1
CLAIMANT = 112  # the seat whose claim ended the deal (R24), -1
CLAIM_VALID = 113  # whether that claim was right
NSLOTS = 116

_XS_MUL = np.uint64(0x2545F4914F6CDD1D)  # xorshift64* (Vigna)
_S12, _S25, _S27, _S32 = np.uint64(12), np.uint64(25), np.uint64(27), np.uint64(32)
_MAX_HELD = 8


@njit
def rand_below(rng: np.ndarray, b: int, k: int) -> int:
    """A uniform integer in ``0..k-1`` from game ``b``'s generator."""
    x = np.uint64(rng[b])
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[b] = x
    r = (x * _XS_MUL) >> _S32
    return int((r * np.uint64(k)) >> _S32)


@njit
def _wrap(x: int, n: int) -> int:
    """``x % n`` for ``-n <= x < 2 * n`` without a division (seats and sides are few)."""
    if x < 0:
        return x + n
    return x - n if x >= n else x


# -- queries --------------------------------------------------------------------------------
@njit
def legal_cards(S: np.ndarray, b: int, seat: int, R: np.ndarray) -> int:
    """The cards ``seat`` may play (R16-R19, R36): the duties are pairwise, so a card is
    refused exactly when another card of the hand forbids it (:func:`bela.engine.explain.
    play_forbidden`)."""
    hand = int(S[b, HAND + seat])
    if S[b, NTR] == 0 or R[F_P + P_ENFORCE_OFF]:  # R24: any card with enforce off
        return hand
    return duty_cards(S, b, hand, R)


@njit
def duty_cards(S: np.ndarray, b: int, hand: int, R: np.ndarray) -> int:
    """The cards of ``hand`` the duties allow on the trick in progress (R17-R19, R36)."""
    f = F_FORB + ((S[b, CONTRACT] * 4 + S[b, LEAD]) * 32 + S[b, WIN]) * 32
    legal = hand
    m = hand
    while m != 0:
        bit = m & -m
        m ^= bit
        if R[f + low_index(bit)] & hand:
            legal ^= bit
    return legal


@njit
def held_declarations(hand: int, R: np.ndarray, out: np.ndarray) -> int:
    """The declarations a hand holds, in the engine's order (suits, then fours, R8):
    ``out[i] = (mask, strength, value, belot, suit or -1)``; returns how many."""
    SEQN = R[F_SEQN:F_SEQM]
    SEQM = R[F_SEQM:F_SEQS].reshape((256, 2))
    SEQS = R[F_SEQS:F_SEQV].reshape((256, 2))
    SEQV = R[F_SEQV:F_SEQB].reshape((256, 2))
    SEQB = R[F_SEQB:F_FM]
    FM = R[F_FM:F_FS]
    FS = R[F_FS:F_FV]
    FV = R[F_FV:F_BIDS]
    k = 0
    for s in range(4):
        byte = (hand >> (8 * s)) & 255
        for i in range(SEQN[byte]):
            out[k, 0] = SEQM[byte, i] << (8 * s)
            out[k, 1] = SEQS[byte, i]
            out[k, 2] = SEQV[byte, i]
            out[k, 3] = SEQB[byte]
            out[k, 4] = s
            k += 1
    for i in range(FM.shape[0]):
        if FM[i] != 0 and hand & FM[i] == FM[i]:
            out[k, 0] = FM[i]
            out[k, 1] = FS[i]
            out[k, 2] = FV[i]
            out[k, 3] = 0
            out[k, 4] = -1
            k += 1
    return k


@njit
def _side_best(S: np.ndarray, b: int, side: int, n: int, sides: int, first: int
               ) -> tuple[int, int, int, int]:
    """A side's strongest announced declaration: (key, -turn order, seat, seniority)."""
    best_k = -1
    best_o = 0
    seat_of = -1
    best_s = -1
    for seat in range(side, n, sides):
        key = S[b, DKEY + seat]
        order = -((seat - first) % n)
        if key >= 0 and (key > best_k or (key == best_k and order > best_o)):
            best_k = key
            best_o = order
            seat_of = seat
            best_s = S[b, DSTR + seat]
    return best_k, best_o, seat_of, best_s


@njit
def update_standing(S: np.ndarray, b: int, P: np.ndarray) -> None:
    """Whose declarations count (R11, R12, R37) into DSIDE, DSEAT, DTIE: the side holding
    the strongest (ties to the earlier seat from the first), or none when nothing was
    announced or, with ``equal_declarations = cancel``, the strongest of two sides are
    equal (in seniority: the tie of :func:`bela.engine.scoring.declaration_standing`)."""
    n = P[P_SEATS]
    sides = P[P_SIDES]
    first = S[b, FIRST]
    top = -1
    top_k = -1
    top_o = 0
    top_seat = -1
    top_s = -1
    for side in range(sides):
        key, order, seat, st = _side_best(S, b, side, n, sides, first)
        if key >= 0 and (top < 0 or key > top_k or (key == top_k and order > top_o)):
            top, top_k, top_o, top_seat, top_s = side, key, order, seat, st
    tie = 0
    if top >= 0:
        for side in range(sides):
            if side != top and _side_best(S, b, side, n, sides, first)[3] == top_s:
                tie = 1
    if tie and P[P_CANCEL]:
        top = -1
        top_seat = -1
    S[b, DSIDE] = top
    S[b, DSEAT] = top_seat
    S[b, DTIE] = tie


# -- dealing --------------------------------------------------------------------------------
@njit
def deal(S: np.ndarray, rng: np.ndarray, b: int, R: np.ndarray) -> None:
    """The next deal of game ``b``'s match (R5, R6, R39): a shuffled deck dealt as the
    variant deals it (``deal_from_deck``'s positions), the first ``seen`` cards of each
    hand seen before the own bid."""
    P = R[F_P:F_P + P_SIZE]
    AT = R[F_DEALAT:F_DEALAT + 64].reshape((4, 16))
    n = P[P_SEATS]
    k = P[P_HAND]
    deck = np.arange(32)
    for i in range(31, 0, -1):
        j = rand_below(rng, b, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    if S[b, ROUNDS] == 0:
        dealer = n - 1
    elif S[b, REDEALT]:
        dealer = S[b, DEALER]  # R37: after a redeal the same dealer deals again
    else:
        dealer = S[b, FIRST]  # R39: the deal passes to the right
    for s in range(n):
        hand = 0
        hid = 0
        for i in range(k):
            bit = 1 << deck[AT[s, i]]
            hand |= bit
            if i >= P[P_SEEN]:
                hid |= bit
        S[b, HAND + s] = hand
        S[b, HID + s] = hid
        S[b, DEALT + s] = hand
        S[b, DEALT_HID + s] = hid
        S[b, PLAYED + s] = 0
        S[b, RULED + s] = 0
        S[b, TRICK + s] = -1
        S[b, DECN + s] = -1
        S[b, DVAL + s] = 0
        S[b, DSTR + s] = -1
        S[b, DKEY + s] = -1
        S[b, DMASK + s] = 0
        S[b, BELA + s] = 0
        S[b, REVOKED + s] = -1
        S[b, LASTBID + s] = -1
        S[b, NBIDS + s] = 0
        S[b, EXCH + s] = 0
    turned = deck[P[P_TURNED_POS]] if P[P_TURNED_POS] >= 0 else -1
    S[b, TURNED] = turned
    S[b, OPENED] = turned
    S[b, BOTTOM] = -1
    S[b, BOTTOM_CARD] = deck[P[P_BOTTOM_POS]] if P[P_BOTTOM_POS] >= 0 else -1
    at = P[P_EXTRA_POS]
    S[b, EXTRA] = (1 << deck[at]) | (1 << deck[at + 1]) if at >= 0 else 0
    S[b, DISCARDS] = 0
    S[b, RASPAS] = 0
    S[b, NBID] = 0
    S[b, XQN] = 0
    S[b, REDEALT] = 0
    S[b, CLAIMANT] = -1
    S[b, CLAIM_VALID] = 0
    for side in range(3):
        S[b, CP + side] = 0
        S[b, TW + side] = 0
    S[b, NTR] = 0
    S[b, LEADER] = -1
    S[b, LEAD] = -1
    S[b, WIN] = -1
    S[b, WSEAT] = -1
    S[b, PHASE] = PH_BIDDING
    S[b, DEALER] = dealer
    S[b, FIRST] = (dealer + 1) % n  # R5
    S[b, TURN] = (dealer + 1) % n
    S[b, CONTRACT] = -1
    S[b, CALLER] = -1
    S[b, NTRICKS] = 0
    S[b, DSIDE] = -1
    S[b, DSEAT] = -1
    S[b, DTIE] = 0
    S[b, ROUNDS] += 1


@njit
def new_match(S: np.ndarray, rng: np.ndarray, b: int, R: np.ndarray) -> None:
    for side in range(3):
        S[b, TOT + side] = 0
        S[b, SCORE + side] = 0
    S[b, HELD] = 0
    S[b, WINNER] = -1
    S[b, ROUNDS] = 0
    S[b, REDEALT] = 0
    deal(S, rng, b, R)


# -- scoring and booking --------------------------------------------------------------------
@njit
def book(S: np.ndarray, b: int, P: np.ndarray, s0: int, s1: int, s2: int, belot: int,
         hang: int, held: int, redeal: int) -> None:
    """Write a deal's scores (per side ``s0 s1 s2``) on the sheet (R10 belot, R22 hang and
    the held points, R25 the target; a redeal writes nothing, R35)."""
    sides = P[P_SIDES]
    scores = (s0, s1, s2)
    out0, out1, out2 = s0, s1, s2
    if belot >= 0:
        S[b, WINNER] = belot
    elif hang:
        S[b, HELD] += held
    elif S[b, HELD] != 0 and not redeal:
        top = scores[0]
        for side in range(1, sides):
            top = max(top, scores[side])
        count = 0
        at = 0
        for side in range(sides):
            if scores[side] == top:
                count += 1
                at = side
        if count == 1:  # R22: held points go to the side scoring more
            if at == 0:
                out0 += S[b, HELD]
            elif at == 1:
                out1 += S[b, HELD]
            else:
                out2 += S[b, HELD]
            S[b, HELD] = 0
    S[b, SCORE] = out0
    S[b, SCORE + 1] = out1
    S[b, SCORE + 2] = out2
    top = -1 << 40
    for side in range(sides):
        S[b, TOT + side] += S[b, SCORE + side]
        top = max(top, S[b, TOT + side])
    if S[b, WINNER] < 0 and top >= P[P_TARGET]:  # R25
        count = 0
        at = 0
        for side in range(sides):
            if S[b, TOT + side] == top:
                count += 1
                at = side
        if count == 1:
            S[b, WINNER] = at


@njit
def score_round(S: np.ndarray, b: int, R: np.ndarray) -> None:
    """Score a deal whose tricks are all played and book it: raspas each minus the points
    he took (R37); else the card points (the caller's discards his, R27), the declarations
    of the side holding the strongest if it took a trick (R12, R15), bela (R14, R15, R37),
    all of it times the contract's factor (R36), then štiglja (R23), pass (R21), hang or
    fall (R22, R28)."""
    P = R[F_P:F_P + P_SIZE]
    sides = P[P_SIDES]
    n = P[P_SEATS]
    ct = S[b, CONTRACT]
    if S[b, RASPAS]:
        book(S, b, P, -S[b, CP], -S[b, CP + 1], -S[b, CP + 2], -1, 0, 0, 0)
        return
    own0, own1, own2 = S[b, CP], S[b, CP + 1], S[b, CP + 2]
    cs = S[b, CALLER] % sides
    disc = S[b, DISCARDS]
    pts = 0
    while disc != 0:
        bit = disc & -disc
        disc ^= bit
        pts += R[F_PTS:F_PTS + 192].reshape((6, 32))[ct, low_index(bit)]
    to = S[b, DSIDE]
    extra = np.zeros(3, np.int64)
    extra[cs] += pts
    if to >= 0 and S[b, TW + to] > 0:  # R15
        for seat in range(n):
            if seat % sides == to:
                extra[to] += S[b, DVAL + seat]
    for seat in range(n):
        side = seat % sides
        if S[b, TW + side] > 0 or not P[P_BELA_TRICK]:
            extra[side] += 20 * popcount(S[b, BELA + seat])
    f = R[F_FACTOR:F_FACTOR + 8][ct]
    own = np.zeros(3, np.int64)
    own[0] = f * (own0 + extra[0])
    own[1] = f * (own1 + extra[1])
    own[2] = f * (own2 + extra[2]) if sides > 2 else 0
    total = own[0] + own[1] + own[2]
    ntricks = 0
    for side in range(sides):
        ntricks += S[b, TW + side]
    capot = -1
    if P[P_CAPOT_USED]:
        for side in range(sides):
            if S[b, TW + side] == ntricks:
                capot = side
                break
    scores = np.zeros(3, np.int64)
    hang = 0
    held = 0
    if capot >= 0:  # R23
        scores[capot] = total + P[P_CAPOT]
    elif 2 * own[cs] > total:  # R21
        scores[:] = own
    elif 2 * own[cs] == total and P[P_HANG]:  # R22 hang
        scores[:] = own
        scores[cs] = 0
        hang = 1
        held = own[cs]
    elif P[P_FALL_KEEPS]:  # R28: the others keep their own points
        scores[:] = own
        scores[cs] = 0
    else:  # R22 fall
        scores[1 - cs] = total
    book(S, b, P, scores[0], scores[1], scores[2], -1, hang, held, 0)


# -- the phases -----------------------------------------------------------------------------
@njit
def _start_play(S: np.ndarray, b: int) -> None:
    S[b, PHASE] = PH_PLAY
    S[b, TURN] = S[b, FIRST]  # R16, R33, R35: the first seat leads


@njit
def _next_exchange(S: np.ndarray, b: int) -> None:
    k = S[b, XQN]
    if k == 0:
        _start_play(S, b)
        return
    S[b, PHASE] = PH_EXCHANGE
    S[b, TURN] = S[b, XQ]
    for i in range(k - 1):
        S[b, XQ + i] = S[b, XQ + i + 1]
    S[b, XQN] = k - 1


@njit
def _bids_at(S: np.ndarray, b: int) -> int:
    """Where the bidding table's row of game ``b``'s position starts (tables.bid_table)."""
    opened = S[b, OPENED]
    return int(F_BIDS + ((4 if opened < 0 else opened >> 3) * MAX_BIDS + S[b, NBID]) * 8)


@njit
def _exchange_possible(S: np.ndarray, b: int, R: np.ndarray) -> int:
    t = S[b, TURNED]
    return int(R[F_XP + (S[b, CONTRACT] * 33 + (32 if t < 0 else t)) * 2 + S[b, RASPAS]])


@njit
def _ask_all(S: np.ndarray, b: int, start: int, n: int) -> None:
    for i in range(n):
        S[b, XQ + i] = (start + i) % n
    S[b, XQN] = n


@njit
def _fix_contract(S: np.ndarray, b: int, R: np.ndarray, contract: int, caller: int,
                  raspas: int, then: int, gains: int) -> None:
    """The bidding is over (the round's ``_bid``): every hand seen, the bottom card shown
    (R35), the caller's extra cards (R27), then the discard, the exchange or the play."""
    P = R[F_P:F_P + P_SIZE]
    n = P[P_SEATS]
    for s in range(n):
        S[b, HID + s] = 0
    S[b, CONTRACT] = contract
    S[b, CALLER] = caller
    S[b, RASPAS] = raspas
    if P[P_SHOW_BOTTOM]:
        S[b, BOTTOM] = S[b, BOTTOM_CARD]
    if gains:
        S[b, HAND + caller] |= S[b, EXTRA]
    if then == PH_DISCARD:
        S[b, PHASE] = PH_DISCARD
        S[b, TURN] = caller
    elif then == PH_EXCHANGE:
        S[b, XQN] = 0
        if _exchange_possible(S, b, R):
            _ask_all(S, b, S[b, FIRST], n)
        _next_exchange(S, b)
    else:
        _start_play(S, b)


@njit
def _exchange_rights(S: np.ndarray, b: int, seat: int, R: np.ndarray) -> tuple[int, int]:
    """Whether ``seat`` may swap the 7 of trump for the face-up card (R32, R35: trump is
    the opened card's suit, not raspas) and whether it may redeal (four of a redeal rank,
    R35)."""
    P = R[F_P:F_P + P_SIZE]
    hand = S[b, HAND + seat]
    ct = S[b, CONTRACT]
    swap = 0
    opened = S[b, OPENED]
    if (P[P_SWAP_AT] >= 0 and not S[b, RASPAS] and opened >= 0 and ct == opened >> 3
            and hand >> (8 * ct) & 1):
        swap = 1
    redeal = 0
    if P[P_REDEAL_AT] >= 0:
        RM = R[F_REDEAL:F_REDEAL + 4]
        for i in range(RM.shape[0]):
            if RM[i] != 0 and hand & RM[i] == RM[i]:
                redeal = 1
    return swap, redeal


# -- actions --------------------------------------------------------------------------------
@njit
def apply(S: np.ndarray, b: int, a: int, R: np.ndarray, held: np.ndarray) -> None:
    """Apply the legal action index ``a`` of the seat to act in game ``b``."""
    P = R[F_P:F_P + P_SIZE]
    n = P[P_SEATS]
    seat = S[b, TURN]
    phase = S[b, PHASE]
    if phase == PH_BIDDING:
        opened = S[b, OPENED]
        row = R[_bids_at(S, b):_bids_at(S, b) + 8]
        S[b, NBID] += 1
        S[b, NBIDS + seat] += 1
        if a == P[P_PASS_AT]:
            S[b, LASTBID + seat] = 0
            if row[B_PASS_FIXES]:  # R34: four passes, raspas in the opened suit
                _fix_contract(S, b, R, opened >> 3, -1, row[B_RASPAS], row[B_PASS_THEN], 0)
                return
            if row[B_PASS_REVEALS]:
                S[b, HID + seat] = 0  # R6: the talon is seen after the own bid
            S[b, TURN] = (seat + row[B_NEXT]) % n
            return
        contract = -1
        for c in range(6):
            if P[P_CALL_AT + c] == a:
                contract = c
        S[b, LASTBID + seat] = 1 + contract
        _fix_contract(S, b, R, contract, seat, 0, row[B_CALL_THEN], row[B_CALL_GAINS])
        return
    if phase == PH_DISCARD:  # R27: two cards away, then the first seat leads
        d = R[F_DISC:F_DISC + 992].reshape((496, 2))[a - P[P_DISCARD_AT]]
        m = (1 << d[0]) | (1 << d[1])
        S[b, DISCARDS] = m
        S[b, HAND + seat] &= ~m
        _start_play(S, b)
        return
    if phase == PH_EXCHANGE:
        if a == P[P_KEEP_AT]:
            S[b, EXCH + seat] |= 4
            _next_exchange(S, b)
        elif a == P[P_REDEAL_AT]:  # R35: the round ends unscored, the dealer deals again
            S[b, EXCH + seat] |= 2
            S[b, PHASE] = PH_DONE
            S[b, REDEALT] = 1
            book(S, b, P, 0, 0, 0, -1, 0, 0, 1)
        else:  # R32, R35: the 7 of trump for the face-up card
            S[b, EXCH + seat] |= 1
            seven = 8 * S[b, CONTRACT]
            S[b, HAND + seat] = (S[b, HAND + seat] & ~(1 << seven)) | (1 << S[b, TURNED])
            S[b, TURNED] = seven
            S[b, XQN] = 0
            if _exchange_possible(S, b, R):  # R35: all asked again from the swapper
                _ask_all(S, b, seat, n)
            _next_exchange(S, b)
        return
    if a == P[P_CLAIM_AT]:  # R24 auzmeš: the claimant's side is right if an opponent revoked
        sides = P[P_SIDES]
        side = seat % sides
        right = 0
        other = -1
        for s in range(n):
            if s % sides != side:
                if other < 0:
                    other = s % sides
                if S[b, REVOKED + s] >= 0:
                    right = 1
        total = 162
        for s in range(n):
            total += S[b, DVAL + s] + 20 * popcount(S[b, BELA + s])
        S[b, PHASE] = PH_DONE
        S[b, CLAIMANT] = seat
        S[b, CLAIM_VALID] = right
        winner = side if right else other
        book(S, b, P, total if winner == 0 else 0, total if winner == 1 else 0,
             total if winner == 2 else 0, -1, 0, 0, 0)
        return
    declare_at = P[P_DECLARE_AT]
    if declare_at <= a < declare_at + 15:  # R13: a subset of the held declarations
        k = held_declarations(S[b, HAND + seat], R, held)
        bits = a - declare_at + 1
        count = 0
        val = 0
        st = -1
        key = -1
        mask = 0
        belot = 0
        for i in range(k):
            if bits >> i & 1:
                count += 1
                val += held[i, 2]
                st = max(st, held[i, 1])
                trump = P[P_TRUMP_SEQ] and held[i, 4] == S[b, CONTRACT] and held[i, 3] == 0
                key = max(key, 2 * held[i, 1] + (1 if trump else 0))
                mask |= held[i, 0]
                belot |= held[i, 3]
        S[b, DECN + seat] = count
        S[b, DVAL + seat] = val
        S[b, DSTR + seat] = st
        S[b, DKEY + seat] = key
        S[b, DMASK + seat] = mask
        update_standing(S, b, P)
        if belot:  # R10: the round ends, the holder's side wins the match
            S[b, PHASE] = PH_DONE
            book(S, b, P, 0, 0, 0, seat % P[P_SIDES], 0, 0, 0)
        return
    card = a
    if a >= 32:  # a bela play (R14)
        BELAI = R[F_BELAI:F_BELAI + 32]
        for c in range(32):
            if BELAI[c] == a:
                card = c
        S[b, BELA + seat] |= 1 << (card >> 3)
    if S[b, DECN + seat] < 0:
        S[b, DECN + seat] = 0  # R13: no declaration before the first card
    bit = 1 << card
    ct = S[b, CONTRACT]
    if (P[P_ENFORCE_OFF] and S[b, NTR] > 0 and S[b, REVOKED + seat] < 0
            and not duty_cards(S, b, S[b, HAND + seat], R) & bit):
        S[b, REVOKED + seat] = card  # R24: accepted, but a claim may follow
    S[b, HAND + seat] ^= bit
    S[b, PLAYED + seat] |= bit
    if S[b, NTR] == 0:
        S[b, LEAD] = card >> 3
        S[b, WIN] = card
        S[b, WSEAT] = seat
        S[b, LEADER] = seat
    else:
        win = S[b, WIN]
        S[b, RULED + seat] |= R[F_FORB + ((ct * 4 + S[b, LEAD]) * 32 + win) * 32 + card]
        if R[F_BEATS + ct * 32 + win] >> card & 1:
            S[b, WIN] = card
            S[b, WSEAT] = seat
    S[b, TRICK + seat] = card
    S[b, NTR] += 1
    if S[b, NTR] < n:
        S[b, TURN] = _wrap(seat + 1, n)
        return
    winner = S[b, WSEAT]
    side = _wrap(winner, P[P_SIDES])
    gained = 0
    for s in range(n):
        gained += R[F_PTS + ct * 32 + S[b, TRICK + s]]
        S[b, TRICK + s] = -1
    last = S[b, HAND + winner] == 0
    if last:
        gained += P[P_LAST]  # R3
    S[b, CP + side] += gained
    S[b, TW + side] += 1
    S[b, NTRICKS] += 1
    S[b, NTR] = 0
    S[b, LEAD] = -1
    S[b, WIN] = -1
    S[b, WSEAT] = -1
    S[b, LEADER] = -1
    S[b, TURN] = winner  # R16
    if last:
        S[b, PHASE] = PH_DONE
        score_round(S, b, R)


@njit
def mask_row(S: np.ndarray, b: int, seat: int, out: np.ndarray, R: np.ndarray,
             held: np.ndarray) -> int:
    """Write ``seat``'s action mask (zero off turn); returns how many actions are legal."""
    P = R[F_P:F_P + P_SIZE]
    out[:] = 0
    phase = S[b, PHASE]
    if phase == PH_DONE or S[b, TURN] != seat:
        return 0
    count = 0
    hand = S[b, HAND + seat]
    if phase == PH_BIDDING:
        legal = R[_bids_at(S, b) + B_LEGAL]
        if legal & 1:
            out[P[P_PASS_AT]] = 1
            count += 1
        for c in range(6):
            if legal >> (c + 1) & 1:
                out[P[P_CALL_AT + c]] = 1
                count += 1
        return count
    if phase == PH_DISCARD:
        PAIRS = R[F_PAIRS:F_DISC].reshape((32, 32))
        m = hand
        while m != 0:
            bit = m & -m
            m ^= bit
            x = low_index(bit)
            rest = m
            while rest != 0:
                bit2 = rest & -rest
                rest ^= bit2
                out[PAIRS[x, low_index(bit2)]] = 1
                count += 1
        return count
    if phase == PH_EXCHANGE:
        swap, redeal = _exchange_rights(S, b, seat, R)
        if swap:
            out[P[P_SWAP_AT]] = 1
        if redeal:
            out[P[P_REDEAL_AT]] = 1
        out[P[P_KEEP_AT]] = 1
        return 1 + swap + redeal
    if S[b, DECN + seat] < 0 and S[b, NTRICKS] == 0 and not S[b, RASPAS]:  # R13, R37
        k = held_declarations(hand, R, held)
        at = P[P_DECLARE_AT]
        for i in range((1 << k) - 1):
            out[at + i] = 1
            count += 1
    if P[P_ENFORCE_OFF] and (S[b, NTRICKS] > 0 or S[b, NTR] > 0):  # R24
        out[P[P_CLAIM_AT]] = 1
        count += 1
    legal = legal_cards(S, b, seat, R)
    bela = 0
    if not S[b, RASPAS]:
        kq = hand & R[F_BELAM:F_BELAM + 8][S[b, CONTRACT]]
        for s in range(4):
            pair = kq & (0b01100000 << (8 * s))
            if popcount(pair) == 2:
                bela |= pair
    BELAI = R[F_BELAI:F_BELAI + 32]
    m = legal
    while m != 0:
        bit = m & -m
        m ^= bit
        c = low_index(bit)
        out[c] = 1
        count += 1
        if bela & bit:
            out[BELAI[c]] = 1
            count += 1
    return count


# -- observations ---------------------------------------------------------------------------
@njit
def _cards(out: np.ndarray, at: int, mask: int) -> None:
    m = mask
    while m != 0:
        bit = m & -m
        m ^= bit
        out[at + low_index(bit)] = 1.0


@njit
def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


@njit
def _proving(S: np.ndarray, b: int, seat: int, P: np.ndarray) -> bool:
    """Whether ``seat``'s plays prove what it holds (:func:`bela.engine.explain.
    proving_seats`): always with ``enforce = on``; with it off only the seats a claim
    wrongly accused, once the deal ended on it (R24)."""
    if not P[P_ENFORCE_OFF]:
        return True
    claimant = S[b, CLAIMANT]
    sides = P[P_SIDES]
    return claimant >= 0 and not S[b, CLAIM_VALID] and seat % sides != claimant % sides


@njit
def observe_row(S: np.ndarray, b: int, me: int, out: np.ndarray, R: np.ndarray
                ) -> None:
    """Write ``me``'s observation (:func:`bela.rl.spaces.observe`) into ``out``."""
    P = R[F_P:F_P + P_SIZE]
    OFF = R[F_OFF:F_OFF + O_SIZE]
    n = P[P_SEATS]
    sides = P[P_SIDES]
    out[:] = 0.0
    _cards(out, OFF[O_HAND], S[b, HAND + me] & ~S[b, HID + me])
    out[OFF[O_UNSEEN]] = popcount(S[b, HID + me]) / 8
    phase = S[b, PHASE]
    for r in range(n):
        s = _wrap(me + r, n)
        out[OFF[O_SIZES] + r] = popcount(S[b, HAND + s]) / 12
        if S[b, TRICK + s] >= 0:
            out[OFF[O_TRICK] + 32 * r + S[b, TRICK + s]] = 1.0
        _cards(out, OFF[O_PLAYED] + 32 * r, S[b, PLAYED + s])
        if _proving(S, b, s, P):
            _cards(out, OFF[O_RULED] + 32 * r, S[b, RULED + s])
    if S[b, LEADER] >= 0:
        out[OFF[O_LEADER] + _wrap(S[b, LEADER] - me, n)] = 1.0
    if S[b, TURNED] >= 0:
        out[OFF[O_TURNED] + S[b, TURNED]] = 1.0
        out[OFF[O_OPENED] + S[b, OPENED]] = 1.0
    if S[b, BOTTOM] >= 0:
        out[OFF[O_BOTTOM] + S[b, BOTTOM]] = 1.0
    if me == S[b, CALLER]:
        _cards(out, OFF[O_DISCARDS], S[b, DISCARDS])
    contract = S[b, CONTRACT]
    out[OFF[O_CONTRACT] + (6 if contract < 0 else contract)] = 1.0
    caller = S[b, CALLER]
    out[OFF[O_CALLER] + (n if caller < 0 else _wrap(caller - me, n))] = 1.0
    out[OFF[O_RASPAS]] = S[b, RASPAS]
    for r in range(n):
        s = _wrap(me + r, n)
        at = OFF[O_BIDS] + 8 * r
        if S[b, LASTBID + s] >= 0:
            out[at + S[b, LASTBID + s]] = 1.0
        out[at + 7] = min(S[b, NBIDS + s] / 4, 1.0)
        x = S[b, EXCH + s]
        at = OFF[O_EXCH] + 3 * r
        out[at] = x & 1
        out[at + 1] = x >> 1 & 1
        if s == me:
            out[at + 2] = x >> 2 & 1  # keeping is silent (R32, R35)
    dside = S[b, DSIDE]
    dseat = S[b, DSEAT]
    shown = dside if (S[b, NTRICKS] > 0 or phase == PH_DONE) else -1
    for r in range(n):
        s = _wrap(me + r, n)
        for suit in range(4):
            if S[b, BELA + s] >> suit & 1:
                out[OFF[O_BELAS] + 4 * r + suit] = 1.0
        if S[b, DECN + s] < 0:
            continue
        at = OFF[O_DECL] + 36 * r
        out[at] = 1.0
        out[at + 1] = min(S[b, DECN + s] / 4, 1.0)
        out[at + 2] = min(S[b, DVAL + s] / 200, 1.0)
        out[at + 3] = min(max(S[b, DSTR + s], 0) / 10_000, 1.0)
        if s == me or (shown >= 0 and _wrap(s, sides) == shown):
            _cards(out, at + 4, S[b, DMASK + s])
    out[OFF[O_DSEAT] + (n if dseat < 0 else _wrap(dseat - me, n))] = 1.0
    out[OFF[O_DTIE]] = S[b, DTIE]
    mine = _wrap(me, sides)
    target = float(P[P_TARGET])
    for i in range(sides):
        side = _wrap(mine + i, sides)
        out[OFF[O_CP] + i] = _clip(S[b, CP + side] / 162)
        out[OFF[O_TW] + i] = _clip(S[b, TW + side] / 10)
        out[OFF[O_TOTALS] + i] = _clip(S[b, TOT + side] / target)
    w = S[b, WSEAT] if S[b, NTR] > 0 else -1
    out[OFF[O_TWINNER] + (n if w < 0 else _wrap(w - me, n))] = 1.0
    out[OFF[O_PHASE] + phase] = 1.0
    out[OFF[O_DEALER] + _wrap(S[b, DEALER] - me, n)] = 1.0
    out[OFF[O_FIRST] + _wrap(S[b, FIRST] - me, n)] = 1.0
    out[OFF[O_TURN] + (n if phase == PH_DONE else _wrap(S[b, TURN] - me, n))] = 1.0
    if P[P_ENFORCE_OFF] and phase == PH_PLAY and (S[b, NTRICKS] > 0 or S[b, NTR] > 0):
        out[OFF[O_CLAIM]] = 1.0  # R24: a claim is allowed


# -- rewards and the match's end ------------------------------------------------------------
@njit
def deal_rewards(S: np.ndarray, b: int, P: np.ndarray, out: np.ndarray) -> None:
    """Add what the deal just booked is worth to each seat (:func:`bela.rl.env._rewards`)."""
    n = P[P_SEATS]
    sides = P[P_SIDES]
    if P[P_REWARD] == 1:
        if S[b, WINNER] < 0:
            return
        for s in range(n):
            out[s] += 1.0 if s % sides == S[b, WINNER] else -1.0 / (sides - 1)
        return
    total = 0.0
    for side in range(sides):
        total += S[b, SCORE + side]
    for s in range(n):
        x = float(S[b, SCORE + s % sides])
        if P[P_ZERO_SUM]:
            x = x - (total - x) / (sides - 1)
        out[s] += x


@njit
def after_action(S: np.ndarray, rng: np.ndarray, b: int, R: np.ndarray,
                 rewards: np.ndarray) -> int:
    """After an action: the deal's rewards when it ended, then the next deal; returns 0 while
    the match goes on, 1 when it ended (terminated), 2 when ``max_deals`` cut it
    (truncated).  Game ``b`` is left at its final position on 1 and 2."""
    if S[b, PHASE] != PH_DONE:
        return 0
    P = R[F_P:F_P + P_SIZE]
    deal_rewards(S, b, P, rewards)
    if S[b, WINNER] >= 0:
        return 1
    if P[P_MAX_DEALS] > 0 and S[b, ROUNDS] >= P[P_MAX_DEALS]:
        return 2
    deal(S, rng, b, R)
    return 0


@njit
def step_all(S: np.ndarray, rng: np.ndarray, actions: np.ndarray, R: np.ndarray,
             masks: np.ndarray, obs: np.ndarray, seats: np.ndarray, rewards: np.ndarray,
             ends: np.ndarray, final_obs: np.ndarray) -> int:
    """One action in every game (``actions[b]`` for the seat to act, checked against
    ``masks``, the masks written by the last call); then the new seat to act's observation,
    mask and seat.  ``ends``: 0, 1 terminated, 2 truncated (the game was reset: the row is
    the new match's; ``final_obs[b, seat]`` every seat's observation of the match's end).
    Returns -1, or the first game whose action is illegal (nothing applied then)."""
    B = S.shape[0]
    na = masks.shape[1]
    for b in range(B):
        a = actions[b]
        if a < 0 or a >= na or masks[b, a] == 0:
            return b
    held = np.zeros((_MAX_HELD, 5), np.int64)
    rewards[:] = 0.0
    for b in range(B):
        apply(S, b, actions[b], R, held)
        end = after_action(S, rng, b, R, rewards[b])
        ends[b] = end
        if end != 0:
            for s in range(final_obs.shape[1]):
                observe_row(S, b, s, final_obs[b, s], R)
            new_match(S, rng, b, R)
        seat = S[b, TURN]
        seats[b] = seat
        observe_row(S, b, seat, obs[b], R)
        mask_row(S, b, seat, masks[b], R, held)
    return -1


@njit
def reset_all(S: np.ndarray, rng: np.ndarray, R: np.ndarray, masks: np.ndarray,
              obs: np.ndarray, seats: np.ndarray) -> None:
    """A new match in every game, and the first seat to act's observation and mask."""
    held = np.zeros((_MAX_HELD, 5), np.int64)
    for b in range(S.shape[0]):
        new_match(S, rng, b, R)
        seat = S[b, TURN]
        seats[b] = seat
        observe_row(S, b, seat, obs[b], R)
        mask_row(S, b, seat, masks[b], R, held)


@njit
def observe_seat(S: np.ndarray, seat: int, R: np.ndarray, obs: np.ndarray,
                 masks: np.ndarray) -> None:
    """Every game's observation and mask for ``seat``."""
    held = np.zeros((_MAX_HELD, 5), np.int64)
    for b in range(S.shape[0]):
        observe_row(S, b, seat, obs[b], R)
        mask_row(S, b, seat, masks[b], R, held)


@njit
def pick_legal(m: np.ndarray, rng: np.ndarray, b: int, count: int) -> int:
    """A uniform legal action of mask ``m`` (``count`` of them) drawn from game ``b``'s
    generator (-1 when none)."""
    k = rand_below(rng, b, count)
    for i in range(m.shape[0]):
        if m[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@njit
def sample_masked(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniform legal action per row of ``masks`` (-1 for a row without one)."""
    for b in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[b, a]
        out[b] = -1 if count == 0 else pick_legal(masks[b], rng, b, count)


# -- one learning seat, the others a policy inside the loop ---------------------------------
POLICY_RANDOM, POLICY_NETWORK, POLICY_GREEDY = 0, 1, 2


@njit
def greedy_card(S: np.ndarray, b: int, seat: int, legal: int, R: np.ndarray) -> int:
    """The compiled self-play's greedy card (:func:`bela.solver.greedy.greedy_card`) of
    ``seat`` in game ``b``, with the contract's keys in the engine's numbering
    (:func:`bela.solver.greedy.greedy_keys`, in the rule array) and its play teams."""
    ct = S[b, CONTRACT]
    caller = S[b, CALLER]
    row = F_TEAMS + 4 * (4 if caller < 0 else caller)
    leading = S[b, NTR] == 0
    beats = 0 if leading else R[F_BEATS + 32 * ct + S[b, WIN]]
    same_team = not leading and R[row + S[b, WSEAT]] == R[row + seat]
    return shared_greedy_card(legal, leading, beats, same_team, S[b, RASPAS] != 0,
                              R[F_KEY + 32 * ct:F_KEY + 32 * ct + 32])


@njit
def greedy_action(S: np.ndarray, b: int, seat: int, m: np.ndarray, R: np.ndarray,
                  rng: np.ndarray) -> int:
    """The greedy opponent: in the card play it announces every declaration it holds, then
    plays :func:`greedy_card` (with bela when it may); bids, exchanges and discards are
    uniform random legal actions."""
    P = R[F_P:F_P + P_SIZE]
    count = 0
    for i in range(m.shape[0]):
        count += m[i]
    if S[b, PHASE] == PH_PLAY:
        at = P[P_DECLARE_AT]
        best = -1
        for i in range(15):
            if m[at + i]:
                best = at + i
        if best >= 0:
            return best
        legal = 0
        for c in range(32):
            if m[c]:
                legal |= 1 << c
        card = greedy_card(S, b, seat, legal, R)
        bela = R[F_BELAI + card]
        return bela if bela >= 0 and m[bela] else card
    return pick_legal(m, rng, b, count)


@njit
def network_action(x: np.ndarray, mask: np.ndarray, W: np.ndarray, sizes: np.ndarray,
                   h0: np.ndarray, h1: np.ndarray) -> int:
    """The legal action with the largest output of a ReLU network (weights ``W`` flat:
    per layer its ``(inputs, outputs)`` matrix then its biases; ``sizes`` the layer
    widths, inputs first; ``h0``/``h1`` scratch of the widest layer)."""
    at = 0
    width = sizes[0]
    for i in range(width):
        h0[i] = x[i]
    layers = sizes.shape[0] - 1
    for layer in range(layers):
        k = sizes[layer]
        m = sizes[layer + 1]
        for j in range(m):
            h1[j] = W[at + k * m + j]
        for i in range(k):
            v = h0[i]
            if v != 0.0:
                row = at + i * m
                for j in range(m):
                    h1[j] += v * W[row + j]
        at += k * m + m
        for j in range(m):
            h0[j] = max(h1[j], 0.0) if layer < layers - 1 else h1[j]
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] and (best < 0 or h0[a] > h0[best]):
            best = a
    return best


@njit
def policy_action(S: np.ndarray, b: int, seat: int, m: np.ndarray, x: np.ndarray,
                  policy: int, W: np.ndarray, sizes: np.ndarray, R: np.ndarray,
                  rng: np.ndarray, h0: np.ndarray, h1: np.ndarray) -> int:
    """The action of ``policy`` for ``seat`` of game ``b`` (``m`` its mask; ``x`` its
    observation, read by a network only): the network's best legal action, the greedy one
    (:func:`greedy_action`) or a uniform random legal action."""
    if policy == POLICY_NETWORK:
        return network_action(x, m, W, sizes, h0, h1)
    if policy == POLICY_GREEDY:
        return greedy_action(S, b, seat, m, R, rng)
    count = 0
    for i in range(m.shape[0]):
        count += m[i]
    return pick_legal(m, rng, b, count)


@njit
def act_all(S: np.ndarray, rng: np.ndarray, policy: int, W: np.ndarray, sizes: np.ndarray,
            R: np.ndarray, masks: np.ndarray, obs: np.ndarray, out: np.ndarray) -> None:
    """:func:`policy_action` in every game for its seat to act (``masks`` / ``obs``: that
    seat's, as :func:`step_all` leaves them) into ``out``."""
    wide = obs.shape[1]
    for i in range(sizes.shape[0]):
        wide = max(wide, sizes[i])
    h0 = np.zeros(wide, np.float32)
    h1 = np.zeros(wide, np.float32)
    for b in range(S.shape[0]):
        out[b] = policy_action(S, b, S[b, TURN], masks[b], obs[b], policy, W, sizes, R, rng,
                               h0, h1)


@njit
def _first_legal(mask: np.ndarray) -> int:
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@njit
def _opponents(S: np.ndarray, rng: np.ndarray, orng: np.ndarray, b: int, learner: int,
               policy: int, W: np.ndarray, sizes: np.ndarray, R: np.ndarray,
               held: np.ndarray, x: np.ndarray, m: np.ndarray, h0: np.ndarray,
               h1: np.ndarray, rewards: np.ndarray) -> int:
    """The other seats act until the learner is to act or the match ends (after_action)."""
    while S[b, TURN] != learner:
        seat = S[b, TURN]
        mask_row(S, b, seat, m, R, held)
        if policy == POLICY_NETWORK:
            observe_row(S, b, seat, x, R)
        a = policy_action(S, b, seat, m, x, policy, W, sizes, R, orng, h0, h1)
        apply(S, b, a, R, held)
        end = after_action(S, rng, b, R, rewards)
        if end != 0:
            return end
    return 0


@njit
def step_learner(S: np.ndarray, rng: np.ndarray, orng: np.ndarray, actions: np.ndarray,
                 learner: int, policy: int, W: np.ndarray, sizes: np.ndarray,
                 R: np.ndarray, masks: np.ndarray, obs: np.ndarray,
                 rewards: np.ndarray, ends: np.ndarray, illegal: np.ndarray,
                 final_obs: np.ndarray, final_masks: np.ndarray, penalty: float,
                 start: int) -> None:
    """The learner's action in every game (an illegal one replaced by its first legal
    action, flagged in ``illegal``, ``penalty`` added), then the others until it is to act
    again; a match that ends is written into ``final_obs`` / ``final_masks`` and a new one
    begins in the same step.  ``start``: 1 to begin every game with a new match instead
    (``reset``)."""
    n = R[F_P:F_P + P_SIZE][P_SEATS]
    held = np.zeros((_MAX_HELD, 5), np.int64)
    x = np.zeros(obs.shape[1], np.float32)
    m = np.zeros(masks.shape[1], np.int8)
    wide = obs.shape[1]
    for i in range(sizes.shape[0]):
        wide = max(wide, sizes[i])
    h0 = np.zeros(wide, np.float32)
    h1 = np.zeros(wide, np.float32)
    r = np.zeros(n, np.float64)
    lost = np.zeros(n, np.float64)
    for b in range(S.shape[0]):
        ends[b] = 0
        illegal[b] = 0
        fresh = start != 0
        if not fresh:
            r[:] = 0.0
            a = actions[b]
            if a < 0 or a >= masks.shape[1] or masks[b, a] == 0:
                illegal[b] = 1
                a = _first_legal(masks[b])
            apply(S, b, a, R, held)
            end = after_action(S, rng, b, R, r)
            if end == 0:
                end = _opponents(S, rng, orng, b, learner, policy, W, sizes, R, held, x, m,
                                 h0, h1, r)
            rewards[b] = r[learner] + (penalty if illegal[b] else 0.0)
            if end != 0:
                ends[b] = end
                observe_row(S, b, learner, final_obs[b], R)
                mask_row(S, b, learner, final_masks[b], R, held)
                fresh = True
        while fresh:  # a match that ends before the learner acts (a belot) is not its own
            new_match(S, rng, b, R)
            fresh = _opponents(S, rng, orng, b, learner, policy, W, sizes, R, held, x, m, h0,
                               h1, lost) != 0
        observe_row(S, b, learner, obs[b], R)
        mask_row(S, b, learner, masks[b], R, held)

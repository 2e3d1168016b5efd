"""The rule arrays the compiled vector environment reads, derived from the engine's own rule
definitions (never retyped): play tables (points R2/R3, trick order R20), the play duties
through :func:`bela.engine.explain.play_forbidden` (R17-R19, pairwise and so exact), the
declarations through :func:`bela.engine.declarations.find_declarations` and
:func:`~bela.engine.declarations.declaration_value` (R8-R11), bela suits (R14), the
variant's numbers (seats, sides, last-trick and capot bonuses, target), the deal's shape
(``deal_from_deck``), the bidding (``bid_actions`` and ``bid_effect`` after each number of
passes), ``exchange_possible``, the scoring hooks read on small cases (``score_points``,
``fall``, ``declaration_key``) and the action and observation layouts of
:mod:`bela.rl.spaces`.

>>> t = tables("bela4")
>>> t.forbidden.shape, int(t.params[P_SEATS]), int(t.params[P_NACT]), int(t.params[P_OBS])
((6, 4, 32, 32), 4, 61, 806)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ...engine.actions import BELA_PLAYS, CALLS, DECLINE, PASS, REDEAL, SWAP, Call, Discard, Pass
from ...engine.cards import RANK_MASKS, SUIT_MASKS, Card
from ...engine.declarations import FOUR_RANKS, declaration_value, find_declarations
from ...engine.enums import Enforce, EqualDeclarations, Outcome, Phase, Tie
from ...engine.explain import play_forbidden
from ...engine.rules import NO_TRUMPS, play_table
from ...engine.state import Round
from ...engine.variants import get_variant
from ...engine.variants.base import TableOptions, Variant
from ...solver.greedy import greedy_keys
from ..spaces import BELA_CARDS, BIDS, PHASES, ActionSpace, observation_size

Int64s = npt.NDArray[np.int64]


# params: one int64 vector per environment (variant facts, table options, env settings)
(P_SEATS, P_SIDES, P_TARGET, P_HANG, P_CANCEL, P_LAST, P_CAPOT, P_BELA_TRICK, P_HAND,
 P_SEEN, P_NACT, P_DECLARE_AT, P_PASS_AT, P_REWARD, P_ZERO_SUM, P_MAX_DEALS, P_OBS,
 P_DISCARD_AT, P_SWAP_AT, P_REDEAL_AT, P_KEEP_AT, P_TURNED_POS, P_BOTTOM_POS, P_EXTRA_POS,
 P_SHOW_BOTTOM, P_CAPOT_USED, P_FALL_KEEPS, P_TRUMP_SEQ, P_ENFORCE_OFF, P_CLAIM_AT) = range(30)
P_CALL_AT = 30  # 30..35: the action index of each contract's call (-1: none)
P_SIZE = 36

# the bidding table [turned suit (4: none), bids so far, field]: the engine's bid_actions
# and bid_effect after that many passes
(B_LEGAL, B_PASS_REVEALS, B_PASS_FIXES, B_PASS_THEN, B_CALL_THEN, B_CALL_GAINS, B_NEXT,
 B_RASPAS) = range(8)
MAX_BIDS = 8

# the kernels read every table from one flat int64 array (Tables.flat): the offsets
O_SIZE = 32
F_P = 0
F_OFF = F_P + 64
F_FORB = F_OFF + O_SIZE  # [contract 6, led suit 4, winning card 32, card 32]
F_BEATS = F_FORB + 6 * 4 * 32 * 32  # [contract 6, card 32]
F_PTS = F_BEATS + 6 * 32
F_BELAM = F_PTS + 6 * 32  # [contract 8]
F_BELAI = F_BELAM + 8  # [card 32]
F_SEQN = F_BELAI + 32  # [byte 256]
F_SEQM = F_SEQN + 256  # [byte 256, 2]
F_SEQS = F_SEQM + 512
F_SEQV = F_SEQS + 512
F_SEQB = F_SEQV + 512  # [byte 256]
F_FM = F_SEQB + 256  # [four 8] (0: none)
F_FS = F_FM + 8
F_FV = F_FS + 8
F_BIDS = F_FV + 8  # [turned suit 5, bids so far 8, field 8]
F_XP = F_BIDS + 5 * MAX_BIDS * 8  # [contract 6, face-up card 33, raspas 2]
F_PAIRS = F_XP + 6 * 33 * 2  # [card 32, card 32]
F_DISC = F_PAIRS + 32 * 32  # [discard slot 496, 2]
F_DEALAT = F_DISC + 496 * 2  # [seat 4, i 16]
F_REDEAL = F_DEALAT + 4 * 16  # [4] (0: none)
F_FACTOR = F_REDEAL + 4  # [contract 8]
F_KEY = F_FACTOR + 8  # [contract 6, card 32]: what a card costs to give away (greedy)
F_TEAMS = F_KEY + 6 * 32  # [caller 4 (4: none, raspas), seat 4]: the play teams
F_SIZE = F_TEAMS + 5 * 4

# the parts of the observation, in spaces.observe's order (their offsets: Tables.offsets)
(O_HAND, O_UNSEEN, O_SIZES, O_TRICK, O_LEADER, O_PLAYED, O_TURNED, O_BOTTOM, O_OPENED,
 O_DISCARDS, O_RULED, O_CONTRACT, O_CALLER, O_RASPAS, O_BIDS, O_EXCH, O_DECL, O_BELAS,
 O_DSEAT, O_DTIE, O_CP, O_TW, O_TWINNER, O_TOTALS, O_PHASE, O_DEALER, O_FIRST, O_TURN,
 O_CLAIM) = range(29)

PH_BIDDING, PH_DISCARD, PH_EXCHANGE, PH_PLAY, PH_DONE = (
    PHASES.index(p) for p in (Phase.BIDDING, Phase.DISCARD, Phase.EXCHANGE, Phase.PLAY,
                              Phase.DONE))
MAX_SEQ = 2  # maximal sequences of 3+ within one suit's 8 ranks


class UncompiledRule(NotImplementedError):
    """A variant whose rules leave what the compiled tables can say (a new variant's hook
    that the kernels do not read yet): use :mod:`bela.rl.env` for it."""


def _require(ok: bool, v: Variant, what: str) -> None:
    if not ok:
        raise UncompiledRule(f"the vector environment assumes {what}; {v.name} does not")


def part_sizes(v: Variant) -> list[int]:
    """The sizes of the observation's parts (spaces.observe's order)."""
    n, s = v.seats, v.sides
    return [32, 1, n, n * 32, n, n * 32, 32, 32, 32, 32, n * 32, 7, n + 1, 1,
            n * (len(BIDS) + 1), n * 3, n * (4 + 32), n * 4, n + 1, 1, s, s, n + 1,
            s, len(PHASES), n, n, n + 1, 1]


@dataclass(frozen=True)
class Tables:
    """Everything the kernels know about one variant under one set of table options."""

    variant: str
    params: Int64s  # P_* facts
    offsets: Int64s  # O_* the observation part offsets
    forbidden: Int64s  # [contract, led suit, winning card, card]: cards that make it illegal
    beats: Int64s  # [contract, card]: the cards that beat it in a trick (R20)
    points: Int64s  # [contract, card] (R2, R3)
    bela_mask: Int64s  # [contract]: the K and Q of the bela suits (R14)
    bela_index: Int64s  # [card]: the action index of its bela play, -1 for none
    seq_n: Int64s  # [suit byte]: how many declarations the byte holds (belot counts one)
    seq_mask: Int64s  # [suit byte, i]: the i-th one's ranks (a byte)
    seq_strength: Int64s  # [suit byte, i]: its seniority (R11)
    seq_value: Int64s  # [suit byte, i]: its points (R9)
    seq_belot: Int64s  # [suit byte]: 1 when the byte is a belot (R10)
    four_mask: Int64s  # [i]: the fours of FOUR_RANKS order (R8)
    four_strength: Int64s
    four_value: Int64s
    bids: Int64s  # B_* [turned suit, bids so far, field]
    exchange: Int64s  # [contract, face-up card (32: none), raspas]: exchange_possible
    pairs: Int64s  # [card, card]: the action index of discarding the two (-1: none)
    discards: Int64s  # [discard slot]: its two cards
    deal_at: Int64s  # [seat, i]: the deck position of the seat's i-th card dealt
    redeal: Int64s  # the rank masks whose four cards allow a redeal (R35)
    factor: Int64s  # [contract]: what every point counts (belot2 BC: 2, R36)
    key: Int64s  # [contract, card]: points, then trump, then strength (the greedy policy)
    teams: Int64s  # [caller (seats: none), seat]: Variant.play_teams

    def rules(self) -> Int64s:
        """Every table in one flat array, at the offsets ``F_*`` (what the kernels read)."""
        out = np.zeros(F_SIZE, np.int64)
        for at, a in ((F_P, self.params), (F_OFF, self.offsets), (F_FORB, self.forbidden),
                      (F_BEATS, self.beats), (F_PTS, self.points), (F_BELAM, self.bela_mask),
                      (F_BELAI, self.bela_index), (F_SEQN, self.seq_n),
                      (F_SEQM, self.seq_mask), (F_SEQS, self.seq_strength),
                      (F_SEQV, self.seq_value), (F_SEQB, self.seq_belot),
                      (F_FM, self.four_mask), (F_FS, self.four_strength),
                      (F_FV, self.four_value), (F_BIDS, self.bids), (F_XP, self.exchange),
                      (F_PAIRS, self.pairs), (F_REDEAL, self.redeal),
                      (F_FACTOR, self.factor), (F_KEY, self.key)):
            out[at:at + a.size] = a.ravel()
        out[F_DISC:F_DISC + self.discards.size] = self.discards.ravel()
        for s, row in enumerate(self.deal_at):
            out[F_DEALAT + 16 * s:F_DEALAT + 16 * s + len(row)] = row
        for c, row in enumerate(self.teams):
            at = F_TEAMS + 4 * (4 if c == len(self.teams) - 1 else c)
            out[at:at + len(row)] = row
        return out


def _declaration_tables(v: Variant) -> tuple[Int64s, Int64s, Int64s, Int64s, Int64s, Int64s,
                                             Int64s, Int64s]:
    seq_n = np.zeros(256, np.int64)
    seq_mask = np.zeros((256, MAX_SEQ), np.int64)
    seq_strength = np.zeros((256, MAX_SEQ), np.int64)
    seq_value = np.zeros((256, MAX_SEQ), np.int64)
    seq_belot = np.zeros(256, np.int64)
    for byte in range(256):
        found = find_declarations(byte, v.belot_wins)  # suit 0 (hearts): rank bits only
        found = [d for d in found if d.kind != "four"]
        seq_n[byte] = len(found)
        for i, d in enumerate(found):
            seq_mask[byte, i] = d.mask
            seq_strength[byte, i] = d.strength
            seq_value[byte, i] = declaration_value(d, v.declaration_values)
            seq_belot[byte] |= d.kind == "belot"
    fours = [d for r in FOUR_RANKS for d in find_declarations(RANK_MASKS[r], v.belot_wins)
             if d.kind == "four"]
    four_mask = np.array([d.mask for d in fours], np.int64)
    four_strength = np.array([d.strength for d in fours], np.int64)
    four_value = np.array([declaration_value(d, v.declaration_values) for d in fours],
                          np.int64)
    return seq_n, seq_mask, seq_strength, seq_value, seq_belot, four_mask, four_strength, \
        four_value


@cache
def _rule_tables(name: str) -> tuple[Int64s, Int64s, Int64s, Int64s]:
    v = get_variant(name)
    forbidden = np.zeros((NO_TRUMPS + 1, 4, 32, 32), np.int64)
    for contract in range(NO_TRUMPS + 1):
        for lead in range(4):
            for win in range(32):
                for card in range(32):
                    if card != win:
                        forbidden[contract, lead, win, card] = play_forbidden(
                            v.duties, contract, card, lead, win)
    tabs = [play_table(c) for c in range(NO_TRUMPS + 1)]
    beats = np.array([t.beats for t in tabs], np.int64)
    points = np.array([t.points for t in tabs], np.int64)
    bela = np.array([sum(SUIT_MASKS[s] & (RANK_MASKS[5] | RANK_MASKS[6]) for s in range(4)
                         if v.bela_suits(c) >> s & 1) for c in range(NO_TRUMPS + 1)],
                    np.int64)
    return forbidden, beats, points, bela


PHASE_CODES = {Phase.BIDDING: PH_BIDDING, Phase.DISCARD: PH_DISCARD,
               Phase.EXCHANGE: PH_EXCHANGE, Phase.PLAY: PH_PLAY}


def _deck_for(v: Variant, turned_suit: int | None) -> list[Card]:
    """A deck whose dealt face-up card (if any) is the 8 of ``turned_suit``."""
    deck = list(Card.ALL)
    at = _positions(v)[1].get("turned")
    if turned_suit is not None and at is not None:
        want = deck.index(Card.make(1, turned_suit))
        deck[at[0]], deck[want] = deck[want], deck[at[0]]
    return deck


def _positions(v: Variant, dealer: int = 0) -> tuple[list[list[int]], dict[str, list[int]]]:
    """Where each seat's cards and each extra key's cards lie in the shuffled deck."""
    d = v.deal_from_deck(list(Card.ALL), dealer)
    return [[int(c) for c in h] for h in d.hands], {k: [int(c) for c in x]
                                                    for k, x in d.extra.items()}


def bid_table(v: Variant) -> Int64s:
    """The bidding as the engine plays it (``bid_actions``, ``bid_effect``), after each
    number of passes, per face-up suit: bids end at the first call in every variant, so
    these are all the positions a bidding can reach."""
    out = np.zeros((5, MAX_BIDS, 8), np.int64)
    has_turned = "turned" in v.deal_keys
    for t in range(5):
        if (t < 4) != has_turned:
            continue
        deck = _deck_for(v, t if t < 4 else None)
        deal = v.deal_from_deck(deck, v.seats - 1)
        rnd = Round(v, v.make_options({}), v.seats - 1, deal)
        for i in range(MAX_BIDS):
            if rnd.phase != Phase.BIDDING:
                break
            row = out[t, i]
            legal = rnd.legal_actions()
            for a in legal:
                row[B_LEGAL] |= 1 if isinstance(a, Pass) else 2 << CALLS.index(a)
            seat = rnd.turn
            calls = [a for a in legal if isinstance(a, Call)]
            if calls:
                eff = v.bid_effect(rnd, calls[0])
                row[B_CALL_THEN] = PHASE_CODES[eff.then]
                row[B_CALL_GAINS] = eff.gains != 0
                _require(set(eff.reveal) == set(range(v.seats)), v, "a call shows every hand")
            if PASS not in legal:
                break
            eff = v.bid_effect(rnd, PASS)
            if eff.contract is not None:
                row[B_PASS_FIXES] = 1
                row[B_PASS_THEN] = PHASE_CODES[eff.then]
                row[B_RASPAS] = eff.raspas
                _require(eff.contract == t and set(eff.reveal) == set(range(v.seats)), v,
                         "a contract fixed by passes is the face-up suit, every hand shown")
                break
            _require(eff.next_turn is not None, v, "a pass passes the turn on")
            assert eff.next_turn is not None
            row[B_PASS_REVEALS] = seat in eff.reveal
            row[B_NEXT] = (eff.next_turn - seat) % v.seats
            rnd.apply(PASS)
    return out


def exchange_table(v: Variant) -> Int64s:
    out = np.zeros((NO_TRUMPS + 1, 33, 2), np.int64)
    for c in range(NO_TRUMPS + 1):
        for t in range(33):
            for r in range(2):
                out[c, t, r] = v.exchange_possible(c, None if t == 32 else t, bool(r))
    return out


def play_teams(v: Variant) -> Int64s:
    """Per caller (the last row: none, raspas) the play team of each seat
    (``Variant.play_teams``)."""
    n = v.seats
    rows = [v.play_teams(c) for c in range(n)]
    rows.append(v.play_teams(None) if v.raspas else tuple(range(n)))
    return np.array(rows, np.int64)


def _probe_scoring(v: Variant, opts: TableOptions) -> tuple[int, int, int, Int64s]:
    """The variant's scoring, read from its own hooks on small cases: whether taking every
    trick scores as štiglja (R23; belot2 has none, R36), whether a falling caller's
    opponents keep their own points (bela3, R28) instead of the other side taking all
    (R22), whether a trump sequence is senior among equals (R37), and what a point of
    each contract counts (belot2 BC doubles, R36)."""
    zeros = [0] * v.sides
    one = [1, *zeros[1:]]
    capot = v.score_points(opts, 0, 0, one, zeros, zeros, 0).outcome == Outcome.CAPOT
    own = [10 * (s + 1) for s in range(v.sides)]
    fell = v.fall(v.make_options({}), 0, own, sum(own), False, {"caller": 0, "contract": 0})
    keeps = v.sides > 1 and fell.scores[1] == own[1] and fell.scores[0] == 0
    seq = find_declarations(0b111)[0]  # a sequence in hearts
    trump_first = v.declaration_key(0, seq, 0, 0) > v.declaration_key(0, seq, 0, 1)
    factor = np.array([v.score_points(opts, 0, c, one, zeros, zeros, None).scores[0]
                       for c in range(NO_TRUMPS + 1)], np.int64)
    return int(capot), int(keeps), int(trump_first), factor


def tables(variant: str, options: dict[str, Any] | None = None, reward: str = "deal",
           zero_sum: bool = False, max_deals: int | None = None) -> Tables:
    """The tables of ``variant`` under the table ``options`` (checked as the engine checks
    them) and the reward settings of :class:`bela.rl.env.BelaEnv`."""
    v = get_variant(variant)
    opts: TableOptions = v.make_options(options)
    if reward not in ("deal", "match"):
        raise ValueError(f"reward must be one of deal, match, not {reward!r}")
    if max_deals is not None and max_deals < 1:
        raise ValueError(f"max_deals must be at least 1, not {max_deals}")
    space = ActionSpace.for_variant(v.name)
    p = np.zeros(P_SIZE, np.int64)
    p[P_SEATS], p[P_SIDES], p[P_TARGET] = v.seats, v.sides, opts.target
    p[P_HANG] = opts.tie == Tie.HANG
    p[P_CANCEL] = opts.equal_declarations == EqualDeclarations.CANCEL
    p[P_LAST], p[P_CAPOT], p[P_BELA_TRICK] = v.last_trick_bonus, v.capot_bonus, \
        v.bela_needs_trick
    p[P_HAND], p[P_SEEN] = v.hand_cards, v.seen_before_bid
    p[P_NACT], p[P_DECLARE_AT], p[P_PASS_AT] = space.n, space.declare_at, space.fixed[PASS]
    p[P_REWARD], p[P_ZERO_SUM] = reward == "match", zero_sum
    p[P_MAX_DEALS] = max_deals or 0
    p[P_OBS] = observation_size(v.name)
    for c in range(NO_TRUMPS + 1):
        p[P_CALL_AT + c] = space.fixed.get(CALLS[c], -1)
    p[P_SWAP_AT] = space.fixed.get(SWAP, -1)
    p[P_REDEAL_AT] = space.fixed.get(REDEAL, -1)
    p[P_KEEP_AT] = space.fixed.get(DECLINE, -1)
    p[P_ENFORCE_OFF] = opts.enforce == Enforce.OFF
    p[P_CLAIM_AT] = -1 if space.claim_at is None else space.claim_at
    pairs = np.full((32, 32), -1, np.int64)
    discards = np.zeros((max(1, sum(1 for a in space.actions if isinstance(a, Discard))), 2),
                        np.int64)
    p[P_DISCARD_AT] = -1
    for a in space.actions:
        if isinstance(a, Discard):
            i = space.fixed[a]
            if p[P_DISCARD_AT] < 0:
                p[P_DISCARD_AT] = i
            x, y = a.cards
            pairs[x, y] = pairs[y, x] = i
            discards[i - p[P_DISCARD_AT]] = (x, y)
    hands, extra = _positions(v)
    _require(all(_positions(v, d) == (hands, extra) for d in range(v.seats)), v,
             "the deal's shape does not depend on the dealer")
    p[P_TURNED_POS] = extra.get("turned", [-1])[0]
    p[P_BOTTOM_POS] = extra.get("bottom", [-1])[0]
    p[P_EXTRA_POS] = extra.get("extra", [-1])[0]
    p[P_SHOW_BOTTOM] = "bottom" in v.shown_after_bidding
    _require(p[P_EXTRA_POS] < 0 or extra["extra"] == [p[P_EXTRA_POS], p[P_EXTRA_POS] + 1],
             v, "the extra cards lie next to each other in the deck")
    p[P_CAPOT_USED], p[P_FALL_KEEPS], p[P_TRUMP_SEQ], factor = _probe_scoring(v, opts)
    redeal = np.array([RANK_MASKS[r] for r in v.redeal_ranks] or [0], np.int64)
    sizes = part_sizes(v)
    _require(sum(sizes) == p[P_OBS], v, "the observation parts are spaces.observe's")
    offsets = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
    bela_index = np.full(32, -1, np.int64)
    for c in BELA_CARDS:
        bela_index[c] = space.fixed[BELA_PLAYS[c]]
    forbidden, beats, points, bela = _rule_tables(v.name)
    return Tables(v.name, p, offsets, forbidden, beats, points, bela, bela_index,
                  *_declaration_tables(v), bid_table(v), exchange_table(v), pairs, discards,
                  np.array(hands, np.int64), redeal, factor, greedy_keys(), play_teams(v))

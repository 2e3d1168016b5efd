"""The rule arrays the compiled vector environment reads, derived from the engine's own rule
definitions (never retyped): play tables (points R2/R3, trick order R20), the play duties
through :func:`bela.engine.explain.play_forbidden` (R17-R19, pairwise and so exact), the
declarations through :func:`bela.engine.declarations.find_declarations` and
:func:`~bela.engine.declarations.declaration_value` (R8-R11), bela suits (R14), the
variant's numbers (seats, sides, last-trick and capot bonuses, target) and the action and
observation layouts of :mod:`bela.rl.spaces`.

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

from ...engine.actions import BELA_PLAYS, CALLS, PASS
from ...engine.cards import RANK_MASKS, SUIT_MASKS
from ...engine.declarations import FOUR_RANKS, declaration_value, find_declarations
from ...engine.enums import EqualDeclarations, Phase, Tie
from ...engine.explain import play_forbidden
from ...engine.rules import NO_TRUMPS, play_table
from ...engine.variants import get_variant
from ...engine.variants.base import TableOptions, Variant
from ..spaces import BELA_CARDS, BIDS, PHASES, ActionSpace, observation_size

Int64s = npt.NDArray[np.int64]
RuleArrays = tuple[Int64s, Int64s, Int64s, Int64s, Int64s, Int64s, Int64s, Int64s, Int64s,
                   Int64s, Int64s, Int64s, Int64s]

# the variants the vector environment plays completely (bidding to booking)
SUPPORTED = ("bela4",)

# params: one int64 vector per environment (variant facts, table options, env settings)
(P_SEATS, P_SIDES, P_TARGET, P_HANG, P_CANCEL, P_LAST, P_CAPOT, P_BELA_TRICK, P_HAND,
 P_SEEN, P_NACT, P_DECLARE_AT, P_PASS_AT, P_REWARD, P_ZERO_SUM, P_MAX_DEALS, P_OBS,
 P_MUS) = range(18)
P_CALL_AT = 18  # 18..23: the action index of each contract's call (-1: none)
P_SIZE = 24

# the parts of the observation, in spaces.observe's order (their offsets: Tables.offsets)
(O_HAND, O_UNSEEN, O_SIZES, O_TRICK, O_LEADER, O_PLAYED, O_TURNED, O_BOTTOM, O_OPENED,
 O_DISCARDS, O_RULED, O_CONTRACT, O_CALLER, O_RASPAS, O_BIDS, O_EXCH, O_DECL, O_BELAS,
 O_DSEAT, O_DTIE, O_CP, O_TW, O_TWINNER, O_TOTALS, O_PHASE, O_DEALER, O_FIRST, O_TURN,
 O_CLAIM) = range(29)

PH_BIDDING, PH_DISCARD, PH_EXCHANGE, PH_PLAY, PH_DONE = (
    PHASES.index(p) for p in (Phase.BIDDING, Phase.DISCARD, Phase.EXCHANGE, Phase.PLAY,
                              Phase.DONE))
MAX_SEQ = 2  # maximal sequences of 3+ within one suit's 8 ranks


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

    def rules(self) -> RuleArrays:
        """The rule arrays in the kernels' argument order (after ``P, OFF``)."""
        return (self.forbidden, self.beats, self.points, self.bela_mask, self.bela_index,
                self.seq_n, self.seq_mask, self.seq_strength, self.seq_value, self.seq_belot,
                self.four_mask, self.four_strength, self.four_value)


def _declaration_tables(v: Variant) -> tuple[Int64s, ...]:
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


def tables(variant: str, options: dict[str, Any] | None = None, reward: str = "deal",
           zero_sum: bool = False, max_deals: int | None = None) -> Tables:
    """The tables of ``variant`` under the table ``options`` (checked as the engine checks
    them) and the reward settings of :class:`bela.rl.env.BelaEnv`."""
    v = get_variant(variant)
    if v.name not in SUPPORTED:
        raise ValueError(f"the vector environment plays {', '.join(SUPPORTED)}, not "
                         f"{v.name} (use bela.rl.env for it)")
    opts: TableOptions = v.make_options(options)
    if "enforce" in v.options and opts.enforce != "on":
        raise ValueError("the vector environment plays with enforce = on only (R24: claims "
                         "are not compiled); use bela.rl.env for enforce = off")
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
    p[P_HAND], p[P_SEEN], p[P_MUS] = v.hand_cards, v.seen_before_bid, v.mus
    p[P_NACT], p[P_DECLARE_AT], p[P_PASS_AT] = space.n, space.declare_at, space.fixed[PASS]
    p[P_REWARD], p[P_ZERO_SUM] = reward == "match", zero_sum
    p[P_MAX_DEALS] = max_deals or 0
    p[P_OBS] = observation_size(v.name)
    for c in range(NO_TRUMPS + 1):
        p[P_CALL_AT + c] = space.fixed.get(CALLS[c], -1)
    sizes = part_sizes(v)
    assert sum(sizes) == p[P_OBS], "the observation parts are spaces.observe's"
    offsets = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
    bela_index = np.full(32, -1, np.int64)
    for c in BELA_CARDS:
        bela_index[c] = space.fixed[BELA_PLAYS[c]]
    forbidden, beats, points, bela = _rule_tables(v.name)
    return Tables(v.name, p, offsets, forbidden, beats, points, bela, bela_index,
                  *_declaration_tables(v))

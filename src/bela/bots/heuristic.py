"""A rule-of-thumb bot for every variant: hand-strength bidding and card play that counts cards.

The card play below is shared by all variants; what each variant decides before the first
card (bela3's forced call and discards, bela2's and belot2's turned card, VC / BC, swaps and
redeals) is in :mod:`bela.bots.contracts`, and each variant's knobs in its
profile (:mod:`bela.bots.profiles`).

The bot sees only its :class:`~bela.engine.views.SeatView`.  On each decision it rebuilds
what it may know from the view (cheap: at most 32 played cards):

* the cards still unseen by it (``unseen``: not played, not in its hand, not face up, not
  its own bela3 discards);
* per other seat, the cards it may still hold: unseen cards minus those its plays ruled out
  (the view's ``ruled_out``, the engine's facts: the suits it showed void in, the cards a
  duty would have made it play, R17-R19, R36; none where ``enforce = off`` lets a card
  break a duty), plus the cards it is known to hold (declared cards shown after the first
  trick, the other half of an announced bela, R13/R14);
* from those, a crude probability that a seat holds a given card (shared among the seats
  that may hold it, weighted by their free hand slots, and an out-of-play "stock" where some
  unseen cards lie: the bela3 caller's 2 discards for the others, bela2's 11 cards and belot2's
  13 pack cards, unknown to both players).

Bidding (R7) scores each suit as trump on the 6 visible cards: a linear estimate, in points,
of the calling side's margin (trump J, 9, A, 10 and length, side aces and tens, bela,
declarations); it calls the best suit when the estimate reaches a threshold, passes otherwise,
and as dealer after three passes calls the best suit.

Play: the leader draws trumps when its side called and it holds the master trump (the caller
also with two or more small trumps; a caller's partner returns trumps), cashes side-suit
masters (cards no unseen card beats) when no opponent is likely to ruff, and otherwise leads
cheaply, towards the partner's ruffs and away from the opponents'.  A follower scores every
legal card by the expected point swing of the trick (the probability that its side takes it,
from what the seats still to play may hold) minus the value of keeping that card for later.
That gives points (A, 10) to a partner who surely wins, ducks the cheapest card to an opponent
it cannot beat, and wins with the card that costs least: a low one while the win is in doubt,
never a master J or 9 of trump for a poor trick, but its own ace or ten when the win is sure
and the card would be at risk later (with R17-R19 a seat that can win mostly must).
Declarations (the Declare with all groups) and bela are always announced (R13, R14).

Without partners (bela3, bela2, belot2) a follower weighs the trick by who is likely to take
it: +1 itself, -1 an opponent (a bela3 non-caller may value the other non-caller's tricks at
:data:`ALLY_WEIGHT`, R28); in raspas (belot2, R37) the signs flip: it ducks under the lead with its
highest safe card, gives away aces and tens when void, takes (when it must) with the card
most likely to be caught later, and leads cards the opponent has to take (low cards of a
suit, a low trump that must be beaten, R36).

Deterministic: the action is a function of the view alone (ties go to the lower card); the
seed is accepted for the bot protocol.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

from ..engine.actions import Action, Call, Declare, Pass, Play
from ..engine.cards import FULL_DECK, SUIT_MASKS
from ..engine.declarations import declaration_value, find_declarations
from ..engine.enums import Enforce, Phase
from ..engine.rules import bela_duties, play_table
from ..engine.variants import get_variant
from ..engine.views import SeatView
from . import contracts
from .profiles import DEFAULT_PARAMS, HeuristicParams, profile

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

# The heuristic's constants (the knobs no variant's profile varies; those that vary are
# :class:`~bela.bots.profiles.HeuristicParams`).
# -- bidding (bela4): the expected point difference for the caller's side if this seat calls
# the suit, fitted (least squares) on heuristic self-play rounds with a forced call: a card
# of the trump suit by rank 7 8 9 T J Q K A, the number of trumps, side cards, bela (K+Q of
# trump) and declarations among the 6 visible cards.
BID_TRUMP = (13, 18, 49, 28, 79, 25, 26, 33)
BID_LENGTH = (0, 0, 0, 19, 46, 52, 52, 52, 52)  # by number of trumps
BID_SIDE_ACE = 23
BID_SIDE_TEN_WITH_ACE = 4
BID_SIDE_TEN_GUARDED = 10
BID_SIDE_TEN_BARE = 6
BID_BELA = 21
BID_DECLARATIONS = 1.0  # per point of declarations in the visible cards
BID_BASE = -140  # the fit's intercept
BID_THRESHOLD = 0  # call when the best suit's expected difference reaches this
# -- play: the chance that a kept card takes a later trick
KEEP_TRUMP = (1.0, 0.6, 0.35, 0.2)  # by number of unseen higher trumps
KEEP_SIDE_MASTER = 0.5
KEEP_SIDE_SECOND = 0.1  # one unseen card of the suit above it
KEEP_SIDE_TEN = 0.1  # a ten whose ace is still out
DEFENDER_TRUMP_LEAD_COST = 6
RETURN_TRUMP = True  # lead a low trump to the partner who called
ALLY_WEIGHT = 0.0  # bela3: a non-caller's worth of the other non-caller's tricks
RASPAS_SHED = 1.0  # belot2 raspas: weight of the risk of keeping a high card
RASPAS_CAPTURE = 10.0  # ... the points of the others' cards it would take
RASPAS_TRUMP_RISK = 0.3  # ... extra risk of a trump (a void forces it, R36)
RASPAS_LEAD_POINTS = 4.0  # ... the points the opponent adds to a led card


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class HeuristicBot:
    """Bidding by hand strength and card play with card counting (every variant)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, params: HeuristicParams | None = None,
                 tuning: Mapping[str, HeuristicParams] | None = None) -> None:
        self.rng = random.Random(seed)
        self.fixed = params  # None: each variant's own knobs (``tuning``, else its profile's)
        self.tuning = tuning
        self.params = params or DEFAULT_PARAMS

    # -- entry -------------------------------------------------------------------------------
    def act(self, view: SeatView) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("it is not this seat's turn")
        if self.fixed is None:
            self.params = (profile(view.variant).heuristic if self.tuning is None
                           else self.tuning[view.variant])
        if view.phase == Phase.BIDDING:
            if get_variant(view.variant).partners:  # the bela4 partnership estimate (R7)
                return self._bid(view)
            return contracts.bid(view, self.params)
        if view.phase == Phase.DISCARD:
            return contracts.discard(view, self.params)
        if view.phase == Phase.EXCHANGE:
            return contracts.exchange(view, self.params, HeuristicBot(
                0, replace(self.params, redeal_samples=0)))
        declares = [a for a in legal if isinstance(a, Declare)]
        if declares:
            # R13: announce everything (the options come largest subset first).
            return max(declares, key=lambda d: (len(d.groups), sum(len(g) for g in d.groups)))
        plays: dict[int, Play] = {}
        for a in legal:
            if isinstance(a, Play):
                if a.card not in plays or a.bela:  # R14: always announce bela when offered
                    plays[a.card] = a
        if not plays:  # an action this bot does not know (another variant): stay legal
            return legal[0]
        card = _Play(view, self.params).choose(sum(1 << c for c in plays))
        return plays[card]

    # -- bidding (R7) ------------------------------------------------------------------------
    def suit_scores(self, hand: int) -> list[float]:
        """Strength of ``hand`` (visible cards) with each suit as trump."""
        decl = sum(declaration_value(d) for d in find_declarations(hand)) * BID_DECLARATIONS
        side = [0.0] * 4
        for s in range(4):
            bits = hand >> (8 * s) & 0xFF
            v = 0.0
            if bits >> ACE & 1:
                v += BID_SIDE_ACE
                if bits >> TEN & 1:
                    v += BID_SIDE_TEN_WITH_ACE
            elif bits >> TEN & 1:
                v += BID_SIDE_TEN_GUARDED if bits & ~(1 << TEN) else BID_SIDE_TEN_BARE
            side[s] = v
        scores = []
        for s in range(4):
            bits = hand >> (8 * s) & 0xFF
            v = BID_BASE + decl + sum(side[o] for o in range(4) if o != s)
            v += sum(BID_TRUMP[r] for r in range(8) if bits >> r & 1)
            v += BID_LENGTH[bits.bit_count()]
            if bits >> KING & 1 and bits >> QUEEN & 1:
                v += BID_BELA
            scores.append(v)
        return scores

    def _bid(self, view: SeatView) -> Action:
        calls = [a for a in view.legal if isinstance(a, Call) and a.contract < 4]
        can_pass = any(isinstance(a, Pass) for a in view.legal)
        if not calls:
            return view.legal[0]
        scores = self.suit_scores(view.hand.mask)
        best = max(calls, key=lambda a: (scores[a.contract], -a.contract))
        if can_pass and scores[best.contract] < BID_THRESHOLD:
            return next(a for a in view.legal if isinstance(a, Pass))
        return best


class _Play:
    """What the seat knows about the play so far, and the card choice (every variant)."""

    def __init__(self, view: SeatView, params: HeuristicParams) -> None:
        assert view.contract is not None and view.seat is not None
        self.p = params
        self.view = view
        t = self.t = play_table(view.contract)
        self.trump = view.contract
        self.tm = t.trump_mask
        me = self.me = view.seat
        n = view.seats
        variant = get_variant(view.variant)
        self.raspas = view.raspas
        caller = view.caller
        side = variant.side_of(me)
        self.partner = next((s for s in range(n) if s != me and variant.side_of(s) == side), -1)
        self.opps: tuple[int, ...] = tuple(
            (me + k) % n for k in range(1, n) if variant.side_of((me + k) % n) != side)
        self.our_call = caller is not None and caller % view.sides == me % view.sides
        # what a trick won by each seat is worth to this seat, per point (not bela4, which
        # keeps its partnership formula): +1 own, -1 an opponent's; in bela3 a non-caller
        # values the other non-caller's tricks at :data:`ALLY_WEIGHT` (both want the caller to
        # fall, R28); in raspas every sign flips (R37: points taken count against you)
        u = [-1.0] * n
        u[me] = 1.0
        if caller is not None and caller != me and not variant.partners:
            teams = variant.play_teams(caller)
            for s in range(n):
                if s != me and teams[s] == teams[me]:
                    u[s] = ALLY_WEIGHT
        self.u = [-x for x in u] if self.raspas else u
        self.hand = view.hand.mask
        played = view.played.mask
        out = 0  # face-up cards (turned, bottom) and own discards: out of play and known
        for face_up in view.public.values():
            out |= 1 << face_up
        if view.discards is not None:
            out |= view.discards.mask
        unseen = self.unseen = FULL_DECK & ~played & ~self.hand & ~out
        known = [0] * n
        for seat, infos in enumerate(view.declared):
            if seat == me or not infos:
                continue
            for info in infos:
                if info.cards is not None:
                    known[seat] |= info.cards.mask & unseen
        if view.opened is not None:  # R32, R35: a swapper took the opened card
            for seat, token in view.exchanges:
                if seat != me and token == "swap":
                    known[seat] |= (1 << view.opened) & unseen
        if self.tm:
            kq = (1 << QUEEN | 1 << KING) << (8 * self.trump)
            for seat, suit in view.belas:
                if seat != me and suit == self.trump:
                    known[seat] |= kq & unseen
        all_known = 0
        for k in known:
            all_known |= k
        # what each seat may hold: the unseen cards its plays did not rule out (the engine's
        # facts: voids, and cards a duty would have forced, R17-R19, R36), and its known cards
        poss = [0] * n
        for s in range(n):
            if s != me:
                poss[s] = (unseen & ~view.ruled_out[s].mask & ~all_known) | known[s]
        self.poss = poss
        # probability that seat s holds card c: known cards are certain; the others are
        # shared among the seats that may hold them, each weighted by its free slots per
        # candidate card (hand size less known cards, over the cards it may hold); in
        # bela3 (a non-caller: the caller's discards), bela2 (11 cards) and belot2 (13) some
        # unseen cards are out of play, a "stock" that may hold any of them
        prob = [[0.0] * 32 for _ in range(n)]
        others = [s for s in range(n) if s != me]
        weight = [0.0] * n
        free_total = 0
        for s in others:
            free = view.hand_sizes[s] - known[s].bit_count()
            cands = (poss[s] & ~known[s]).bit_count()
            weight[s] = free / cands if free > 0 and cands else 0.0
            free_total += max(free, 0)
            for c in _bits(known[s]):
                prob[s][c] = 1.0
        pool = unseen & ~all_known
        stock = pool.bit_count() - free_total
        stock_w = stock / pool.bit_count() if stock > 0 else 0.0
        for c in _bits(pool):
            holders = [s for s in others if poss[s] >> c & 1]
            if not holders:
                if stock > 0:
                    continue  # out of play
                holders = others
            total = sum(weight[s] for s in holders)
            if stock > 0:
                total += stock_w
            if total <= 0.0:
                for s in holders:
                    prob[s][c] = 1.0 / len(holders)
                continue
            for s in holders:
                prob[s][c] = weight[s] / total
        self.prob = prob
        self.tricks_left = self.hand.bit_count()

    # -- estimates ---------------------------------------------------------------------------
    def _p_none(self, seat: int, mask: int) -> float:
        """Probability that ``seat`` holds none of the unseen cards of ``mask``."""
        pr = self.prob[seat]
        q = 1.0
        for c in _bits(mask & self.unseen):
            q *= 1.0 - pr[c]
        return q

    def p_beats(self, seat: int, win: int, lead: int) -> float:
        """Probability that ``seat`` (to play after) can take the trick from card ``win``."""
        t = self.t
        follow = 0.0
        if win >> 3 == lead:
            follow = 1.0 - self._p_none(seat, t.above[win])
        if not self.tm or lead == self.trump:
            return follow
        void = self._p_none(seat, SUIT_MASKS[lead])
        if void == 0.0:
            return follow
        ruff_cards = t.above[win] if self.tm >> win & 1 else self.tm
        return min(1.0, follow + void * (1.0 - self._p_none(seat, ruff_cards)))

    def p_ours(self, win: int, win_seat: int, lead: int, later: list[int]) -> float:
        """bela4: probability that our side takes the trick now won by ``win`` at
        ``win_seat``."""
        if win_seat % 2 == self.me % 2:
            q = 1.0
            for s in later:
                if s != self.partner:
                    q *= 1.0 - self.p_beats(s, win, lead)
            return q
        if self.partner not in later:
            return 0.0
        q = self.p_beats(self.partner, win, lead)
        after = later[later.index(self.partner) + 1:]
        for s in after:  # an opponent after the partner may take it back
            q *= 1.0 - 0.5 * self.p_beats(s, win, lead)
        return q

    def expected_u(self, win: int, win_seat: int, lead: int, later: list[int]) -> float:
        """Each for himself: the expected worth (``self.u``) of the trick's winner, when it is
        now won by ``win`` at ``win_seat`` and the seats ``later`` are still to play (each
        takes it with its chance to beat ``win``; half that once the winning card rose)."""
        mass = {win_seat: 1.0}
        for s in later:
            p = self.p_beats(s, win, lead)
            if p <= 0.0:
                continue
            taken = 0.0
            for holder, m in mass.items():
                f = p if holder == win_seat else 0.5 * p
                taken += m * f
                mass[holder] = m * (1.0 - f)
            mass[s] = mass.get(s, 0.0) + taken
        u = self.u
        return sum(u[s] * m for s, m in mass.items())

    def keep(self, c: int) -> float:
        """The value of keeping card ``c`` for a later trick (in raspas, minus the risk that
        it takes one)."""
        if self.tricks_left <= 1:
            return 0.0
        if self.raspas:
            return -self.danger(c)
        t = self.t
        p = self.p
        higher = (t.above[c] & self.unseen).bit_count()
        if self.tm >> c & 1:
            w = KEEP_TRUMP[min(higher, len(KEEP_TRUMP) - 1)]
        elif higher == 0:
            w = KEEP_SIDE_MASTER
        elif higher == 1:
            w = KEEP_SIDE_TEN if c & 7 == TEN else KEEP_SIDE_SECOND
        else:
            return 0.0
        return w * (t.points[c] + p.keep_capture)

    def danger(self, c: int) -> float:
        """Raspas (R37): how much keeping ``c`` may cost later: the share of the unseen cards
        of its suit that it beats, held by the opponent, times the points it would take."""
        t = self.t
        pr = self.prob[self.opps[0]]
        suit = SUIT_MASKS[c >> 3] & self.unseen
        lower = sum(pr[x] for x in _bits(suit & ~t.above[c]))
        higher = sum(pr[x] for x in _bits(suit & t.above[c]))
        risk = lower / (lower + higher + 1.0)
        if self.tm >> c & 1:
            risk = min(1.0, risk + RASPAS_TRUMP_RISK)
        return RASPAS_SHED * risk * (t.points[c] + RASPAS_CAPTURE)

    # -- choice ------------------------------------------------------------------------------
    def choose(self, legal: int) -> int:
        view = self.view
        if view.options.get("enforce") == Enforce.OFF:  # honour system: still follow R17-R19
            lead = view.trick[0][1] >> 3 if view.trick else -1
            win = self._current_win()[0] if view.trick else -1
            legal = (bela_duties(self.hand, lead, win, self.t) & legal) or legal
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        if not view.trick:
            return self.lead_raspas(legal) if self.raspas else self.lead(legal)
        return self.follow(legal)

    def _current_win(self) -> tuple[int, int]:
        beats = self.t.beats
        seat, win = self.view.trick[0]
        for s, c in self.view.trick[1:]:
            if beats[win] >> c & 1:
                win, seat = c, s
        return win, seat

    def follow(self, legal: int) -> int:
        view = self.view
        t = self.t
        pts = t.points
        beats = t.beats
        n = view.seats
        lead = view.trick[0][1] >> 3
        win, win_seat = self._current_win()
        trick_pts = sum(pts[c] for _, c in view.trick)
        if self.tricks_left == 1:
            trick_pts += 10  # R21 last trick
        later = [(self.me + i) % n for i in range(1, n - len(view.trick))]
        best = -1
        best_key: tuple[float, ...] = ()
        for c in _bits(legal):
            if beats[win] >> c & 1:
                w, ws = c, self.me
            else:
                w, ws = win, win_seat
            if self.partner >= 0:
                worth = 2.0 * self.p_ours(w, ws, lead, later) - 1.0
            else:
                worth = self.expected_u(w, ws, lead, later)
            value = worth * (trick_pts + pts[c]) - self.keep(c)
            key = (round(value, 6), -t.strength[c], -pts[c], -c)
            if best < 0 or key > best_key:
                best, best_key = c, key
        return best

    def lead(self, legal: int) -> int:
        t = self.t
        p = self.p
        tm = self.tm
        hand = legal
        my_trumps = hand & tm
        opps = self.opps
        opp_trumps = any(self.poss[o] & tm for o in opps)
        # 1. The calling side draws trumps.
        if self.our_call and my_trumps and opp_trumps:
            masters = [c for c in _bits(my_trumps) if not t.above[c] & self.unseen]
            if masters:
                return max(masters, key=lambda c: t.strength[c])
            if self.view.caller == self.me and my_trumps.bit_count() >= p.draw_low_trumps_min:
                return min(_bits(my_trumps), key=lambda c: (t.strength[c], c))
            if RETURN_TRUMP and self.view.caller == self.partner:
                return min(_bits(my_trumps), key=lambda c: (t.strength[c], c))
        # 2. Cash side-suit masters that no opponent is likely to ruff.
        best = -1
        best_val = 0.0
        for c in _bits(hand & ~tm):
            if t.above[c] & self.unseen:
                continue
            suit = SUIT_MASKS[c >> 3]
            safe = 1.0
            if tm and opp_trumps:
                for o in opps:
                    safe *= 1.0 - self._p_none(o, suit) * (1.0 - self._p_none(o, tm))
            if safe < p.lead_master_min_safe:
                continue
            val = safe * (t.points[c] + 5) + t.strength[c] * 0.01
            if val > best_val:
                best, best_val = c, val
        if best >= 0:
            return best
        # 3. Otherwise lead cheaply, towards the partner's ruffs, away from the opponents'.
        partner = self.partner
        best_cost = 0.0
        for c in _bits(hand):
            cost = t.points[c] + self.keep(c)
            suit = SUIT_MASKS[c >> 3]
            if tm >> c & 1:
                if not self.our_call:
                    cost += DEFENDER_TRUMP_LEAD_COST
            else:
                if c & 7 == TEN and t.above[c] & self.unseen:
                    cost += 5  # the ace is out: the ten would be lost
                if tm:
                    ruff_opp = max(self._p_none(o, suit) * (1.0 - self._p_none(o, tm))
                                   for o in opps)
                    ruff_partner = (self._p_none(partner, suit)
                                    * (1.0 - self._p_none(partner, tm))) if partner >= 0 else 0.0
                    cost += 6 * ruff_opp - 4 * ruff_partner
                # a master of the suit held by the partner helps
                top_unseen = self.unseen & suit
                if top_unseen and partner >= 0:
                    top = max(_bits(top_unseen), key=lambda x: t.strength[x])
                    cost -= 3 * self.prob[partner][top]
            cost += t.strength[c] * 0.01
            if best < 0 or cost < best_cost:
                best, best_cost = c, cost
        return best

    def lead_raspas(self, legal: int) -> int:
        """Raspas (R37, two players): lead what the opponent has to take (a card below all
        of his in its suit, a low trump he must beat, R36), and shed dangerous high cards
        when that is cheap."""
        t = self.t
        tm = self.tm
        opp = self.opps[0]
        best = -1
        best_val = 0.0
        for c in _bits(legal):
            suit = SUIT_MASKS[c >> 3]
            above = t.above[c] & self.unseen
            below = suit & self.unseen & ~t.above[c]
            if tm >> c & 1:  # a trump lead must be beaten if possible (R36)
                take = 1.0 - self._p_none(opp, above)
            else:
                void = self._p_none(opp, suit)
                take = (self._p_none(opp, below) * (1.0 - self._p_none(opp, above))
                        + void * (1.0 - self._p_none(opp, tm)))
            value = (2.0 * take - 1.0) * (t.points[c] + RASPAS_LEAD_POINTS) \
                + self.danger(c) - t.strength[c] * 0.01
            if best < 0 or value > best_val:
                best, best_val = c, value
        return best

"""Helpers for the double-dummy solver tests (no tests here).

- :func:`ref_values`: plain minimax (no pruning, no transposition table, no equivalent
  cards) over the engine's own duty functions and tables, written from the rules: the side
  to move's card points over the whole round after each legal card.
- :func:`engine_values`: the same minimax, but playing every card through ``Round.apply``
  and ``Round.undo`` (slow: tiny endings only).
- :func:`random_round`: a round of any variant dealt, bid and played at random (public
  API only) until each seat holds a given number of cards, optionally mid-trick.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bela.engine import Card, Match, Play, Round
from bela.engine.actions import Decline, Redeal
from bela.engine.rules import play_table, trick_winner_index
from bela.engine.variants import get_variant

VARIANTS = ("bela4", "bela3", "bela2", "belot2")


def ref_teams(variant: str, seats: int, caller: int) -> tuple[int, ...]:
    """Sides of the value: seats 0+2 / 1+3 in bela4, the caller against the two others in
    bela3, each seat in the two-player variants."""
    if variant == "bela4":
        return tuple(s % 2 for s in range(4))
    if variant == "bela3":
        return tuple(0 if s == caller else 1 for s in range(3))
    return tuple(range(seats))


def ref_values(variant: str, contract: int, hands: Sequence[int], leader: int,
               trick: Sequence[int], teams: Sequence[int], taken: Sequence[int],
               raspas: bool = False) -> dict[int, int]:
    """For each legal card of the seat to play: the card points its team takes over the
    whole round (``taken`` per team plus the rest of the round), every seat playing best
    for its team (in raspas: each taking as few points as it can)."""
    v = get_variant(variant)
    table = play_table(contract)
    n = len(hands)
    hs = list(hands)

    def rec(lead_seat: int, cards: list[int]) -> tuple[int, int]:
        """Points (team 0, team 1) from the current trick on."""
        if len(cards) == n:
            w = (lead_seat + trick_winner_index(cards, table)) % n
            pts = sum(table.points[c] for c in cards)
            last = not any(hs)
            got = [0, 0]
            got[teams[w]] = pts + (10 if last else 0)
            if last:
                return got[0], got[1]
            r = rec(w, [])
            return got[0] + r[0], got[1] + r[1]
        seat = (lead_seat + len(cards)) % n
        lead = cards[0] >> 3 if cards else -1
        win = cards[trick_winner_index(cards, table)] if cards else -1
        legal = v.duties(hs[seat], lead, win, table)
        team = teams[seat]
        best: tuple[int, int] | None = None
        for c in range(32):
            if legal >> c & 1:
                hs[seat] ^= 1 << c
                r = rec(lead_seat, [*cards, c])
                hs[seat] ^= 1 << c
                if best is None or (r[team] < best[team] if raspas else r[team] > best[team]):
                    best = r
        assert best is not None
        return best

    seat = (leader + len(trick)) % n
    lead = trick[0] >> 3 if trick else -1
    win = trick[trick_winner_index(list(trick), table)] if trick else -1
    legal = v.duties(hs[seat], lead, win, table)
    out = {}
    for c in range(32):
        if legal >> c & 1:
            hs[seat] ^= 1 << c
            r = rec(leader, [*trick, c])
            hs[seat] ^= 1 << c
            out[c] = taken[teams[seat]] + r[teams[seat]]
    return out


def round_teams_taken(rnd: Round) -> tuple[tuple[int, ...], tuple[int, int]]:
    """The sides and the card points they have taken, from a round (written independently
    of bela.solver)."""
    name = rnd.variant.name
    teams = ref_teams(name, rnd.variant.seats, rnd.caller)
    cp = rnd.card_points
    if name == "bela3":
        taken = (cp[rnd.caller], sum(cp) - cp[rnd.caller])
    else:
        taken = (cp[0], cp[1])
    return teams, taken


def ref_round_values(rnd: Round) -> dict[int, int]:
    """:func:`ref_values` of a round in its play phase."""
    teams, taken = round_teams_taken(rnd)
    leader = rnd.trick_seats[0] if rnd.trick else rnd.turn
    return ref_values(rnd.variant.name, rnd.contract, rnd.hands, leader, rnd.trick, teams,
                      taken, rnd.raspas)


def side_points(rnd: Round, seat: int) -> int:
    """Card points taken so far by the side of ``seat`` (bela3: caller / defenders)."""
    teams, taken = round_teams_taken(rnd)
    return taken[teams[seat]]


def engine_values(rnd: Round) -> dict[int, int]:
    """Minimax through ``Round.apply`` / ``Round.undo``: each legal card's value for the
    seat to play (points of its side at the end of the round, best play)."""
    seat = rnd.turn

    def rec() -> int:
        """The round-end points of the side of ``seat`` with best play from here."""
        if rnd.is_over:
            return side_points(rnd, seat)
        me = rnd.turn
        teams, _ = round_teams_taken(rnd)
        mine = teams[me] == teams[seat]
        results = []
        for c in range(32):
            if rnd.legal_cards() >> c & 1:
                rnd.apply(Play(Card.ALL[c]))
                results.append(rec())
                rnd.undo()
        # a seat of the other side wants the opposite of what `seat`'s side wants
        want_high = mine != rnd.raspas
        return max(results) if want_high else min(results)

    out = {}
    for c in range(32):
        if rnd.legal_cards() >> c & 1:
            rnd.apply(Play(Card.ALL[c]))
            out[c] = rec()
            rnd.undo()
    return out


def random_round(variant: str, rng: random.Random, cards_left: int,
                 mid_trick: bool | None = None) -> Round:
    """A round of ``variant`` dealt, bid and played at random until each seat holds
    ``cards_left`` cards, then (``mid_trick`` True, or at random when None) 1..seats-1 more
    cards of the next trick."""
    while True:
        m = Match(variant, seed=rng.randrange(1 << 30))
        rnd = m.deal()
        while rnd.phase not in ("play", "done"):
            acts = rnd.legal_actions()
            if rnd.phase == "exchange":
                acts = [a for a in acts if not isinstance(a, Redeal)] or [Decline()]
            m.apply(acts[rng.randrange(len(acts))])
        if rnd.is_over:
            continue
        n = rnd.variant.seats
        if mid_trick is None:
            extra = rng.randrange(n)
        else:
            extra = rng.randrange(1, n) if mid_trick else 0
        while not rnd.is_over and (rnd.hands[rnd.turn].bit_count() > cards_left
                                   or len(rnd.trick) < extra):
            acts = [a for a in rnd.legal_actions() if isinstance(a, Play) and not a.bela]
            m.apply(acts[rng.randrange(len(acts))])
        if not rnd.is_over and rnd.hands[rnd.turn]:
            return rnd

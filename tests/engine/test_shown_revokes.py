"""shown_revokes (R24): the revokes the public cards prove are real ones, each named with the
card that proves it, and every real revoke is proven once its proof is on the table."""

from __future__ import annotations

import random

from bela.engine import Match
from bela.engine.explain import shown_revokes
from bela.engine.views import seat_view


def test_every_shown_revoke_is_real_and_proven_by_its_card() -> None:
    shown_any = 0
    for seed in range(40):
        m = Match("bela4", {"enforce": "off"}, seed=seed)
        rnd = m.deal()
        rng = random.Random(seed)
        while not rnd.is_over:
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
            found = shown_revokes(rnd)
            assert seat_view(m, 0).revokes_shown == found == seat_view(m, None).revokes_shown
            played = {(s, c) for seats, cards, _ in rnd.tricks for s, c in zip(seats, cards)}
            played |= set(zip(rnd.trick_seats, rnd.trick))
            for r in found:
                shown_any += 1
                assert rnd.revoked[r.seat] is not None  # the engine saw that seat revoke
                assert (r.seat, r.card) in played and (r.seat, r.proof) in played
                assert r.trick < r.proof_trick
                assert r.rule in ("R17", "R18", "R19")
                assert r.kind in ("follow", "beat", "trump", "overtrump")
            assert len({r.seat for r in found}) == len(found)
        if rnd.result is not None and rnd.result.outcome != "claim":
            # the last card is on the table: every seat's revoke has been proven
            assert {r.seat for r in shown_revokes(rnd)} == {
                s for s, c in enumerate(rnd.revoked) if c is not None}
    assert shown_any > 100


def test_none_with_enforce_on() -> None:
    for seed in range(10):
        m = Match("bela4", seed=seed)
        rnd = m.deal()
        rng = random.Random(seed)
        while not rnd.is_over:
            legal = rnd.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
            assert shown_revokes(rnd) == ()

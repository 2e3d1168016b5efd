"""Bots at tables with ``enforce = off`` (R24, issue 38 item 1): every bot plays by the
duties (R17-R19) except the beginner's deliberate revokes at its documented rate, and
every bot seat claims auzmeš as soon as its view proves an opponent's revoke, never
before."""

from __future__ import annotations

import random

import pytest

from bela.bots import make_bot
from bela.bots.claims import claim_for
from bela.bots.driver import Driver, bot_view, decide
from bela.engine import Claim, Match, Play, parse_action
from bela.engine.cards import Card
from bela.engine.enums import Outcome
from bela.engine.views import seat_view

OFF = {"enforce": "off"}


def _play(spec: str, deals: int, seed: int, revokes: bool = True,
          mirror: dict[int, random.Random] | None = None) -> tuple[int, int, int, Driver]:
    """Deals of bela4 at ``enforce = off`` with ``spec`` at every seat (a new match when
    one is over): (cards where a duty refused a card, duties broken, bot claims, the last
    driver).  ``mirror``: per seat the draw its revokes are made with, followed move by
    move (the revoke is made exactly where the draw says, with the card it says)."""
    duties = broken = claims = 0
    m = Match("bela4", OFF, seed=seed)
    bots = {s: make_bot(spec, seed * 10 + s) for s in range(4)}
    d = Driver(m, bots, seed=seed)
    for _ in range(deals):
        rnd = d.deal()
        while not rnd.is_over:
            claim = d.bot_claim()
            if claim is not None:
                view = seat_view(m, claim.seat)
                assert any(view.side_of(r.seat) != view.side_of(claim.seat)
                           for r in view.revokes_shown)
                m.apply(claim)
                claims += 1
                assert rnd.result is not None and rnd.result.extra["valid"] is True
                break
            seat = rnd.turn
            view = seat_view(m, seat)
            refused = sorted(r.card for r in view.refusals)
            if revokes:
                decision = d.bot_decision(seat, view)
            else:  # as the server decides at rated tables
                decision = decide(bots[seat].act, view, 0, revokes=False)
                assert decision.failure is None
            action = decision.action
            revoked = isinstance(action, Play) and action.card in refused
            if refused and all(isinstance(a, Play) for a in bot_view(view).legal):
                duties += 1
                broken += revoked
                if mirror is not None:
                    draw = mirror[seat]
                    expected = draw.random() < 0.02
                    assert revoked == expected
                    if expected:
                        assert action == Play(draw.choice(refused))
            else:
                assert not revoked
            m.apply(action)
        if m.is_over:
            m = Match("bela4", OFF, seed=seed + m.rounds.__len__())
            bots = {s: make_bot(spec, seed * 10 + s) for s in range(4)}
            d = Driver(m, bots, seed=seed)
            if mirror is not None:
                mirror.update({s: random.Random(f"revoke {seed * 10 + s}") for s in range(4)})
    return duties, broken, claims, d


@pytest.mark.parametrize("spec", ["random", "heuristic", "club", "learned:endgame=0"])
def test_bots_break_no_duty_with_enforce_off(spec: str) -> None:
    """Many random deals: not one duty broken, no claim (nobody revoked), no fallback."""
    duties, broken, claims, d = _play(spec, 12, seed=5)
    assert duties > 50
    assert broken == 0 and claims == 0
    assert set(d.failures.values()) == {0}


def test_expert_and_master_play_by_the_duties_without_falling_back() -> None:
    """expert (the network, the last tricks by search) and master (pimc with the network as
    prior) searched only the duties' cards and crashed on the others (KeyError in
    card_values): at ``enforce = off`` they play every deal themselves."""
    for spec in ("expert:nodes=20000", "master:samples=3,nodes=20000"):
        duties, broken, claims, d = _play(spec, 1, seed=7)
        assert duties > 2 and broken == 0 and claims == 0, spec
        assert set(d.failures.values()) == {0}, spec


def test_pimc_values_only_the_cards_it_searched() -> None:
    """Given the whole hand as legal (a raw view at ``enforce = off``), pimc's values
    cover the duties' cards only, instead of raising KeyError."""
    m = Match("bela4", OFF, first_dealer=3)
    m.deal([Card.parse(h) for h in HANDS])
    for token in ("H", "KS"):
        m.apply(parse_action(token))
    bot = make_bot("pimc:samples=3,nodes=20000", 1)
    values = bot.card_values(seat_view(m, 1))  # type: ignore[attr-defined]
    assert set(values) == {Card.parse("TS")[0], Card.parse("AS")[0]}


def test_beginner_revokes_at_its_rate() -> None:
    """The beginner breaks a duty with probability 2 % (``revoke=0.02``) at each card where
    one refuses a card, from its own seeded draw: followed move by move, the revokes are
    exactly those of the draw, with the card it picks; the opponents claim the proven
    ones.  At rated tables (``revokes=False``) it never breaks one."""
    mirror = {s: random.Random(f"revoke {11 * 10 + s}") for s in range(4)}
    duties, broken, claims, d = _play("beginner", 16, seed=11, mirror=mirror)
    assert duties > 100 and broken >= 2  # the draw revoked; the rate is the draw's
    assert claims >= 1  # some were proven, and the other side claimed them
    assert set(d.failures.values()) == {0}
    duties, broken, _, _ = _play("beginner", 8, seed=11, revokes=False)
    assert duties > 50 and broken == 0


def test_the_revoke_draw_has_the_documented_rate() -> None:
    """The draw the beginner revokes by gives 2 %: over 20000 cards the count is within
    five standard deviations of 400."""
    bot = make_bot("beginner", 3)
    hits = sum(bot.revoke_rng.random() < bot.revoke for _ in range(20000))  # type: ignore[attr-defined]
    assert bot.revoke == 0.02  # type: ignore[attr-defined]
    assert abs(hits - 400) < 5 * (20000 * 0.02 * 0.98) ** 0.5


# seat 1 plays a diamond on K♠ while it holds Q♠ (R17), and shows Q♠ two tricks later
HANDS = ("KS 7S 8S 9S 7C 8C 9C TC", "AS TS JS QS 7D 8D 9D TD",
         "JH 9H AH TH JD QD KD AD", "KH QH 8H 7H JC QC KC AC")
BEFORE_PROOF = ("H", "KS", "7D", "JH", "7H", "AD", "8H", "7C", "8D", "JC", "TC")


def _planted(bots: dict[int, str]) -> tuple[Match, Driver]:
    m = Match("bela4", OFF, first_dealer=3)
    d = Driver(m, {s: make_bot(spec, s) for s, spec in bots.items()})
    m.deal([Card.parse(h) for h in HANDS])
    for token in BEFORE_PROOF:
        m.apply(parse_action(token))
    return m, d


@pytest.mark.parametrize("spec", ["random", "heuristic", "beginner", "club", "expert",
                                  "master"])
def test_every_level_claims_a_proven_revoke_at_once(spec: str) -> None:
    """Seat 1 revoked in trick 1; its Q♠ in trick 3 proves it.  Seat 0's bot claims
    before the next card, and is right: the offender and its card are recorded."""
    m, d = _planted({0: spec, 2: spec})  # seat 1 (the offender) and seat 3 are people
    rnd = m.round
    assert rnd is not None
    assert d.bot_claim() is None  # not proven yet: no claim
    assert d.run_bots() == 1  # the offender is to act: nothing happens
    d.apply(1, parse_action("QS"))
    heard = []
    assert d.run_bots(lambda seat, events: heard.append(seat)) is None
    assert rnd.result is not None and rnd.result.outcome == Outcome.CLAIM
    assert rnd.log[-1] == Claim(2) and heard == [2]  # the first bot seat from the turn on
    assert rnd.result.extra == {"claimant": 2, "valid": True, "offender": 1, "card": "7D"}
    assert rnd.result.scores == (162, 0)


def test_a_revoke_the_view_cannot_prove_is_never_claimed() -> None:
    """People playing any card (seats 1 and 3, at random) revoke often; the bots at seats
    0 and 2 claim exactly when their views prove one, never while a revoke is real but
    unproven (a person's claim would win then), and every claim they make is right."""
    unproven = made = 0
    for seed in range(30):
        m = Match("bela4", OFF, seed=seed)
        d = Driver(m, {0: make_bot("heuristic", seed), 2: make_bot("heuristic", seed + 1)})
        people = random.Random(seed)
        rnd = d.deal()
        while not rnd.is_over:
            shown = any(r.seat % 2 for r in seat_view(m, 0).revokes_shown)
            claim = d.bot_claim()
            assert (claim is not None) == (shown and rnd.claim_allowed())
            if claim is None and (rnd.revoked[1] is not None or rnd.revoked[3] is not None):
                unproven += rnd.claim_allowed()
            seat = d.run_bots()
            if claim is not None:
                made += 1
                assert rnd.result is not None and rnd.result.extra["valid"] is True
            elif seat is not None:
                legal = seat_view(m, seat).legal
                d.apply(seat, legal[people.randrange(len(legal))])
    assert unproven > 20 and made > 5


def test_claim_only_against_opponents() -> None:
    """The offender's partner (seat 3) sees the same proof but never claims."""
    m, _ = _planted({})
    m.apply(parse_action("QS"))
    assert claim_for(seat_view(m, 3)) is None
    assert claim_for(seat_view(m, 1)) is None
    assert claim_for(seat_view(m, 0)) == Claim(0)
    assert claim_for(seat_view(m, None)) is None

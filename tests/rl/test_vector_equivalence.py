"""The vector environment plays the engine's game: random trajectories of
:class:`bela.rl.vector.VecGames` replayed through :meth:`Match.apply`, comparing step by
step the seat to act, every seat's observation (:func:`bela.rl.spaces.observe`) and action
mask (:meth:`ActionSpace.mask`), the rewards (:func:`bela.rl.env._rewards`), the booked
scores and totals, and where a match ends (R10, R22, R25)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

from bela.engine import Match  # noqa: E402
from bela.engine.variants import VARIANTS, get_variant  # noqa: E402
from bela.engine.views import seat_view  # noqa: E402
from bela.rl.env import _rewards  # noqa: E402
from bela.rl.spaces import observe  # noqa: E402
from bela.rl.vector import VecGames  # noqa: E402
from bela.rl.vector import kernels as K  # noqa: E402

OPTIONS: list[dict[str, Any]] = [
    {},
    {"target": 301, "tie": "hang", "equal_declarations": "cancel"},
    {"enforce": "off", "target": 501},  # R24: any card, claims (bela4)
]


def _start(g: VecGames, b: int, options: dict[str, Any]) -> Match:
    m = Match(g.variant, options)
    _deal(g, b, m)
    return m


def _deal(g: VecGames, b: int, m: Match) -> None:
    hands, extra, dealer = g.deal_of(b)
    m.deal(hands, extra, dealer=dealer)  # the engine checks the deal and the dealer (R39)


def _compare(g: VecGames, b: int, m: Match, every_seat: bool) -> None:
    rnd = m.round
    assert rnd is not None and not rnd.is_over
    assert int(g.seats[b]) == rnd.turn
    view = seat_view(m, rnd.turn)
    np.testing.assert_array_equal(g.obs[b], observe(view))
    np.testing.assert_array_equal(g.masks[b], g.space.mask(view))
    if every_seat:
        for s in range(m.variant.seats):
            obs, masks = g.observe(s)
            v = seat_view(m, s)
            np.testing.assert_array_equal(obs[b], observe(v), err_msg=f"seat {s}")
            np.testing.assert_array_equal(masks[b], g.space.mask(v), err_msg=f"seat {s}")


def replay(variant: str, seed: int, steps: int, options: dict[str, Any], reward: str = "deal",
           zero_sum: bool = False, max_deals: int | None = None, batch: int = 3,
           every: int = 7) -> Counter[str]:
    """Step ``batch`` games ``steps`` times with random legal actions, replaying each one in
    the engine; returns what was seen (deals, their outcomes, swaps, match ends).  Options
    the variant does not have are left out."""
    options = {k: x for k, x in options.items() if k in get_variant(variant).options}
    g = VecGames(variant, batch, options, reward, zero_sum, max_deals)
    g.reset(seed=seed)
    matches = [_start(g, b, options) for b in range(batch)]
    seen: Counter[str] = Counter()
    for b in range(batch):
        _compare(g, b, matches[b], True)
    for i in range(steps):
        actions = g.sample()
        before = [len(m.rounds) for m in matches]
        views = [seat_view(m, m.round.turn) for m in matches if m.round is not None]
        step = g.step(actions)
        for b, m in enumerate(matches):
            m.apply(g.space.action(int(actions[b]), views[b]))
            rnd = m.round
            assert rnd is not None
            expected = [0.0] * m.variant.seats
            if rnd.is_over:
                seen["deals"] += 1
                assert rnd.result is not None
                seen[str(rnd.result.outcome)] += 1
                seen["valid claim"] += rnd.result.extra.get("valid") is True
                seen["swap"] += any(a.token() == "swap" for _, a in rnd.exchanges)
                gains = _rewards(m, reward, zero_sum)
                if gains is not None:
                    expected = gains
                assert list(g.state[b, K.TOT:K.TOT + m.variant.sides]) == m.totals \
                    or m.is_over or bool(step.truncated[b])
            np.testing.assert_allclose(step.rewards[b], expected)
            done = m.is_over
            cut = (not done and rnd.is_over and max_deals is not None
                   and len(m.rounds) >= max_deals)
            assert bool(step.terminated[b]) == done
            assert bool(step.truncated[b]) == cut
            if done or cut:
                seen["terminated" if done else "truncated"] += 1
                for s in range(m.variant.seats):  # every seat's view of the match's end
                    np.testing.assert_array_equal(step.final_obs[b, s],
                                                  observe(seat_view(m, s)))
                matches[b] = m = _start(g, b, options)
            elif rnd.is_over:
                assert g.round_index(b) == before[b] + 1
                _deal(g, b, m)
                assert list(m.sheet[-1]) == list(g.state[b, K.SCORE:K.SCORE + m.variant.sides])
            assert list(g.state[b, K.TOT:K.TOT + m.variant.sides]) == m.totals
            assert int(g.state[b, K.HELD]) == m.held
            _compare(g, b, m, i % every == 0)
    return seen


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), options=st.sampled_from(OPTIONS),
       reward=st.sampled_from(["deal", "match"]), zero_sum=st.booleans())
def test_random_trajectories_replay_in_the_engine(variant: str, seed: int,
                                                  options: dict[str, Any], reward: str,
                                                  zero_sum: bool) -> None:
    replay(variant, seed, 120, options, reward, zero_sum)


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_matches_to_a_small_target_replay_in_the_engine(variant: str) -> None:
    """Matches to a target of 1 end on their first booked deal (R25): the match end and the
    reset, again and again; ``max_deals`` cuts the others (truncation)."""
    seen = replay(variant, 5, 400, {"target": 1}, "match", batch=4, every=11)
    assert seen["terminated"] >= 4
    seen = replay(variant, 6, 400, {}, "deal", max_deals=1, batch=4, every=11)
    assert seen["truncated"] >= 4 and seen["terminated"] == 0


def test_a_hang_is_held_and_paid_out_as_the_engine_books_it() -> None:
    """R22 ``tie = hang``: the held points follow the engine's booking."""
    seen = replay("bela4", 11, 1500, {"tie": "hang", "target": 5001}, every=50, batch=4)
    assert seen["deals"] > 40 and seen["hang"] >= 1


@pytest.mark.parametrize(("variant", "outcomes"), [
    ("bela4", ("pass", "fall")),
    ("bela3", ("pass", "fall")),  # R28: a falling caller scores 0, the others their own
    ("bela2", ("pass", "fall", "swap")),  # R32
    ("belot2", ("pass", "fall", "swap", "redeal", "raspas")),  # R34, R35
])
def test_every_deal_boundary_replays_in_the_engine(variant: str, outcomes: tuple[str, ...]
                                                   ) -> None:
    """The deals end as the engine ends them, and the next deal (the same dealer after a
    redeal, R37; the next one else, R39) or the next match follows: swaps, redeals,
    raspas, falls and passes, and matches to their end (R25)."""
    seen = replay(variant, 3, 600, {}, every=60, batch=6)
    assert all(seen[o] > 0 for o in outcomes), seen
    assert seen["terminated"] > 0, seen


def test_claims_with_the_duties_off_replay_in_the_engine() -> None:
    """R24 ``enforce = off``: any card is accepted, a claim ends the deal (right when an
    opponent broke a duty), and only then do the wrongly accused seats' plays prove their
    voids in the observation."""
    seen = replay("bela4", 8, 300, {"enforce": "off"}, every=5, batch=4)
    assert seen["claim"] > 5, seen
    # target 1: every claim ends the match, and every seat's final view is compared
    seen = replay("bela4", 9, 200, {"enforce": "off", "target": 1}, every=50, batch=4)
    assert seen["terminated"] > 20 and 0 < seen["valid claim"] < seen["claim"], seen

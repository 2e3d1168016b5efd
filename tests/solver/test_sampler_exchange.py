"""The deal sampler after a belot2 swap that gives a redeal right (R35: swap and redeal in
any order): every sampled deal replays to the exact view, for both seats, at every step."""

from __future__ import annotations

import random

import pytest

from bela.engine import Card, Match, parse_action
from bela.engine.views import seat_view
from bela.solver.sampler import replay_view, sample_deals

# Seat 0 holds the 7H and three 8s; the opened card is the 8H (its fourth 8 after a swap).
SWAP_EIGHTS = ("7H 8S 8D KS QS 9D 8C TH JS", "JH 9H AH KH QH AS TS AD TD")


def swap_eights_match(tokens: list[str]) -> Match:
    m = Match("belot2", seed=4, first_dealer=1)
    m.deal([Card.parse(h) for h in SWAP_EIGHTS],
           {"turned": Card.parse("8H"), "bottom": Card.parse("7C")})
    for token in tokens:
        m.apply(parse_action(token))
    return m


@pytest.mark.parametrize("tokens", [["H", "swap"], ["H", "swap", "keep"],
                                    ["H", "swap", "keep", "8S"],
                                    ["H", "swap", "keep", "8S", "AS"]])
@pytest.mark.parametrize("seat", [0, 1])
def test_swap_then_asked_again_replays(tokens: list[str], seat: int) -> None:
    m = swap_eights_match(tokens)
    view = seat_view(m, seat)
    for deal in sample_deals(view, 20, random.Random(1)):
        assert replay_view(view, deal) == view


def test_spectator_after_swap_and_keep_replays() -> None:
    """A spectator (no seat) once play has started: who decided is no longer a question."""
    view = seat_view(swap_eights_match(["H", "swap", "keep", "8S"]), None)
    for deal in sample_deals(view, 20, random.Random(1)):
        assert replay_view(view, deal) == view

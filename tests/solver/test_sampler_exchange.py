"""The deal sampler after a belot2 swap that gives a redeal right (R35: swap and redeal in
any order): every sampled deal replays to the exact view, for both seats and a spectator, at
every step of the exchange (every seat is asked, the turn is public) and after it."""

from __future__ import annotations

import random

import pytest

from bela.engine import Card, Match, parse_action
from bela.engine.views import SeatView, seat_view
from bela.solver.sampler import replay_view, sample_deals, view_differences

# Seat 0 holds the 7H and three 8s; the opened card is the 8H (its fourth 8 after a swap).
SWAP_EIGHTS = ("7H 8S 8D KS QS 9D 8C TH JS", "JH 9H AH KH QH AS TS AD TD")


def replays(view: SeatView, seed: int = 1, swapper: int = 0, redealer: int = 0) -> None:
    """Every sampled deal replays to the view (after a redeal: its round fields, the fresh
    match of the replay has booked nothing)."""
    for deal in sample_deals(view, 20, random.Random(seed)):
        again = replay_view(view, deal)
        if view.phase == "done":
            assert view_differences(view, again) == []
            assert deal.redeal == redealer and deal.swap == swapper
        else:
            assert again == view


def swap_eights_match(tokens: list[str]) -> Match:
    m = Match("belot2", seed=4, first_dealer=1)
    m.deal([Card.parse(h) for h in SWAP_EIGHTS],
           {"turned": Card.parse("8H"), "bottom": Card.parse("7C")})
    for token in tokens:
        m.apply(parse_action(token))
    return m


TOKENS = [["H"], ["H", "swap"], ["H", "swap", "keep"], ["H", "swap", "keep", "keep"],
          ["H", "swap", "keep", "keep", "8S"], ["H", "swap", "keep", "keep", "8S", "AS"],
          ["H", "keep"], ["H", "keep", "keep"], ["H", "swap", "redeal"]]


@pytest.mark.parametrize("tokens", TOKENS)
@pytest.mark.parametrize("seat", [0, 1])
def test_swap_then_asked_again_replays(tokens: list[str], seat: int) -> None:
    replays(seat_view(swap_eights_match(tokens), seat))


@pytest.mark.parametrize("tokens", TOKENS)
def test_spectator_during_and_after_the_exchange_replays(tokens: list[str]) -> None:
    """A spectator (no seat) sees the seat asked in the exchange like everyone (every seat
    is asked, R32, R35), so its view replays at every step too."""
    replays(seat_view(swap_eights_match(tokens), None))


# The dealer (seat 1) holds the 7H; the non-dealer gets four 8s with its last 3 cards.
EIGHTS_SEVEN = ("8H 8S 8D KS QS 9D 8C TH JS", "JH 9H 7H KH QH AS TS AD TD")
AFTER_THE_DEALERS_SWAP = [["H", "keep", "swap"], ["H", "keep", "swap", "keep"],
                          ["H", "keep", "swap", "keep", "keep"],
                          ["H", "keep", "swap", "keep", "redeal"]]


@pytest.mark.parametrize("tokens", AFTER_THE_DEALERS_SWAP)
@pytest.mark.parametrize("seat", [0, 1, None])
def test_the_dealers_swap_then_everyone_asked_again_replays(tokens: list[str],
                                                            seat: int | None) -> None:
    """R35: after the dealer's swap both seats are asked again, from the dealer; the
    non-dealer, asked a second time, may redeal: every step replays for both seats and a
    spectator (the swap at the dealer's first ask, the redeal after it)."""
    m = Match("belot2", seed=4, first_dealer=1)
    m.deal([Card.parse(h) for h in EIGHTS_SEVEN],
           {"turned": Card.parse("AH"), "bottom": Card.parse("7C")})
    for token in tokens:
        m.apply(parse_action(token))
    replays(seat_view(m, seat), swapper=1, redealer=0)

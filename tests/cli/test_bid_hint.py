"""The hint at a bid (issue 38, item 4): the bid it names is the best of the estimates it
prints, in every variant and at every bid of many deals; the terminal and the server's hint
give the same bid; a belot2 hand made for no trumps is not hinted a lone queen's suit."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from bela.analysis.hints import bid_advice
from bela.bots.heuristic import HeuristicBot
from bela.cli.play.hints import bid_hint
from bela.cli.play.screen import Screen
from bela.cli.play.seating import Seating
from bela.engine.actions import PASS, Action, Call, Pass
from bela.engine.cards import Card
from bela.engine.rules import NO_TRUMPS
from bela.engine.state import Match
from bela.engine.views import SeatView, seat_view
from bela.server.analysis_work import hint as server_hint
from bela.server.analysis_work import match_log

SUITS = "♥♦♠♣"
LABELS = {"♥ herc": "♥", "♦ karo": "♦", "♠ pik": "♠", "♣ tref": "♣",
          "pass (dalje)": "pass"}


def hint_text(view: SeatView) -> str:
    variant = Match(view.variant).variant
    console = Console(width=400, record=True, file=io.StringIO(), highlight=False, emoji=False)
    screen = Screen(console, variant, Seating.make(variant.seats, variant.sides, view.seat))
    console.print(bid_hint(screen, view, bid_advice(view)))
    return " ".join(console.export_text().split())


def printed(text: str) -> tuple[str, list[tuple[str, int]]]:
    """The bid named and the printed (bid, value) cells, in the printed order."""
    named = re.match(r"Hint: (.*?)\.  ", text.replace(". Estimated", ".  Estimated"))
    assert named, text
    cells = re.search(r"\): (.*?)(?:; pass stands|\.$)", text)
    assert cells, text
    out = []
    for cell in cells.group(1).split(", "):
        label, value = cell.rsplit(" ", 1)
        out.append((label, int(value)))
    return named.group(1), out


def label_of(action: Action, view: SeatView) -> str:
    if isinstance(action, Pass):
        return "pass"
    assert isinstance(action, Call)
    return SUITS[action.contract] if action.contract < 4 else action.token()


def bidding_views(variant: str, seeds: range) -> list[SeatView]:
    """Every bid of the deals of ``seeds``, the seats bidding as the heuristic bot."""
    views = []
    for seed in seeds:
        match = Match(variant, seed=seed)
        rnd = match.deal()
        bot = HeuristicBot(seed)
        while rnd.phase == "bidding":
            view = seat_view(match, rnd.turn)
            views.append(view)
            match.apply(bot.act(view))
    return views


@pytest.mark.parametrize("variant", ["bela4", "bela3", "bela2", "belot2"])
def test_the_hinted_bid_is_the_best_of_the_values_printed(variant: str) -> None:
    views = bidding_views(variant, range(120))
    assert len({type(a) for v in views for a in v.legal}) == (1 if variant == "bela3" else 2)
    for view in views:
        advice = bid_advice(view)
        text = hint_text(view)
        named, cells = printed(text)
        assert named.startswith(("pass", *SUITS)) or "(" in named, text
        assert len(cells) == len(view.legal), text  # every bid the seat may make, once
        best = max(v for _, v in cells)
        assert cells[0][1] == best, text  # best first ...
        assert cells[0][0] == label_of(advice.choice, view), text  # ... and named
        assert named.split(" ")[0] in (label_of(advice.choice, view), "All", "No"), text
        assert advice.choice == HeuristicBot(0).act(view)  # what the heuristic bids


def belot2_round_two() -> SeatView:
    """belot2, bidding round 2 after two passes, the first bidder to order on
    Q♥ | A♦ 10♦ K♦ | A♣ 10♣ (the opened card 7♠)."""
    mine, other = ([int(c) for c in Card.parse(h)] for h in (
        "QH AD TD KD AC TC 8H 9D 8C", "7H 8S 9S JS QS 9C JC QC KC"))
    rest = [int(c) for c in Card.parse("7S 7D 8D JD QD AH KH JH TH 9H 7C AS KS TS")]
    match = Match("belot2", seed=1)
    dealer = match.next_dealer()
    first = (dealer + 1) % 2
    hands = [mine, other] if first == 0 else [other, mine]
    rnd = match.deal(hands, {"turned": rest[:1], "bottom": rest[-1:]}, dealer=dealer)
    match.apply(PASS)
    match.apply(PASS)
    assert rnd.phase == "bidding" and rnd.turn == first
    return seat_view(match, first)


def test_belot2_no_trumps_hand_is_not_hinted_its_lone_queen() -> None:
    view = belot2_round_two()
    assert sorted(str(c) for c in view.hand) == sorted(["QH", "AD", "TD", "KD", "AC", "TC"])
    advice = bid_advice(view)
    assert advice.choice != Call(0)  # not herc on a lone Q♥
    assert advice.choice == Call(NO_TRUMPS), advice  # no trumps (BC), the natural call
    text = hint_text(view)
    assert text.startswith("Hint: No trumps (BC"), text
    named, cells = printed(text)
    assert cells[0][0] == "BC" and cells[0][1] == max(v for _, v in cells)


def test_bela4_seed_21_hints_the_suit_its_numbers_rank_first() -> None:
    match = Match("bela4", seed=21)
    rnd = match.deal()
    view = seat_view(match, rnd.turn)
    text = hint_text(view)
    assert text.startswith("Hint: ♠ pik."), text
    assert "♠ +9" in text and text.index("♠ +9") < text.index("♦ -15"), text


@pytest.mark.parametrize("variant", ["bela4", "belot2"])
def test_the_servers_bid_hint_is_the_terminals(variant: str) -> None:
    for seed in range(6):
        match = Match(variant, seed=seed)
        rnd = match.deal()
        view = seat_view(match, rnd.turn)
        out = server_hint(match_log(match), rnd.turn)
        advice = bid_advice(view)
        assert out["best"] == out["action"] == advice.choice.token()
        assert out["values"] == {a.token(): pytest.approx(v, abs=0.01)
                                 for a, v in advice.values.items()}
        assert out["best"] == max(out["values"], key=out["values"].__getitem__) or (
            out["values"][out["best"]] == max(out["values"].values()))

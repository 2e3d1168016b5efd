"""The score pad (bela blok): deals written from real cards are scored by the engine's rules,
exactly as the same deals played through the engine (R21-R23, R28, R34-R37, R10, R22, R25)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bela.engine import Match
from bela.engine.enums import Outcome
from bela.engine.pad import (
    Pad,
    PadDeal,
    PadError,
    declaration_sums,
    pad_rules,
    score_deal,
    written,
)
from bela.engine.variants import VARIANTS, get_variant


def random_match(variant: str, seed: int, options: dict[str, Any]) -> Match:
    rng = random.Random(seed)
    m = Match(variant, options, seed=seed)
    while not m.is_over:
        rnd = m.deal()
        while not rnd.is_over:
            m.apply(rng.choice(rnd.legal_actions()))
    return m


CASES = [(v, opts) for v in VARIANTS for opts in (
    {"target": 301}, {"target": 301, "tie": "hang"}) if "tie" in VARIANTS[v].options
    or "tie" not in opts]


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_a_pad_books_what_the_engine_booked(variant: str, options: dict[str, Any]) -> None:
    """Matches played through the engine with random legal moves, written on a pad deal by
    deal: every deal's booked numbers, the totals and the winner are the engine's."""
    outcomes: set[str] = set()
    for seed in range(12):
        m = random_match(variant, seed, options)
        pad = Pad(variant, options)
        for i in range(len(m.rounds)):
            pad.add(written(m, i))
            outcomes.add(str(m.rounds[i].result.outcome))  # type: ignore[union-attr]
        assert pad.sheet == m.sheet, (variant, seed)
        assert pad.totals == tuple(m.totals) and pad.winner == m.winner
        again = Pad.from_record(pad.to_record())
        assert again.sheet == pad.sheet and again.to_record() == pad.to_record()
    assert {"pass", "fall"} <= outcomes, outcomes  # the samples reach both


def test_entries_that_cannot_be_are_refused_with_their_rule() -> None:
    v = get_variant("bela4")
    opts = v.make_options({})
    bad = [
        (PadDeal(0, "H", (100, 100)), "add up to 200"),
        (PadDeal(0, "H", (None, None)), "every side but one"),
        (PadDeal(0, "H", (92, 70), declarations=(20, 20)), "R12"),
        (PadDeal(0, "H", (92, 70), declarations=(30, 0)), "no declarations make 30"),
        (PadDeal(0, "H", (92, 70), bela=(1, 1)), "at most 1 bela"),
        (PadDeal(0, "H", (150, 12), capot=0), "all the card points"),
        (PadDeal(0, "H", (162, 0), bela=(0, 1), capot=0), "R15"),
        (PadDeal(0, "VC", (92, 70)), "write the trump"),
        (PadDeal(2, "H", (92, 70)), "caller: a side 0 to 1"),
        (PadDeal(None, "H", (92, 70)), "who called"),
        (PadDeal(raspas=True, points=(92, 70)), "no raspas"),
        (PadDeal(redeal=True), "no redeal"),
    ]
    for deal, why in bad:
        with pytest.raises(PadError, match=why):
            score_deal(v, opts, deal)
    b2 = get_variant("belot2")
    with pytest.raises(PadError, match="no bela without a trump"):
        score_deal(b2, b2.make_options({}), PadDeal(0, "BC", (92, 70), bela=(1, 0)))
    with pytest.raises(PadError, match="R10"):
        score_deal(b2, b2.make_options({}), PadDeal(belot=0))


def test_one_sides_points_are_the_rest_of_162_where_every_card_is_played() -> None:
    v = get_variant("bela3")
    r = score_deal(v, v.make_options({}), PadDeal(1, "D", (40, None, 30)))
    assert r.card_points == (40, 92, 30) and r.outcome == Outcome.PASS
    two = get_variant("bela2")  # R33: twenty cards of 32 are played
    with pytest.raises(PadError, match="every player"):
        score_deal(two, two.make_options({}), PadDeal(1, "D", (40, None)))
    assert score_deal(two, two.make_options({}), PadDeal(1, "D", (40, 60))).scores == (40, 60)


def test_a_correction_books_the_sheet_again_and_a_refused_one_changes_nothing() -> None:
    pad = Pad("bela2", {"target": 400}, ["Ana", "Ivo"])
    pad.add(PadDeal(0, "H", (100, 62)))
    pad.add(PadDeal(1, "S", (70, 92)))
    assert pad.totals == (100 + 70, 62 + 92)
    pad.replace(0, PadDeal(0, "H", (60, 102)))  # she fell after all
    assert pad.sheet[0] == (0, 162)
    before = (list(pad.deals), pad.sheet)
    with pytest.raises(PadError, match="deal 2"):
        pad.replace(1, PadDeal(1, "S", (1, 1)))
    assert (pad.deals, pad.sheet) == before
    pad.add(PadDeal(1, "C", (40, 122)))  # Ivo: 162 + 92 + 122 = 376
    assert pad.winner is None
    pad.add(PadDeal(1, "C", (40, 122)))
    assert pad.winner == 1
    with pytest.raises(PadError, match="after the match was won"):
        pad.add(PadDeal(0, "C", (120, 42)))
    pad.remove(2)
    assert pad.winner is None and len(pad.deals) == 3


def test_striking_a_deal_that_would_end_the_match_earlier_changes_nothing() -> None:
    pad = Pad("bela4", {"target": 300})
    for points in ((0, 162), (162, 0), (100, 62), (62, 100), (100, 62)):
        pad.add(PadDeal(0 if points[0] > points[1] else 1, "H", points))
    assert pad.winner == 0  # 424 : 324
    before = (list(pad.deals), list(pad.sheet))
    with pytest.raises(PadError, match="after the match was won"):
        pad.remove(0)  # 262 : 324 after three deals: side 1 would have won at deal 4
    assert (pad.deals, pad.sheet) == before


def test_held_points_of_a_hang_go_to_the_next_single_best() -> None:
    pad = Pad("bela4", {"tie": "hang"})
    pad.add(PadDeal(0, "H", (81, 81)))
    assert pad.sheet == [(0, 81)] and pad.held == 81
    pad.add(PadDeal(1, "S", (60, 102)))
    assert pad.sheet[1] == (60, 102 + 81) and pad.held == 0


def test_belot_wins_at_once_and_raspas_scores_minus() -> None:
    pad = Pad("bela3")
    pad.add(PadDeal(belot=2))
    assert pad.winner == 2
    b2 = Pad("belot2")
    b2.add(PadDeal(raspas=True, points=(100, 62)))
    assert b2.sheet == [(-100, -62)]
    b2.add(PadDeal(0, "BC", (100, 62)))
    assert b2.sheet[1] == (200, 124)  # R36: BC doubles


def test_records_are_checked() -> None:
    for bad, why in (([], "JSON object"), ({"pad": 1, "variant": "x"}, "unknown variant"),
                     ({"pad": 1, "variant": "bela4", "deals": [{"caler": 0}]}, "unknown keys"),
                     ({"pad": 1, "variant": "bela4", "deals": [{"points": ["1"]}]},
                      "whole numbers"),
                     ({"pad": 1, "variant": "bela4", "names": ["a"], "deals": []}, "2 names")):
        with pytest.raises(PadError, match=why):
            Pad.from_record(bad)


def test_rules_for_the_form() -> None:
    r = pad_rules(get_variant("belot2"))
    assert r["contracts"] == ["H", "D", "S", "C", "VC", "BC"] and r["raspas"] and r["redeal"]
    assert not r["belot_wins"] and r["capot_bonus"] == 0
    assert 30 not in declaration_sums(get_variant("bela4"))

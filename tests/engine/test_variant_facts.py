"""Variants carry their facts as data that consumers ask (seats, sides, partners, play teams,
duties, discards, redeal ranks, which suits a bid may name, whether an exchange may take
place), so that no code outside
``engine/variants/`` compares variant names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bela.engine import Match
from bela.engine.actions import PASS, Call
from bela.engine.cards import EIGHT, SEVEN, Card
from bela.engine.rules import ALL_TRUMPS, NO_TRUMPS
from bela.engine.variants import VARIANTS, get_variant

SRC = Path(__file__).resolve().parents[2] / "src" / "bela"
NAME_COMPARISON = re.compile(
    r"""(==|!=)\s*["'](bela[234]|belot2)["']|["'](bela[234]|belot2)["']\s*(==|!=)"""
    r"""|\bin\s*[(\[{]\s*["'](bela[234]|belot2)["']""")


def test_no_variant_name_comparisons_outside_the_variants() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("engine/variants/"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAME_COMPARISON.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "ask the variant for the fact instead:\n" + "\n".join(found)


def test_the_facts() -> None:
    v4, v3, v2, vt = (get_variant(n) for n in ("bela4", "bela3", "bela2", "belot2"))
    assert [v.partners for v in (v4, v3, v2, vt)] == [True, False, False, False]
    assert v4.play_teams(1) == (0, 1, 0, 1)
    assert v3.play_teams(1) == (1, 0, 1)  # R28: the caller against the two others
    assert v2.play_teams(0) == vt.play_teams(1) == (0, 1)
    assert [v.iber for v in (v4, v3, v2, vt)] == [True, True, True, False]  # R17, R36
    assert [v.discards for v in (v4, v3, v2, vt)] == [0, 2, 0, 0]  # R27
    assert vt.redeal_ranks == (SEVEN, EIGHT) and not v2.redeal_ranks  # R35
    with pytest.raises(ValueError):
        v3.play_teams(None)
    assert (v2.face_up_name, vt.face_up_name) == ("turned", "opened")  # R30, R34
    assert vt.extra_contracts == (ALL_TRUMPS, NO_TRUMPS) and not v2.extra_contracts  # R34
    assert [v.trump_sequence_first for v in (v4, v3, v2, vt)] == [False] * 3 + [True]  # R37
    assert [v.rule_ids["declarations"] for v in (v4, v3, v2, vt)] == ["R13"] * 3 + ["R37"]
    assert [v.rule_ids.get("exchange") for v in (v4, v3, v2, vt)] == [None, None, "R32", "R35"]


def test_exchange_possible_is_a_public_fact() -> None:
    """R32, R35: whether seats are asked to swap or redeal depends on the contract, the
    face-up card and raspas only: bela2 when trump is the turned suit and the turned card is
    not the 7 of trump; belot2 always (a redeal is possible in any contract); never in bela4
    and bela3."""
    v4, v3, v2, vt = (get_variant(n) for n in ("bela4", "bela3", "bela2", "belot2"))
    ah, seven_h, kd = Card.AH, Card.make(SEVEN, 0), Card.KD
    for contract in range(4):
        assert not v4.exchange_possible(contract, None, False)
        assert not v3.exchange_possible(contract, None, False)
    assert v2.exchange_possible(0, ah, False)
    assert not v2.exchange_possible(0, seven_h, False)  # the 7 of trump lies face up
    assert not v2.exchange_possible(0, kd, False)  # trump is not the turned suit
    for contract in range(6):
        for turned in (ah, seven_h, kd):
            assert vt.exchange_possible(contract, turned, False)
            assert vt.exchange_possible(contract, turned, True)  # raspas: redeal (R35)


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("seed", range(6))
def test_callable_suits_match_the_bidding(name: str, seed: int) -> None:
    """R7, R26, R31, R34: at every bid of a passing round, the suits a call may name and
    whether the seat must call are what the engine's bidding offers."""
    m = Match(name, seed=seed)
    rnd = m.deal()
    turned = rnd.public.get("turned")
    tsuit = None if turned is None else turned >> 3
    index = 0
    while rnd.phase == "bidding":
        legal = rnd.legal_actions()
        suits, forced = rnd.variant.callable_suits(index, tsuit)
        assert sorted(a.contract for a in legal if isinstance(a, Call) and a.contract < 4) \
            == sorted(suits)
        assert forced == (PASS not in legal)
        m.apply(PASS if PASS in legal else legal[0])
        index += 1

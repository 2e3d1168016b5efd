"""The decisions of the shipped bots and levels on fixed views and seeds, pinned: a
refactoring of the bots (their settings, their parts) must not change how they play.

Each variant's views come from one heuristic round (seed 3): the first bid with a choice and the
first where the heuristic orders,
the cards of the second and fourth tricks, and one of the last three tricks (the learned
bot's endgame search); bela3 adds a discard (:func:`test_pimc_discard.discard_view`).
``master`` runs as shipped and with a small search; ``pimc`` with 4 deals.
"""

from __future__ import annotations

from functools import cache

import pytest

pytest.importorskip("numpy")  # the solver, the network

from test_pimc_discard import discard_view  # noqa: E402

from bela.bots import make_bot  # noqa: E402
from bela.bots.heuristic import HeuristicBot  # noqa: E402
from bela.engine import Match, Pass, Play  # noqa: E402
from bela.engine.views import SeatView, seat_view  # noqa: E402

SPECS = ["heuristic", "learned", "beginner", "club", "expert", "pimc:samples=4",
         "master:samples=4,nodes=200000", "master"]


@cache
def views(variant: str) -> dict[str, SeatView]:
    """The pinned views of ``variant``'s heuristic round, by tag."""
    m = Match(variant, seed=3, options={"target": 5001})
    rnd = m.deal()
    bot = HeuristicBot(3)
    out: dict[str, SeatView] = {}
    while m.rounds[-1] is rnd and rnd.turn is not None:
        v = seat_view(m, rnd.turn)
        if not v.legal:
            break
        cards = {a.card for a in v.legal if isinstance(a, Play)}
        if v.phase == "bidding" and len(v.legal) > 1:
            out.setdefault("bid", v)
            if not isinstance(bot.act(v), Pass):
                out.setdefault("call", v)
        if v.phase == "play" and len(cards) > 1:
            if len(v.hand) > 3 and len(v.tricks) in (1, 3):
                out.setdefault(f"play{len(v.tricks)}", v)
            elif len(v.hand) <= 3 and not any(t.startswith("end") for t in out):
                out[f"end{len(v.tricks)}"] = v
        m.apply(bot.act(v))
    return out


PINNED: dict[tuple[str, str, str], str] = {
    ('bela2', 'bid', 'beginner'): 'Pass()',
    ('bela2', 'bid', 'club'): 'Pass()',
    ('bela2', 'bid', 'expert'): 'Pass()',
    ('bela2', 'bid', 'heuristic'): 'Pass()',
    ('bela2', 'bid', 'learned'): 'Pass()',
    ('bela2', 'bid', 'master'): 'Pass()',
    ('bela2', 'bid', 'master:samples=4,nodes=200000'): 'Pass()',
    ('bela2', 'bid', 'pimc:samples=4'): 'Pass()',
    ('bela2', 'call', 'beginner'): 'Call(contract=1)',
    ('bela2', 'call', 'club'): 'Call(contract=1)',
    ('bela2', 'call', 'expert'): 'Call(contract=1)',
    ('bela2', 'call', 'heuristic'): 'Call(contract=1)',
    ('bela2', 'call', 'learned'): 'Call(contract=1)',
    ('bela2', 'call', 'master'): 'Call(contract=1)',
    ('bela2', 'call', 'master:samples=4,nodes=200000'): 'Call(contract=1)',
    ('bela2', 'call', 'pimc:samples=4'): 'Call(contract=1)',
    ('bela2', 'end7', 'beginner'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'club'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'expert'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'heuristic'): 'Play(card=Card.EIGHT_C, bela=False)',
    ('bela2', 'end7', 'learned'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'master'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'master:samples=4,nodes=200000'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'end7', 'pimc:samples=4'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play1', 'beginner'): 'Play(card=Card.AS, bela=False)',
    ('bela2', 'play1', 'club'): 'Play(card=Card.EIGHT_C, bela=False)',
    ('bela2', 'play1', 'expert'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play1', 'heuristic'): 'Play(card=Card.JD, bela=False)',
    ('bela2', 'play1', 'learned'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play1', 'master'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play1', 'master:samples=4,nodes=200000'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play1', 'pimc:samples=4'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela2', 'play3', 'beginner'): 'Play(card=Card.EIGHT_C, bela=False)',
    ('bela2', 'play3', 'club'): 'Play(card=Card.EIGHT_C, bela=False)',
    ('bela2', 'play3', 'expert'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play3', 'heuristic'): 'Play(card=Card.AH, bela=False)',
    ('bela2', 'play3', 'learned'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play3', 'master'): 'Play(card=Card.QC, bela=False)',
    ('bela2', 'play3', 'master:samples=4,nodes=200000'): 'Play(card=Card.SEVEN_S, bela=False)',
    ('bela2', 'play3', 'pimc:samples=4'): 'Play(card=Card.AH, bela=False)',
    ('bela3', 'bid', 'beginner'): 'Call(contract=1)',
    ('bela3', 'bid', 'club'): 'Call(contract=1)',
    ('bela3', 'bid', 'expert'): 'Call(contract=1)',
    ('bela3', 'bid', 'heuristic'): 'Call(contract=1)',
    ('bela3', 'bid', 'learned'): 'Call(contract=1)',
    ('bela3', 'bid', 'master'): 'Call(contract=1)',
    ('bela3', 'bid', 'master:samples=4,nodes=200000'): 'Call(contract=1)',
    ('bela3', 'bid', 'pimc:samples=4'): 'Call(contract=1)',
    ('bela3', 'call', 'beginner'): 'Call(contract=1)',
    ('bela3', 'call', 'club'): 'Call(contract=1)',
    ('bela3', 'call', 'expert'): 'Call(contract=1)',
    ('bela3', 'call', 'heuristic'): 'Call(contract=1)',
    ('bela3', 'call', 'learned'): 'Call(contract=1)',
    ('bela3', 'call', 'master'): 'Call(contract=1)',
    ('bela3', 'call', 'master:samples=4,nodes=200000'): 'Call(contract=1)',
    ('bela3', 'call', 'pimc:samples=4'): 'Call(contract=1)',
    ('bela3', 'discard', 'heuristic'): 'Discard(cards=(Card.JH, Card.QH))',
    ('bela3', 'discard', 'learned'): 'Discard(cards=(Card.JH, Card.QH))',
    ('bela3', 'discard', 'master'): 'Discard(cards=(Card.QH, Card.TD))',
    ('bela3', 'discard', 'master:bid_samples=4'): 'Discard(cards=(Card.QH, Card.TD))',
    ('bela3', 'discard', 'pimc:samples=4'): 'Discard(cards=(Card.JH, Card.QH))',
    ('bela3', 'end7', 'beginner'): 'Play(card=Card.QS, bela=False)',
    ('bela3', 'end7', 'club'): 'Play(card=Card.QH, bela=False)',
    ('bela3', 'end7', 'expert'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'end7', 'heuristic'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'end7', 'learned'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'end7', 'master'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'end7', 'master:samples=4,nodes=200000'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'end7', 'pimc:samples=4'): 'Play(card=Card.TH, bela=False)',
    ('bela3', 'play1', 'beginner'): 'Play(card=Card.NINE_C, bela=False)',
    ('bela3', 'play1', 'club'): 'Play(card=Card.JS, bela=False)',
    ('bela3', 'play1', 'expert'): 'Play(card=Card.JH, bela=False)',
    ('bela3', 'play1', 'heuristic'): 'Play(card=Card.AC, bela=False)',
    ('bela3', 'play1', 'learned'): 'Play(card=Card.JH, bela=False)',
    ('bela3', 'play1', 'master'): 'Play(card=Card.JS, bela=False)',
    ('bela3', 'play1', 'master:samples=4,nodes=200000'): 'Play(card=Card.EIGHT_S, bela=False)',
    ('bela3', 'play1', 'pimc:samples=4'): 'Play(card=Card.EIGHT_S, bela=False)',
    ('bela3', 'play3', 'beginner'): 'Play(card=Card.TC, bela=False)',
    ('bela3', 'play3', 'club'): 'Play(card=Card.AS, bela=False)',
    ('bela3', 'play3', 'expert'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela3', 'play3', 'heuristic'): 'Play(card=Card.AS, bela=False)',
    ('bela3', 'play3', 'learned'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela3', 'play3', 'master'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela3', 'play3', 'master:samples=4,nodes=200000'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela3', 'play3', 'pimc:samples=4'): 'Play(card=Card.SEVEN_D, bela=False)',
    ('bela4', 'bid', 'beginner'): 'Pass()',
    ('bela4', 'bid', 'club'): 'Pass()',
    ('bela4', 'bid', 'expert'): 'Pass()',
    ('bela4', 'bid', 'heuristic'): 'Pass()',
    ('bela4', 'bid', 'learned'): 'Pass()',
    ('bela4', 'bid', 'master'): 'Pass()',
    ('bela4', 'bid', 'master:samples=4,nodes=200000'): 'Pass()',
    ('bela4', 'bid', 'pimc:samples=4'): 'Pass()',
    ('bela4', 'call', 'beginner'): 'Call(contract=1)',
    ('bela4', 'call', 'club'): 'Call(contract=1)',
    ('bela4', 'call', 'expert'): 'Call(contract=1)',
    ('bela4', 'call', 'heuristic'): 'Call(contract=2)',
    ('bela4', 'call', 'learned'): 'Call(contract=1)',
    ('bela4', 'call', 'master'): 'Call(contract=1)',
    ('bela4', 'call', 'master:samples=4,nodes=200000'): 'Call(contract=1)',
    ('bela4', 'call', 'pimc:samples=4'): 'Call(contract=2)',
    ('bela4', 'end5', 'beginner'): 'Play(card=Card.KC, bela=False)',
    ('bela4', 'end5', 'club'): 'Play(card=Card.KC, bela=False)',
    ('bela4', 'end5', 'expert'): 'Play(card=Card.NINE_C, bela=False)',
    ('bela4', 'end5', 'heuristic'): 'Play(card=Card.NINE_C, bela=False)',
    ('bela4', 'end5', 'learned'): 'Play(card=Card.NINE_C, bela=False)',
    ('bela4', 'end5', 'master'): 'Play(card=Card.KC, bela=False)',
    ('bela4', 'end5', 'master:samples=4,nodes=200000'): 'Play(card=Card.KC, bela=False)',
    ('bela4', 'end5', 'pimc:samples=4'): 'Play(card=Card.NINE_C, bela=False)',
    ('bela4', 'play1', 'beginner'): 'Play(card=Card.TS, bela=False)',
    ('bela4', 'play1', 'club'): 'Play(card=Card.TS, bela=False)',
    ('bela4', 'play1', 'expert'): 'Play(card=Card.AD, bela=False)',
    ('bela4', 'play1', 'heuristic'): 'Play(card=Card.JS, bela=False)',
    ('bela4', 'play1', 'learned'): 'Play(card=Card.AD, bela=False)',
    ('bela4', 'play1', 'master'): 'Play(card=Card.AD, bela=False)',
    ('bela4', 'play1', 'master:samples=4,nodes=200000'): 'Play(card=Card.AD, bela=False)',
    ('bela4', 'play1', 'pimc:samples=4'): 'Play(card=Card.EIGHT_S, bela=False)',
    ('bela4', 'play3', 'beginner'): 'Play(card=Card.NINE_S, bela=False)',
    ('bela4', 'play3', 'club'): 'Play(card=Card.NINE_S, bela=False)',
    ('bela4', 'play3', 'expert'): 'Play(card=Card.JH, bela=False)',
    ('bela4', 'play3', 'heuristic'): 'Play(card=Card.TD, bela=False)',
    ('bela4', 'play3', 'learned'): 'Play(card=Card.JH, bela=False)',
    ('bela4', 'play3', 'master'): 'Play(card=Card.TD, bela=False)',
    ('bela4', 'play3', 'master:samples=4,nodes=200000'): 'Play(card=Card.JH, bela=False)',
    ('bela4', 'play3', 'pimc:samples=4'): 'Play(card=Card.JH, bela=False)',
    ('belot2', 'bid', 'beginner'): 'Pass()',
    ('belot2', 'bid', 'club'): 'Pass()',
    ('belot2', 'bid', 'expert'): 'Pass()',
    ('belot2', 'bid', 'heuristic'): 'Pass()',
    ('belot2', 'bid', 'learned'): 'Pass()',
    ('belot2', 'bid', 'master'): 'Pass()',
    ('belot2', 'bid', 'master:samples=4,nodes=200000'): 'Pass()',
    ('belot2', 'bid', 'pimc:samples=4'): 'Pass()',
    ('belot2', 'call', 'beginner'): 'Call(contract=1)',
    ('belot2', 'call', 'club'): 'Call(contract=1)',
    ('belot2', 'call', 'expert'): 'Call(contract=1)',
    ('belot2', 'call', 'heuristic'): 'Call(contract=1)',
    ('belot2', 'call', 'learned'): 'Call(contract=1)',
    ('belot2', 'call', 'master'): 'Call(contract=1)',
    ('belot2', 'call', 'master:samples=4,nodes=200000'): 'Call(contract=1)',
    ('belot2', 'call', 'pimc:samples=4'): 'Call(contract=1)',
    ('belot2', 'end6', 'beginner'): 'Play(card=Card.JC, bela=False)',
    ('belot2', 'end6', 'club'): 'Play(card=Card.JC, bela=False)',
    ('belot2', 'end6', 'expert'): 'Play(card=Card.JC, bela=False)',
    ('belot2', 'end6', 'heuristic'): 'Play(card=Card.QH, bela=False)',
    ('belot2', 'end6', 'learned'): 'Play(card=Card.JC, bela=False)',
    ('belot2', 'end6', 'master'): 'Play(card=Card.NINE_D, bela=False)',
    ('belot2', 'end6', 'master:samples=4,nodes=200000'): 'Play(card=Card.NINE_D, bela=False)',
    ('belot2', 'end6', 'pimc:samples=4'): 'Play(card=Card.NINE_D, bela=False)',
    ('belot2', 'play1', 'beginner'): 'Play(card=Card.AS, bela=False)',
    ('belot2', 'play1', 'club'): 'Play(card=Card.AS, bela=False)',
    ('belot2', 'play1', 'expert'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play1', 'heuristic'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play1', 'learned'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play1', 'master'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play1', 'master:samples=4,nodes=200000'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play1', 'pimc:samples=4'): 'Play(card=Card.JD, bela=False)',
    ('belot2', 'play3', 'beginner'): 'Play(card=Card.AS, bela=False)',
    ('belot2', 'play3', 'club'): 'Play(card=Card.AS, bela=False)',
    ('belot2', 'play3', 'expert'): 'Play(card=Card.QC, bela=False)',
    ('belot2', 'play3', 'heuristic'): 'Play(card=Card.AS, bela=False)',
    ('belot2', 'play3', 'learned'): 'Play(card=Card.QC, bela=False)',
    ('belot2', 'play3', 'master'): 'Play(card=Card.KH, bela=False)',
    ('belot2', 'play3', 'master:samples=4,nodes=200000'): 'Play(card=Card.KH, bela=False)',
    ('belot2', 'play3', 'pimc:samples=4'): 'Play(card=Card.AS, bela=False)',
}



def decisions() -> list[tuple[str, str, str]]:
    return sorted(PINNED)


@pytest.mark.parametrize(("variant", "tag", "spec"), decisions())
def test_the_bots_decide_as_pinned(variant: str, tag: str, spec: str) -> None:
    view = discard_view(1) if tag == "discard" else views(variant)[tag]
    assert str(make_bot(spec, 5).act(view)) == PINNED[variant, tag, spec]

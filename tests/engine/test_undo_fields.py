"""Undo restores every field of a round: random apply/undo walks in every variant compare the
whole state (all of ``vars(round)``), so a field an action starts to write without its undo
state (a hook, a new phase) fails here, not only in a search."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bela.engine import Match
from bela.engine.actions import Pass
from bela.engine.state import Round
from bela.engine.variants import VARIANTS

CACHES = {"_undo", "_legal"}  # the undo stack itself; the legal-move cache is recomputed


def state(rnd: Round) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in vars(rnd).items() if k not in CACHES}
    out["table"] = None if rnd.table is None else rnd.table.contract  # a shared, cached table
    return out


@settings(max_examples=80, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32 - 1),
       enforce_off=st.booleans())
def test_random_apply_and_undo_restore_every_field(variant: str, seed: int,
                                                   enforce_off: bool) -> None:
    options = {"enforce": "off"} if enforce_off and "enforce" in VARIANTS[variant].options else {}
    m = Match(variant, options, seed=seed)
    rnd = m.deal()
    rng = random.Random(seed)
    history = [state(rnd)]
    while not rnd.is_over:
        if len(history) > 1 and rng.random() < 0.3:
            rnd.undo()
            history.pop()
            assert state(rnd) == history[-1]
        else:
            legal = rnd.legal_actions()
            passes = [a for a in legal if isinstance(a, Pass)]  # reach raspas, dealer's mus
            rnd.apply(passes[0] if passes and rng.random() < 0.7 else rng.choice(legal))
            history.append(state(rnd))
    while len(history) > 1:
        rnd.undo()
        history.pop()
        assert state(rnd) == history[-1]

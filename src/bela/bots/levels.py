"""Levels for people: bots named by how strong they play, with their measured Elo gaps.

=========== ======================================= =====================================
level       bot                                     plays like
=========== ======================================= =====================================
beginner    ``learned:temperature=12,forget=0.5,    often keeps a plausible but not the
            endgame=0,revoke=0.02``                 best card, loses count every other card;
                                                    with ``enforce = off`` breaks a duty
                                                    at 2 % of the cards where one applies
                                                    (never at rated tables)
club        ``learned:temperature=4,forget=0.15,    a close second card now and then, a
            endgame=0``                             missed count now and then
expert      ``learned``                             the network's best card, the last
                                                    tricks by search (its ``endgame``)
master      ``pimc:prior=learned,objective=score,   the network's bids and first two
            bidding=learned,discard=search``        tricks (belot2: one; not in bela3),
                                                    then search over up to 64 sampled
                                                    deals (4 million solver nodes;
                                                    belot2 128 and 8 million)
                                                    valued by the round's score (bela3:
                                                    the points), with the network as
                                                    prior and opponent model; bela3's
                                                    discards by simulation; belot2's
                                                    second-round order from an estimate
                                                    of -10 (``learned_order``) and the
                                                    others' bids read as estimates
                                                    (``learned_bids``: its profile's)
=========== ======================================= =====================================

The mistakes are the learned bot's (:class:`~bela.bots.learned.LearnedBot`): a card drawn
from the softmax of its values (``temperature`` points), and a suit's count forgotten with
probability ``forget``, a duty broken with probability ``revoke`` where ``enforce = off``
lets it (R24; :mod:`bela.bots.claims` for the bots' claims).  Each variant's profile
(:mod:`bela.bots.profiles`) holds each level's Elo over ``beginner`` there, computed by
``tools/strength.py`` from the committed ``bela arena`` results (``benchmarks/results/``,
shown in docs/STRENGTH.md) into ``levels.json`` beside this file, never copied by hand;
the lobby shows it.

>>> level_elo("bela4")["beginner"], level_elo("bela4")["master"] > level_elo("bela4")["club"]
(0, True)

>>> level_spec("club")
'learned:temperature=4,forget=0.15,endgame=0'
>>> level_spec("club:model=m.npz")
'learned:temperature=4,forget=0.15,endgame=0,model=m.npz'
"""

from __future__ import annotations

from .base import with_settings
from .profiles import profile

LEVELS: dict[str, str] = {
    "beginner": "learned:temperature=12,forget=0.5,endgame=0,revoke=0.02",
    "club": "learned:temperature=4,forget=0.15,endgame=0",
    "expert": "learned",
    "master": "pimc:prior=learned,objective=score,bidding=learned,discard=search",
}


def level_spec(spec: str) -> str:
    """The bot spec of a level (its own settings first, then any given after the name)."""
    name, _, rest = spec.partition(":")
    return with_settings(LEVELS[name.strip()], rest)


def level_elo(variant: str) -> dict[str, int]:
    """Each level's measured Elo over ``beginner`` in ``variant`` (empty if not measured;
    ValueError for a variant without a profile)."""
    return dict(profile(variant).elo)

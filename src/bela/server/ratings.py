"""Ratings: every rated entry's skill per variant, Weng-Lin (OpenSkill, Plackett-Luce).

An entry is a player (his id) or a bot spec (``bot-<name>``, e.g. ``bot-heuristic``): bots
are rated like players, so a player sees where he stands against them.  A skill is a mean
``mu`` and an uncertainty ``sigma``; the rating shown is :func:`shown` of the two, a
cautious estimate that starts at 1000 and rises as the uncertainty falls.
"""

from __future__ import annotations

MU = 25.0  # a new entry's skill (OpenSkill's defaults)
SIGMA = MU / 3
BASE, SCALE = 1000, 40  # shown = BASE + SCALE * (mu - 3 sigma)
PROVISIONAL_GAMES = 5  # fewer rated matches than this: the rating is provisional
BOT_PREFIX = "bot-"


def shown(mu: float, sigma: float) -> int:
    """The rating shown for a skill: ``mu - 3 sigma`` (the skill is above it with 99.7 %
    confidence), scaled so that a new entry has 1000.

    >>> shown(MU, SIGMA), shown(30.0, 2.0)
    (1000, 1960)
    """
    return round(BASE + SCALE * (mu - 3 * sigma))


def bot_entry(bot: str) -> str:
    """The rating entry of a bot spec.

    >>> bot_entry("heuristic")
    'bot-heuristic'
    """
    return BOT_PREFIX + bot


def bot_of(entry: str) -> str | None:
    """The bot spec of an entry, ``None`` for a player.

    >>> bot_of("bot-pimc"), bot_of("3f75e0567cb07dfa")
    ('pimc', None)
    """
    return entry[len(BOT_PREFIX):] if entry.startswith(BOT_PREFIX) else None

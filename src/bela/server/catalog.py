"""The bots this server can run, and the levels for people made of them."""

from __future__ import annotations

import logging
from typing import Any

from ..bots import BOTS, make_bot
from ..bots.levels import LEVELS, level_elo
from ..engine.variants import VARIANTS

log = logging.getLogger("bela.server")


class BotCatalog:
    """The bots and levels this installation can run (checked once per server)."""

    def __init__(self) -> None:
        self._bots: list[str] | None = None

    def available_bots(self) -> list[str]:
        """The bots this installation can run: those that can be made (their modules import;
        the strong bots need numpy).  Checked once per server."""
        if self._bots is None:
            found = []
            for name in BOTS:
                try:
                    make_bot(name, seed=0)
                except Exception as exc:  # ImportError above all: an optional dependency
                    log.warning("bot %r is not available on this server: %s: %s", name,
                                type(exc).__name__, exc)
                    continue
                found.append(name)
            self._bots = found
        return list(self._bots)

    def available_levels(self) -> list[dict[str, Any]]:
        """The levels for people (:mod:`bela.bots.levels`) this server can run, weakest
        first: each one's ``name``, bot ``spec`` and measured ``elo`` over ``beginner`` per
        variant (only the variants measured: ``{}`` until the arena has)."""
        bots = self.available_bots()
        measured = {v: level_elo(v) for v in VARIANTS}
        return [{"name": name, "spec": spec,
                 "elo": {v: elo[name] for v, elo in measured.items() if name in elo}}
                for name, spec in LEVELS.items() if name in bots]

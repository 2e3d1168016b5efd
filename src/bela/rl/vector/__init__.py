"""The compiled vector environment: ``B`` matches stepped in one call (Numba), the rules
read from the engine's own tables (:mod:`bela.rl.vector.tables`).

:class:`VecGames` is the parallel API for self-play (every seat learning);
:class:`BelaVectorEnv` a Gymnasium ``VectorEnv`` with one learning seat against a policy
run inside the compiled loop (it needs the ``rl`` extra).  Observations, masks and rewards
are those of :mod:`bela.rl.env`.
"""

from __future__ import annotations

from .games import Step, VecGames

__all__ = ["Step", "VecGames"]

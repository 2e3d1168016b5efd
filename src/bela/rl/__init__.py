"""Learning environments.

``env(variant)`` is a PettingZoo AEC environment of a whole match, one agent per seat;
``SingleAgentEnv(variant)`` a Gymnasium environment where one seat learns against bots (both
need the ``rl`` extra: PettingZoo and Gymnasium).  Observations come from the seat's view
only; action masks from its legal actions.  :mod:`bela.rl.vector` is the same game compiled
(Numba): many matches stepped in one call, every seat learning (``VecGames``) or one seat in a
Gymnasium ``VectorEnv`` (``bela.rl.vector.gym.BelaVectorEnv``).  :mod:`bela.training.train`
trains the learned bot with numpy alone (``bela train``), without the extra.
"""

from __future__ import annotations

from typing import Any

from .spaces import ActionSpace, observation_size, observe

try:
    from .env import BelaEnv, SingleAgentEnv, env, raw_env
except ImportError as exc:  # pragma: no cover - the rl extra is not installed
    _MISSING: ImportError | None = exc
else:
    _MISSING = None


def __getattr__(name: str) -> Any:
    if _MISSING is not None and name in ("BelaEnv", "SingleAgentEnv", "env", "raw_env"):
        raise ImportError(f"bela.rl.{name} needs the rl extra: pip install 'bela[rl]' "
                          "(in a clone of the repository: pip install -e '.[rl]') "
                          f"({_MISSING})")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ActionSpace", "BelaEnv", "SingleAgentEnv", "env", "observation_size", "observe",
           "raw_env"]

"""Learning environments (needs the ``rl`` extra: PettingZoo and Gymnasium).

``env(variant)`` is a PettingZoo AEC environment of a whole match, one agent per seat;
``SingleAgentEnv(variant)`` a Gymnasium environment where one seat learns against bots.
Observations come from the seat's view only; action masks from its legal actions.
"""

from .env import BelaEnv, SingleAgentEnv, env, raw_env
from .spaces import ActionSpace, observation_size, observe

__all__ = ["ActionSpace", "BelaEnv", "SingleAgentEnv", "env", "observation_size", "observe",
           "raw_env"]

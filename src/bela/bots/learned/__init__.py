"""The learned bot: a network trained by ``bela train``, run with numpy (no deep-learning
framework at play time)."""

from ..settings import ENDGAME_NODES
from .bot import LearnedBot, Network, bid_by_margins, model_for, shipped_model_path
from .network import Mlp, ModelError, load_models, save_models

__all__ = ["ENDGAME_NODES", "LearnedBot", "Mlp", "ModelError", "Network", "bid_by_margins",
           "load_models", "model_for", "save_models", "shipped_model_path"]

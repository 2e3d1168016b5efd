"""What makes and measures the bots, apart from what serves users: the learned bot's trainer
(:mod:`.train`, ``bela train``, on the positions of :mod:`.data`), the contract estimates'
fitter (:mod:`.fit`, ``python -m bela.training.fit``, whose output is the profiles' contract
weights, :mod:`bela.bots.profiles`) and the compiled self-play simulator (:mod:`.selfplay`,
``bela bench --run selfplay``).

It imports the engine, the solver, the bots and the learning environments (the vector
environment's games, :mod:`.vector`); nothing but the CLI imports it.
"""

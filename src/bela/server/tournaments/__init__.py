"""Tournaments on the server (docs/TOURNAMENTS.md): the pure core
(:mod:`bela.tournament`) pairs and ranks; this package stores, seats and watches.

- :mod:`.director`: creation, registration and the director's actions (:class:`Director`);
- :mod:`.scheduler`: the rounds: planned and stored once, tables made and watched, results
  recorded (:class:`Scheduler`; a score pad's result through
  :meth:`Scheduler.record_result`), under a lease when several instances run;
- :mod:`.tables`: a game's table, seated by its entries;
- :mod:`.stored`: the core's values from the stored rows, a game's result from its table;
- :mod:`.views`: what the routes answer (the tournament object, CSV, export, feed);
- :mod:`.bodies`: the request bodies.

The routes are :mod:`bela.server.routes.tournaments`; the app wires both parts.
"""

from .director import Director
from .scheduler import Scheduler

__all__ = ["Director", "Scheduler"]

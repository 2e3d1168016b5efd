"""Tournaments on the server (docs/TOURNAMENTS.md): the pure core
(:mod:`bela.tournament`) pairs and ranks; this package stores, seats and watches.

- :mod:`.director`: creation, registration and the director's actions (:class:`Director`);
- :mod:`.scheduler`: the rounds: planned and stored once, tables made and watched, results
  recorded (:class:`Scheduler`; a score pad's result through
  :meth:`Scheduler.record_result`), under a lease when several instances run;
- :mod:`.watch`: a playing game watched (who came, its table's result, the no-show rule);
- :mod:`.results`: a result given by people: a pad's, the director's correction;
- :mod:`.tables`: a game's table, seated by its entries;
- :mod:`.scorers`: a club night with real cards: each game's scorer link (the pad bound to
  it by a key) and the pad's result; :mod:`.qr` draws the links' QR codes;
- :mod:`.practice`: a practice duplicate against bots;
- :mod:`.stored`: the core's values from the stored rows, a game's result from its table;
- :mod:`.views`: what the routes answer (the tournament object, CSV, export, feed), the
  tournament objects cached by version (:class:`TournamentViews`);
- :mod:`.bodies`: the request bodies.

The routes are :mod:`bela.server.routes.tournaments`; the app wires both parts.
"""

from .director import Director
from .scheduler import Scheduler
from .views import TournamentViews

__all__ = ["Director", "Scheduler", "TournamentViews"]

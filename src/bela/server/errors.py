"""What the server refuses, as domain errors: the kind of refusal, never an HTTP status.

The lobby, the table actors and the players' store raise these; the web layer
(:mod:`bela.server.app`) turns each kind into its HTTP status in one place
(:func:`bela.server.app.http_status`).
"""

from __future__ import annotations


class Refused(Exception):
    """A refused request: ``code`` is stable (clients branch on it), ``message`` is for
    people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Unauthenticated(Refused):
    """No player token, one the server does not know, or one unused for too long."""


class Forbidden(Refused):
    """The player may not do this (not the table's creator, a private table without its
    invite code, a private table's record without a player's token, a seed on a server that
    takes none)."""


class NotFound(Refused):
    """There is no such table."""


class Conflict(Refused):
    """The state does not allow it now (table already started, seat taken, not over; the
    guest has as many open tables as he may)."""


class TooLarge(Refused):
    """A request over the size limit."""


class InvalidInput(Refused):
    """The request names something that does not exist or cannot be (variant, option,
    bot, seat, seed, name)."""


class TooMany(Refused):
    """Over a rate limit: ``retry_after`` seconds until the next request is taken."""

    def __init__(self, code: str, message: str, retry_after: int) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class Unavailable(Refused):
    """The database refused the request (full, unreachable), or the server process running
    the table cannot be reached now (it stopped and another takes the table over): try again
    later."""


# every kind of refusal by name: a refusal made at another server process is raised again
# as the same kind (bela.server.cluster)
REFUSALS: dict[str, type[Refused]] = {
    c.__name__: c for c in (Refused, Unauthenticated, Forbidden, NotFound, Conflict, TooLarge,
                            InvalidInput, TooMany, Unavailable)}

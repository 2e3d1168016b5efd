"""The server's HTTP and WebSocket routes, by area: each module's ``router`` is included by
:func:`bela.server.app.create_app`, and each route reads what it needs (the lobby, the
router, the config...) from ``request.app.state``, where the app factory puts it.

* :mod:`.ops`: ``/healthz``, ``/readyz``, ``/metrics``;
* :mod:`.players`: guests, the player himself, his token and history;
* :mod:`.tables`: the variants, the list of tables, a table's operations and record;
* :mod:`.ws`: the tables' WebSocket;
* :mod:`.ui`: the pages of the browser client.

The accounts, profiles, quick play, pads and analysis routes live with their areas
(:mod:`bela.server.accounts`...).  The HTTP shape of a refusal is here, the one place errors
meet HTTP.
"""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from ..errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Refused,
    TooLarge,
    TooMany,
    Unauthenticated,
    Unavailable,
)

# The HTTP status of each kind of refusal (the nearest listed class of an error decides).
HTTP_STATUS: dict[type[Refused], int] = {
    Refused: 400, Unauthenticated: 401, Forbidden: 403, NotFound: 404, Conflict: 409,
    TooLarge: 413, InvalidInput: 422, TooMany: 429, Unavailable: 503,
}


def http_status(exc: Refused) -> int:
    """The HTTP status a refusal is answered with: the one place errors meet HTTP."""
    return next(HTTP_STATUS[c] for c in type(exc).__mro__ if c in HTTP_STATUS)


def page_headers(path: str, limit: int, offset: int, total: int) -> dict[str, str]:
    """``X-Total-Count`` and ``Link`` (the next and previous pages) of a page of a list."""
    links = [f'<{path}?limit={limit}&offset={offset + limit}>; rel="next"'
             ] if offset + limit < total else []
    if offset:
        links.append(f'<{path}?limit={limit}&offset={max(0, offset - limit)}>; rel="prev"')
    headers = {"X-Total-Count": str(total)}
    if links:
        headers["Link"] = ", ".join(links)
    return headers


def error_body(exc: Refused) -> dict[str, Any]:
    """The JSON body of a refused request."""
    return {"error": {"code": exc.code, "message": exc.message}}


def refusal_response(exc: Refused) -> JSONResponse:
    """The answer to a refused request (over a rate limit: with ``Retry-After``)."""
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooMany) else None
    return JSONResponse(error_body(exc), status_code=http_status(exc), headers=headers)


def errors_text(exc: ValidationError | RequestValidationError) -> str:
    """The first few errors of a validation, in one line."""
    parts = []
    for e in exc.errors()[:5]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
    return "; ".join(parts) or "invalid message"

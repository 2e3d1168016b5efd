"""The Bela server: FastAPI + WebSockets over the engine, with the SQLite/PostgreSQL store.

Install with the ``server`` extra (``pip install 'bela[server]'``); run ``bela serve``.
"""

from __future__ import annotations

from typing import Any


def create_app(db_url: str | None = None, **options: Any) -> Any:
    """See :func:`bela.server.app.create_app` (imported lazily: FastAPI is optional)."""
    from .app import create_app as _create_app

    return _create_app(db_url, **options)


__all__ = ["create_app"]

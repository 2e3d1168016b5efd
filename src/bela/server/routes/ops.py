"""The operations' routes: ``/healthz``, ``/readyz`` and ``/metrics``."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError

from ..answers import Health
from ..errors import Forbidden
from ..metrics import internal_address

router = APIRouter()


@router.get("/healthz")
async def healthz(request: Request) -> Health:
    """The process answers."""
    return Health(status="ok", instance=request.app.state.router.instance)


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """Ready for players: started, the database answers, and (several instances) the
    link to the others works; else 503."""
    state = request.app.state
    checks = {"started": state.started.is_set(), "database": True, "cluster": True}
    try:
        await asyncio.to_thread(state.db.ping)
    except SQLAlchemyError:
        checks["database"] = False
    checks["cluster"] = await state.router.ready()
    ok = all(checks.values())
    return JSONResponse({"status": "ready" if ok else "unavailable",
                         "instance": state.router.instance, "checks": checks},
                        status_code=200 if ok else 503)


@router.get("/metrics")
async def metrics_text(request: Request) -> Response:
    """The Prometheus metrics of this process (see :mod:`bela.server.metrics`), for this
    machine and private networks unless ``public_metrics``."""
    host = request.client.host if request.client else None
    if not request.app.state.config.public_metrics and not internal_address(host):
        raise Forbidden("metrics_private", "the metrics are served to private networks "
                        "only (bela serve --public-metrics serves them to all)")
    body, content_type = request.app.state.metrics.render()
    return Response(body, media_type=content_type)

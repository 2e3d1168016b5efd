"""The pages of the browser client: the lobby, the score pad (and its service worker), the
analysis board, the tournaments.  Their modules, styles and pictures are mounted at ``/web``
by the app."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, Response
from fastapi.responses import HTMLResponse

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
async def index() -> HTMLResponse:
    return HTMLResponse(_index_html())


@router.get("/pad", response_class=HTMLResponse)
async def pad_page() -> HTMLResponse:
    """The score pad (bela blok): a page of its own that works offline."""
    return HTMLResponse(_web_text("pad.html"))


@router.get("/pad-sw.js")
async def pad_worker() -> Response:
    """The pad's service worker, served from the root so that it may control /pad."""
    return Response(_web_text("pad-sw.js"), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache"})


@router.get("/analysis", response_class=HTMLResponse)
async def analysis_page() -> HTMLResponse:
    """The analysis board of finished matches."""
    return HTMLResponse(_web_text("analysis.html"))


@router.get("/tournaments", response_class=HTMLResponse)
async def tournaments_page() -> HTMLResponse:
    """The tournaments: their lists, one tournament (``?id=``), its projector screen."""
    return HTMLResponse(_web_text("tournaments.html"))


def _index_html() -> str:
    try:
        return _web_text("index.html")
    except (FileNotFoundError, OSError):
        return "<!doctype html><title>Bela</title><p>The Bela server is running.</p>"


def _web_text(name: str) -> str:
    """A file of the browser client (``bela/web``)."""
    return (resources.files("bela") / "web" / name).read_text(encoding="utf-8")

"""The pages (``/`` and ``/runs/{id}``) and their static files, with the headers that keep a
page to its own scripts: a Content-Security-Policy without inline script, ``nosniff``, no
referrer and no framing.

``GET /runs/{id}`` is both a page and an API endpoint: it is the page for a browser's
navigation (it asks for ``text/html`` and sends no ``Authorization``), the API for any other
request, so ``curl`` and the page's own ``fetch`` calls still get the run's JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.routing import Match
from starlette.types import Scope

from taor._version import __version__

HERE = Path(__file__).parent

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


class PageRoute(APIRoute):
    """A route that matches only a browser's navigation: a GET that accepts HTML and carries
    no ``Authorization`` header. Any other request falls through to the routes after it."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope["method"] != "GET":
            return Match.NONE, {}
        headers = dict(scope["headers"])
        if b"authorization" in headers or b"text/html" not in headers.get(b"accept", b""):
            return Match.NONE, {}
        return super().matches(scope)


class StaticAssets(StaticFiles):
    """The page's scripts, styles and icon, with ``nosniff`` so a browser runs a script only
    when it is served as one."""

    async def get_response(self, path: str, scope: Scope) -> Any:
        response = await super().get_response(path, scope)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response


def page_router(templates: Jinja2Templates) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        context = {"version": __version__, **context}
        return templates.TemplateResponse(request, name, context, headers=PAGE_HEADERS)

    @router.get("/", response_class=HTMLResponse)
    async def runs_page(request: Request) -> HTMLResponse:
        """The list of runs and the form that starts one."""
        return page(request, "index.html", title="Runs", script="list.js")

    async def run_page(request: Request, run_id: str) -> HTMLResponse:
        """A run's live view; the run itself is read through the API."""
        return page(request, "run.html", title=f"Run {run_id}", run_id=run_id, script="run.js")

    router.add_api_route(
        "/runs/{run_id}",
        run_page,
        methods=["GET"],
        response_class=HTMLResponse,
        route_class_override=PageRoute,
    )
    return router


def mount_web(app: FastAPI) -> None:
    """Add the pages and ``/static`` to ``app`` (before the runs API: see the module's note)."""
    loader = jinja2.FileSystemLoader(HERE / "templates")
    templates = Jinja2Templates(env=jinja2.Environment(loader=loader, autoescape=True))
    app.include_router(page_router(templates))
    app.mount("/static", StaticAssets(directory=HERE / "static"), name="static")

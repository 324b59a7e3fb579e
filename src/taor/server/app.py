"""``create_app``: the service's FastAPI application over an open ``Service``.

Every endpoint but ``/healthz`` needs a bearer token (``auth``); bodies over the configured
size are refused 413 (``limits``); CORS is off unless origins are configured. The OpenAPI
document is at ``/openapi.json`` and its page at ``/docs``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from taor._version import __version__
from taor.server.auth import CurrentUser
from taor.server.limits import BodyLimit
from taor.server.service import Service
from taor.server.unavailable import install as install_unavailable


def create_app(service: Service) -> FastAPI:
    app = FastAPI(
        title="taor",
        version=__version__,
        summary="Coding-agent runs over HTTP and SSE",
    )
    app.state.service = service
    app.add_middleware(BodyLimit, limit=service.config.max_body)
    install_unavailable(app)  # a database out of reach: 503
    if service.config.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(service.config.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        )

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, Any]:
        """Whether the service answers (no token needed)."""
        return {"status": "ok", "version": __version__}

    @app.get("/me", tags=["service"])
    async def me(user: CurrentUser) -> dict[str, Any]:
        """Who the token speaks for."""
        return {"name": user.name, "admin": user.admin}

    from taor.server.routes_runs import router
    from taor.server.web import mount_web

    mount_web(app)  # first: a browser's GET /runs/{id} is the page, any other the API
    app.include_router(router)
    return app

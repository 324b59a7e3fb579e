"""A database out of reach is 503 with a line saying so, not a 500 and a traceback: a shared
database (PostgreSQL) can be down for a while, and runs already going keep going (their
workers write when it is back), but nothing new can be started or read until then."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from taor.server.store.database import connection_lost

log = logging.getLogger("taor.server")

MESSAGE = (
    "the service's database cannot be reached right now; nothing can be started or read "
    "until it is back (runs already going go on): try again shortly"
)


def install(app: FastAPI) -> None:
    from sqlalchemy.exc import DBAPIError

    async def unavailable(request: Request, error: Any) -> JSONResponse:
        if not connection_lost(error):
            raise error
        log.warning("database out of reach: %s", error)
        return JSONResponse({"detail": MESSAGE}, status_code=503, headers={"Retry-After": "5"})

    app.add_exception_handler(DBAPIError, unavailable)
    app.add_exception_handler(OSError, unavailable)

"""``BodyLimit``: requests whose body is larger than the service accepts are answered 413
before the body is read (by its ``Content-Length``) or as soon as it passes the limit (a
chunked body), so no worker holds a body of any size."""

from __future__ import annotations

import json
from typing import Any

from taor.errors import TaorError

Scope = dict[str, Any]
Message = dict[str, Any]


class BodyLimit:
    """ASGI middleware: at most ``limit`` bytes of request body."""

    def __init__(self, app: Any, *, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        seen = 0
        refused = False

        async def counted() -> Message:
            nonlocal seen, refused
            message: Message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    raise _TooLarge
            return message

        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched_send)
        except _TooLarge:
            if not started:
                await self._refuse(send)
        except Exception:
            if refused and not started:
                await self._refuse(send)
            else:
                raise

    async def _refuse(self, send: Any) -> None:
        body = json.dumps(
            {"detail": f"the request body is larger than this service accepts ({self.limit} bytes)"}
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(TaorError):
    """Raised into the app as the body passes the limit: it stops reading, and the middleware
    answers 413."""

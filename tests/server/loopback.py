"""An ASGI app served by uvicorn on a free loopback port, for as long as a test needs it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn


@contextlib.asynccontextmanager
async def serving(app: Any, *, send_buffer: int = 0) -> AsyncIterator[str]:
    """The app's root URL while it is served. ``send_buffer`` bounds each connection's kernel
    send buffer (connections inherit it from the listening socket), so that a client that
    stops reading stalls the server after a few KiB rather than after megabytes."""
    sock = socket.socket()
    if send_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()  # it could not start: raise why
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task

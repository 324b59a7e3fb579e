"""A TCP proxy on a free loopback port in front of a service, whose connections a test can cut
mid-stream (as a network drop would), while the service goes on; it notes each request's line
(``GET /runs/x/events``), so a test can count what a client asked."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable
from urllib.parse import urlsplit


class Proxy:
    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._writers: set[asyncio.StreamWriter] = set()
        self.connections = 0  # accepted so far
        self.requests: list[str] = []  # each request's method and path, in order

    def cut(self) -> None:
        """Drop every connection open now (new ones are taken as before)."""
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(self._host, self._port)
        self._writers.update((writer, up_writer))
        await asyncio.gather(
            _pipe(reader, up_writer, self.requests.extend), _pipe(up_reader, writer)
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        try:
            yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        finally:
            self.cut()
            server.close()
            await server.wait_closed()


REQUEST_LINE = re.compile(rb"^(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP/1\.1\r$", re.MULTILINE)


async def _pipe(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    note: Callable[[list[str]], None] | None = None,
) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            if note is not None:
                note([f"{m[0].decode()} {m[1].decode()}" for m in REQUEST_LINE.findall(data)])
            writer.write(data)
            await writer.drain()
    writer.transport.abort()

"""One HTTP/1.1 connection over asyncio streams: ``h11`` frames the request and parses the
response (content-length or chunked bodies, keep-alive); this module only moves the bytes, with
a timeout on every wait, and raises the transport errors ``_error_map`` classifies."""

from __future__ import annotations

import asyncio
import select
from collections.abc import Sequence
from typing import TYPE_CHECKING

import h11

from taor._records import frozen
from taor.errors import TaorError

if TYPE_CHECKING:
    import ssl

READ_SIZE = 65536


class HttpError(TaorError):
    """A request that failed below HTTP statuses; ``url`` is the request's URL. Never seen by
    a caller of an adapter: ``_error_map`` turns each into the ``ProviderError`` it means."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class TransportError(HttpError):
    """No usable exchange: the connection could not be made, or broke."""


class ConnectError(TransportError):
    pass


class WriteError(TransportError):
    pass


class ReadError(TransportError):
    """The connection broke (or the server closed it) while a response was awaited or read."""


class Timeout(TransportError):
    pass


class ConnectTimeout(Timeout):
    pass


class ReadTimeout(Timeout):
    pass


class WriteTimeout(Timeout):
    pass


class DecodingError(HttpError):
    """A response body that its content-encoding does not decode."""


@frozen
class HttpTimeouts:
    """Seconds: to connect (TCP and TLS), of silence while a response is awaited or read, to
    hand the request to the kernel."""

    connect: float
    read: float
    write: float


class Connection:
    """A keep-alive connection to one origin; one request at a time."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        timeouts: HttpTimeouts,
        url: str,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._timeouts = timeouts
        self._h11 = h11.Connection(h11.CLIENT)
        self.url = url  # of the request it carries, for errors

    @classmethod
    async def open(
        cls, host: str, port: int, tls: ssl.SSLContext | None, timeouts: HttpTimeouts, url: str
    ) -> Connection:
        server_hostname = None
        if tls is not None:
            tls.set_alpn_protocols(["http/1.1"])  # as httpx2 offers it
            server_hostname = host
        opening = asyncio.open_connection(host, port, ssl=tls, server_hostname=server_hostname)
        try:
            reader, writer = await asyncio.wait_for(opening, timeouts.connect)
        except TimeoutError as exc:
            message = f"Connect timed out after {timeouts.connect:g} s"
            raise ConnectTimeout(message, url=url) from exc
        except OSError as exc:
            raise ConnectError(str(exc) or type(exc).__name__, url=url) from exc
        return cls(reader, writer, timeouts, url)

    async def send(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> None:
        request = h11.Request(method=method, target=target, headers=list(headers))
        data = b"".join(
            self._h11.send(event) or b""
            for event in (request, h11.Data(data=body), h11.EndOfMessage())
        )
        self._writer.write(data)
        try:
            await asyncio.wait_for(self._writer.drain(), self._timeouts.write)
        except TimeoutError as exc:
            message = f"Write timed out after {self._timeouts.write:g} s"
            raise WriteTimeout(message, url=self.url) from exc
        except OSError as exc:
            raise WriteError(str(exc) or type(exc).__name__, url=self.url) from exc

    async def response(self) -> h11.Response:
        """The response's status line and headers (an interim 1xx response is skipped)."""
        while True:
            event = await self._next()
            if isinstance(event, h11.Response):
                return event

    async def data(self) -> bytes | None:
        """The next piece of the body as it arrived; None at its end."""
        event = await self._next()
        if isinstance(event, h11.Data):
            return bytes(event.data)
        return None  # EndOfMessage: a response's only other event after its head

    async def _next(self) -> h11.Event:
        while True:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:  # e.g. closed before the body's end
                raise ReadError(f"the server broke the response: {exc}", url=self.url) from exc
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]
            self._h11.receive_data(await self._read())

    async def _read(self) -> bytes:
        timeout = self._timeouts.read
        try:
            return await asyncio.wait_for(self._reader.read(READ_SIZE), timeout)
        except TimeoutError as exc:
            raise ReadTimeout(f"Read timed out after {timeout:g} s", url=self.url) from exc
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__, url=self.url) from exc

    def reuse(self) -> bool:
        """After a complete exchange: ready for the next request, unless either side said
        ``connection: close`` (then the caller closes it)."""
        if self._h11.our_state is h11.DONE and self._h11.their_state is h11.DONE:
            self._h11.start_next_cycle()
            return True
        return False

    def alive(self) -> bool:
        """An idle connection the server has not closed: nothing to read on it (the server
        closing it, or sending out of turn, makes its socket readable)."""
        if self._writer.is_closing() or self._reader.at_eof():
            return False
        sock = self._writer.get_extra_info("socket")
        readable, _, _ = select.select([sock], [], [], 0)
        return not readable

    def close(self) -> None:
        self._writer.close()

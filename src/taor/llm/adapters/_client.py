"""``HttpClient``: POST a body, get the streamed response, over ``_wire`` connections kept
alive per origin. It sends the headers httpx2's client sends, in its order (host, the
defaults accept, accept-encoding, connection and user-agent, then the caller's, each replacing
a default of its name, and content-length), and decodes the gzip or deflate bodies that its
``accept-encoding`` asks for."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from taor._records import frozen
from taor.llm.adapters._wire import Connection, DecodingError, HttpTimeouts

if TYPE_CHECKING:
    import ssl

    import h11

DEFAULT_HEADERS = {
    "Accept": "*/*",
    "Accept-Encoding": "gzip, deflate",
    "Connection": "keep-alive",
    "User-Agent": "taor",
}
_PATH_SAFE = "!$&'()*+,;=:@/?%~"  # what httpx2 leaves unquoted in a path and query


@frozen
class Origin:
    scheme: str
    host: str
    port: int
    netloc: str  # the host header: the port only when it is not the scheme's default
    path: str  # the base URL's path, ending in "/"


def origin_of(base_url: str) -> Origin:
    parts = urlsplit(base_url)
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname or ""
    port = parts.port or default
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port == default else f"{shown}:{port}"
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return Origin(scheme=parts.scheme, host=host, port=port, netloc=netloc, path=path)


class Headers(dict[str, str]):
    """Response headers by lower-case name (a repeated header's values joined by commas)."""

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        super().__init__()
        for name, value in raw:
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            self[key] = f"{self[key]}, {text}" if key in self else text

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return super().get(key.lower(), default)


class HttpClient:
    """Requests to one base URL; an idle connection is reused while the server keeps it."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str],
        timeouts: HttpTimeouts,
        tls: Callable[[], ssl.SSLContext],
    ) -> None:
        self._origin = origin_of(base_url)
        self._headers = dict(_merged(DEFAULT_HEADERS, headers))
        self._timeouts = timeouts
        self._tls = tls  # asked for on the first https connection only
        self._idle: list[Connection] = []

    async def post(self, path: str, *, content: bytes, headers: Mapping[str, str]) -> Response:
        """The response once its head arrived; its body is read from ``aiter_bytes``."""
        origin = self._origin
        target = quote(origin.path + path.lstrip("/"), safe=_PATH_SAFE)
        url = f"{origin.scheme}://{origin.netloc}{target}".split("?", 1)[0]
        sent = _merged({"Host": origin.netloc}, self._headers, headers)
        if not any(name.lower() == "content-length" for name, _ in sent):
            sent.append(("Content-Length", str(len(content))))
        connection = await self._connection(url)
        try:
            await connection.send("POST", target, sent, content)
            head = await connection.response()
        except BaseException:
            connection.close()
            raise
        return Response(head, connection, self._release)

    async def _connection(self, url: str) -> Connection:
        while self._idle:  # the most recently used first; one the server closed is dropped
            connection = self._idle.pop()
            if connection.alive():
                connection.url = url
                return connection
            connection.close()
        origin = self._origin
        tls = self._tls() if origin.scheme == "https" else None
        return await Connection.open(origin.host, origin.port, tls, self._timeouts, url)

    def _release(self, connection: Connection) -> None:
        if connection.reuse():
            self._idle.append(connection)
        else:
            connection.close()

    async def aclose(self) -> None:
        while self._idle:
            self._idle.pop().close()


def _merged(*layers: Mapping[str, str]) -> list[tuple[str, str]]:
    """As httpx2 merges headers: a layer's header replaces any of the same name (in any case)
    before it, and goes after them."""
    merged: list[tuple[str, str]] = []
    for layer in layers:
        names = {name.lower() for name in layer}
        merged = [(name, v) for name, v in merged if name.lower() not in names]
        merged.extend(layer.items())
    return merged


class Response:
    """A streamed response: ``status_code``, ``headers``, ``aiter_bytes`` (decoded), ``aread``,
    ``aclose``. Its connection goes back to the pool once the body was read to its end."""

    def __init__(
        self,
        head: h11.Response,
        connection: Connection,
        release: Callable[[Connection], None],
    ) -> None:
        self.status_code = head.status_code
        self.headers = Headers(head.headers.raw_items())
        self._connection: Connection | None = connection
        self._release = release

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        connection = self._connection
        assert connection is not None, "the body is read once"
        decode = _decoder(self.headers.get("content-encoding") or "", connection.url)
        while (chunk := await connection.data()) is not None:
            if data := decode(chunk):
                yield data
        self._connection = None
        self._release(connection)

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Closes the connection when the body was not read to its end."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _decoder(encoding: str, url: str) -> Callable[[bytes], bytes]:
    """Decodes the body's content-encodings (the last applied first). Unknown codings pass
    through, as httpx2 passes them. (Nothing is held back to flush at the end: zlib returns
    all it can decode of each piece.)"""
    codings = [c.strip().lower() for c in reversed(encoding.split(","))]
    steps = [_Inflater(c, url) for c in codings if c in ("gzip", "deflate")]

    def decode(data: bytes) -> bytes:
        for step in steps:
            data = step(data)
        return data

    return decode


class _Inflater:
    def __init__(self, coding: str, url: str) -> None:
        self._coding, self._url = coding, url
        # deflate is meant zlib-wrapped, but some servers send it raw (as httpx2 tries both)
        self._modes = (
            [zlib.MAX_WBITS | 16] if coding == "gzip" else [zlib.MAX_WBITS, -zlib.MAX_WBITS]
        )
        self._inflater = zlib.decompressobj(self._modes.pop(0))
        self._started = False

    def __call__(self, data: bytes) -> bytes:
        try:
            out = self._inflater.decompress(data)
        except zlib.error as exc:
            if self._modes and not self._started:
                self._inflater = zlib.decompressobj(self._modes.pop(0))
                return self(data)
            message = f"a {self._coding} body that does not decode: {exc}"
            raise DecodingError(message, url=self._url) from exc
        self._started = True
        return out

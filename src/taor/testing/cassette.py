"""Record and replay raw HTTP under the real provider SDKs.

``RecordingTransport`` sits under an ``httpx2.AsyncClient`` and writes each exchange to a
cassette; ``ReplayTransport`` answers from it, so a test runs the real SDK with no network.
A cassette is JSON lines, one exchange per line: ``{"method", "url", "request": {"headers",
"body"}, "response": {"status", "headers", "body", "chunks"}}``. Headers are ``[name, value]``
pairs (an object also loads); bodies are UTF-8 text, or base64 with ``"body_encoding":
"base64"``; ``chunks`` lists the sizes of the pieces the body streamed in. Bodies are kept as
they came off the wire (a gzip body stays gzip, beside its ``content-encoding`` header).
Redacted: authorization, cookie and api-key headers, any header or URL query parameter whose
name contains key, token or secret (``?key=``).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import httpx2
from httpx2 import AsyncBaseTransport

from taor._records import frozen
from taor.errors import ConfigurationError

REDACTED = "REDACTED"
_SECRET_NAME = re.compile(r"^(authorization|cookie|set-cookie)$|key|token|secret", re.IGNORECASE)
_QUERY_PARAM = re.compile(r"([?&])([^=&#]+)=([^&#]*)")

Headers = tuple[tuple[str, str], ...]
Match = Literal["sequence", "request"]
_Sink = Callable[["Exchange"], None]


@frozen
class Exchange:
    """One request and its response, whose body arrived as ``chunks`` (all of them unless
    the caller closed the stream early: ``complete=False``)."""

    method: str
    url: str
    request_headers: Headers = ()
    request_body: bytes = b""
    status: int = 200
    response_headers: Headers = ()
    chunks: tuple[bytes, ...] = ()
    complete: bool = True

    @property
    def path(self) -> str:
        return httpx2.URL(self.url).path

    @property
    def response_body(self) -> bytes:
        return b"".join(self.chunks)


def load_cassette(path: str | Path) -> list[Exchange]:
    """Every exchange in a cassette file; a torn last line (no newline) is skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").split("\n")
    except OSError as exc:
        raise ConfigurationError(f"cannot read cassette {path}: {exc}") from None
    exchanges = []
    for number, line in enumerate(lines, start=1):
        try:
            exchanges += [_decode(json.loads(line))] if line.strip() else []
        except (ValueError, LookupError, TypeError, AttributeError) as exc:
            if number < len(lines):  # else a torn last line of an interrupted recording
                raise ConfigurationError(f"{path}:{number}: bad exchange: {exc}") from None
    return exchanges


class RecordingTransport(AsyncBaseTransport):
    """Forwards to ``inner`` and writes each exchange once its body has streamed through.
    The first exchange written replaces what the file held before."""

    def __init__(self, cassette_path: str | Path, inner: AsyncBaseTransport | None = None) -> None:
        self._path = Path(cassette_path)
        self._inner = inner if inner is not None else httpx2.AsyncHTTPTransport()
        self._started = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        exchange = Exchange(
            method=request.method,
            url=_redact_url(str(request.url)),
            request_headers=_redact(request.headers.multi_items()),
            request_body=body,
            status=response.status_code,
            response_headers=_redact(response.headers.multi_items()),
        )
        response.stream = _RecordingStream(response.stream, exchange, self._write)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _write(self, exchange: Exchange) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("a" if self._started else "w", encoding="utf-8") as out:
            out.write(json.dumps(_encode(exchange), ensure_ascii=False) + "\n")
        self._started = True


class ReplayTransport(AsyncBaseTransport):
    """Answers from a cassette: in order, checking method and path (``match="sequence"``), or
    by method, path and body, JSON compared as data, for concurrent requests (``"request"``)."""

    def __init__(self, cassette_path: str | Path, *, match: Match = "sequence") -> None:
        self._path = cassette_path
        self._exchanges = load_cassette(cassette_path)
        self._match = match
        self._used: set[int] = set()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        index = self._next(request) if self._match == "sequence" else self._find(request, body)
        self._used.add(index)
        found = self._exchanges[index]
        stream = _ReplayStream(found.chunks)
        return httpx2.Response(found.status, headers=found.response_headers, stream=stream)

    def _next(self, request: httpx2.Request) -> int:
        index = len(self._used)
        if index >= len(self._exchanges):
            raise ConfigurationError(
                f"cassette {self._path} is exhausted after {index} exchanges; "
                f"unexpected request {request.method} {request.url.path}"
            )
        want = self._exchanges[index]
        if (want.method, want.path) != (request.method, request.url.path):
            raise ConfigurationError(
                f"cassette {self._path} exchange {index + 1} expected {want.method} {want.path}, "
                f"got {request.method} {request.url.path}"
            )
        return index

    def _find(self, request: httpx2.Request, body: bytes) -> int:
        want = (request.method, request.url.path)
        hits = [i for i, e in enumerate(self._exchanges) if (e.method, e.path) == want]
        matches = [i for i in hits if _same_body(self._exchanges[i].request_body, body)]
        if not matches:
            raise ConfigurationError(
                f"cassette {self._path} has no exchange for {request.method} "
                f"{request.url.path} with body {body[:200]!r}"
            )
        return next((i for i in matches if i not in self._used), matches[-1])


class _RecordingStream(httpx2.AsyncByteStream):
    """Passes chunks through unchanged and hands the exchange on when the body ends."""

    def __init__(self, inner: httpx2.AsyncByteStream, exchange: Exchange, done: _Sink) -> None:
        self._inner, self._exchange, self._done = inner, exchange, done
        self._chunks: list[bytes] = []
        self._finished = False  # written once: at the end of the body, or when closed

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._chunks.append(chunk)
            yield chunk
        self._finish(complete=True)

    async def aclose(self) -> None:
        await self._inner.aclose()
        self._finish(complete=False)

    def _finish(self, *, complete: bool) -> None:
        if not self._finished:
            self._finished = True
            self._done(replace(self._exchange, chunks=tuple(self._chunks), complete=complete))


@dataclass(frozen=True, slots=True)
class _ReplayStream(httpx2.AsyncByteStream):
    chunks: tuple[bytes, ...]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def _is_secret(name: str) -> bool:
    return _SECRET_NAME.search(name) is not None


def _redact(items: Iterable[tuple[str, str]]) -> Headers:
    return tuple((k, REDACTED if _is_secret(k) else v) for k, v in items)


def _redact_url(url: str) -> str:
    return _QUERY_PARAM.sub(lambda m: f"{m[1]}{m[2]}={REDACTED}" if _is_secret(m[2]) else m[0], url)


def _same_body(recorded: bytes, actual: bytes) -> bool:
    try:
        return recorded == actual or bool(json.loads(recorded) == json.loads(actual))
    except ValueError:
        return False


def _encode(e: Exchange) -> dict[str, Any]:
    request = {"headers": e.request_headers, **_body(e.request_body)}
    response = {"status": e.status, "headers": e.response_headers, **_body(e.response_body)}
    record = {"method": e.method, "url": e.url, "request": request, "response": response}
    response["chunks"] = [len(c) for c in e.chunks]
    return record if e.complete else {**record, "complete": False}


def _body(data: bytes) -> dict[str, str]:
    try:
        return {"body": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body": base64.b64encode(data).decode("ascii"), "body_encoding": "base64"}


def _decode(record: dict[str, Any]) -> Exchange:
    request, response = record.get("request", {}), record["response"]
    body = _unbody(response)
    sizes = [*itertools.accumulate(response.get("chunks") or []), len(body)]
    return Exchange(
        method=str(record["method"]).upper(),
        url=str(record["url"]),
        request_headers=_headers(request.get("headers", ())),
        request_body=_unbody(request),
        status=int(response["status"]),
        response_headers=_headers(response.get("headers", ())),
        chunks=tuple(c for c in (body[a:b] for a, b in itertools.pairwise([0, *sizes])) if c),
        complete=bool(record.get("complete", True)),
    )


def _unbody(section: dict[str, Any]) -> bytes:
    text = section.get("body", "")
    text = text if isinstance(text, str) else json.dumps(text)  # hand-written: inline JSON
    return base64.b64decode(text) if section.get("body_encoding") == "base64" else text.encode()


def _headers(value: Any) -> Headers:
    items = value.items() if isinstance(value, dict) else value
    return tuple((str(k), str(v)) for k, v in items)

"""``RawClient``: how every adapter posts a request and gets the streamed response, with the
headers its provider authenticates by. taor encodes the body and parses the stream itself, so
an official SDK would add nothing here but its import (about a second or more of CPU before the
first request); an error status raises the taor error its body describes (``ErrorFromBody``:
``error_from_body`` by default, Gemini's own for Gemini).

The request goes over taor's own HTTP/1.1 client (``_client``); through httpx2 only when a
proxy from the environment applies or the caller gave an httpx2 transport (``_fallback``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from taor._version import __version__
from taor.llm.adapters._client import HttpClient
from taor.llm.adapters._error_map import error_from_body, network_error, transport_kind
from taor.llm.adapters._fallback import HttpxClient, proxy_applies
from taor.llm.adapters._wire import HttpTimeouts

if TYPE_CHECKING:
    import ssl

    import httpx2

    from taor.errors import ProviderError

# (provider, status, body, response headers) -> the error to raise
ErrorFromBody = Callable[[str, int, bytes, Mapping[str, str]], "ProviderError"]


class StreamedResponse(Protocol):
    """What taor reads of a response, ours or httpx2's."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...
    async def aread(self) -> bytes: ...
    async def aclose(self) -> None: ...


class RawClient:
    """Paths are joined to ``base_url`` as the SDKs join them: appended to its path, so a base
    URL with a path prefix (``http://proxy/openai/v1``) keeps it. ``tls`` is asked for the TLS
    context only when one is needed (an https connection, a proxy)."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        timeouts: HttpTimeouts,
        tls: Callable[[], ssl.SSLContext],
        transport: httpx2.AsyncBaseTransport | None = None,
        error: ErrorFromBody = error_from_body,
    ) -> None:
        sent = {"accept": "application/json", "user-agent": f"taor/{__version__}", **headers}
        self._provider = provider
        self._error = error
        self._client: HttpClient | HttpxClient
        if transport is not None:
            self._client = HttpxClient(
                base_url, headers=sent, timeouts=timeouts, verify=True, transport=transport
            )
        elif proxy_applies(base_url):
            self._client = HttpxClient(
                base_url, headers=sent, timeouts=timeouts, verify=tls(), transport=None
            )
        else:
            self._client = HttpClient(base_url, headers=sent, timeouts=timeouts, tls=tls)

    async def post(
        self, path: str, *, content: bytes, headers: Mapping[str, str]
    ) -> StreamedResponse:
        """The streamed response; an error status raises the taor error its body describes."""
        try:
            response: StreamedResponse = await self._client.post(
                path, content=content, headers=headers
            )
        except Exception as exc:
            kind = transport_kind(exc)
            if kind is None or kind.endswith("timeout"):
                raise  # the mapper tells a connect timeout from an idle one
            raise network_error(self._provider, exc) from exc  # no response: as SDKs say it
        if response.status_code < 400:
            return response
        try:
            body = await response.aread()
        finally:
            await response.aclose()
        raise self._error(self._provider, response.status_code, body, response.headers)

    async def close(self) -> None:
        await self._client.aclose()


def bearer(api_key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}"}

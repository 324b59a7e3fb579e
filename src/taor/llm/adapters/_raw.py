"""``RawClient``: how every adapter posts a request and gets the streamed response, over
httpx2 alone, with the headers its provider authenticates by. taor encodes the body and parses
the stream itself, so an official SDK would add nothing here but its import (about a second or
more of CPU before the first request); an error status raises the taor error its body
describes (``ErrorFromBody``: ``error_from_body`` by default, Gemini's own for Gemini)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import httpx2

from taor._version import __version__
from taor.llm.adapters._error_map import error_from_body, network_error

if TYPE_CHECKING:
    import ssl

    from taor.errors import ProviderError

# (provider, status, body, response headers) -> the error to raise
ErrorFromBody = Callable[[str, int, bytes, httpx2.Headers], "ProviderError"]


class RawClient:
    """Paths are joined to ``base_url`` as the SDKs join them: appended to its path, so a base
    URL with a path prefix (``http://proxy/openai/v1``) keeps it."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        timeout: httpx2.Timeout,
        transport: httpx2.AsyncBaseTransport | None = None,
        verify: ssl.SSLContext | bool = True,
        error: ErrorFromBody = error_from_body,
    ) -> None:
        sent = {"accept": "application/json", "user-agent": f"taor/{__version__}", **headers}
        self._provider = provider
        self._error = error
        self._client = httpx2.AsyncClient(
            base_url=base_url, headers=sent, timeout=timeout, transport=transport, verify=verify
        )

    async def post(
        self, path: str, *, content: bytes, headers: Mapping[str, str]
    ) -> httpx2.Response:
        """The streamed response; an error status raises the taor error its body describes."""
        request = self._client.build_request(
            "POST", path.lstrip("/"), content=content, headers=headers
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx2.TimeoutException:
            raise  # the mapper tells a connect timeout from an idle one
        except httpx2.TransportError as exc:  # no response at all: as the SDKs report it
            raise network_error(self._provider, exc) from exc
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

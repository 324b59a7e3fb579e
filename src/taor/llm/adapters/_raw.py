"""``RawClient``: the one call ``HttpModel`` makes of an SDK client (post a request, get the
streamed response), over httpx2 alone. For OpenAI-compatible servers the SDK adds nothing
taor uses (taor encodes the body and parses the stream itself) but an import of several
hundred milliseconds before the first request; error bodies are classified by the same
mapper as the SDKs' exceptions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx2

from taor import errors as e
from taor._version import __version__
from taor.llm.adapters._error_map import error_from_body

if TYPE_CHECKING:
    import ssl


class RawClient:
    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        api_key: str | None,
        timeout: httpx2.Timeout,
        transport: httpx2.AsyncBaseTransport | None = None,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        headers = {"accept": "application/json", "user-agent": f"taor/{__version__}"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        self._provider = provider
        self._client = httpx2.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport, verify=verify
        )

    async def post(
        self, path: str, *, content: bytes, options: Mapping[str, Any], **_: Any
    ) -> httpx2.Response:
        """The streamed response; an error status raises the taor error its body describes."""
        request = self._client.build_request(
            "POST", path.lstrip("/"), content=content, headers=options.get("headers")
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx2.TimeoutException:
            raise  # the mapper tells a connect timeout from an idle one
        except httpx2.TransportError as exc:  # no response at all: as the SDKs report it
            error = e.NetworkError(f"cannot reach the provider: {exc}", provider=self._provider)
            raise error from exc
        if response.status_code < 400:
            return response
        try:
            body = await response.aread()
        finally:
            await response.aclose()
        raise error_from_body(self._provider, response.status_code, body, response.headers)

    async def close(self) -> None:
        await self._client.aclose()

"""The base of every adapter: the official SDK client for authentication, endpoints and error
types (a plain httpx2 ``RawClient`` for OpenAI-compatible servers); taor's own request encoding
(cached per message) and SSE parsing for speed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, ClassVar

import httpx2

from taor.errors import ProviderError
from taor.llm.adapters._error_map import map_exception, request_id_of
from taor.llm.adapters._http import read_sse
from taor.llm.adapters._tls import TlsContext
from taor.llm.catalog import Catalog, ModelInfo
from taor.llm.events import StreamEvent
from taor.llm.model import Timeouts
from taor.llm.sse import SSEvent
from taor.llm.types import Request

if TYPE_CHECKING:
    import ssl


class HttpModel:
    """Subclasses set ``provider`` and implement ``_make_client``, ``_encode`` and
    ``_translate``. The SDK client is built on first use, with SDK retries off (taor's retry
    policy is the only one) and an idle read timeout instead of a whole-request deadline; its
    TLS context is built ahead, in a thread, from construction (``TlsContext``)."""

    provider: ClassVar[str] = ""

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeouts: Timeouts | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self._model_id = model_id
        self._api_key = api_key
        self._base_url = base_url
        self._timeouts = timeouts or Timeouts()
        self._transport = transport
        self._headers = dict(headers or {})
        self._catalog = catalog or Catalog.default()
        self._client: Any = None
        self._tls = TlsContext()

    @property
    def model_id(self) -> str:
        return self._model_id

    def info(self, model_id: str | None = None) -> ModelInfo:
        return self._catalog.lookup(self.provider, model_id or self._model_id)

    def _httpx_timeout(self) -> httpx2.Timeout:
        t = self._timeouts
        return httpx2.Timeout(connect=t.connect, read=t.idle, write=t.write, pool=t.connect)

    def _http_client(
        self, default: Callable[..., httpx2.AsyncClient] = httpx2.AsyncClient
    ) -> httpx2.AsyncClient:
        """The client to send with: over the given transport, else ``default`` (an SDK's
        ``DefaultAsyncHttpxClient``, which has the SDK's own connection settings) with the
        TLS context built ahead."""
        if self._transport is not None:
            return httpx2.AsyncClient(transport=self._transport, timeout=self._httpx_timeout())
        return default(timeout=self._httpx_timeout(), verify=self._tls_context())

    def _tls_context(self) -> ssl.SSLContext:
        return self._tls.get()

    def _make_client(self) -> Any:
        raise NotImplementedError

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        """The request path (relative to the SDK's base URL), the JSON body, extra headers."""
        raise NotImplementedError

    def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        if self._client is None:
            self._client = self._make_client()
        path, body, headers = self._encode(request)
        try:
            response = await self._client.post(
                path,
                cast_to=httpx2.Response,
                content=body,
                stream=True,
                options={
                    "headers": {"content-type": "application/json", **self._headers, **headers}
                },
            )
        except Exception as exc:
            raise map_exception(self.provider, exc) from exc
        async for event in self._events(response, request):
            yield event

    async def _events(
        self, response: httpx2.Response, request: Request
    ) -> AsyncIterator[StreamEvent]:
        """The response's events; an error on the way (an in-stream error event, a broken or
        malformed stream) carries the response's request id."""
        request_id = request_id_of(response.headers)
        events = read_sse(response, self.provider)
        try:
            async with aclosing(events):  # closes the response however the translation ends
                async for event in self._translate(events, request):
                    yield event
        except ProviderError as error:
            map_exception(self.provider, error, request_id=request_id)  # fills in the id
            raise
        finally:
            await response.aclose()  # also when the translation failed before reading

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

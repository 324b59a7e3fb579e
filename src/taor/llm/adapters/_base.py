"""The base of every adapter: a ``RawClient`` posts the request with the
provider's authentication headers; taor encodes the request (cached per message) and parses the
SSE stream itself. No provider SDK is imported: each would cost about a second of CPU before
the first request and do nothing taor uses."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, ClassVar

from taor.errors import ProviderError
from taor.llm.adapters._error_map import error_from_body, map_exception, request_id_of
from taor.llm.adapters._http import read_sse
from taor.llm.adapters._raw import ErrorFromBody, RawClient, StreamedResponse
from taor.llm.adapters._tls import TlsContext
from taor.llm.adapters._wire import HttpTimeouts
from taor.llm.catalog import Catalog, ModelInfo
from taor.llm.events import StreamEvent
from taor.llm.model import Timeouts
from taor.llm.sse import SSEvent
from taor.llm.types import Request

if TYPE_CHECKING:
    import ssl

    import httpx2


class HttpModel:
    """Subclasses set ``provider`` and implement ``_make_client`` (usually ``_raw_client`` with
    their default base URL and authentication headers), ``_encode`` and ``_translate``. The
    client is built on first use, with an idle read timeout instead of a whole-request deadline
    and no retries of its own (taor's retry policy is the only one); its TLS context is built
    ahead, in a thread, from construction (``TlsContext``)."""

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
        self._client: RawClient | None = None
        # An http base URL needs no TLS context: none is built ahead (a proxy builds one).
        self._tls = TlsContext(ahead=not (base_url or "https:").lower().startswith("http:"))

    @property
    def model_id(self) -> str:
        return self._model_id

    def info(self, model_id: str | None = None) -> ModelInfo:
        return self._catalog.lookup(self.provider, model_id or self._model_id)

    def _http_timeouts(self) -> HttpTimeouts:
        t = self._timeouts
        return HttpTimeouts(connect=t.connect, read=t.idle, write=t.write)

    def _raw_client(
        self, default_url: str, headers: Mapping[str, str], error: ErrorFromBody = error_from_body
    ) -> RawClient:
        """A client for ``base_url`` (else ``default_url``) sending ``headers`` with every
        request, over the given transport (record/replay) when there is one."""
        return RawClient(
            provider=self.provider,
            base_url=self._base_url or default_url,
            headers=headers,
            timeouts=self._http_timeouts(),
            tls=self._tls_context,
            transport=self._transport,
            error=error,
        )

    def _tls_context(self) -> ssl.SSLContext:
        return self._tls.get()

    def _make_client(self) -> RawClient:
        raise NotImplementedError

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        """The request path (relative to the base URL), the JSON body, extra headers."""
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
                content=body,
                headers={"content-type": "application/json", **self._headers, **headers},
            )
        except Exception as exc:
            raise map_exception(self.provider, exc) from exc
        async for event in self._events(response, request):
            yield event

    async def _events(
        self, response: StreamedResponse, request: Request
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

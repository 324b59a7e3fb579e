"""The Gemini ``HttpModel``: the ``google-genai`` client (for its URLs, headers and error
types), the request body from cached fragments, sending on taor's own httpx2 client, and the
stream translation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

import httpx2

from taor.errors import NetworkError, ProviderError
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._error_map import map_exception
from taor.llm.adapters._http import FragmentCache, dumps, merge_options
from taor.llm.adapters.gemini._errors import api_error
from taor.llm.adapters.gemini._messages import Encoded, encode_message, result_encoder
from taor.llm.adapters.gemini._request import encode_tool, head_fields
from taor.llm.adapters.gemini._stream import Stream, parse
from taor.llm.events import StreamEvent
from taor.llm.sse import SSEvent
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import Message, Request


class GeminiModel(HttpModel):
    provider: ClassVar[str] = "gemini"

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._messages: FragmentCache[Message, Encoded] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()
        self._http: httpx2.AsyncClient | None = None
        self._sync: httpx2.Client | None = None
        self._routes: dict[str, tuple[str, dict[str, str]]] = {}

    def _make_client(self) -> Any:
        from google import genai
        from google.genai import types

        # One TLS context for every client the SDK insists on (it would build three); the sync
        # client is never used, the async one sends taor's requests with taor's timeouts.
        tls = self._tls_context()
        timeout = self._httpx_timeout()
        self._http = httpx2.AsyncClient(transport=self._transport, timeout=timeout, verify=tls)
        self._sync = httpx2.Client(timeout=timeout, verify=tls)
        options = types.HttpOptions(
            base_url=self._base_url,
            api_version="v1beta",
            headers=self._headers or None,
            retry_options=types.HttpRetryOptions(attempts=1),
            httpx_client=self._sync,
            httpx_async_client=self._http,
            async_client_args={"ssl": tls},
        )
        return genai.Client(api_key=self._api_key, vertexai=False, http_options=options)

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        model = (request.model or self._model_id).removeprefix("models/")
        options = dict(request.provider_options.get("gemini", {}))
        system, contents = self._contents(request.system, request.messages)
        tools = [self._tools.get(tool, encode_tool) for tool in request.tools]
        self._messages.rotate()
        self._tools.rotate()
        fields = []
        if system:
            fields.append('"systemInstruction":{"parts":[' + ",".join(system) + "]}")
        extra_tools = options.pop("tools", None) or []
        if tools or extra_tools:
            declared = ['{"functionDeclarations":[' + ",".join(tools) + "]}"] if tools else []
            fields.append('"tools":[' + ",".join(declared + [dumps(t) for t in extra_tools]) + "]")
        fields.append('"contents":[' + ",".join(contents) + "]")
        head = merge_options(head_fields(request, model, self.info(model)), options)
        fields.extend(dumps(key) + ":" + dumps(value) for key, value in head.items())
        body = "{" + ",".join(fields) + "}"
        return f"models/{model}:streamGenerateContent?alt=sse", body.encode(), {}

    def _contents(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> tuple[list[str], list[str]]:
        """System text parts, and the contents with same-role neighbours merged."""
        system = [dumps({"text": system_prompt})] if system_prompt else []
        turns: list[tuple[str, list[str]]] = []
        for n, message in enumerate(messages):
            encode = result_encoder(messages, n) if message.role == "tool" else encode_message
            encoded = self._messages.get(message, encode)
            if not encoded.parts:
                continue
            if encoded.role == "system":
                system.append(encoded.parts)
            elif turns and turns[-1][0] == encoded.role:
                turns[-1][1].append(encoded.parts)
            else:
                turns.append((encoded.role, [encoded.parts]))
        contents = [f'{{"role":"{role}","parts":[{",".join(parts)}]}}' for role, parts in turns]
        return system, contents

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        if self._client is None:
            self._client = self._make_client()
        path, body, _ = self._encode(request)
        response = await self._send(path, body)
        async for event in self._events(response, request):
            yield event

    async def _send(self, path: str, body: bytes) -> httpx2.Response:
        from google.genai import errors

        assert self._http is not None
        url, headers = self._route(path)
        try:
            response = await self._http.send(
                self._http.build_request("POST", url, content=body, headers=headers), stream=True
            )
            await errors.APIError.raise_for_async_response(response)
        except errors.APIError as exc:
            headers = getattr(exc.response, "headers", None) or {}
            raise api_error(exc.code, exc.details, headers) from exc
        except (httpx2.RemoteProtocolError, httpx2.ReadError) as exc:  # no response yet
            raise NetworkError(f"the connection broke: {exc}", provider=self.provider) from exc
        except Exception as exc:
            raise map_exception(self.provider, exc) from exc
        return response

    def _route(self, path: str) -> tuple[str, dict[str, str]]:
        """The SDK's URL and headers for ``path`` (computed once per path)."""
        route = self._routes.get(path)
        if route is None:
            built = self._client._api_client._build_request("post", path, {}, None)
            route = self._routes[path] = (built.url, dict(built.headers))
        return route

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        state = Stream()
        try:
            async for sse in events:
                data = parse(sse.data)
                if data is not None:
                    for event in state.feed(data):
                        yield event
            for event in state.close():
                yield event
        except ProviderError as error:  # Gemini sends no request id header: its responseId
            map_exception(self.provider, error, request_id=state.response_id)
            raise

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
            await client.aio.aclose()
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        self._routes.clear()

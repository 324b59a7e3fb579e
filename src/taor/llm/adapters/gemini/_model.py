"""The Gemini ``HttpModel``: a ``RawClient`` with Gemini's key header (and Gemini's error
bodies), the request body from cached fragments, and the stream translation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

from taor.errors import ProviderError
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._error_map import map_exception
from taor.llm.adapters._http import FragmentCache, dumps, merge_options
from taor.llm.adapters._raw import RawClient
from taor.llm.adapters.gemini._errors import error_response
from taor.llm.adapters.gemini._messages import Encoded, encode_message, result_encoder
from taor.llm.adapters.gemini._request import encode_tool, head_fields
from taor.llm.adapters.gemini._stream import Stream, parse
from taor.llm.events import StreamEvent
from taor.llm.sse import SSEvent
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import Message, Request

# The API version is part of the path, after the base URL's own path (as google-genai joins it).
DEFAULT_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"


class GeminiModel(HttpModel):
    provider: ClassVar[str] = "gemini"

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._messages: FragmentCache[Message, Encoded] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()

    def _make_client(self) -> RawClient:
        # The key goes in a header, never in a ``key`` query parameter (which logs would keep).
        return self._raw_client(DEFAULT_URL, {"x-goog-api-key": self._api_key}, error_response)

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
        path = f"{API_VERSION}/models/{model}:streamGenerateContent?alt=sse"
        return path, body.encode(), {}

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

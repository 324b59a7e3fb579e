"""The OpenAI Responses ``HttpModel``: a ``RawClient`` with OpenAI's authentication headers,
the request body from cached fragments, and the stream translation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

from taor import errors as e
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps
from taor.llm.adapters._raw import RawClient, bearer
from taor.llm.adapters.openai._request import (
    PROVIDER,
    encode_tool,
    is_reasoning,
    message_items,
    parameters,
)
from taor.llm.adapters.openai._stream import HANDLERS, State, parse
from taor.llm.events import StreamEvent
from taor.llm.sse import SSEvent
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import Message, Request

DEFAULT_URL = "https://api.openai.com/v1"


class OpenAIModel(HttpModel):
    """A model behind the OpenAI Responses API. Request bodies are built from per-message JSON
    fragments cached by identity, so a turn costs the size of what is new, not the history.
    ``organization`` and ``project`` are sent as ``OpenAI-Organization`` / ``OpenAI-Project``
    (``connect`` takes them from ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID``, as the SDK does)."""

    provider: ClassVar[str] = PROVIDER

    def __init__(
        self,
        model_id: str,
        *,
        organization: str | None = None,
        project: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model_id, **options)
        self._organization = organization
        self._project = project
        self._messages: FragmentCache[Message, str] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()
        self._texts: FragmentCache[str, str] = FragmentCache()

    def _make_client(self) -> RawClient:
        headers = bearer(self._api_key)
        if self._organization:
            headers["openai-organization"] = self._organization
        if self._project:
            headers["openai-project"] = self._project
        return self._raw_client(DEFAULT_URL, headers)

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        model = request.model or self._model_id
        info = self.info(model)
        tail = parameters(request, info, is_reasoning(model, info, request))
        head = {"model": dumps(model)}
        if request.system:
            head["instructions"] = self._texts.get(request.system, dumps)
        if request.tools:
            head["tools"] = (
                "[" + ",".join(self._tools.get(t, encode_tool) for t in request.tools) + "]"
            )
        for key in ("model", "instructions", "tools"):
            if key in tail:
                head[key] = dumps(tail.pop(key))  # a provider option overrides
        items = (self._messages.get(m, message_items) for m in request.messages)
        pieces = [f'"{k}":{v}' for k, v in head.items() if v != "null"]
        pieces.append('"input":[' + ",".join(i for i in items if i) + "]")
        rest = dumps(tail)[1:-1]
        body = "{" + ",".join(pieces) + ("," + rest if rest else "") + "}"
        for cache in (self._messages, self._tools, self._texts):
            cache.rotate()
        return "/responses", body.encode(), {}

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        """``HttpModel.stream`` closes ``events`` however this ends."""
        state = State()
        async for sse in events:
            data = parse(sse)
            if data is None or state.finished:
                continue
            handler = HANDLERS.get(data.get("type") or sse.event)
            if handler is not None:
                for event in handler(state, data):
                    yield event
        if not state.finished:
            raise e.StreamInterruptedError(
                "the stream ended before response.completed", provider=PROVIDER
            )

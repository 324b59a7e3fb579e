"""The Anthropic ``HttpModel``: a ``RawClient`` with Anthropic's authentication and version
headers, the request body from cached fragments, and the stream translation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

from taor.errors import StreamInterruptedError
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps
from taor.llm.adapters._raw import RawClient, bearer
from taor.llm.adapters.anthropic import _request as body
from taor.llm.adapters.anthropic._messages import Encoded, encode_message
from taor.llm.adapters.anthropic._stream import Stream, parse
from taor.llm.events import StreamEvent
from taor.llm.sse import SSEvent
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import Message, Request

# What the official SDK (anthropic 2.x) sends: the key as a bearer token, and its API version.
API_VERSION = "2026-10-21"
DEFAULT_URL = "https://api.anthropic.com"


class AnthropicModel(HttpModel):
    provider: ClassVar[str] = "anthropic"

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._messages: FragmentCache[Message, Encoded] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()

    def _make_client(self) -> RawClient:
        headers = {**bearer(self._api_key), "anthropic-version": API_VERSION}
        return self._raw_client(DEFAULT_URL, headers)

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        options = dict(request.provider_options.get("anthropic", {}))
        auto_cache, beta = options.get("auto_cache", True), options.get("beta_headers")
        model = request.model or self._model_id
        system, turns = self._turns(request.system, request.messages)
        head = body.head_fields(request, model, self.info(model), options, body.may_think(turns))
        tools = [self._tools.get(tool, body.encode_tool) for tool in request.tools]
        tools += body.extra_tools(options)
        self._messages.rotate()
        self._tools.rotate()
        for blocks in (tools, system) if auto_cache else ():
            body.mark_last(blocks)
        joined = body.join(head, system, tools, body.turns_json(turns, cache=bool(auto_cache)))
        headers = {"anthropic-beta": ",".join(beta)} if beta else {}
        return "/v1/messages", joined.encode(), headers

    def _turns(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> tuple[list[str], list[list[Encoded]]]:
        """System blocks, and the strictly alternating turns (the messages each one merges)."""
        system = [dumps({"type": "text", "text": system_prompt})] if system_prompt else []
        turns: list[list[Encoded]] = []
        for message in messages:
            encoded = self._messages.get(message, encode_message)
            if encoded.role == "system":
                system.extend(encoded.blocks)
            elif turns and turns[-1][0].role == encoded.role:
                turns[-1].append(encoded)
            elif encoded.blocks:
                turns.append([encoded])
        return system, turns

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        state = Stream()
        async for sse in events:
            if sse.event != "ping":
                for event in state.handle(parse(sse.data)):
                    yield event
        if not state.finished:
            if state.stop is None:
                raise StreamInterruptedError(
                    "the Anthropic stream ended before message_stop", provider="anthropic"
                )
            for event in state.finish():
                yield event

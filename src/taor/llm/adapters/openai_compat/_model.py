"""The OpenAI-compatible ``HttpModel``: a ``RawClient`` for a server's ``base_url``, the
request body from cached fragments, and the stream translation."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from taor.errors import ConfigurationError, IdleTimeoutError, StreamInterruptedError
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps
from taor.llm.adapters._raw import RawClient, bearer
from taor.llm.adapters.openai_compat import _request as body
from taor.llm.adapters.openai_compat._request import PROVIDER
from taor.llm.adapters.openai_compat._stream import ChatStream
from taor.llm.events import StreamEvent
from taor.llm.sse import SSEvent
from taor.llm.types import Request


class OpenAICompatModel(HttpModel):
    """A model behind an OpenAI-compatible server; ``base_url`` ends in ``/v1`` (or the
    server's equivalent), e.g. ``http://localhost:11434/v1`` for Ollama."""

    provider = PROVIDER

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._fragments: FragmentCache[Any, bytes] = FragmentCache()

    def _make_client(self) -> RawClient:
        if not self._base_url:
            raise ConfigurationError(
                "openai-compat needs the server's base_url, e.g. http://localhost:11434/v1"
            )
        # some proxies want the header there, even without a key
        return self._raw_client(self._base_url, bearer(self._api_key or "not-needed"))

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        head: dict[str, Any] = {
            "model": request.model or self._model_id,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        head.update(body.generation(request, self._max_tokens(request)))
        if request.tools:
            head.update(body.tool_choice(request))
        options = request.provider_options.get(PROVIDER) or {}
        body.merge(head, options)
        out = [dumps(head).encode()[:-1]]
        if request.tools and "tools" not in options:
            tools = b",".join(self._fragments.get(t, body.encode_tool) for t in request.tools)
            out.append(b',"tools":[' + tools + b"]")
        out.append(b',"messages":[')
        out.append(b",".join(self._message_fragments(request)))
        out.append(b"]}")
        self._fragments.rotate()
        return "/chat/completions", b"".join(out), {}

    def _message_fragments(self, request: Request) -> Iterator[bytes]:
        if request.system:
            yield self._fragments.get(request.system, body.encode_system)
        for message in request.messages:
            yield self._fragments.get(message, body.encode_message)

    def _max_tokens(self, request: Request) -> int | None:
        if request.max_tokens is not None:
            return request.max_tokens
        info = self.info(request.model or None)
        return info.max_output if info.known else None

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        """``HttpModel.stream`` closes ``events`` however this ends."""
        stream = ChatStream()
        done = False
        try:
            async for sse in events:
                data = sse.data
                if done or not data:
                    continue  # read on to the end after [DONE]: the connection is then reused
                if data == "[DONE]":
                    done = True
                    continue
                for event in stream.feed(data):
                    yield event
        except (IdleTimeoutError, StreamInterruptedError):
            if not done:  # all was said; a server that lingers or drops after [DONE] is fine
                raise
        for event in stream.close(done):
            yield event

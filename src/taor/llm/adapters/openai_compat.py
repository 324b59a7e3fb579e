"""Chat Completions for OpenAI-compatible servers: Ollama, vLLM, llama.cpp, LM Studio,
OpenRouter, DeepSeek, Gemini's OpenAI endpoint, ... (``POST {base_url}/chat/completions``).

What is sent, since servers differ and many reject what they do not know:

- ``max_tokens`` when the request sets it, or the catalog's ``max_output`` when the catalog
  lists the model under ``openai-compat``; otherwise nothing, and the server's own default
  applies (local servers reject values beyond their limits).
- ``tool_choice`` only for none, required and named: "auto" is the default whenever tools are
  sent, and vLLM refuses an explicit "auto" unless started with ``--enable-auto-tool-choice``.
- ``reasoning_effort`` only when the request sets it.
- ``stream_options: {"include_usage": true}``. Every key of ``provider_options["openai-compat"]``
  is merged into the body, ``None`` deleting one: ``{"stream_options": None}`` for a server that
  rejects it, ``{"max_tokens": None, "max_completion_tokens": 8192}`` for OpenAI's o-series.
- Thinking is never sent back (Chat Completions has no field for it). Tool results become ``tool``
  messages in call order, error results prefixed with "Error: "; their images follow in one
  ``user`` message, as most servers take only text in the tool role.
- Opaque state: a tool call's ``extra_content`` (Gemini puts its thought signature there) is kept
  in ``provider_state["openai-compat"]`` and sent back verbatim.

The stream parser accepts the dialects seen in practice: tool calls streamed in fragments or
whole, ids repeated on every chunk or missing (then ``call_<random>`` is made up), ``index``
missing (the position in the list is used) or reused for a new call, ``reasoning_content`` or
``reasoning`` deltas (thinking), usage in its own chunk, in the finish chunk or absent (zeros),
``[DONE]`` without a finish reason (taken as stop), and ``{"error": ...}`` chunks (raised).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from taor.errors import (
    ConfigurationError,
    IdleTimeoutError,
    ProviderError,
    StreamInterruptedError,
)
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps, error_from_body, inline_image
from taor.llm.events import (
    Finish,
    StateDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from taor.llm.sse import SSEvent
from taor.llm.types import (
    FinishKind,
    FinishReason,
    ImagePart,
    Message,
    Part,
    Request,
    TextPart,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    Usage,
)

PROVIDER = "openai-compat"
_FINISH: dict[str, FinishKind] = {
    "stop": "stop",
    "eos": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
    "error": "error",
}
_RESERVED = frozenset({"messages", "stream"})


class OpenAICompatModel(HttpModel):
    """A model behind an OpenAI-compatible server; ``base_url`` ends in ``/v1`` (or the
    server's equivalent), e.g. ``http://localhost:11434/v1`` for Ollama."""

    provider = PROVIDER

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._fragments: FragmentCache[Any, bytes] = FragmentCache()

    def _make_client(self) -> Any:
        if not self._base_url:
            raise ConfigurationError(
                "openai-compat needs the server's base_url, e.g. http://localhost:11434/v1"
            )
        from openai import AsyncOpenAI

        client = AsyncOpenAI(
            api_key=self._api_key or "not-needed",
            base_url=self._base_url,
            max_retries=0,
            timeout=self._httpx_timeout(),
            http_client=self._http_client(),
        )
        client.organization = client.project = None  # OPENAI_ORG_ID is no business of theirs
        return client

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        head: dict[str, Any] = {
            "model": request.model or self._model_id,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        head.update(_generation(request, self._max_tokens(request)))
        if request.tools:
            head.update(_tool_choice(request))
        options = request.provider_options.get(PROVIDER) or {}
        _merge(head, options)
        body = [dumps(head).encode()[:-1]]
        if request.tools and "tools" not in options:
            tools = b",".join(self._fragments.get(t, _encode_tool) for t in request.tools)
            body.append(b',"tools":[' + tools + b"]")
        body.append(b',"messages":[')
        body.append(b",".join(self._message_fragments(request)))
        body.append(b"]}")
        self._fragments.rotate()
        return "/chat/completions", b"".join(body), {}

    def _message_fragments(self, request: Request) -> Iterator[bytes]:
        if request.system:
            yield self._fragments.get(request.system, _encode_system)
        for message in request.messages:
            yield self._fragments.get(message, _encode_message)

    def _max_tokens(self, request: Request) -> int | None:
        if request.max_tokens is not None:
            return request.max_tokens
        info = self.info(request.model or None)
        return info.max_output if info.known else None

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        stream = _ChatStream()
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
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        for event in stream.close(done):
            yield event


# -- request encoding -------------------------------------------------------------------------


def _generation(request: Request, max_tokens: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.stop:
        out["stop"] = list(request.stop)
    if request.reasoning_effort is not None:
        out["reasoning_effort"] = request.reasoning_effort
    return out


def _tool_choice(request: Request) -> dict[str, Any]:
    choice = request.tool_choice
    if choice.mode == "named":
        return {"tool_choice": {"type": "function", "function": {"name": choice.name}}}
    return {} if choice.mode == "auto" else {"tool_choice": choice.mode}


def _merge(head: dict[str, Any], options: Mapping[str, Any]) -> None:
    for key, value in options.items():
        if key in _RESERVED:
            raise ConfigurationError(f"provider_options[{PROVIDER!r}] may not set {key!r}")
        if value is None:
            head.pop(key, None)
        else:
            head[key] = value


def _encode_tool(tool: ToolDefinition) -> bytes:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return dumps({"type": "function", "function": function}).encode()


def _encode_system(text: str) -> bytes:
    return dumps({"role": "system", "content": text}).encode()


def _encode_message(message: Message) -> bytes:
    if message.role == "assistant":
        items = [_assistant(message.parts)]
    elif message.role == "system":
        items = [{"role": "system", "content": _joined(message.parts)}]
    else:  # user or tool: tool results first (they answer the previous turn), then the rest
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        items = _tool_messages(results)
        rest = [p for p in message.parts if not isinstance(p, ToolResultPart)]
        if rest or not results:
            items.append({"role": "user", "content": _user_content(rest)})
    return ",".join(dumps(item) for item in items).encode()


def _joined(parts: Sequence[Part]) -> str:
    return "\n\n".join(p.text for p in parts if isinstance(p, TextPart))


def _user_content(parts: Sequence[Part]) -> str | list[dict[str, Any]]:
    if not any(isinstance(p, ImagePart) for p in parts):
        return _joined(parts)
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append(_image(part))
    return out


def _image(part: ImagePart) -> dict[str, Any]:
    url = part.url
    if url is None:
        url = f"data:{part.media_type};base64,{inline_image(part.data or b'', PROVIDER, 20)}"
    return {"type": "image_url", "image_url": {"url": url}}


def _assistant(parts: tuple[Part, ...]) -> dict[str, Any]:
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    text = _joined(parts)
    out: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
    if calls:
        out["tool_calls"] = [_tool_call(c) for c in calls]
    return out


def _tool_call(call: ToolCallPart) -> dict[str, Any]:
    function = {"name": call.name, "arguments": _arguments(call)}
    out: dict[str, Any] = {"id": call.id, "type": "function", "function": function}
    state = (call.provider_state or {}).get(PROVIDER)
    if isinstance(state, Mapping) and "extra_content" in state:
        out["extra_content"] = state["extra_content"]
    return out


def _arguments(call: ToolCallPart) -> str:
    """The arguments as received when they are a JSON object (servers that render the history
    through a chat template parse them, and fail on anything else), else as parsed."""
    if call.raw_arguments:
        try:
            if isinstance(json.loads(call.raw_arguments), dict):
                return call.raw_arguments
        except ValueError:
            pass
    return dumps(dict(call.arguments))


def _tool_messages(results: list[ToolResultPart]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    for result in results:
        pictures = [p for p in result.content if isinstance(p, ImagePart)]
        text = result.text
        if result.is_error and not text.lower().startswith("error"):
            text = f"Error: {text}"
        if pictures:
            text = text or "(the image follows in the next message)"
            images.append({"type": "text", "text": f"Image(s) from tool call {result.call_id}:"})
            images.extend(_image(p) for p in pictures)
        items.append({"role": "tool", "tool_call_id": result.call_id, "content": text})
    if images:
        items.append({"role": "user", "content": images})
    return items


# -- stream parsing ---------------------------------------------------------------------------


class _Call:
    __slots__ = ("given_id", "id", "index", "name")

    def __init__(self, index: int, call_id: str | None, name: str | None) -> None:
        self.index = index
        self.given_id = bool(call_id)
        self.id = call_id or f"call_{uuid.uuid4().hex[:24]}"
        self.name = name or ""


class _ChatStream:
    """Chat Completions chunks in, taor events out. Parts are numbered in order of first
    appearance: thinking, text and each tool call get one index each."""

    def __init__(self) -> None:
        self.started = False
        self.finish: str | None = None
        self.parts = 0
        self.text: int | None = None
        self.thinking: int | None = None
        self.calls: dict[int, _Call] = {}
        self.order: list[_Call] = []

    def feed(self, data: str) -> list[StreamEvent]:
        try:
            chunk = json.loads(data)
        except ValueError:
            raise _interrupted("a stream chunk that is not JSON", data) from None
        out: list[StreamEvent] = []
        try:
            self._chunk(chunk, out)
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            raise _interrupted(f"a stream chunk of an unknown shape ({exc})", data) from None
        return out

    def _chunk(self, chunk: dict[str, Any], out: list[StreamEvent]) -> None:
        if chunk.get("error"):
            raise _stream_error(chunk["error"])
        if not self.started:
            self.started = True
            out.append(StreamStart(id=chunk.get("id"), model=chunk.get("model")))
        choices = chunk.get("choices")
        if choices:
            choice = choices[0]
            delta = choice.get("delta")
            if delta:
                self._delta(delta, out)
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
        usage = chunk.get("usage")
        if usage:
            out.append(UsageUpdate(usage=_usage(usage)))

    def _delta(self, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        thought = delta.get("reasoning_content") or delta.get("reasoning")
        if thought and isinstance(thought, str):
            if self.thinking is None:
                self.thinking = self._next()
            out.append(ThinkingDelta(index=self.thinking, text=thought))
        text = delta.get("content") or delta.get("refusal")
        if text and isinstance(text, str):
            if self.text is None:
                self.text = self._next()
            out.append(TextDelta(index=self.text, text=text))
        calls = delta.get("tool_calls")
        if calls:
            for position, item in enumerate(calls):
                self._tool_call(position, item, out)

    def _tool_call(self, position: int, item: dict[str, Any], out: list[StreamEvent]) -> None:
        key = item.get("index")
        indexed = isinstance(key, int)
        if not isinstance(key, int):
            key = position
        function = item.get("function") or {}
        call_id, name = item.get("id"), function.get("name")
        call = self.calls.get(key)
        if call is None or _starts_new(call, call_id, name, indexed):
            call = self.calls[key] = _Call(self._next(), call_id, name)
            self.order.append(call)
            out.append(ToolCallStart(index=call.index, id=call.id, name=call.name))
        elif (call_id and not call.given_id) or (name and not call.name):
            if call_id:
                call.id, call.given_id = call_id, True
            call.name = call.name or name or ""
            out.append(ToolCallStart(index=call.index, id=call.id, name=call.name))
        arguments = function.get("arguments")
        if arguments:
            text = arguments if isinstance(arguments, str) else dumps(arguments)
            out.append(ToolCallDelta(index=call.index, arguments=text))
        if item.get("extra_content"):
            state = {PROVIDER: {"extra_content": item["extra_content"]}}
            out.append(StateDelta(index=call.index, state=state))

    def _next(self) -> int:
        self.parts += 1
        return self.parts - 1

    def close(self, done: bool) -> Iterator[StreamEvent]:
        if self.finish is None and not done:
            raise StreamInterruptedError(
                "the stream ended before the response was finished (no finish_reason, no [DONE])",
                provider=PROVIDER,
            )
        if not self.started:
            yield StreamStart()
        for call in self.order:
            yield ToolCallEnd(index=call.index)
        raw = self.finish or "stop"
        yield Finish(reason=FinishReason(reason=_FINISH.get(raw, "other"), raw=raw))


def _starts_new(call: _Call, call_id: str | None, name: str | None, indexed: bool) -> bool:
    """Whether a chunk for a known key opens a new call: it carries another id (Ollama once sent
    index 0 for every parallel call), or a name of its own without the index or id that would
    tie it to the call (some servers repeat the name on every chunk of a call)."""
    if call_id and call.given_id:
        return call_id != call.id
    if name and call.name:
        return not indexed or bool(call_id) or name != call.name
    return False


def _interrupted(what: str, data: str) -> StreamInterruptedError:
    return StreamInterruptedError(f"the server sent {what}: {data[:200]!r}", provider=PROVIDER)


def _stream_error(error: Any) -> ProviderError:
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and 400 <= code < 600 else None
    return error_from_body(PROVIDER, status, {"error": error})


def _usage(usage: dict[str, Any]) -> Usage:
    """OpenAI's convention is already taor's: prompt_tokens include cached ones, completion
    tokens include reasoning. DeepSeek reports cache hits as ``prompt_cache_hit_tokens``."""
    prompt = usage.get("prompt_tokens_details") or {}
    completion = usage.get("completion_tokens_details") or {}
    return Usage(
        input_tokens=usage.get("prompt_tokens") or 0,
        output_tokens=usage.get("completion_tokens") or 0,
        cache_read_tokens=prompt.get("cached_tokens") or usage.get("prompt_cache_hit_tokens") or 0,
        cache_write_tokens=prompt.get("cache_write_tokens") or 0,
        reasoning_tokens=completion.get("reasoning_tokens") or 0,
    )

"""Chat Completions chunks to taor events, for every dialect seen in practice (see the
package docstring): parts numbered in order of first appearance, tool calls matched by index
or id, usage and finish reason mapped at the end."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from taor.errors import ProviderError, StreamInterruptedError
from taor.llm.adapters._error_map import error_from_body
from taor.llm.adapters._http import dumps
from taor.llm.adapters.openai_compat._request import PROVIDER
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
from taor.llm.response import FinishReason, Usage
from taor.llm.types import FinishKind

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


class _Call:
    __slots__ = ("given_id", "id", "index", "name")

    def __init__(self, index: int, call_id: str | None, name: str | None) -> None:
        self.index = index
        self.given_id = bool(call_id)
        self.id = call_id or f"call_{uuid.uuid4().hex[:24]}"
        self.name = name or ""


class ChatStream:
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

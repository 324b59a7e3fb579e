"""The script vocabulary shared by ``ScriptedModel`` and ``FakeProviderServer``.

A script is a sequence of steps, one per model call:

- ``Reply``: what the model says (text, thinking, tool calls, the provider's own tool runs such
  as a web search, usage, finish reason, a delay);
- ``HttpError`` (server only): an HTTP error with a provider-shaped body;
- ``Fault`` (server only): a reply whose stream breaks: a disconnect, a stall, a malformed
  chunk or an in-stream error event, after a given number of events;
- a ``ProviderError`` instance (``ScriptedModel`` only): raised by the call;
- a callable taking the request (``Request`` for ``ScriptedModel``, ``RecordedRequest`` for the
  server) and returning one of the above, for replies computed from what was sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from typing import Any, Literal

from taor._records import frozen
from taor.llm.events import (
    Finish,
    ServerToolResult,
    ServerToolUse,
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
from taor.testing.server_tools import ServerToolRun, server_tool_blocks


@frozen
class ToolCall:
    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    @property
    def raw_arguments(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, separators=(",", ":"))


@frozen
class Reply:
    """One scripted model turn. ``chunk`` is how many characters each streamed delta carries.
    ``signature`` seals the thinking (as Anthropic does); ``usage`` defaults to an estimate.
    ``server_tools`` come after the thinking and before the text, as a search comes before the
    answer it informs."""

    text: str = ""
    thinking: str = ""
    signature: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    server_tools: tuple[ServerToolRun, ...] = ()
    usage: Usage | None = None
    finish: FinishKind | None = None
    delay: float = 0.0
    chunk: int = 16
    id: str | None = None

    @property
    def finish_kind(self) -> FinishKind:
        return self.finish or ("tool_calls" if self.tool_calls else "stop")


def text(content: str, **kwargs: Any) -> Reply:
    return Reply(text=content, **kwargs)


def tool_calls(
    *calls: ToolCall | tuple[str, Mapping[str, Any]], text: str = "", **kwargs: Any
) -> Reply:
    built = tuple(
        c if isinstance(c, ToolCall) else ToolCall(name=c[0], arguments=c[1]) for c in calls
    )
    return Reply(text=text, tool_calls=built, **kwargs)


@frozen
class HttpError:
    """An HTTP error answered by the fake server in the provider's own body shape.
    ``error_type`` is the provider's error type (e.g. ``rate_limit_error``); when None, the
    wire format picks its usual one for the status."""

    status: int
    message: str = "scripted error"
    error_type: str | None = None
    retry_after: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def rate_limited(
    retry_after: float | str | None = 1, message: str = "Rate limit exceeded"
) -> HttpError:
    value = None if retry_after is None else str(retry_after)
    return HttpError(status=429, message=message, retry_after=value)


def overloaded(message: str = "Overloaded") -> HttpError:
    return HttpError(status=529, message=message, error_type="overloaded_error")


def server_error(message: str = "Internal server error") -> HttpError:
    return HttpError(status=500, message=message)


def unauthorized(message: str = "invalid x-api-key") -> HttpError:
    return HttpError(status=401, message=message)


def context_length(
    message: str = "prompt is too long: 250000 tokens > 200000 maximum",
) -> HttpError:
    return HttpError(status=400, message=message, error_type="context_length")


def quota_exhausted(message: str = "You exceeded your current quota") -> HttpError:
    return HttpError(status=429, message=message, error_type="insufficient_quota")


@frozen
class Fault:
    """A stream that goes wrong after ``after`` events of ``reply`` (0 = before the first byte)."""

    what: Literal["disconnect", "stall", "malformed", "error_event"]
    after: int = 0
    reply: Reply = Reply(text="This stream will not finish normally.")
    seconds: float = 0.0
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


def disconnect(after: int = 0, reply: Reply | None = None) -> Fault:
    return Fault(what="disconnect", after=after, reply=reply or Reply(text="cut short"))


def stall(seconds: float, after: int = 1, reply: Reply | None = None) -> Fault:
    return Fault(what="stall", after=after, seconds=seconds, reply=reply or Reply(text="slow"))


def malformed(after: int = 1, reply: Reply | None = None) -> Fault:
    return Fault(what="malformed", after=after, reply=reply or Reply(text="broken"))


def error_event(
    after: int = 1, error_type: str = "overloaded_error", message: str = "Overloaded"
) -> Fault:
    return Fault(what="error_event", after=after, error_type=error_type, message=message)


Step = Reply | HttpError | Fault | BaseException | Callable[[Any], Any]


def chunks(value: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for start in range(0, len(value), size):
        yield value[start : start + size]


def estimate_usage(reply: Reply, input_chars: int = 0) -> Usage:
    if reply.usage is not None:
        return reply.usage
    out = (
        len(reply.text) + len(reply.thinking) + sum(len(c.raw_arguments) for c in reply.tool_calls)
    )
    return Usage(
        input_tokens=max(1, input_chars // 4),
        output_tokens=max(1, out // 4),
        reasoning_tokens=len(reply.thinking) // 4,
    )


def reply_events(
    reply: Reply, *, call_ids: Iterator[str], input_chars: int = 0
) -> Iterator[StreamEvent]:
    """The taor stream events of a scripted reply, chunked as ``reply.chunk`` says."""
    yield StreamStart(id=reply.id, model=None)
    index = 0
    if reply.thinking or reply.signature:
        for piece in chunks(reply.thinking, reply.chunk):
            yield ThinkingDelta(index=index, text=piece)
        if reply.signature:
            yield ThinkingDelta(index=index, signature=reply.signature)
        index += 1
    for run in reply.server_tools:
        use, result = server_tool_blocks(run, run.id or f"srv{next(call_ids)}")
        yield ServerToolUse(index=index, block=use)
        yield ServerToolResult(index=index + 1, block=result)
        index += 2
    if reply.text:
        for piece in chunks(reply.text, reply.chunk):
            yield TextDelta(index=index, text=piece)
        index += 1
    for call in reply.tool_calls:
        yield ToolCallStart(index=index, id=call.id or next(call_ids), name=call.name)
        for piece in chunks(call.raw_arguments, reply.chunk):
            yield ToolCallDelta(index=index, arguments=piece)
        yield ToolCallEnd(index=index)
        index += 1
    yield UsageUpdate(usage=estimate_usage(reply, input_chars))
    yield Finish(reason=FinishReason(reason=reply.finish_kind, raw=reply.finish_kind))

"""Anthropic stream events to taor events: content blocks (block indices are the part
indices), cumulative usage normalized to taor's convention, and the stop reason.

Blocks of the server tools (``server_tool_use`` and ``mcp_tool_use``, and their results:
``web_search_tool_result``, ``code_execution_tool_result``, ... ``mcp_tool_result``) are kept
whole: a use's ``input_json_delta``s are joined into its ``input`` (they never reach a tool
call), and each block is reported complete, at its ``content_block_stop``. Deltas of a block of
any other unknown type are ignored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from taor.errors import StreamInterruptedError
from taor.llm.adapters._error_map import error_from_body
from taor.llm.adapters._http import dumps, json_object
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

_FINISH: dict[str, FinishKind] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "other",
}


_SERVER_USES = frozenset({"server_tool_use", "mcp_tool_use"})


def is_server_tool_block(kind: str) -> bool:
    """A block of a tool Anthropic runs itself: a use, or a result (``*_tool_result`` other
    than the client's own ``tool_result``)."""
    return kind in _SERVER_USES or (kind.endswith("_tool_result") and kind != "tool_result")


def parse(data: str) -> dict[str, Any]:
    value = json_object(data)
    if value is None:
        raise StreamInterruptedError(
            f"Anthropic sent a malformed stream event: {data[:200]!r}", provider="anthropic"
        )
    return value


class Stream:
    """Anthropic stream events to taor events. Block indices are the part indices."""

    __slots__ = ("finished", "server", "stop", "thinking_chars", "tools", "usage")

    def __init__(self) -> None:
        self.finished = False
        self.stop: str | None = None
        self.thinking_chars = 0
        self.tools: set[int] = set()
        self.server: dict[int, tuple[dict[str, Any], list[str]]] = {}  # block, input chunks
        self.usage: dict[str, Any] = {}

    def handle(self, data: dict[str, Any]) -> Sequence[StreamEvent]:
        try:
            kind = data.get("type")
            if kind == "content_block_delta":
                event = self.delta(data["index"], data["delta"])
                return (event,) if event is not None else ()
            if kind == "content_block_start":
                return self.start(data["index"], data["content_block"])
            if kind == "content_block_stop":
                return self.stop_block(data["index"])
            if kind == "message_start":
                self.record(data["message"].get("usage"))
                return (
                    StreamStart(id=data["message"].get("id"), model=data["message"].get("model")),
                )
            if kind == "message_delta":
                self.stop = data.get("delta", {}).get("stop_reason") or self.stop
                self.record(data.get("usage"))
                return ()
            if kind == "message_stop":
                return self.finish()
            if kind == "error":
                raise error_from_body("anthropic", None, data)
        except (KeyError, TypeError, AttributeError) as exc:
            raise StreamInterruptedError(
                f"unexpected Anthropic stream event ({exc!r}): {str(data)[:200]}",
                provider="anthropic",
            ) from None
        return ()

    def delta(self, index: int, delta: dict[str, Any]) -> StreamEvent | None:
        kind = delta["type"]
        if kind == "text_delta":
            return TextDelta(index=index, text=delta["text"])
        if kind == "input_json_delta":
            chunk = delta["partial_json"]
            if index in self.server:
                self.server[index][1].append(chunk)
                return None
            return (
                ToolCallDelta(index=index, arguments=chunk)
                if chunk and index in self.tools
                else None
            )
        if kind == "thinking_delta":
            text = delta["thinking"]
            self.thinking_chars += len(text)
            return ThinkingDelta(index=index, text=text) if text else None
        if kind == "signature_delta" and delta["signature"]:
            return ThinkingDelta(index=index, signature=delta["signature"])
        return None

    def start(self, index: int, block: dict[str, Any]) -> Sequence[StreamEvent]:
        kind = block["type"]
        if kind == "tool_use":
            self.tools.add(index)
            start = ToolCallStart(index=index, id=block["id"], name=block["name"])
            given = block.get("input")
            return (
                (start, ToolCallDelta(index=index, arguments=dumps(given))) if given else (start,)
            )
        if kind == "text" and block.get("text"):
            return (TextDelta(index=index, text=block["text"]),)
        if kind == "thinking" and (block.get("thinking") or block.get("signature")):
            self.thinking_chars += len(block.get("thinking") or "")
            text, signature = block.get("thinking") or "", block.get("signature") or None
            return (ThinkingDelta(index=index, text=text, signature=signature),)
        if kind == "redacted_thinking":
            return (ThinkingDelta(index=index, signature=block["data"], redacted=True),)
        if is_server_tool_block(kind):
            self.server[index] = (dict(block), [])
        return ()

    def stop_block(self, index: int) -> Sequence[StreamEvent]:
        if index in self.tools:
            return (ToolCallEnd(index=index),)
        if index not in self.server:
            return ()
        block, chunks = self.server.pop(index)
        if block["type"] in _SERVER_USES:
            raw = "".join(chunks)
            if raw.strip():  # the input streamed: the start's ``input`` was a placeholder
                block["input"] = json_object(raw) or {}
            return (ServerToolUse(index=index, block=block),)
        return (ServerToolResult(index=index, block=block),)

    def record(self, usage: dict[str, Any] | None) -> None:
        """Counts are cumulative: later values replace earlier ones, absent ones are kept."""
        if usage:
            self.usage.update((k, v) for k, v in usage.items() if v is not None)

    def normalized_usage(self) -> Usage:
        u = self.usage
        read = u.get("cache_read_input_tokens") or 0
        write = u.get("cache_creation_input_tokens") or 0
        output = u.get("output_tokens") or 0
        details = u.get("output_tokens_details")
        reasoning = details.get("thinking_tokens") if isinstance(details, dict) else None
        if reasoning is None:  # not reported: estimate from the thinking text
            reasoning = min(output, self.thinking_chars // 4)
        return Usage(
            input_tokens=(u.get("input_tokens") or 0) + read + write,
            output_tokens=output,
            cache_read_tokens=read,
            cache_write_tokens=write,
            reasoning_tokens=reasoning,
        )

    def finish(self) -> tuple[UsageUpdate, Finish]:
        self.finished = True
        reason = FinishReason(reason=_FINISH.get(self.stop or "", "other"), raw=self.stop)
        return UsageUpdate(usage=self.normalized_usage()), Finish(reason=reason)

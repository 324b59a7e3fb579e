"""The Anthropic Messages API (``POST /v1/messages``) as ``FakeProviderServer`` speaks it.

Streams follow the recorded shape of real traffic: ``message_start`` (usage with the cache
counts, ``output_tokens`` 1), then per content block ``content_block_start`` / deltas /
``content_block_stop`` (a ``ping`` right after the first block opens; thinking sealed by a
``signature_delta``; tool input as ``input_json_delta`` chunks after an empty first one), then
``message_delta`` (stop reason, cumulative usage) and ``message_stop``. A server tool run (a web
search, ...) is a ``server_tool_use`` block whose input streams like a tool's, then its result
block (``web_search_tool_result``, ...) whole in its ``content_block_start``, as recorded
traffic shows.

Usage follows Anthropic's convention: ``input_tokens`` counts only the uncached prompt tokens.
Anthropic caches only up to a ``cache_control`` breakpoint, so simulated cache reads are
reported only for requests that carry at least one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from taor.llm.response import Usage
from taor.testing.script import chunks
from taor.testing.server_tools import server_tool_blocks
from taor.testing.wire import ReplyContext, sse

if TYPE_CHECKING:
    from taor.testing.recorded import RecordedRequest
    from taor.testing.script import HttpError, Reply, ToolCall

_STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "content_filter": "refusal",
    "other": "pause_turn",
    "error": "end_turn",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_ERROR_ALIASES = {"context_length": "invalid_request_error"}


class AnthropicWire:
    name = "anthropic"
    request_id_header: str | None = "request-id"

    def matches(self, path: str) -> bool:
        return path.endswith("/v1/messages")

    def is_stream(self, request: RecordedRequest) -> bool:
        body = request.json
        return isinstance(body, dict) and body.get("stream") is True

    def frames(self, reply: Reply, ctx: ReplyContext) -> Iterator[bytes]:
        usage = _usage(reply, ctx)
        message = _message(reply, ctx, content=[], stop_reason=None)
        message["usage"] = {**usage, "output_tokens": 1}
        yield sse({"type": "message_start", "message": message}, "message_start")
        for index, (block, raw) in enumerate(_blocks(reply, ctx)):
            yield from _block_frames(index, block, raw, reply.chunk)
        delta = {"stop_reason": _STOP_REASONS[reply.finish_kind], "stop_sequence": None}
        yield sse({"type": "message_delta", "delta": delta, "usage": usage}, "message_delta")
        yield sse({"type": "message_stop"}, "message_stop")

    def body(self, reply: Reply, ctx: ReplyContext) -> Any:
        content = [block for block, _ in _blocks(reply, ctx)]
        message = _message(
            reply, ctx, content=content, stop_reason=_STOP_REASONS[reply.finish_kind]
        )
        message["usage"] = _usage(reply, ctx)
        return message

    def error_body(self, error: HttpError) -> Any:
        kind = error.error_type or _ERROR_TYPES.get(error.status) or _default_type(error.status)
        return {
            "type": "error",
            "error": {"type": _ERROR_ALIASES.get(kind, kind), "message": error.message},
            "request_id": f"req_fake{uuid.uuid4().hex[:20]}",
        }

    def error_frame(self, error_type: str, message: str) -> bytes:
        kind = _ERROR_ALIASES.get(error_type, error_type)
        return sse({"type": "error", "error": {"type": kind, "message": message}}, "error")

    def tool_results(self, body: Any) -> list[str]:
        messages = body.get("messages") if isinstance(body, dict) else None
        out: list[str] = []
        for message in messages if isinstance(messages, list) else ():
            content = message.get("content") if isinstance(message, dict) else None
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            out.extend(_result_text(b) for b in content if b.get("type") == "tool_result")
        return out


def _default_type(status: int) -> str:
    return "api_error" if status >= 500 else "invalid_request_error"


def _message(
    reply: Reply, ctx: ReplyContext, *, content: list[Any], stop_reason: str | None
) -> dict[str, Any]:
    return {
        "model": ctx.model,
        "id": reply.id or f"msg_fake{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }


def _usage(reply: Reply, ctx: ReplyContext) -> dict[str, Any]:
    """The normalized usage in Anthropic's convention (input_tokens excludes the cache)."""
    usage: Usage = ctx.usage
    read, write = usage.cache_read_tokens, usage.cache_write_tokens
    if reply.usage is None and b'"cache_control"' not in ctx.request.body:
        read = 0  # no breakpoint, no cache: Anthropic never caches implicitly
    return {
        "input_tokens": max(0, usage.input_tokens - read - write),
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": usage.output_tokens,
    }


def _blocks(reply: Reply, ctx: ReplyContext) -> Iterator[tuple[dict[str, Any], str]]:
    """The complete content blocks of the reply in order (thinking, server tool uses and their
    results, text, tool uses), each with the raw input it streams (empty for other blocks)."""
    if reply.thinking or reply.signature:
        yield (
            {"type": "thinking", "thinking": reply.thinking, "signature": reply.signature or ""},
            "",
        )
    for run in reply.server_tools:
        use, result = server_tool_blocks(run, run.id or f"srv{ctx.call_id()}")
        yield use, json.dumps(run.input, separators=(",", ":"))
        yield result, ""
    if reply.text:
        yield {"type": "text", "text": reply.text}, ""
    for call in reply.tool_calls:
        yield _tool_use(call, ctx), call.raw_arguments


def _tool_use(call: ToolCall, ctx: ReplyContext) -> dict[str, Any]:
    try:
        parsed = json.loads(call.raw_arguments) if call.raw_arguments else {}
    except ValueError:
        parsed = {}
    return {"type": "tool_use", "id": call.id or ctx.call_id(), "name": call.name, "input": parsed}


def _block_frames(index: int, block: dict[str, Any], raw: str, size: int) -> Iterator[bytes]:
    kind = block["type"]
    start: dict[str, Any]
    if kind == "text":
        start = {"type": "text", "text": ""}
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
    elif "tool_use_id" in block:  # a server tool's result arrives whole
        start = block
    else:
        start = {**block, "input": {}}
    event = {"type": "content_block_start", "index": index, "content_block": start}
    yield sse(event, "content_block_start")
    if index == 0:
        yield sse({"type": "ping"}, "ping")
    for delta in _deltas(block, raw, size):
        yield sse(
            {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
        )
    yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")


def _deltas(block: dict[str, Any], raw: str, size: int) -> Iterator[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        for piece in chunks(block["text"], size):
            yield {"type": "text_delta", "text": piece}
    elif kind == "thinking":
        for piece in chunks(block["thinking"], size):
            yield {"type": "thinking_delta", "thinking": piece}
        if block["signature"]:
            yield {"type": "signature_delta", "signature": block["signature"]}
    elif "tool_use_id" not in block:
        yield {"type": "input_json_delta", "partial_json": ""}
        for piece in chunks(raw, size):
            yield {"type": "input_json_delta", "partial_json": piece}


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )

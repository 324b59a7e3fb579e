"""Chat Completions (``POST /v1/chat/completions``) as ``FakeProviderServer`` speaks it: OpenAI's
shape, which Ollama, vLLM, llama.cpp and OpenRouter copy.

A stream is a series of ``chat.completion.chunk`` objects, following recorded OpenAI traffic:
the role chunk first (``{"role": "assistant", "content": "", "refusal": null}``; when the reply
is only tool calls, the role rides on the first call's chunk with ``content: null``), then
``reasoning_content`` deltas for thinking (as DeepSeek and vLLM stream it), content deltas,
tool calls, a chunk with an empty delta and the ``finish_reason``, the usage chunk (empty
``choices``, and ``usage: null`` on every other chunk) only when the request asked for it with
``stream_options.include_usage``, and ``data: [DONE]``.

A tool call whose arguments are longer than ``Reply.chunk`` streams as OpenAI does: a header
with ``index``, ``id``, ``type``, ``function.name`` and empty arguments, then argument
fragments. One whose arguments fit in a chunk comes whole in one delta, as Ollama and llama.cpp
send every call: a huge ``chunk`` plus a request without ``stream_options`` emulates such a
server. ``Reply.signature`` goes where Gemini's OpenAI endpoint puts its thought signature:
``extra_content.google.thought_signature`` on the first tool call.

Errors use OpenAI's body ``{"error": {"message", "type", "param", "code"}}``; an in-stream error
is a data frame with that body, as OpenRouter and vLLM send it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from taor.llm.response import Usage
from taor.testing.script import chunks
from taor.testing.wire import ReplyContext, sse

if TYPE_CHECKING:
    from taor.testing.recorded import RecordedRequest
    from taor.testing.script import HttpError, Reply, ToolCall

_FINISH = {"other": "stop"}
# (type, code) per status, as OpenAI answers; the error_type of a scripted error overrides.
_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("request_forbidden", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
_ERROR_TYPES: dict[str, tuple[str, str | None]] = {
    "context_length": ("invalid_request_error", "context_length_exceeded"),
    "insufficient_quota": ("insufficient_quota", "insufficient_quota"),
    "rate_limit_error": ("requests", "rate_limit_exceeded"),
}
DONE = b"data: [DONE]\n\n"


class ChatWire:
    name = "chat"
    request_id_header: str | None = "x-request-id"  # as vLLM and OpenAI-compatible proxies send it

    def matches(self, path: str) -> bool:
        return path.rstrip("/").endswith("/chat/completions")

    def is_stream(self, request: RecordedRequest) -> bool:
        body = request.json
        return isinstance(body, dict) and body.get("stream") is True

    def frames(self, reply: Reply, ctx: ReplyContext) -> Iterator[bytes]:
        body = ctx.request.json if isinstance(ctx.request.json, dict) else {}
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        base = _base(reply, ctx)
        if include_usage:
            base["usage"] = None
        calls = _calls(reply, ctx)
        role_pending = True
        if reply.text or reply.thinking or not calls:
            yield _chunk(base, {"role": "assistant", "content": "", "refusal": None})
            role_pending = False
        for piece in chunks(reply.thinking, reply.chunk):
            yield _chunk(base, {"content": None, "reasoning_content": piece})
        for piece in chunks(reply.text, reply.chunk):
            yield _chunk(base, {"content": piece})
        for delta in _call_deltas(calls, reply.chunk):
            if role_pending:
                delta = {"role": "assistant", "content": None, **delta, "refusal": None}
                role_pending = False
            yield _chunk(base, delta)
        yield _chunk(base, {}, _FINISH.get(reply.finish_kind, reply.finish_kind))
        if include_usage:
            yield sse({**base, "choices": [], "usage": _usage(ctx.usage)})
        yield DONE

    def body(self, reply: Reply, ctx: ReplyContext) -> Any:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
            "annotations": [],
        }
        if reply.thinking:
            message["reasoning_content"] = reply.thinking
        calls = _calls(reply, ctx)
        if calls:
            message["tool_calls"] = [
                _whole_call(call_id, call, extra) for call_id, call, extra in calls
            ]
        choice = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": _FINISH.get(reply.finish_kind, reply.finish_kind),
        }
        base = _base(reply, ctx)
        return {
            **base,
            "object": "chat.completion",
            "choices": [choice],
            "usage": _usage(ctx.usage),
        }

    def error_body(self, error: HttpError) -> Any:
        kind, code = _error_kind(error.error_type, error.status)
        return {"error": {"message": error.message, "type": kind, "param": None, "code": code}}

    def error_frame(self, error_type: str, message: str) -> bytes:
        kind, code = _error_kind(error_type, 500)
        return sse({"error": {"message": message, "type": kind, "param": None, "code": code}})

    def tool_results(self, body: Any) -> list[str]:
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list):
            return []
        return [
            _text(m.get("content"))
            for m in messages
            if isinstance(m, dict) and m.get("role") == "tool"
        ]


def _base(reply: Reply, ctx: ReplyContext) -> dict[str, Any]:
    return {
        "id": reply.id or "chatcmpl-" + ctx.call_id().removeprefix("toolu_"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": ctx.model,
        "service_tier": "default",
        "system_fingerprint": "fp_taorfake",
    }


def _chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return sse({**base, "choices": [choice]})


def _calls(reply: Reply, ctx: ReplyContext) -> list[tuple[str, ToolCall, dict[str, Any] | None]]:
    out: list[tuple[str, ToolCall, dict[str, Any] | None]] = []
    for n, call in enumerate(reply.tool_calls):
        call_id = call.id or "call_" + ctx.call_id().removeprefix("toolu_")
        extra = None
        if n == 0 and reply.signature:
            extra = {"google": {"thought_signature": reply.signature}}
        out.append((call_id, call, extra))
    return out


def _whole_call(call_id: str, call: ToolCall, extra: dict[str, Any] | None) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.raw_arguments}
    out: dict[str, Any] = {"id": call_id, "type": "function", "function": function}
    if extra is not None:
        out["extra_content"] = extra
    return out


def _call_deltas(
    calls: list[tuple[str, ToolCall, dict[str, Any] | None]], size: int
) -> Iterator[dict[str, Any]]:
    for index, (call_id, call, extra) in enumerate(calls):
        whole = _whole_call(call_id, call, extra)
        raw = call.raw_arguments
        if len(raw) <= size:
            yield {"tool_calls": [{"index": index, **whole}]}
            continue
        whole["function"]["arguments"] = ""
        yield {"tool_calls": [{"index": index, **whole}]}
        for piece in chunks(raw, size):
            yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}


def _usage(usage: Usage) -> dict[str, Any]:
    """taor's normalized usage is OpenAI's convention: cached tokens are part of the prompt,
    reasoning tokens part of the completion."""
    prompt: dict[str, int] = {"cached_tokens": usage.cache_read_tokens, "audio_tokens": 0}
    if usage.cache_write_tokens:
        prompt["cache_write_tokens"] = usage.cache_write_tokens
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": prompt,
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _error_kind(error_type: str | None, status: int) -> tuple[str, str | None]:
    if error_type is not None:
        return _ERROR_TYPES.get(error_type, (error_type, None))
    return _ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""

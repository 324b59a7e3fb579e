"""The Gemini API (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` and
``:generateContent``) as ``FakeProviderServer`` speaks it.

Streams follow recorded real traffic: every ``data:`` frame is a whole
``GenerateContentResponse`` (one candidate, its new parts, ``usageMetadata``, ``modelVersion``,
``responseId``), frames end with ``\\r\\n\\r\\n``, text and thought summaries arrive as several
small parts, each function call arrives whole in its own frame without an ``id`` (the Gemini API
sends none), and a last frame carries an empty text part with the ``finishReason``.

Thought signatures as Gemini 3 sends them: the first function call of a reply always carries one;
a scripted ``signature`` goes on the last thought part (or, without thinking, on the last text
part). Usage follows Gemini's convention: ``promptTokenCount`` includes the cached tokens
(``cachedContentTokenCount``) and ``candidatesTokenCount`` excludes the thoughts
(``thoughtsTokenCount``). Errors are ``{"error": {"code", "message", "status", "details"}}``
with the gRPC status name; a 429 carries ``RetryInfo.retryDelay`` (and, for a used-up daily
quota, a ``QuotaFailure``).
"""

from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from taor.testing.script import chunks
from taor.testing.wire import ReplyContext

if TYPE_CHECKING:
    from taor.testing.recorded import RecordedRequest
    from taor.testing.script import HttpError, Reply, ToolCall

# Any prefix before the version: a base URL with a path (a proxy) keeps it.
_PATH = re.compile(r"/v1beta/models/[^/]+:(streamGenerateContent|generateContent)$")
_FINISH = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "error": "MALFORMED_FUNCTION_CALL",
    "other": "OTHER",
}
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
# taor's (Anthropic-flavoured) scripted error types, as Gemini would say them: (code, status).
_TYPES = {
    "authentication_error": (401, "UNAUTHENTICATED"),
    "permission_error": (403, "PERMISSION_DENIED"),
    "not_found_error": (404, "NOT_FOUND"),
    "invalid_request_error": (400, "INVALID_ARGUMENT"),
    "context_length": (400, "INVALID_ARGUMENT"),
    "rate_limit_error": (429, "RESOURCE_EXHAUSTED"),
    "insufficient_quota": (429, "RESOURCE_EXHAUSTED"),
    "api_error": (500, "INTERNAL"),
    "overloaded_error": (503, "UNAVAILABLE"),
}
_CONTEXT_MESSAGE = (
    "The input token count (1258291) exceeds the maximum number of tokens allowed (1048576)."
)
_QUOTA = "type.googleapis.com/google.rpc.QuotaFailure"
_RETRY = "type.googleapis.com/google.rpc.RetryInfo"
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_KEY_REASONS = ("API_KEY_INVALID", "API_KEY_EXPIRED")
_KEY_INFO = {
    "domain": "googleapis.com",
    "metadata": {"service": "generativelanguage.googleapis.com"},
}


class GeminiWire:
    name = "gemini"
    request_id_header: str | None = None  # Gemini names a response by the responseId of its chunks

    def matches(self, path: str) -> bool:
        return _PATH.search(path) is not None

    def is_stream(self, request: RecordedRequest) -> bool:
        return request.path.endswith(":streamGenerateContent")

    def frames(self, reply: Reply, ctx: ReplyContext) -> Iterator[bytes]:
        meta = _meta(reply, ctx)
        for part in _stream_parts(reply, ctx):
            yield _frame({"candidates": [_candidate([part])], **meta})
        last = _candidate([{"text": ""}], finish=_FINISH[reply.finish_kind])
        yield _frame({"candidates": [last], **meta})

    def body(self, reply: Reply, ctx: ReplyContext) -> Any:
        parts = _merged_parts(reply, ctx)
        candidate = _candidate(parts, finish=_FINISH[reply.finish_kind])
        return {"candidates": [candidate], **_meta(reply, ctx)}

    def error_body(self, error: HttpError) -> Any:
        status = _code_and_status(error.error_type, error.status)[1]
        message = _CONTEXT_MESSAGE if error.error_type == "context_length" else error.message
        details: list[dict[str, Any]] = []
        if error.error_type in _KEY_REASONS:  # a bad key: 400 INVALID_ARGUMENT plus ErrorInfo
            status = "INVALID_ARGUMENT"
            details.append({"@type": _ERROR_INFO, "reason": error.error_type, **_KEY_INFO})
        elif error.error_type == "insufficient_quota":
            details.append(_quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier"))
        elif error.status == 429:
            details.append(_quota_failure("GenerateRequestsPerMinutePerProjectPerModel"))
        if error.status == 429 and error.retry_after is not None:
            details.append({"@type": _RETRY, "retryDelay": f"{error.retry_after}s"})
        body: dict[str, Any] = {"code": error.status, "message": message, "status": status}
        if details:
            body["details"] = details
        return {"error": body}

    def error_frame(self, error_type: str, message: str) -> bytes:
        code, status = _code_and_status(error_type, 500)
        return _frame({"error": {"code": code, "message": message, "status": status}})

    def tool_results(self, body: Any) -> list[str]:
        contents = body.get("contents") if isinstance(body, dict) else None
        out: list[str] = []
        for content in contents if isinstance(contents, list) else ():
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append(_result_text(response.get("response")))
        return out


def _frame(data: Any) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\r\n\r\n"


def _code_and_status(error_type: str | None, status: int) -> tuple[int, str]:
    if error_type in _TYPES:
        return _TYPES[error_type]
    if error_type and error_type.isupper():  # already a gRPC status name
        return status, error_type
    return status, _STATUS.get(status) or ("INTERNAL" if status >= 500 else "INVALID_ARGUMENT")


def _quota_failure(quota_id: str) -> dict[str, Any]:
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    violation = {"quotaMetric": metric, "quotaId": quota_id, "quotaValue": "10"}
    return {"@type": _QUOTA, "violations": [violation]}


def _meta(reply: Reply, ctx: ReplyContext) -> dict[str, Any]:
    response_id = reply.id or _response_id()
    return {"usageMetadata": _usage(ctx), "modelVersion": ctx.model, "responseId": response_id}


def _response_id() -> str:
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


def _usage(ctx: ReplyContext) -> dict[str, Any]:
    """The normalized usage in Gemini's convention (candidates exclude the thoughts)."""
    usage = ctx.usage
    out: dict[str, Any] = {
        "promptTokenCount": usage.input_tokens,
        "candidatesTokenCount": max(0, usage.output_tokens - usage.reasoning_tokens),
        "totalTokenCount": usage.input_tokens + usage.output_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": usage.input_tokens}],
    }
    if usage.cache_read_tokens:
        out["cachedContentTokenCount"] = usage.cache_read_tokens
    if usage.reasoning_tokens:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    return out


def _candidate(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return candidate


def _stream_parts(reply: Reply, ctx: ReplyContext) -> Iterator[dict[str, Any]]:
    """Every part of the reply as streamed: thought and text pieces, then whole calls."""
    thoughts = [{"text": piece, "thought": True} for piece in chunks(reply.thinking, reply.chunk)]
    texts: list[dict[str, Any]] = [{"text": piece} for piece in chunks(reply.text, reply.chunk)]
    _seal(reply, thoughts, texts)
    yield from thoughts
    yield from texts
    yield from _calls(reply, ctx)


def _merged_parts(reply: Reply, ctx: ReplyContext) -> list[dict[str, Any]]:
    """The parts of a non-streamed reply: one thought part, one text part, the calls."""
    thoughts: list[dict[str, Any]] = (
        [{"text": reply.thinking, "thought": True}] if reply.thinking else []
    )
    texts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    _seal(reply, thoughts, texts)
    return [*thoughts, *texts, *_calls(reply, ctx)]


def _seal(reply: Reply, thoughts: list[dict[str, Any]], texts: list[dict[str, Any]]) -> None:
    if reply.signature and (thoughts or texts):
        (thoughts or texts)[-1]["thoughtSignature"] = reply.signature


def _calls(reply: Reply, ctx: ReplyContext) -> Iterator[dict[str, Any]]:
    for n, call in enumerate(reply.tool_calls):
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": _args(call)}}
        if n == 0:
            part["thoughtSignature"] = _signature(ctx)
        yield part


def _signature(ctx: ReplyContext) -> str:
    return base64.b64encode(f"fake-gemini-thought-signature:{ctx.call_id()}".encode()).decode()


def _args(call: ToolCall) -> Any:
    if not isinstance(call.arguments, str):
        return dict(call.arguments)
    try:
        parsed = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _result_text(response: Any) -> str:
    if not isinstance(response, dict):
        return ""
    for key in ("output", "error", "result"):
        if isinstance(response.get(key), str):
            return str(response[key])
    return json.dumps(response, separators=(",", ":"))

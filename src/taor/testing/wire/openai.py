"""The OpenAI Responses API (``POST /v1/responses``) as ``FakeProviderServer`` speaks it.

Streams follow recorded real traffic: every event carries ``type`` and a ``sequence_number``;
``response.created`` and ``response.in_progress`` carry the whole (empty) response object; each
output item (reasoning, then the message, then the function calls) opens with
``response.output_item.added`` and closes with ``response.output_item.done`` holding the whole
item; text streams as ``content_part.added`` / ``output_text.delta`` / ``output_text.done`` /
``content_part.done``; reasoning summaries as ``reasoning_summary_part.added`` /
``reasoning_summary_text.delta`` / ``.done`` / ``reasoning_summary_part.done``; arguments as
``function_call_arguments.delta`` / ``.done``. Deltas carry an ``obfuscation`` pad unless the
request turned it off. The stream ends with ``response.completed`` (``response.incomplete`` for
length or content filter, ``response.failed`` for an error) holding the full response and usage.

The reasoning item carries ``encrypted_content`` (the reply's ``signature``, or a made-up blob)
only when the request asked for it with ``include: ["reasoning.encrypted_content"]``.
Usage follows OpenAI's convention, which is taor's: input includes cached tokens, output
includes reasoning tokens. In-stream errors use the recorded shape, an ``error`` event with a
nested ``error`` object (real streams follow it with ``response.failed``, which the SDK never
reads: it raises on the ``error`` event; its ``sequence_number`` is 0, as the wire cannot know
how many events came before). ``Reply(finish="error")`` ends with ``response.failed``.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from taor.testing.script import chunks
from taor.testing.wire import ReplyContext, sse
from taor.testing.wire.openai_response import response_object, usage_object

if TYPE_CHECKING:
    from taor.testing.recorded import RecordedRequest
    from taor.testing.script import HttpError, Reply

_DEFAULT_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("request_forbidden", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("tokens", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}
_CODE_ALIASES = {"context_length": "context_length_exceeded"}
_TYPE_OF_CODE = {
    "context_length_exceeded": "invalid_request_error",
    "insufficient_quota": "insufficient_quota",
    "rate_limit_exceeded": "tokens",
    "invalid_api_key": "invalid_request_error",
    "model_not_found": "invalid_request_error",
}
_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}

Seq = Callable[[], int]


class ResponsesWire:
    name = "openai"
    request_id_header: str | None = "x-request-id"

    def matches(self, path: str) -> bool:
        return path.endswith("/v1/responses")

    def is_stream(self, request: RecordedRequest) -> bool:
        body = request.json
        return isinstance(body, dict) and body.get("stream") is True

    def frames(self, reply: Reply, ctx: ReplyContext) -> Iterator[bytes]:
        seq: Seq = itertools.count().__next__
        rid = reply.id or _id("resp")
        empty = response_object(ctx, rid, output=[], status="in_progress", usage=None)
        yield _frame(seq, "response.created", response=empty)
        yield _frame(seq, "response.in_progress", response=empty)
        items = _items(reply, ctx)
        pad = _wants_obfuscation(ctx.request)
        for index, item in enumerate(items):
            yield from _item_frames(seq, index, item, reply.chunk, pad)
        final = _final(reply, ctx, rid, items)
        yield _frame(seq, _final_event(final["status"]), response=final)

    def body(self, reply: Reply, ctx: ReplyContext) -> Any:
        return _final(reply, ctx, reply.id or _id("resp"), _items(reply, ctx))

    def error_body(self, error: HttpError) -> Any:
        etype, code = _error_kind(error.status, error.error_type)
        return {"error": {"message": error.message, "type": etype, "param": None, "code": code}}

    def error_frame(self, error_type: str, message: str) -> bytes:
        code = _CODE_ALIASES.get(error_type, error_type)
        etype = _TYPE_OF_CODE.get(code, code)
        error = {"type": etype, "code": code, "message": message, "param": None}
        return sse({"type": "error", "sequence_number": 0, "error": error}, "error")

    def tool_results(self, body: Any) -> list[str]:
        items = body.get("input") if isinstance(body, dict) else None
        out: list[str] = []
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                out.append(_output_text(item.get("output")))
        return out


def _error_kind(status: int, error_type: str | None) -> tuple[str, str | None]:
    fallback = ("server_error", None) if status >= 500 else ("invalid_request_error", None)
    etype, code = _DEFAULT_ERRORS.get(status, fallback)
    if error_type is None:
        return etype, code
    code = _CODE_ALIASES.get(error_type, error_type)
    return _TYPE_OF_CODE.get(code, etype), code


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if not isinstance(output, list):
        return ""
    return "".join(
        str(c.get("text", ""))
        for c in output
        if isinstance(c, dict) and c.get("type") == "input_text"
    )


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}{uuid.uuid4().hex[:16]}"


def _frame(seq: Seq, kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, "sequence_number": seq(), **fields}, kind)


def _wants_obfuscation(request: RecordedRequest) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    options = body.get("stream_options") or {}
    return bool(options.get("include_obfuscation", True))


def _items(reply: Reply, ctx: ReplyContext) -> list[dict[str, Any]]:
    """The finished output items of the reply, in order: reasoning, message, function calls."""
    items: list[dict[str, Any]] = []
    if reply.thinking or reply.signature:
        summary = [{"type": "summary_text", "text": reply.thinking}] if reply.thinking else []
        item: dict[str, Any] = {"id": _id("rs"), "type": "reasoning", "summary": summary}
        if _wants_encrypted(ctx.request):
            item["encrypted_content"] = reply.signature or "gAAAAAB" + uuid.uuid4().hex * 4
        items.append(item)
    if reply.text:
        text = {"type": "output_text", "annotations": [], "logprobs": [], "text": reply.text}
        items.append(
            {"id": _id("msg"), "type": "message", "status": "completed", "content": [text]}
            | {"role": "assistant"}
        )
    for call in reply.tool_calls:
        call_id = call.id or "call_" + ctx.call_id().split("_", 1)[-1]
        items.append(
            {"id": _id("fc"), "type": "function_call", "status": "completed"}
            | {"arguments": call.raw_arguments, "call_id": call_id, "name": call.name}
        )
    return items


def _wants_encrypted(request: RecordedRequest) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    return "reasoning.encrypted_content" in (body.get("include") or ())


def _item_frames(
    seq: Seq, index: int, item: dict[str, Any], size: int, pad: bool
) -> Iterator[bytes]:
    kind = item["type"]
    where = {"output_index": index}
    if kind == "reasoning":
        added = {"id": item["id"], "type": "reasoning", "summary": []}
        yield _frame(seq, "response.output_item.added", **where, item=added)
        for n, part in enumerate(item["summary"]):
            yield from _summary_frames(seq, index, item["id"], n, part["text"], size, pad)
    elif kind == "message":
        added = {**item, "status": "in_progress", "content": []}
        yield _frame(seq, "response.output_item.added", **where, item=added)
        yield from _text_frames(seq, index, item["id"], item["content"][0], size, pad)
    else:
        added = {**item, "status": "in_progress", "arguments": ""}
        yield _frame(seq, "response.output_item.added", **where, item=added)
        at = {"item_id": item["id"], **where}
        for piece in chunks(item["arguments"], size):
            yield _frame(seq, "response.function_call_arguments.delta", **at, **_delta(piece, pad))
        yield _frame(
            seq, "response.function_call_arguments.done", **at, arguments=item["arguments"]
        )
    yield _frame(seq, "response.output_item.done", **where, item=item)


def _delta(piece: str, pad: bool) -> dict[str, str]:
    if not pad:
        return {"delta": piece}
    return {"delta": piece, "obfuscation": "x" * (16 - min(len(piece), 15))}


def _summary_frames(
    seq: Seq, index: int, item_id: str, n: int, text: str, size: int, pad: bool
) -> Iterator[bytes]:
    at = {"item_id": item_id, "output_index": index, "summary_index": n}
    empty = {"type": "summary_text", "text": ""}
    yield _frame(seq, "response.reasoning_summary_part.added", **at, part=empty)
    for piece in chunks(text, size):
        yield _frame(seq, "response.reasoning_summary_text.delta", **at, **_delta(piece, pad))
    yield _frame(seq, "response.reasoning_summary_text.done", **at, text=text)
    yield _frame(seq, "response.reasoning_summary_part.done", **at, part={**empty, "text": text})


def _text_frames(
    seq: Seq, index: int, item_id: str, part: dict[str, Any], size: int, pad: bool
) -> Iterator[bytes]:
    at = {"item_id": item_id, "output_index": index, "content_index": 0}
    yield _frame(seq, "response.content_part.added", **at, part={**part, "text": ""})
    for piece in chunks(part["text"], size):
        yield _frame(seq, "response.output_text.delta", **at, **_delta(piece, pad), logprobs=[])
    yield _frame(seq, "response.output_text.done", **at, text=part["text"], logprobs=[])
    yield _frame(seq, "response.content_part.done", **at, part=part)


def _final(
    reply: Reply, ctx: ReplyContext, rid: str, items: list[dict[str, Any]]
) -> dict[str, Any]:
    kind = reply.finish_kind
    status = "failed" if kind == "error" else "incomplete" if kind in _INCOMPLETE else "completed"
    response = response_object(ctx, rid, output=items, status=status, usage=usage_object(ctx))
    if kind in _INCOMPLETE:
        response["incomplete_details"] = {"reason": _INCOMPLETE[kind]}
    if kind == "error":
        response["error"] = {"code": "server_error", "message": "The model failed to respond."}
    if status == "completed":
        response["completed_at"] = response["created_at"] + 1
    return response


def _final_event(status: str) -> str:
    return {"failed": "response.failed", "incomplete": "response.incomplete"}.get(
        status, "response.completed"
    )

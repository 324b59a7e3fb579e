"""Gemini stream chunks (``GenerateContentResponse``) to taor events: parts numbered as they
grow, tool call ids made up, thought signatures kept as state, usage and the finish reason
normalized at the end."""

from __future__ import annotations

import uuid
from typing import Any

from taor import errors as e
from taor.llm.adapters._http import dumps, json_object
from taor.llm.adapters.gemini._errors import api_error
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

_FINISH_NAMES: dict[FinishKind, str] = {
    "stop": "STOP",
    "length": "MAX_TOKENS CONTINUATION",
    "content_filter": "SAFETY RECITATION BLOCKLIST PROHIBITED_CONTENT SPII IMAGE_SAFETY "
    "IMAGE_PROHIBITED_CONTENT IMAGE_RECITATION MODEL_ARMOR",
    "error": "MALFORMED_FUNCTION_CALL MISSING_THOUGHT_SIGNATURE MALFORMED_RESPONSE",
}  # every other finishReason (OTHER, LANGUAGE, TOO_MANY_TOOL_CALLS, ...) is "other"
_FINISH = {raw: kind for kind, names in _FINISH_NAMES.items() for raw in names.split()}


def parse(data: str) -> dict[str, Any] | None:
    """One chunk: a GenerateContentResponse, or an error object (raised)."""
    if not data:
        return None
    parsed = json_object(data)
    if parsed is None:
        raise e.StreamInterruptedError(
            f"the stream sent a malformed chunk: {data[:200]!r}", provider="gemini", raw=data
        )
    if "error" in parsed:
        error = parsed["error"] if isinstance(parsed["error"], dict) else {}
        code = error.get("code")
        raise api_error(code if isinstance(code, int) else None, parsed, {})
    return parsed


class Stream:
    """Turns the stream's GenerateContentResponse chunks into taor events."""

    def __init__(self) -> None:
        self.started = False
        self.response_id: str | None = None
        self.index = -1
        self.open: str | None = None  # the kind of the part still growing at ``index``
        self.finish: str | None = None
        self.usage: Any = None  # the last usageMetadata, converted once at the end

    def feed(self, data: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if not self.started:
            self.started = True
            self.response_id = data.get("responseId")
            events.append(StreamStart(id=self.response_id, model=data.get("modelVersion")))
        feedback = data.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            reason = str(feedback["blockReason"])
            raise e.ContentFilteredError(
                f"Gemini blocked the prompt: {reason}", provider="gemini", code=reason, raw=data
            )
        candidates = data.get("candidates")
        if candidates:
            candidate = candidates[0]
            content = candidate.get("content")
            for part in content.get("parts") or () if isinstance(content, dict) else ():
                self._part(part, events)
            self.finish = candidate.get("finishReason") or self.finish
        self.usage = data.get("usageMetadata") or self.usage
        return events

    def close(self) -> list[StreamEvent]:
        """The usage and the finish reason, once the stream has ended."""
        if not self.started:
            raise e.StreamInterruptedError("the stream ended before any data", provider="gemini")
        events: list[StreamEvent] = []
        if self.usage is not None:
            events.append(UsageUpdate(usage=_usage(self.usage)))
        raw = self.finish  # a stream that ends cleanly without one finished normally
        kind: FinishKind = _FINISH.get(raw, "other") if raw else "stop"
        events.append(Finish(reason=FinishReason(reason=kind, raw=raw)))
        return events

    def _part(self, part: dict[str, Any], events: list[StreamEvent]) -> None:
        signature = part.get("thoughtSignature")
        call = part.get("functionCall")
        if isinstance(call, dict):
            self.index += 1
            self.open = None
            call_id = call.get("id") or self._call_id()
            events.append(ToolCallStart(index=self.index, id=call_id, name=call.get("name", "")))
            events.append(ToolCallDelta(index=self.index, arguments=dumps(call.get("args") or {})))
            events.append(ToolCallEnd(index=self.index))
        elif "text" in part:
            thought = bool(part.get("thought"))
            text = part["text"]
            if not text and signature is None:
                return
            kind = "thinking" if thought else "text"
            if self.open != kind:
                self.index += 1
                self.open = kind
            if thought:
                events.append(ThinkingDelta(index=self.index, text=text))
            elif text:
                events.append(TextDelta(index=self.index, text=text))
        else:
            return
        if signature is not None:
            state = {"gemini": {"thought_signature": signature}}
            events.append(StateDelta(index=self.index, state=state))
            self.open = None  # a signed part is complete: what follows is a new part

    def _call_id(self) -> str:
        stem = self.response_id or uuid.uuid4().hex[:16]
        return f"call_{stem}_{self.index}"


def _usage(meta: Any) -> Usage:
    if not isinstance(meta, dict):
        return Usage()
    thoughts = int(meta.get("thoughtsTokenCount") or 0)
    return Usage(
        input_tokens=int(meta.get("promptTokenCount") or 0),
        output_tokens=int(meta.get("candidatesTokenCount") or 0) + thoughts,
        cache_read_tokens=int(meta.get("cachedContentTokenCount") or 0),
        reasoning_tokens=thoughts,
    )

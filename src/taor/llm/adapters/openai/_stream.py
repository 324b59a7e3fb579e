"""Responses API stream events to taor events: one handler per event type, the part index
being the item's ``output_index``; the finish reason and usage come with the last event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from taor import errors as e
from taor.llm.adapters._error_map import error_from_body
from taor.llm.adapters._http import json_object
from taor.llm.adapters.openai._request import PROVIDER
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
from taor.llm.sse import SSEvent
from taor.llm.types import FinishKind

_INCOMPLETE: dict[str, FinishKind] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


class State:
    __slots__ = ("args_seen", "calls", "finished", "reasoning", "thought")

    def __init__(self) -> None:
        self.calls: set[int] = set()
        self.args_seen: set[int] = set()
        self.reasoning: set[int] = set()
        self.thought: set[int] = set()
        self.finished = False


Events = tuple[StreamEvent, ...] | list[StreamEvent]


def parse(sse: SSEvent) -> dict[str, Any] | None:
    if sse.data == "[DONE]" or not sse.data:
        return None
    data = json_object(sse.data)
    if data is None:
        raise e.StreamInterruptedError(
            f"openai sent a malformed stream event: {sse.data[:200]!r}", provider=PROVIDER
        )
    return data


def _created(s: State, d: dict[str, Any]) -> Events:
    response = d.get("response") or {}
    return (StreamStart(id=response.get("id"), model=response.get("model")),)


def _item_added(s: State, d: dict[str, Any]) -> Events:
    item, i = d.get("item") or {}, d.get("output_index", 0)
    kind = item.get("type")
    if kind == "function_call":
        s.calls.add(i)
        call_id = item.get("call_id") or item.get("id") or ""
        return (ToolCallStart(index=i, id=call_id, name=item.get("name") or ""),)
    if kind == "reasoning":
        s.reasoning.add(i)
        return (ThinkingDelta(index=i, text=""),)
    return ()


def _item_done(s: State, d: dict[str, Any]) -> Events:
    item, i = d.get("item") or {}, d.get("output_index", 0)
    kind = item.get("type")
    out: list[StreamEvent] = []
    if kind == "function_call":
        if i not in s.calls:
            out.extend(_item_added(s, d))
        if i not in s.args_seen and item.get("arguments"):
            out.append(ToolCallDelta(index=i, arguments=item["arguments"]))
        out.append(ToolCallEnd(index=i))
    elif kind == "reasoning":
        if i not in s.thought:
            text = "\n\n".join(p.get("text", "") for p in item.get("summary") or [])
            out.append(ThinkingDelta(index=i, text=text))
        out.append(StateDelta(index=i, state={PROVIDER: item}))
    elif kind == "message" and item.get("phase"):
        out.append(StateDelta(index=i, state={PROVIDER: {"phase": item["phase"]}}))
    return out


def _text_delta(s: State, d: dict[str, Any]) -> Events:
    return (TextDelta(index=d.get("output_index", 0), text=d.get("delta") or ""),)


def _args_delta(s: State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    s.args_seen.add(i)
    return (ToolCallDelta(index=i, arguments=d.get("delta") or ""),)


def _args_done(s: State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    if i in s.args_seen or not d.get("arguments"):
        return ()
    s.args_seen.add(i)
    return (ToolCallDelta(index=i, arguments=d["arguments"]),)


def _summary_part(s: State, d: dict[str, Any]) -> Events:
    if not d.get("summary_index"):
        return ()
    return (ThinkingDelta(index=d.get("output_index", 0), text="\n\n"),)


def _thinking_delta(s: State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    s.thought.add(i)
    return (ThinkingDelta(index=i, text=d.get("delta") or ""),)


def _finished(s: State, d: dict[str, Any]) -> Events:
    s.finished = True
    response = d.get("response") or {}
    usage = response.get("usage")
    finish = Finish(reason=_finish_reason(response))
    return (UsageUpdate(usage=_usage(usage)), finish) if usage else (finish,)


def _finish_reason(response: dict[str, Any]) -> FinishReason:
    status = response.get("status") or "completed"
    if status == "completed":
        return FinishReason(reason="stop", raw=status)
    if status == "incomplete":
        why = (response.get("incomplete_details") or {}).get("reason") or status
        return FinishReason(reason=_INCOMPLETE.get(why, "other"), raw=why)
    return FinishReason(reason="other", raw=status)


def _usage(usage: dict[str, Any]) -> Usage:
    """OpenAI's convention is taor's: input includes the cache, output includes reasoning."""
    details = usage.get("input_tokens_details") or {}
    return Usage(
        input_tokens=usage.get("input_tokens") or 0,
        output_tokens=usage.get("output_tokens") or 0,
        cache_read_tokens=details.get("cached_tokens") or 0,
        cache_write_tokens=details.get("cache_write_tokens") or 0,
        reasoning_tokens=(usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0,
    )


def _failed(s: State, d: dict[str, Any]) -> Events:
    error = (d.get("response") or {}).get("error") or {"message": "the response failed"}
    raise error_from_body(PROVIDER, None, {"error": error})


def _error(s: State, d: dict[str, Any]) -> Events:
    raise error_from_body(PROVIDER, None, d)


HANDLERS: dict[str, Callable[[State, dict[str, Any]], Events]] = {
    "response.output_text.delta": _text_delta,
    "response.refusal.delta": _text_delta,
    "response.function_call_arguments.delta": _args_delta,
    "response.reasoning_summary_text.delta": _thinking_delta,
    "response.reasoning_text.delta": _thinking_delta,
    "response.function_call_arguments.done": _args_done,
    "response.reasoning_summary_part.added": _summary_part,
    "response.output_item.added": _item_added,
    "response.output_item.done": _item_done,
    "response.created": _created,
    "response.completed": _finished,
    "response.incomplete": _finished,
    "response.failed": _failed,
    "error": _error,
}

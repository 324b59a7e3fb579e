"""The one assembler: builds a ``Response`` from stream events. Every adapter and every test
double goes through it, so "what the stream said" and "what the response holds" cannot differ."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable, Mapping
from typing import Any

from taor.errors import StreamInterruptedError
from taor.llm.events import (
    Finish,
    ServerToolResult,
    ServerToolUse,
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
from taor.llm.response import FinishReason, Response, Usage
from taor.llm.types import Message, Part, ServerToolPart, TextPart, ThinkingPart, ToolCallPart


class _Slot:
    __slots__ = (
        "args",
        "block",
        "call_id",
        "chunks",
        "kind",
        "name",
        "redacted",
        "signature",
        "state",
    )

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.chunks: list[str] = []
        self.args: list[str] = []
        self.call_id = ""
        self.name = ""
        self.signature: str | None = None
        self.redacted = False
        self.state: dict[str, Any] | None = None
        self.block: Mapping[str, Any] = {}


class Assembler:
    """Feed events in order, then call ``response()``."""

    def __init__(self, provider: str = "") -> None:
        self.provider = provider
        self.id: str | None = None
        self.model: str | None = None
        self.usage = Usage()
        self.finish: FinishReason | None = None
        self._slots: dict[int, _Slot] = {}
        self._state: dict[str, Any] | None = None

    def feed(self, event: StreamEvent) -> None:
        if type(event) is TextDelta:
            self._slot(event.index, "text").chunks.append(event.text)
        elif type(event) is ToolCallDelta:
            self._slot(event.index, "tool_call").args.append(event.arguments)
        elif type(event) is ThinkingDelta:
            slot = self._slot(event.index, "thinking")
            if event.text:
                slot.chunks.append(event.text)
            if event.signature is not None:
                slot.signature = (slot.signature or "") + event.signature
            slot.redacted = slot.redacted or event.redacted
        elif type(event) is ToolCallStart:
            slot = self._slot(event.index, "tool_call")
            slot.call_id, slot.name = event.id, event.name
        elif type(event) is ServerToolUse or type(event) is ServerToolResult:
            self._slot(event.index, "server_tool").block = event.block
        elif type(event) is StateDelta:
            self._merge_state(event)
        elif type(event) is UsageUpdate:
            self.usage = event.usage
        elif type(event) is Finish:
            self.finish = event.reason
        elif type(event) is StreamStart:
            self.id = event.id or self.id
            self.model = event.model or self.model
        elif type(event) is not ToolCallEnd:
            raise TypeError(f"not a stream event: {event!r}")

    def call_is_whole(self, delta: ToolCallDelta) -> bool:
        """Whether the tool call ``delta`` added to now holds a whole JSON object (parsed only
        when the delta ends with a closing brace: arguments can be long)."""
        if not delta.arguments.rstrip().endswith("}"):
            return False
        slot = self._slots.get(delta.index)
        if slot is None:
            return False
        try:
            return isinstance(json.loads("".join(slot.args)), dict)
        except ValueError:
            return False

    def _slot(self, index: int, kind: str) -> _Slot:
        slot = self._slots.get(index)
        if slot is None:
            slot = self._slots[index] = _Slot(kind)
        return slot

    def _merge_state(self, event: StateDelta) -> None:
        if event.index is None:
            self._state = _merged(self._state, event.state)
        else:
            slot = self._slots.get(event.index) or self._slot(event.index, "text")
            slot.state = _merged(slot.state, event.state)

    def message(self) -> Message:
        parts = [self._part(self._slots[i]) for i in sorted(self._slots)]
        return Message(
            role="assistant",
            parts=tuple(p for p in parts if p is not None),
            provider_state=self._state,
        )

    def _part(self, slot: _Slot) -> Part | None:
        if slot.kind == "tool_call":
            raw = "".join(slot.args)
            return ToolCallPart(
                id=slot.call_id,
                name=slot.name,
                arguments=parse_arguments(raw),
                raw_arguments=raw,
                provider_state=slot.state,
            )
        if slot.kind == "server_tool":
            return ServerToolPart(provider=self.provider, block=slot.block)
        if slot.kind == "thinking":
            return ThinkingPart(
                text="".join(slot.chunks),
                signature=slot.signature,
                redacted=slot.redacted,
                provider=self.provider or None,
                provider_state=slot.state,
            )
        text = "".join(slot.chunks)
        if not text and slot.state is None:
            return None
        return TextPart(text=text, provider_state=slot.state)

    def response(self) -> Response:
        if self.finish is None:
            raise StreamInterruptedError(
                "the stream ended without a finish event", provider=self.provider
            )
        message = self.message()
        finish = self.finish
        if finish.reason == "stop" and message.tool_calls:
            finish = FinishReason(reason="tool_calls", raw=finish.raw)
        return Response(
            message=message,
            finish_reason=finish,
            usage=self.usage,
            id=self.id,
            model=self.model,
            provider=self.provider,
        )


def parse_arguments(raw: str) -> dict[str, Any]:
    """Tool-call arguments as a dict; ``{}`` when empty or not a JSON object (the raw string
    is kept beside it, so the agent can quote it back to the model)."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _merged(old: dict[str, Any] | None, new: Any) -> dict[str, Any]:
    out = dict(old or {})
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def assemble_events(events: Iterable[StreamEvent], provider: str = "") -> Response:
    assembler = Assembler(provider)
    for event in events:
        assembler.feed(event)
    return assembler.response()


async def assemble(events: AsyncIterable[StreamEvent], provider: str = "") -> Response:
    assembler = Assembler(provider)
    async for event in events:
        assembler.feed(event)
    return assembler.response()

"""The one stream-event vocabulary every adapter speaks.

A stream is: ``start``, then any interleaving of part events, then ``usage`` (zero or more times;
the last one wins) and exactly one ``finish``. ``index`` is the position of the part in the
assistant message being built, so concurrent parts (parallel tool calls) stay apart.
``assemble`` (in ``taor.llm.assembler``) turns any such stream into a ``Response``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from taor.llm.types import FinishReason, ProviderState, Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class StreamStart:
    kind: Literal["start"] = "start"
    id: str | None = None
    model: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class TextDelta:
    kind: Literal["text_delta"] = "text_delta"
    index: int
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingDelta:
    """Reasoning text, or (with ``signature``) the signature that seals it. ``redacted`` marks
    a redacted block whose opaque payload travels in ``signature``."""

    kind: Literal["thinking_delta"] = "thinking_delta"
    index: int
    text: str = ""
    signature: str | None = None
    redacted: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallStart:
    kind: Literal["tool_call_start"] = "tool_call_start"
    index: int
    id: str
    name: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallDelta:
    kind: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    arguments: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallEnd:
    kind: Literal["tool_call_end"] = "tool_call_end"
    index: int


@dataclass(frozen=True, kw_only=True, slots=True)
class StateDelta:
    """Opaque provider state for the part at ``index`` (or the message when ``index`` is None),
    merged into what that part already holds, one provider key at a time."""

    kind: Literal["state"] = "state"
    index: int | None
    state: ProviderState


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageUpdate:
    kind: Literal["usage"] = "usage"
    usage: Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class Finish:
    kind: Literal["finish"] = "finish"
    reason: FinishReason


StreamEvent: TypeAlias = (
    StreamStart
    | TextDelta
    | ThinkingDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | StateDelta
    | UsageUpdate
    | Finish
)

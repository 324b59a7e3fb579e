"""The one stream-event vocabulary every adapter speaks.

A stream is: ``start``, then any interleaving of part events, then ``usage`` (zero or more times;
the last one wins) and exactly one ``finish``. ``index`` is the position of the part in the
assistant message being built, so concurrent parts (parallel tool calls) stay apart.
``assemble`` (in ``taor.llm.assembler``) turns any such stream into a ``Response``.

``server_tool_use`` and ``server_tool_result`` report a tool the provider ran itself within the
response (Anthropic's web search, web fetch, code execution, tool search), each once its block is
complete; they become ``ServerToolPart``s, never tool calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from taor._records import frozen
from taor.llm.response import FinishReason, Usage
from taor.llm.types import ProviderState


@frozen
class StreamStart:
    kind: Literal["start"] = "start"
    id: str | None = None
    model: str | None = None


@frozen
class TextDelta:
    kind: Literal["text_delta"] = "text_delta"
    index: int
    text: str


@frozen
class ThinkingDelta:
    """Reasoning text, or (with ``signature``) the signature that seals it. ``redacted`` marks
    a redacted block whose opaque payload travels in ``signature``."""

    kind: Literal["thinking_delta"] = "thinking_delta"
    index: int
    text: str = ""
    signature: str | None = None
    redacted: bool = False


@frozen
class ToolCallStart:
    kind: Literal["tool_call_start"] = "tool_call_start"
    index: int
    id: str
    name: str


@frozen
class ToolCallDelta:
    kind: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    arguments: str


@frozen
class ToolCallEnd:
    kind: Literal["tool_call_end"] = "tool_call_end"
    index: int


@frozen
class ServerToolUse:
    """The provider ran one of its own tools: ``block`` is the complete block (``id``,
    ``name``, ``input``, as the provider sent it)."""

    kind: Literal["server_tool_use"] = "server_tool_use"
    index: int
    block: Mapping[str, Any]


@frozen
class ServerToolResult:
    """The result of a provider's own tool: ``block`` is the complete block (its ``type``, such
    as ``web_search_tool_result``, ``tool_use_id`` and ``content``)."""

    kind: Literal["server_tool_result"] = "server_tool_result"
    index: int
    block: Mapping[str, Any]


@frozen
class StateDelta:
    """Opaque provider state for the part at ``index`` (or the message when ``index`` is None),
    merged into what that part already holds, one provider key at a time."""

    kind: Literal["state"] = "state"
    index: int | None
    state: ProviderState


@frozen
class UsageUpdate:
    kind: Literal["usage"] = "usage"
    usage: Usage


@frozen
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
    | ServerToolUse
    | ServerToolResult
    | StateDelta
    | UsageUpdate
    | Finish
)

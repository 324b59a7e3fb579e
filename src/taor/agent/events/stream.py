"""What a model call and a tool call show as they happen: text, thinking, tool calls, provider-run
tools, usage and retries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from taor._records import frozen
from taor.agent.events.base import EventBase
from taor.llm.response import Usage


@frozen
class AssistantTextStart(EventBase):
    kind: Literal["assistant_text_start"] = "assistant_text_start"


@frozen
class AssistantTextDelta(EventBase):
    kind: Literal["assistant_text_delta"] = "assistant_text_delta"
    delta: str


@frozen
class AssistantTextEnd(EventBase):
    """After every model response: its whole text and reasoning (``partial`` when cut short)."""

    kind: Literal["assistant_text_end"] = "assistant_text_end"
    text: str
    reasoning: str | None = None
    partial: bool = False


@frozen
class ThinkingDelta(EventBase):
    kind: Literal["thinking_delta"] = "thinking_delta"
    delta: str


@frozen
class ToolCallStart(EventBase):
    """``summary`` is short and human: ``shell: pytest -q``, ``read_file: src/app.py``."""

    kind: Literal["tool_call_start"] = "tool_call_start"
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    summary: str


@frozen
class ToolCallOutputDelta(EventBase):
    kind: Literal["tool_call_output_delta"] = "tool_call_output_delta"
    call_id: str
    delta: str


@frozen
class ToolCallEnd(EventBase):
    """The whole output; the model got a truncated copy. A command's
    output beyond what the environment keeps in memory (1 MiB head and 1 MiB tail) is cut in
    ``output``; ``output_file`` is then the path of a file that holds all of it."""

    kind: Literal["tool_call_end"] = "tool_call_end"
    call_id: str
    name: str
    output: str
    is_error: bool = False
    duration: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)
    output_file: str | None = None


@frozen
class ServerToolUse(EventBase):
    """The provider runs one of its own tools within the response (Anthropic's web search, web
    fetch, code execution, tool search): taor neither runs it nor asks permission."""

    kind: Literal["server_tool_use"] = "server_tool_use"
    call_id: str
    name: str
    input: Mapping[str, Any]


@frozen
class ServerToolResult(EventBase):
    """What the provider's own tool gave: ``result_type`` is the block's type (such as
    ``web_search_tool_result``), ``content`` its JSON content as the provider sent it (for a
    web search, results with ``title`` and ``url``; an error is an object whose type ends in
    ``_error``)."""

    kind: Literal["server_tool_result"] = "server_tool_result"
    call_id: str
    result_type: str
    content: Any = None
    is_error: bool = False


@frozen
class UsageEvent(EventBase):
    """After each response: its usage and cost, the session's running totals, and the
    provider's id of the response when it gave one (quote it to the provider's support)."""

    kind: Literal["usage"] = "usage"
    usage: Usage
    total: Usage
    cost: float | None = None
    total_cost: float | None = None
    response_id: str = ""


@frozen
class Retry(EventBase):
    """A model call failed and will be tried again after ``delay`` seconds.

    ``discarded_text`` is True when part of the failed response had already been streamed:
    a host that shows text should drop what it showed since the last ``assistant_text_start``."""

    kind: Literal["retry"] = "retry"
    attempt: int
    delay: float
    cause: str
    error_type: str
    discarded_text: bool = False

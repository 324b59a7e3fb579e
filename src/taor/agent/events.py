"""The events of a session: what a host sees, in the order it happens.

Every event is a frozen, keyword-only dataclass with a ``kind`` literal; ``Event`` is their
union. Each carries ``timestamp`` (seconds since the epoch) and ``agent_id`` (empty for the
session itself, the child's id for events of a subagent relayed to its parent).
``taor.agent.record.codec`` turns any event into a JSON object and back.

A cycle (one input) runs: ``user_input``, then per model call ``assistant_text_start`` /
``assistant_text_delta`` ... / ``assistant_text_end`` (and ``thinking_delta``), ``usage``, then per
tool call ``tool_call_start``, ``tool_call_output_delta`` ..., ``tool_call_end``; it ends with one
``processing_end`` whose ``stop_reason`` says why. A tool the provider runs itself within a
response (Anthropic's web search, ...) shows as ``server_tool_use`` then ``server_tool_result``,
as it streams; taor runs nothing for it. Commands are acknowledged: ``steer`` by
``steering_queued`` (then ``steering_injected`` when it reaches the model), ``follow_up`` by
``follow_up_queued``, ``interrupt`` by ``interrupted``, ``close`` by ``session_end``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from taor.llm.types import Usage

StopReason = Literal[
    "completed",  # the model answered without tool calls
    "turn_limit",  # a limit of the session config was reached
    "loop_detected",  # the model kept repeating itself after a warning
    "interrupted",  # interrupt() was called
    "error",  # a model call failed for good (the error event says why)
    "closed",  # close() was called while the cycle ran
]
LimitName = Literal["model_calls", "tool_rounds", "tool_calls", "wall_time", "cost"]
DecisionKind = Literal["allow", "allow_always", "deny"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EventBase:
    timestamp: float = field(default_factory=time.time)
    agent_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionStart(EventBase):
    kind: Literal["session_start"] = "session_start"
    session_id: str
    provider: str
    model: str
    resumed: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class UserInput(EventBase):
    kind: Literal["user_input"] = "user_input"
    text: str
    cycle: int


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantTextStart(EventBase):
    kind: Literal["assistant_text_start"] = "assistant_text_start"


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantTextDelta(EventBase):
    kind: Literal["assistant_text_delta"] = "assistant_text_delta"
    delta: str


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantTextEnd(EventBase):
    """After every model response: its whole text and reasoning (``partial`` when cut short)."""

    kind: Literal["assistant_text_end"] = "assistant_text_end"
    text: str
    reasoning: str | None = None
    partial: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingDelta(EventBase):
    kind: Literal["thinking_delta"] = "thinking_delta"
    delta: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallStart(EventBase):
    """``summary`` is short and human: ``shell: pytest -q``, ``read_file: src/app.py``."""

    kind: Literal["tool_call_start"] = "tool_call_start"
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    summary: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallOutputDelta(EventBase):
    kind: Literal["tool_call_output_delta"] = "tool_call_output_delta"
    call_id: str
    delta: str


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerToolUse(EventBase):
    """The provider runs one of its own tools within the response (Anthropic's web search, web
    fetch, code execution, tool search): taor neither runs it nor asks permission."""

    kind: Literal["server_tool_use"] = "server_tool_use"
    call_id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRequest(EventBase):
    """Answer with ``Session.decide(request_id, ...)``; ``reason`` says why it asks."""

    kind: Literal["permission_request"] = "permission_request"
    request_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    summary: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionDecision(EventBase):
    """How a call's permission was settled; ``source``: rule, mode, host, callback, default."""

    kind: Literal["permission_decision"] = "permission_decision"
    call_id: str
    name: str
    decision: DecisionKind
    source: str
    message: str = ""
    request_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SteeringQueued(EventBase):
    kind: Literal["steering_queued"] = "steering_queued"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class SteeringInjected(EventBase):
    """A message added to the history for the model: ``source`` is user, loop_detection, hook."""

    kind: Literal["steering_injected"] = "steering_injected"
    text: str
    source: str = "user"


@dataclass(frozen=True, kw_only=True, slots=True)
class FollowUpQueued(EventBase):
    kind: Literal["follow_up_queued"] = "follow_up_queued"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Interrupted(EventBase):
    kind: Literal["interrupted"] = "interrupted"
    reason: str = "interrupted by the host"


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnLimit(EventBase):
    kind: Literal["turn_limit"] = "turn_limit"
    limit: LimitName
    value: float
    message: str


@dataclass(frozen=True, kw_only=True, slots=True)
class LoopDetection(EventBase):
    """``stopped`` is False for the first warning, True when the cycle ends because of it."""

    kind: Literal["loop_detection"] = "loop_detection"
    message: str
    cycle_length: int
    stopped: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Compaction(EventBase):
    kind: Literal["compaction"] = "compaction"
    tokens_before: int
    tokens_after: int
    message: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SystemPromptChanged(EventBase):
    """The system prompt was rebuilt (an instruction file changed, or the host asked)."""

    kind: Literal["system_prompt_changed"] = "system_prompt_changed"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageEvent(EventBase):
    """After each response: its usage and cost, and the session's running totals."""

    kind: Literal["usage"] = "usage"
    usage: Usage
    total: Usage
    cost: float | None = None
    total_cost: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class WarningEvent(EventBase):
    kind: Literal["warning"] = "warning"
    message: str
    code: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class ErrorEvent(EventBase):
    """Something failed; ``fatal`` when the session closed because of it. A failed model call
    gives the provider's ``request_id`` when it sent one (quote it to the provider's support)."""

    kind: Literal["error"] = "error"
    message: str
    error_type: str = ""
    fatal: bool = False
    request_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessingEnd(EventBase):
    kind: Literal["processing_end"] = "processing_end"
    cycle: int
    stop_reason: StopReason
    text: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionEnd(EventBase):
    kind: Literal["session_end"] = "session_end"
    reason: str = "closed"


Event: TypeAlias = (
    SessionStart
    | UserInput
    | AssistantTextStart
    | AssistantTextDelta
    | AssistantTextEnd
    | ThinkingDelta
    | ToolCallStart
    | ToolCallOutputDelta
    | ToolCallEnd
    | ServerToolUse
    | ServerToolResult
    | PermissionRequest
    | PermissionDecision
    | SteeringQueued
    | SteeringInjected
    | FollowUpQueued
    | Interrupted
    | TurnLimit
    | LoopDetection
    | Compaction
    | SystemPromptChanged
    | UsageEvent
    | Retry
    | WarningEvent
    | ErrorEvent
    | ProcessingEnd
    | SessionEnd
)

EVENT_TYPES: tuple[type[Event], ...] = Event.__args__

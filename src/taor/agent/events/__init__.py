"""The events of a session: what a host sees, in the order it happens.

Every event is a frozen, keyword-only dataclass with a ``kind`` literal; ``Event`` is their
union. Each carries ``timestamp`` (seconds since the epoch) and ``agent_id`` (empty for the
session itself, the child's id for events of a subagent relayed to its parent).
``seq`` is its number in the session's stream, given as the session publishes it (``Numbering``).
``taor.agent.record.codec`` turns any event into a JSON object and back.

A cycle (one input) runs: ``user_input``, then per model call ``assistant_text_start`` /
``assistant_text_delta`` ... / ``assistant_text_end`` (and ``thinking_delta``), ``usage``, then per
tool call ``tool_call_start``, ``tool_call_output_delta`` ..., ``tool_call_end``; it ends with one
``processing_end`` whose ``stop_reason`` says why. A tool the provider runs itself within a
response (Anthropic's web search, ...) shows as ``server_tool_use`` then ``server_tool_result``,
as it streams; taor runs nothing for it. Commands are acknowledged: ``steer`` by
``steering_queued`` (then ``steering_injected`` when it reaches the model), ``follow_up`` by
``follow_up_queued``, ``interrupt`` by ``interrupted``, ``close`` by ``session_end``.
An MCP server's health changes are ``mcp_server_status`` (those of start-up right after
``session_start``).
"""

from __future__ import annotations

from typing import TypeAlias

from taor.agent.events.base import DecisionKind, EventBase, LimitName, Numbering, StopReason
from taor.agent.events.control import (
    Compaction,
    ErrorEvent,
    FollowUpQueued,
    Interrupted,
    LoopDetection,
    McpServerStatus,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
    SteeringInjected,
    SteeringQueued,
    SystemPromptChanged,
    TurnLimit,
    UserInput,
    WarningEvent,
)
from taor.agent.events.stream import (
    AssistantTextDelta,
    AssistantTextEnd,
    AssistantTextStart,
    Retry,
    ServerToolResult,
    ServerToolUse,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallOutputDelta,
    ToolCallStart,
    UsageEvent,
)

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
    | McpServerStatus
    | SessionEnd
)

EVENT_TYPES: tuple[type[Event], ...] = Event.__args__

__all__ = [
    "EVENT_TYPES",
    "AssistantTextDelta",
    "AssistantTextEnd",
    "AssistantTextStart",
    "Compaction",
    "DecisionKind",
    "ErrorEvent",
    "Event",
    "EventBase",
    "FollowUpQueued",
    "Interrupted",
    "LimitName",
    "LoopDetection",
    "McpServerStatus",
    "Numbering",
    "PermissionDecision",
    "PermissionRequest",
    "ProcessingEnd",
    "Retry",
    "ServerToolResult",
    "ServerToolUse",
    "SessionEnd",
    "SessionStart",
    "SteeringInjected",
    "SteeringQueued",
    "StopReason",
    "SystemPromptChanged",
    "ThinkingDelta",
    "ToolCallEnd",
    "ToolCallOutputDelta",
    "ToolCallStart",
    "TurnLimit",
    "UsageEvent",
    "UserInput",
    "WarningEvent",
]

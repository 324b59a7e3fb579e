"""What frames a cycle and answers the host: start and end, input, permissions, steering,
interrupts, limits, compaction, warnings and errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from taor._records import frozen
from taor.agent.events.base import DecisionKind, EventBase, LimitName, StopReason


@frozen
class SessionStart(EventBase):
    kind: Literal["session_start"] = "session_start"
    session_id: str
    provider: str
    model: str
    resumed: bool = False


@frozen
class McpServerStatus(EventBase):
    """An MCP server's health changed: ``status`` is connecting, connected, failed, exited,
    restarting or closed; ``message`` says why (never a secret); ``tools``: how many it offers."""

    kind: Literal["mcp_server_status"] = "mcp_server_status"
    server: str
    status: str
    message: str = ""
    tools: int = 0
    transport: str = "stdio"


@frozen
class UserInput(EventBase):
    kind: Literal["user_input"] = "user_input"
    text: str
    cycle: int


@frozen
class PermissionRequest(EventBase):
    """Answer with ``Session.decide(request_id, ...)``; ``reason`` says why it asks; ``rules``
    are the permission rules an ``allow_always`` answer would add (``shell(git status)``).
    ``diff``: for an edit (edit_file, write_file, apply_patch), the unified diff it would make,
    worked out before it runs (``taor.agent.policy.preview``); empty when there is none to
    show."""

    kind: Literal["permission_request"] = "permission_request"
    request_id: str
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    summary: str
    reason: str = ""
    rules: tuple[str, ...] = ()
    diff: str = ""


@frozen
class PermissionDecision(EventBase):
    """How a call's permission was settled; ``source``: rule, mode, host, callback, default;
    ``rules``: the rules an ``allow_always`` added for the rest of the session."""

    kind: Literal["permission_decision"] = "permission_decision"
    call_id: str
    name: str
    decision: DecisionKind
    source: str
    message: str = ""
    request_id: str = ""
    rules: tuple[str, ...] = ()


@frozen
class SteeringQueued(EventBase):
    kind: Literal["steering_queued"] = "steering_queued"
    text: str


@frozen
class SteeringInjected(EventBase):
    """A message added to the history for the model: ``source`` is user, loop_detection, hook."""

    kind: Literal["steering_injected"] = "steering_injected"
    text: str
    source: str = "user"


@frozen
class FollowUpQueued(EventBase):
    kind: Literal["follow_up_queued"] = "follow_up_queued"
    text: str


@frozen
class Interrupted(EventBase):
    kind: Literal["interrupted"] = "interrupted"
    reason: str = "interrupted by the host"


@frozen
class TurnLimit(EventBase):
    kind: Literal["turn_limit"] = "turn_limit"
    limit: LimitName
    value: float
    message: str

    @classmethod
    def reached(cls, limit: LimitName, maximum: float, value: float) -> TurnLimit:
        """The event for ``limit`` at ``value`` (its maximum), with the message that says so."""
        message = f"Limit reached: {value:g} {_LIMIT_UNITS[limit]} (max {maximum:g})."
        return cls(limit=limit, value=value, message=message)


_LIMIT_UNITS = {
    "model_calls": "model calls this session",
    "tool_rounds": "tool rounds this input",
    "tool_calls": "tool calls this input",
    "wall_time": "seconds on this input",
    "cost": "US dollars this session",
}


@frozen
class LoopDetection(EventBase):
    """``stopped`` is False for the first warning, True when the cycle ends because of it."""

    kind: Literal["loop_detection"] = "loop_detection"
    message: str
    cycle_length: int
    stopped: bool = False


@frozen
class Compaction(EventBase):
    kind: Literal["compaction"] = "compaction"
    tokens_before: int
    tokens_after: int
    message: str = ""


@frozen
class SystemPromptChanged(EventBase):
    """The system prompt was rebuilt (an instruction file changed, or the host asked)."""

    kind: Literal["system_prompt_changed"] = "system_prompt_changed"
    reason: str


@frozen
class WarningEvent(EventBase):
    kind: Literal["warning"] = "warning"
    message: str
    code: str = ""


@frozen
class ErrorEvent(EventBase):
    """Something failed; ``fatal`` when the session closed because of it. A failed model call
    gives the provider's ``request_id`` when it sent one (quote it to the provider's support)."""

    kind: Literal["error"] = "error"
    message: str
    error_type: str = ""
    fatal: bool = False
    request_id: str = ""


@frozen
class ProcessingEnd(EventBase):
    """The cycle's end: why, its final text, and the requests it sent to the model
    (``model_calls``: every one the server saw, retries and calls cut short included)."""

    kind: Literal["processing_end"] = "processing_end"
    cycle: int
    stop_reason: StopReason
    text: str = ""
    model_calls: int = 0


@frozen
class SessionEnd(EventBase):
    kind: Literal["session_end"] = "session_end"
    reason: str = "closed"

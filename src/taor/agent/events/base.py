"""What every event shares, and the vocabularies events use."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

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
    """``timestamp``: seconds since the epoch; ``agent_id``: empty for the session's own
    events, the child's id (``child/grandchild`` deeper) for a subagent's."""

    timestamp: float = field(default_factory=time.time)
    agent_id: str = ""

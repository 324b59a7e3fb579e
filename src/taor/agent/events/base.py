"""What every event shares, and the vocabularies events use; how a session numbers its events."""

from __future__ import annotations

import time
from dataclasses import field
from typing import Literal

from taor._records import frozen

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


@frozen
class EventBase:
    """``timestamp``: seconds since the epoch; ``agent_id``: empty for the session's own
    events, the child's id (``child/grandchild`` deeper) for a subagent's; ``seq``: the
    event's number in the session's stream (``Numbering``), 0 for an event not published."""

    timestamp: float = field(default_factory=time.time)
    agent_id: str = ""
    seq: int = 0


class Numbering:
    """The numbers a session gives its events as it publishes them: 1, 2, 3, ... unique and
    increasing for the session's whole life, across its cycles and its resumes (a resumed
    session numbers on from the highest number its transcript records; see
    ``taor.agent.record.turns``). A subagent's events are numbered again as they reach the
    parent's stream: each stream's numbers are its own. SSE's ``Last-Event-ID`` is one."""

    __slots__ = ("last",)

    def __init__(self, last: int = 0) -> None:
        self.last = last

    def take(self) -> int:
        self.last += 1
        return self.last

    def follow(self, seq: int | None) -> None:
        """Number on after ``seq`` (a number recorded before) when it is higher."""
        if seq is not None and seq > self.last:
            self.last = seq

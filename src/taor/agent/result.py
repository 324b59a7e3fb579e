"""``RunResult``: what ``Session.run`` returns, gathered from the events of one cycle."""

from __future__ import annotations

from dataclasses import field

from taor._records import frozen
from taor.agent.events import (
    ErrorEvent,
    Event,
    ProcessingEnd,
    StopReason,
    ToolCallEnd,
    UsageEvent,
)
from taor.llm.response import Usage


@frozen
class RunResult:
    """The final text, why the cycle stopped, its usage and cost (None when a price is
    unknown), the model calls (``turns``: every request sent, retries and calls cut short
    included) and tool calls it made, and its last error."""

    text: str
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    turns: int = 0
    tool_calls: int = 0
    error: str | None = None


class ResultBuilder:
    """Feed it a cycle's events in order; ``result()`` after ``processing_end``."""

    def __init__(self) -> None:
        self._usage = Usage()
        self._cost: float | None = 0.0
        self._turns = 0
        self._tool_calls = 0
        self._error: str | None = None
        self._end: ProcessingEnd | None = None

    def feed(self, event: Event) -> None:
        if isinstance(event, UsageEvent):
            self._turns += 1
            self._usage = self._usage + event.usage
            if self._cost is not None:
                self._cost = None if event.cost is None else self._cost + event.cost
        elif isinstance(event, ToolCallEnd):
            self._tool_calls += 1
        elif isinstance(event, ErrorEvent):
            self._error = event.message
        elif isinstance(event, ProcessingEnd):
            self._end = event

    def result(self) -> RunResult:
        end = self._end
        return RunResult(
            text=end.text if end else "",
            stop_reason=end.stop_reason if end else "closed",
            usage=self._usage,
            cost=self._cost,
            turns=max(self._turns, end.model_calls) if end else self._turns,
            tool_calls=self._tool_calls,
            error=self._error,
        )

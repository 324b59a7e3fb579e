"""``Cycle``: what lives for one input of a session (or one compaction between inputs), kept
apart from the ``Runtime`` that lives for the whole session: the counts the limits check, the
tool calls running, and why the cycle is stopping."""

from __future__ import annotations

from dataclasses import dataclass, field

from taor.agent.events import PermissionRequest, StopReason
from taor.errors import ProviderError
from taor.llm.types import ToolResultPart


@dataclass(kw_only=True, slots=True)
class Cycle:
    """What lives for one input (or one compaction between inputs); the driver starts a new
    one each time. ``started``, ``rounds`` and ``calls`` are what the limits count;
    ``model_calls`` the requests sent to the model (retries and cut-off calls included);
    ``running_calls`` the tool calls started and not ended (id -> name); ``stopping`` is set by
    an interrupt, a close or the wall-time deadline just before they cancel the cycle's task;
    ``failure`` is the provider error that ended it. ``results`` are the results of the tool
    round running (by call id); ``asked`` is the permission request recorded as put to a
    person and not answered yet (a close then parks the round: ``taor.agent.loop.parking``)."""

    started: float = 0.0
    rounds: int = 0
    calls: int = 0
    model_calls: int = 0
    running_calls: dict[str, str] = field(default_factory=dict)
    stopping: StopReason | None = None
    failure: ProviderError | None = None
    results: dict[str, ToolResultPart] = field(default_factory=dict)
    asked: PermissionRequest | None = None
    checked: set[str] = field(default_factory=set)  # the answer checks said (policy.answers)

    @property
    def stop_notice(self) -> str:
        """Why the cycle is stopping, as the host and the transcript are told."""
        return {
            "interrupted": "interrupted by the host",
            "turn_limit": "stopped at the time limit",
        }.get(self.stopping or "", "session closed")

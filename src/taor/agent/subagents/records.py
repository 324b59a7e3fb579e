"""The records of subagents: what a factory gets to build a child, what the machinery uses of
the child it builds (``ChildSession``, so that subagents need not import the session), and what
a wait returns."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Literal, Protocol

from taor._records import frozen
from taor.agent.checkpoints.log import CheckpointLog
from taor.agent.config import Limits, SessionConfig
from taor.agent.events import Event, StopReason
from taor.agent.policy.decisions import Decision
from taor.agent.record.turns import Turn
from taor.env.base import Environment
from taor.tools.base import Tool

SubagentStatus = Literal["running", "completed", "failed", "cancelled"]

SUBAGENT_TOOL_NAMES = ("spawn_agent", "send_input", "wait", "close_agent")


@frozen
class SubagentResult:
    """Where a child stands: the final text of its last cycle (``output``), whether that
    cycle completed (``success``), the model calls it has made (``turns_used``) and its
    ``status``. ``stop_reason`` and ``error`` say why a cycle did not complete."""

    agent_id: str
    status: SubagentStatus
    output: str = ""
    success: bool = False
    turns_used: int = 0
    stop_reason: StopReason | None = None
    error: str | None = None


@frozen
class ChildSpec:
    """What a ``ChildFactory`` needs to build one child ``Session`` (not started).

    ``environment`` is the parent's, shared (scoped when the spawn named a working directory):
    give it to the child as is. ``model`` is a model override (None: the parent's). ``limits``
    tighten the parent's (``config``: its fields not at their default replace the parent's). ``history`` is the conversation the child starts from
    (empty, or a snapshot for a fan-out). ``subagent_tools`` are the child's own spawn tools,
    over a manager of its own, when it may spawn grandchildren (none at the depth limit):
    ``tools`` puts them in place of any subagent tools of ``base``.
    """

    agent_id: str
    task: str
    environment: Environment
    depth: int
    model: str | None = None
    limits: Limits | None = None
    history: tuple[Turn, ...] = ()
    subagent_tools: tuple[Tool, ...] = ()

    def config(self, base: SessionConfig) -> SessionConfig:
        """``base`` with ``limits`` applied (``tighten``)."""
        if self.limits is None:
            return base
        return dataclasses.replace(base, limits=tighten(base.limits, self.limits))

    def tools(self, base: Iterable[Tool]) -> list[Tool]:
        """``base`` without subagent tools, plus this child's own when it may spawn."""
        return [*(t for t in base if t.name not in SUBAGENT_TOOL_NAMES), *self.subagent_tools]


class Agents(Protocol):
    """What the subagent tools ask of the children's manager (``SubagentManager`` is one)."""

    async def spawn(
        self,
        task: str,
        *,
        working_dir: str | None = None,
        model: str | None = None,
        limits: Limits | None = None,
        history: Sequence[Turn] = (),
    ) -> str: ...

    def send_input(self, agent_id: str, message: str) -> str: ...

    async def wait(self, agent_id: str, timeout: float | None = None) -> SubagentResult: ...  # noqa: ASYNC109

    async def close(self, agent_id: str) -> SubagentResult: ...


class Grandchildren(Protocol):
    """What a child's own manager is asked by its parent's: close, and pass on answers."""

    async def close_all(self) -> None: ...

    def decide(
        self, agent_id: str, request_id: str, decision: Decision | str, message: str = ""
    ) -> None: ...

    def decide_pending(
        self, request_id: str, decision: Decision | str, message: str = ""
    ) -> None: ...


class ChildSession(Protocol):
    """What the subagent machinery uses of a child: a ``taor.agent.Session`` is one."""

    @property
    def state(self) -> str: ...

    @property
    def history(self) -> list[Turn]: ...

    async def start(self) -> None: ...

    async def close(self, reason: str = "closed") -> None: ...

    def events(self) -> AsyncIterator[Event]: ...

    def steer(self, text: str) -> None: ...

    def follow_up(self, text: str) -> None: ...

    def interrupt(self) -> None: ...

    def decide(self, request_id: str, decision: Decision | str, message: str = "") -> None: ...

    def lend_checkpoints(self, log: CheckpointLog) -> None:
        """Record the files it changes in ``log``, its parent's checkpoints."""
        ...


ChildFactory = Callable[[ChildSpec], ChildSession]
"""Builds a child session from a spec: the parent's model (or ``spec.model``), profile,
config (``spec.config(...)``), tools (``spec.tools(...)``), ``environment=spec.environment``,
``history=spec.history``, ``session_id`` of its choice. The manager starts and runs it."""


def tighten(base: Limits, override: Limits) -> Limits:
    """``base`` with each field of ``override`` that is not at its default (a non-zero limit,
    ``summary_on_limit`` False)."""
    default = Limits()
    changes = {
        f.name: getattr(override, f.name)
        for f in dataclasses.fields(Limits)
        if getattr(override, f.name) != getattr(default, f.name)
    }
    return dataclasses.replace(base, **changes)


def describe(result: SubagentResult) -> str:
    """The model's view of a ``SubagentResult``."""
    if result.status == "running":
        return (
            f"Agent {result.agent_id} is still running (turns used so far: "
            f"{result.turns_used}). Call wait again, send_input to steer it, or close_agent "
            "to stop it."
        )
    facts = f"success: {'yes' if result.success else 'no'}, turns used: {result.turns_used}"
    if result.stop_reason not in (None, "completed"):
        facts += f", stop reason: {result.stop_reason}"
    if result.error:
        facts += f", error: {result.error}"
    output = result.output or "(no text)"
    return f"Agent {result.agent_id} {result.status} ({facts}).\nOutput:\n{output}"

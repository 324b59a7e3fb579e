"""The narrow parts of the ``Runtime`` that the loop's steps take.

A step declares what it reads and writes: the parts it uses, passed one by one (a ledger, the
config, the cycle), or, when it needs several that change together, one of these views. Each
is a small ``Protocol`` that ``Runtime`` meets; a signature then says what a step touches, and
what it does not (a stream step never sees the tools, a permission wait never sees the model).

- ``Books``: the record: the transcript, appending a turn, steering injected into it.
- ``Calls``: what a model call reads and counts: the model, its config, the call counters and
  limits, the sleep between retries.
- ``Accounts``: ``Books`` plus the usage and token ledgers a response is entered in.
- ``Waits``: ``Books`` plus the permission question of the cycle and the one a resumed session
  was parked on.
- ``Guards``: ``Waits`` plus what a tool call passes through: hooks, permissions, checkpoints,
  the environment and the tools, and the limits its output is cut to for the model.
- ``Compacting``: ``Accounts`` plus what compaction reads and sets.
- ``ModelCall``: ``Compacting`` and ``Calls``: the loop's model call compacts first when due.
- ``Ending``: ``Accounts``, ``Calls`` and ``Waits``: the steps that end a cycle (a summary
  after a limit, an interrupt) make a model call and settle the round.
- ``Parent``: what a subagent is built from, read when it is spawned.
- ``Opening``: ``Books`` plus the prompt hooks, the project's prompt and the loop detector the
  first step of a cycle reads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from taor.agent.checkpoints.log import CheckpointLog
    from taor.agent.config import SessionConfig
    from taor.agent.context.ledger import TokenLedger, UsageLedger
    from taor.agent.context.prompt.cache import SystemPrompt
    from taor.agent.cycle_state import Cycle
    from taor.agent.events import (
        Event,
        PermissionRequest,
        SteeringInjected,
        TurnLimit,
        WarningEvent,
    )
    from taor.agent.policy.decisions import Decision
    from taor.agent.policy.hooks import Hooks
    from taor.agent.policy.loop_detection import LoopDetector
    from taor.agent.policy.permissions import PermissionPolicy
    from taor.agent.record.store import TranscriptStore
    from taor.agent.record.transcript import Transcript
    from taor.agent.record.turns import SteeringSource, Turn
    from taor.env.base import Environment
    from taor.llm.catalog import Catalog
    from taor.llm.model import Model
    from taor.llm.types import Request, ToolChoice
    from taor.tools import truncation
    from taor.tools.registry import ToolRegistry

CanUseTool = Callable[[str, dict[str, Any]], Awaitable[Any]]


class Books(Protocol):
    """The session's record: turns appended (to the transcript, the store, the checkpoints'
    turn count) and steering injected as turns."""

    @property
    def transcript(self) -> Transcript: ...

    async def append(self, turn: Turn) -> None: ...

    async def inject(self, text: str, source: SteeringSource) -> SteeringInjected: ...

    async def drain_steering(self) -> list[Event]: ...


class Calls(Protocol):
    """What a model call reads and counts."""

    model_calls: int  # the session's, every request included

    @property
    def model(self) -> Model: ...
    @property
    def config(self) -> SessionConfig: ...
    @property
    def cycle(self) -> Cycle: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def sleep(self) -> Callable[[float], Awaitable[None]]: ...

    def calls_left(self) -> int | None: ...

    def spent(self) -> TurnLimit | None: ...

    def request(self, *, tool_choice: ToolChoice | None = None) -> Request: ...


class Accounts(Books, Protocol):
    """The record and the ledgers a response is entered in."""

    @property
    def model(self) -> Model: ...
    @property
    def usage(self) -> UsageLedger: ...
    @property
    def tokens(self) -> TokenLedger: ...
    @property
    def last_estimate(self) -> int: ...

    def session_totals(self) -> tuple[int, float | None]: ...


class Waits(Books, Protocol):
    """The record, the cycle's open question and the request a resumed session was parked on
    (``taor.agent.loop.parking``)."""

    parked: PermissionRequest | None
    parked_answer: Decision | None

    @property
    def store(self) -> TranscriptStore | None: ...
    @property
    def cycle(self) -> Cycle: ...


class Guards(Waits, Protocol):
    """What a tool call passes through: hooks, permission (a person asked, or a callback),
    checkpoints, the environment it runs in and the tool itself."""

    @property
    def config(self) -> SessionConfig: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def hooks(self) -> Hooks: ...
    @property
    def permissions(self) -> PermissionPolicy: ...
    @property
    def can_use_tool(self) -> CanUseTool | None: ...
    @property
    def permission_waiters(self) -> dict[str, asyncio.Future[Any]]: ...
    @property
    def checkpoints(self) -> CheckpointLog: ...
    @property
    def environment(self) -> Environment: ...

    def output_dir(self) -> Path: ...

    def output_limits(self, name: str, default: truncation.Limits) -> truncation.Limits: ...


class Compacting(Accounts, Protocol):
    """What compaction reads (the model, the tools' definitions, the prompt) and sets."""

    compacting: bool
    compaction_floor: int
    model_calls: int

    @property
    def config(self) -> SessionConfig: ...
    @property
    def cycle(self) -> Cycle: ...
    @property
    def hooks(self) -> Hooks: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def prompt(self) -> SystemPrompt | None: ...
    @property
    def compaction_requests(self) -> list[str]: ...
    @property
    def sleep(self) -> Callable[[float], Awaitable[None]]: ...

    def context_window(self) -> int: ...

    def system_prompt(self) -> str: ...


class Ending(Accounts, Calls, Waits, Protocol):
    """The steps that end a cycle: a last model call, partial text kept, the round settled."""


class Opening(Books, Protocol):
    """What the first step of a cycle reads: the prompt hooks, the project's prompt, the loop
    detector it resets."""

    @property
    def hooks(self) -> Hooks: ...
    @property
    def prompt(self) -> SystemPrompt | None: ...
    @property
    def loops(self) -> LoopDetector: ...


class ModelCall(Compacting, Calls, Protocol):
    """The loop's model call: compaction first when due, the context warning, the stream."""

    def estimate(self, request: Request) -> int: ...

    def context_warning(self, tokens: int) -> WarningEvent | None: ...


class Parent(Protocol):
    """What a subagent is built from: its parent as it is when the child is spawned (the
    host may have changed the model or the config since the session started)."""

    @property
    def session_id(self) -> str: ...
    @property
    def model(self) -> Model: ...
    @property
    def config(self) -> SessionConfig: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def hooks(self) -> Hooks: ...
    @property
    def can_use_tool(self) -> CanUseTool | None: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def checkpoints(self) -> CheckpointLog: ...
    @property
    def environment(self) -> Environment: ...

"""``Runtime``: the mutable state of one session that the turn loop works on.

The loop (``taor.agent.loop.cycle``) reads top to bottom and asks the runtime for each step; the
runtime holds the model, environment, tools, config, transcript, ledgers and queues, and does
the bookkeeping: appending turns (to the transcript and the store), draining steering, building
requests, checking limits. It knows nothing of subscribers: events are returned or yielded.
The turn loop and the session's lifecycle hold it whole; each step takes only the parts it
reads and writes (``taor.agent.parts``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from taor.agent.checkpoints.log import CheckpointLog, folder_for
from taor.agent.config import SessionConfig
from taor.agent.context.ledger import TokenLedger, UsageLedger
from taor.agent.context.prompt.cache import SystemPrompt
from taor.agent.cycle_state import Cycle
from taor.agent.events import (
    Event,
    Numbering,
    PermissionRequest,
    SteeringInjected,
    TurnLimit,
    WarningEvent,
)
from taor.agent.parts import CanUseTool
from taor.agent.policy.decisions import Decision
from taor.agent.policy.hooks import Hooks
from taor.agent.policy.loop_detection import LoopDetector
from taor.agent.policy.permissions import PermissionPolicy
from taor.agent.record.store import FileTranscriptStore, TranscriptStore
from taor.agent.record.summary import recorded_totals
from taor.agent.record.transcript import Transcript
from taor.agent.record.turns import SteeringSource, SteeringTurn, Turn, UserTurn
from taor.agent.record.unicode import repaired, scrubbed
from taor.env.base import Environment
from taor.llm.catalog import Catalog
from taor.llm.model import Model
from taor.llm.types import Request, ToolChoice
from taor.tools import truncation
from taor.tools.registry import ToolRegistry

SessionState = Literal["idle", "running", "awaiting_permission", "compacting", "closed"]


@dataclass(kw_only=True)
class Runtime:
    """What lives for the whole session (``cycle`` is the current input's). ``state`` is
    derived from three facts, each with one owner: ``busy`` (the driver: an input is running or
    queued), ``compacting`` (the compaction step) and ``permission_waiters`` (the permission
    step, while the host is asked; ``parked`` before a resumed session asks again)."""

    session_id: str
    model: Model
    environment: Environment
    tools: ToolRegistry
    config: SessionConfig
    catalog: Catalog
    transcript: Transcript
    store: TranscriptStore | None = None
    hooks: Hooks = field(default_factory=Hooks)
    can_use_tool: CanUseTool | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    prompt: SystemPrompt | None = None
    cycle: Cycle = field(default_factory=Cycle)
    busy: bool = False
    compacting: bool = False
    permission_waiters: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    parked: PermissionRequest | None = None  # resumed waiting on it, until it is answered
    parked_answer: Decision | None = None  # the host's answer to it, given before it was asked
    steering: deque[str] = field(default_factory=deque)
    compaction_requests: list[str] = field(default_factory=list)  # Session.compact focuses
    compaction_floor: int = 0  # no threshold compaction below this estimate (see loop.compact_step)
    model_calls: int = 0
    last_estimate: int = 0
    scratch_dir: Path = field(  # output_dir() without a JSONL store; created when first used
        default_factory=lambda: Path(tempfile.gettempdir()) / f"taor-outputs-{uuid.uuid4().hex}"
    )
    owns_checkpoints: bool = True  # False for a subagent: it records into its parent's
    numbering: Numbering = field(default_factory=Numbering)  # of the events (channel publishes)
    checkpoints: CheckpointLog = field(init=False)
    usage: UsageLedger = field(init=False)
    before: tuple[int, float | None] = field(init=False)  # model calls, cost before a resume
    tokens: TokenLedger = field(init=False)
    loops: LoopDetector = field(init=False)
    permissions: PermissionPolicy = field(init=False)

    @property
    def state(self) -> SessionState:
        if self.permission_waiters or self.parked is not None:
            return "awaiting_permission"
        if self.compacting:
            return "compacting"
        return "running" if self.busy else "idle"

    def new_cycle(self) -> Cycle:
        self.cycle = Cycle(started=self.clock())
        return self.cycle

    def __post_init__(self) -> None:
        self.usage = UsageLedger(self.catalog, self.model.provider, self.model.model_id)
        self.before = recorded_totals(self.transcript.turns)
        self.tokens = TokenLedger(self.context_window(), self.config.context_warning)
        self.loops = LoopDetector(self.config.loop_detection)
        self.permissions = PermissionPolicy(
            self.config.permissions, workspace=self.environment.working_directory()
        )
        for turn in self.transcript.turns:  # number on after what the history records
            self.numbering.follow(turn.seq)
        inputs = sum(isinstance(turn, UserTurn) for turn in self.transcript.turns)
        self.checkpoints = CheckpointLog(self.environment, self.checkpoint_dir, turn=inputs)

    def reconfigure(self, config: SessionConfig, *, model: Model | None = None) -> None:
        """Apply a new config and model from the next model call (rules added with
        allow-always stay); what depends on the model, such as the window, follows it."""
        if config.loop_detection != self.config.loop_detection:
            self.loops = LoopDetector(config.loop_detection)
        self.permissions.configure(config.permissions)
        self.config = config
        if model is not None:
            self.model = model
        self.tokens.context_window = self.context_window()

    def context_window(self) -> int:
        if self.config.context_window:
            return self.config.context_window
        return self.catalog.lookup(self.model.provider, self.model.model_id).context_window

    def session_totals(self) -> tuple[int, float | None]:
        """The model calls and cost of the whole session so far, the runs its history
        records included (None: a response could not be priced)."""
        calls, cost = self.before
        now = self.usage.total_cost
        return calls + self.usage.responses, None if cost is None or now is None else cost + now

    async def append(self, turn: Turn) -> None:
        """Record a turn, stamped with the number of the last event published before it: in
        the transcript, and in the store when there is one. A user input starts the next
        checkpoint."""
        turn = dataclasses.replace(turn, seq=self.numbering.last)
        self.transcript.append(turn)
        if isinstance(turn, UserTurn) and self.owns_checkpoints:
            self.checkpoints.start_turn(self.checkpoints.turn + 1)
        if self.store is not None:
            await self.store.append(turn)

    async def inject(self, text: str, source: SteeringSource) -> SteeringInjected:
        text, _ = repaired(text)  # steering from a pipe may hold bytes that are not UTF-8
        await self.append(SteeringTurn(text=text, source=source))
        return SteeringInjected(text=text, source=source)

    async def drain_steering(self) -> list[Event]:
        """Move queued steering into the history (after results: a user-side message)."""
        events: list[Event] = []
        while self.steering:
            events.append(await self.inject(self.steering.popleft(), "user"))
        return events

    def request(self, *, tool_choice: ToolChoice | None = None) -> Request:
        """The next request, derived from the transcript (checked by the validator first)."""
        self.transcript.check()
        config = self.config
        request = Request(
            messages=self.transcript.messages(),
            model=self.model.model_id,
            system=self.system_prompt(),
            tools=tuple(self.tools.definitions()),
            tool_choice=dataclasses.replace(
                tool_choice or ToolChoice(), parallel=config.parallel_tool_calls is not False
            ),
            max_tokens=config.max_tokens,
            temperature=config.temperature,
            reasoning_effort=config.reasoning_effort,
            provider_options=config.provider_options,
            metadata={"session_id": self.session_id},  # OpenAI's prompt_cache_key
        )
        return scrubbed(request)  # text that is not UTF-8 is never sent (``record.unicode``)

    def system_prompt(self) -> str:
        """The config's prompt when it sets one, else the session's built prompt (byte-stable)."""
        if self.config.system_prompt or self.prompt is None:
            return self.config.system_prompt
        return self.prompt.current()

    def estimate(self, request: Request) -> int:
        """The tokens ``request`` sends (calibrated); kept to calibrate on the response."""
        self.last_estimate = self.tokens.estimate(request.messages, request.system, request.tools)
        return self.last_estimate

    def context_warning(self, tokens: int) -> WarningEvent | None:
        if not self.tokens.should_warn(tokens):
            return None
        window = self.tokens.context_window
        return WarningEvent(
            message=f"The conversation is about {tokens} tokens, {tokens * 100 // window}% of "
            f"the model's {window}-token context window.",
            code="context_window",
        )

    def output_dir(self) -> Path:
        """Where commands leave whole outputs too big to keep in memory: beside the JSONL
        transcript (``<name>.outputs/``, kept with it), else ``scratch_dir`` (removed at close).
        Nothing is created until an output needs it."""
        if isinstance(self.store, FileTranscriptStore):  # a store kept in a file
            path = self.store.path
            return path.with_name(f"{path.stem}.outputs")
        return self.scratch_dir

    def checkpoint_dir(self) -> Path:
        """Where the checkpoints go: ``<name>.checkpoints/`` beside the JSONL transcript, else
        in ``scratch_dir``."""
        return folder_for(self.store, self.scratch_dir, self.session_id)

    def limit_reached(self) -> TurnLimit | None:
        """The first limit the next model call would break, as the event that reports it."""
        limits = self.config.limits
        checks: list[tuple[Any, float, float]] = [
            ("model_calls", limits.max_model_calls, self.model_calls),
            ("tool_rounds", limits.max_tool_rounds, self.cycle.rounds),
            ("tool_calls", limits.max_tool_calls, self.cycle.calls),
            ("wall_time", limits.max_wall_time, self.clock() - self.cycle.started),
            ("cost", limits.max_cost, self.usage.known_cost),
        ]
        for name, limit, value in checks:
            if limit and value >= limit:
                return TurnLimit.reached(name, limit, value)
        return None

    def spent(self) -> TurnLimit | None:
        """The session's call or cost limit when it is used up: no further call may start, not
        even taor's own (a summary, a recovery, a retry)."""
        limits = self.config.limits
        if limits.max_model_calls and self.model_calls >= limits.max_model_calls:
            return TurnLimit.reached("model_calls", limits.max_model_calls, self.model_calls)
        if limits.max_cost and self.usage.known_cost >= limits.max_cost:
            return TurnLimit.reached("cost", limits.max_cost, self.usage.known_cost)
        return None

    def calls_left(self) -> int | None:
        """How many more requests the call limit allows (None: no call limit)."""
        limit = self.config.limits.max_model_calls
        return max(0, limit - self.model_calls) if limit else None

    def wall_time_limit(self) -> TurnLimit:
        """The event for the wall-time deadline, which passed while a step was in flight."""
        limit = self.config.limits.max_wall_time
        return TurnLimit.reached("wall_time", limit, max(limit, self.clock() - self.cycle.started))

    def output_limits(self, name: str, default: truncation.Limits) -> truncation.Limits:
        """The limits of the tool called ``name``: those it declares (``default``), with the
        config's characters and lines for it, if any."""
        chars = self.config.tool_output_limits.get(name, default.chars)
        lines = self.config.tool_line_limits.get(name, default.lines)
        if (chars, lines) == (default.chars, default.lines):
            return default
        return truncation.Limits(chars=chars, lines=lines, mode=default.mode)

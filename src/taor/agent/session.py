"""``Session``: the host's handle on an agent.

A session owns a driver task that runs queued inputs one cycle at a time through the turn loop
(``taor.agent.loop.cycle``) and publishes each event to every subscriber
(``taor.agent.channel``), so a slow or absent reader never stalls the loop. ``submit`` and
``events`` subscribe; ``run`` drains one cycle into a ``RunResult``. Commands (``steer``,
``follow_up``, ``compact``, ``interrupt``, ``decide``, ``configure``: ``taor.agent.control``)
and ``close`` may come at any time and are acknowledged by events.

States: ``idle``, ``running``, ``awaiting_permission``, ``compacting``, ``closed``. A session with a
transcript store that is closed while it waits for a permission answer is parked: reopened
(``resume``, in any process), it waits on the same request (``taor.agent.record.parking``).
An interrupt stops the current cycle (inputs queued after it still run); ``close`` stops
everything: the stream, every process group of the environment, queued inputs; pending calls get
synthetic results, the store is flushed, ``session_end`` is the last event.

``mcp_servers`` are started with the session, concurrently, each within its timeout, as one
tool source (``taor.agent.mcp``); ``mcp`` is that source (None without servers), whose
``attach`` and ``prompt`` reach their resources and prompts.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Unpack

from taor.agent.channel import Channel
from taor.agent.config import SessionConfig
from taor.agent.control import SessionControl
from taor.agent.driver import Driver
from taor.agent.events import (
    Event,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
)
from taor.agent.lifecycle import open_session, release
from taor.agent.mcp import attach_mcp
from taor.agent.parts import CanUseTool
from taor.agent.policy.hooks import Hooks
from taor.agent.record.persist import create_store, mark_last_event, reopen
from taor.agent.record.store import TranscriptStore
from taor.agent.record.transcript import Transcript
from taor.agent.record.turns import Turn
from taor.agent.reports import SessionReports
from taor.agent.result import ResultBuilder, RunResult
from taor.agent.runtime import Runtime, SessionState
from taor.agent.setup import (
    ProfileChoice,
    SessionOptions,
    resolve_environment,
    resolve_model,
    resolve_profile,
    resolve_tools,
    with_profile_defaults,
)
from taor.agent.subagents.wiring import attach_subagents
from taor.env.base import Environment
from taor.errors import AuthenticationError
from taor.llm.catalog import Catalog
from taor.llm.model import Model
from taor.llm.types import ImagePart, ToolResultPart
from taor.tools.base import Tool
from taor.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from taor.agent.commands import Command, Reply
    from taor.tools.mcp.config import McpServerConfig


class Session(SessionControl, SessionReports):
    """An agent working in an environment; see the module docstring and the README."""

    def __init__(
        self,
        model: Model | str,
        *,
        environment: Environment | None = None,
        tools: Iterable[Tool] | ToolRegistry | None = None,
        config: SessionConfig | None = None,
        store: TranscriptStore | None = None,
        history: Iterable[Turn] = (),
        hooks: Hooks | None = None,
        can_use_tool: CanUseTool | None = None,
        catalog: Catalog | None = None,
        session_id: str | None = None,
        profile: ProfileChoice = "auto",
        mcp_servers: Sequence[McpServerConfig] = (),
    ) -> None:
        model, self._owns_model = resolve_model(model)
        environment = resolve_environment(environment)
        self.profile = resolve_profile(profile, model)
        registry = resolve_tools(tools, self.profile)
        config = with_profile_defaults(config or SessionConfig(), self.profile)
        self.id = session_id or uuid.uuid4().hex
        self._rt = Runtime(
            session_id=self.id,
            model=model,
            environment=environment,
            tools=registry,
            config=config,
            catalog=catalog or Catalog.default(),
            transcript=Transcript(history),
            store=store,
            hooks=hooks or Hooks(),
            can_use_tool=can_use_tool,
        )
        self._resumed = bool(self._rt.transcript.turns)
        self._channel = Channel(self._rt.numbering)
        self.subagents = attach_subagents(
            self._rt,
            self.profile,
            self._channel.publish,
            tools_given=tools is not None,
            make_session=type(self),
        )
        self._driver = Driver(self._rt, self._channel, start=self.start, release=self._release)
        self._started = False
        self._notes: tuple[str, ...] = ()
        self._settled: tuple[ToolResultPart, ...] = ()
        self._opening: tuple[Event, ...] = ()  # session_start and its warnings, for late readers
        self.mcp = attach_mcp(registry, environment, mcp_servers, self._mcp_status)
        self._early: list[Event] = []  # MCP statuses of start-up, published after session_start

    @classmethod
    def recorded(
        cls,
        path: str | os.PathLike[str],
        model: Model | str,
        *,
        session_id: str | None = None,
        history: Iterable[Turn] = (),
        **options: Unpack[SessionOptions],
    ) -> Session:
        """A new session whose transcript is written to a new JSONL file at ``path``, starting
        from ``history`` (a fork: those turns are written first); ``options``: the keyword
        arguments of ``Session``."""
        history = tuple(history)
        session = cls(model, session_id=session_id, history=history, **options)
        rt = session._rt
        store = create_store(
            path,
            session_id=session.id,
            provider=rt.model.provider,
            model=rt.model.model_id,
            cwd=rt.environment.working_directory(),
        )
        for turn in history:
            store.append_sync(turn)
        rt.store = store
        return session

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        model: Model | str,
        **options: Unpack[SessionOptions],
    ) -> Session:
        """Reopen the session recorded at ``path`` and continue it (same id, same file;
        ``options``: the keyword arguments of ``Session`` other than history and id). A session
        closed while it waited for a permission answer resumes waiting: ``parked`` is the
        request, which ``start`` asks again (the same request id) before any input runs."""
        reopened = reopen(path)
        session = cls(
            model, history=reopened.turns, session_id=reopened.header.session_id, **options
        )
        session._rt.store = reopened.store
        session._rt.numbering.follow(reopened.last_seq)
        session._notes = reopened.notes
        session._settled = reopened.settled
        if reopened.parked is not None:  # closed while it waited for a permission answer
            session._driver.go_on(reopened.parked)
        return session

    # --- facts ---

    @property
    def state(self) -> SessionState:
        return "closed" if self._driver.closed else self._rt.state

    @property
    def parked(self) -> PermissionRequest | None:
        """The permission request a resumed session waits on since before it was parked, until
        it is answered; ``decide`` answers it at any time, also before ``start`` asks it again."""
        return self._rt.parked

    @property
    def history(self) -> list[Turn]:
        return list(self._rt.transcript.turns)

    @property
    def config(self) -> SessionConfig:
        return self._rt.config

    @property
    def tools(self) -> ToolRegistry:
        return self._rt.tools

    # --- lifecycle ---

    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Initialize the environment and emit ``session_start`` (done by the first submit)."""
        if self._started:
            return
        self._started = True
        opening = await open_session(
            self._rt,
            self.profile,
            resumed=self._resumed,
            notes=self._notes,
            settled=self._settled,
        )
        early, self._early = self._early, []
        self._opening = tuple(self._channel.publish(event) for event in (*opening, *early))
        if self._rt.parked is not None:  # resumed waiting for an answer: ask it again now
            self._driver.wake()

    async def close(self, reason: str = "closed") -> None:
        """Stop everything, answer pending calls, flush, emit ``session_end``. Idempotent."""
        await self._driver.close(reason)

    # --- commands ---

    def submit(self, text: str, *, images: Sequence[ImagePart] = ()) -> AsyncIterator[Event]:
        """Start a cycle (queued behind a running one); iterate its events up to its end.
        ``images`` go to the model with the text (``taor.agent.context.mentions`` reads them
        from ``@path``); a model that takes none gets an error for them from its provider."""
        cycle = self._driver.enqueue(text, tuple(images))
        return self._channel.stream(
            until=lambda e: (
                not e.agent_id  # a child's events pass through
                and (
                    (isinstance(e, ProcessingEnd) and e.cycle == cycle) or isinstance(e, SessionEnd)
                )
            )
        )

    def events(self) -> AsyncIterator[Event]:
        """Every event from now until ``session_end``, after ``session_start`` (and the warnings
        that came with it) even when the session started before this call."""
        stream = self._channel.stream(until=lambda e: isinstance(e, SessionEnd) and not e.agent_id)
        for event in self._opening:
            stream.subscriber.put(event)
        return stream

    async def run(self, text: str) -> RunResult:
        """Run one cycle to its end. Raises only what the caller must handle (authentication)."""
        builder = ResultBuilder()
        async for event in self.submit(text):
            if not event.agent_id:  # not a child's
                builder.feed(event)
        failure = self._rt.cycle.failure
        if isinstance(failure, AuthenticationError):
            await self.close("authentication failed")  # the driver is closing it: wait for that
            raise failure
        return builder.result()

    def run_sync(self, text: str) -> RunResult:
        """``run`` for code without an event loop (one loop per call: the session is closed
        at the end, since its tasks cannot outlive the loop)."""

        async def run_and_close() -> RunResult:
            try:
                return await self.run(text)
            finally:
                await self.close()

        return asyncio.run(run_and_close())

    async def apply(self, command: Command) -> Reply:
        """Carry out a host's command (``taor.agent.commands``) as the method of its name
        does: the checkpoints for ``checkpoints``, what was done for ``rewind``, else None."""
        from taor.agent.commands import apply_command  # only hosts that relay commands need it

        return await apply_command(self, command)

    # --- internals ---

    def _mcp_status(self, event: Event) -> None:
        if self._opening:
            self._channel.publish(event)
        else:
            self._early.append(event)

    async def _release(self) -> None:
        if self.subagents is not None:
            await self.subagents.close_all()  # their last events are numbered before the mark
        if self._started:  # the number session_end is about to take
            await mark_last_event(self._rt.store, self._rt.numbering.last + 1)
        await release(self._rt, self.subagents, started=self._started, owns_model=self._owns_model)

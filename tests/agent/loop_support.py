"""Helpers for the scripted session-loop tests (tests/agent/test_session_*.py)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from taor.agent.config import Limits, PermissionConfig, SessionConfig
from taor.agent.events import Event
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import ProviderError
from taor.llm.events import StreamEvent
from taor.llm.retry import RetryPolicy
from taor.llm.types import Request
from taor.testing import Reply, ScriptedModel
from taor.testing.script import reply_events
from taor.tools.base import ToolContext, ToolOutput

E = TypeVar("E")

FAST_RETRY = RetryPolicy(base_delay=0.001, max_delay=0.01, jitter=0.0)


def config(**fields: Any) -> SessionConfig:
    """A config for loop tests: every call allowed, retries fast, then ``fields``."""
    base = SessionConfig(permissions=PermissionConfig(mode="bypass"), retry=FAST_RETRY)
    return replace(base, **fields)


def limits(**fields: Any) -> SessionConfig:
    return config(limits=Limits(**fields))


def session(
    model: Any,
    env: MemoryEnvironment | None = None,
    cfg: SessionConfig | None = None,
    **kwargs: Any,
) -> Session:
    return Session(model, environment=env or MemoryEnvironment(), config=cfg or config(), **kwargs)


async def collect(s: Session, text: str) -> list[Event]:
    """Every event of the cycle started by ``text``, in order."""
    return [event async for event in s.submit(text)]


def of(events: Iterable[Any], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def assert_valid(s: Session) -> None:
    assert problems(s.history) == []


class Broken:
    """A step of ``BreakingModel``: ``reply`` streams ``after`` events, then the connection
    fails with ``error`` (what an adapter raises for a reset or a malformed chunk)."""

    def __init__(self, reply: Reply, after: int, error: ProviderError) -> None:
        self.reply, self.after, self.error = reply, after, error


class BreakingModel:
    """A model playing ``ScriptedModel`` steps and ``Broken`` ones, recording every request."""

    def __init__(self, steps: Iterable[Any]) -> None:
        self._steps = deque(steps)
        self._inner = ScriptedModel()
        self.requests: list[Request] = []

    provider = "scripted"
    model_id = "scripted-model"

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        step = self._steps.popleft()
        if not isinstance(step, Broken):
            self._inner.push(step)
            async for event in self._inner.stream(request):
                yield event
            return
        events = reply_events(step.reply, call_ids=iter(["broken_1"]))
        for n, event in enumerate(events):
            if n >= step.after:
                raise step.error
            yield event

    async def aclose(self) -> None:
        return None


class WaitTool:
    """A read-only tool: ``{"wait_for": name, "set": name}`` sets one shared event and waits
    for another, so two calls finish only if they run at the same time."""

    name = "rendezvous"
    description = "Set one event and wait for another."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"set": {"type": "string"}, "wait_for": {"type": "string"}},
        "required": ["set"],
    }
    read_only = True

    def __init__(self) -> None:
        self.flags: dict[str, asyncio.Event] = {}
        self.finished: list[str] = []

    def flag(self, name: str) -> asyncio.Event:
        return self.flags.setdefault(name, asyncio.Event())

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        self.flag(arguments["set"]).set()
        if "wait_for" in arguments:
            await asyncio.wait_for(self.flag(arguments["wait_for"]).wait(), 5)
        self.finished.append(arguments["set"])
        return ToolOutput.of(f"{arguments['set']} done")


class RecordingWriteTool:
    """A tool that writes (so runs alone): records start and end of each call in ``log``;
    yields to the loop in between so an overlap would show."""

    name = "record"
    description = "Record a step."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"step": {"type": "string"}},
        "required": ["step"],
    }
    read_only = False

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        self.log.append(f"start {arguments['step']}")
        for _ in range(3):
            await asyncio.sleep(0)
        self.log.append(f"end {arguments['step']}")
        return ToolOutput.of(f"recorded {arguments['step']}")

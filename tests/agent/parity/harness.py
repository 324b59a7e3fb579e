"""The parity harness: one FakeProviderServer for the package, a script the running test fills,
and ``Parity``, which opens a session on the profile under test through its real adapter and
checks what every row checks (a valid transcript, every started call ended)."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import Event, ProcessingEnd, ToolCallEnd, ToolCallStart
from taor.agent.policy.hooks import Hooks
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.llm import RetryPolicy, connect
from taor.testing import FakeProviderServer, RecordedRequest

from .native import MODEL_IDS, Native, tool_definitions

E = TypeVar("E")
CONFIG = SessionConfig(
    permissions=PermissionConfig(mode="bypass"),
    retry=RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.005, jitter=0.0),
)
Route = Callable[[RecordedRequest], bool]


class Script:
    """The replies of the running test. A request goes to the first route whose predicate
    holds (a subagent's own conversation, say), else to the main queue."""

    def __init__(self) -> None:
        self.steps: deque[Any] = deque()
        self.routes: list[tuple[Route, deque[Any]]] = []

    def __call__(self, request: RecordedRequest) -> Any:
        queue = next((q for wants, q in self.routes if wants(request)), self.steps)
        return queue.popleft() if queue else None  # None: the server answers 400

    def push(self, *steps: Any) -> None:
        self.steps.extend(steps)

    def route(self, wants: Route, *steps: Any) -> None:
        self.routes.append((wants, deque(steps)))

    def reset(self) -> None:
        self.steps.clear()
        self.routes.clear()

    def left(self) -> int:
        return len(self.steps) + sum(len(q) for _, q in self.routes)


@dataclass(kw_only=True, slots=True)
class Parity:
    """One row on one profile: its native calls, its script, its session, its requests."""

    profile: str
    server: FakeProviderServer
    script: Script
    native: Native
    root: str

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.server.requests

    def bodies(self) -> list[dict[str, Any]]:
        return [r.json for r in self.requests]

    @contextlib.asynccontextmanager
    async def session(
        self, env: Any, *, hooks: Hooks | None = None, **config: Any
    ) -> AsyncIterator[Session]:
        """A session on the profile's real adapter; closed, and its transcript checked, after."""
        model = connect(
            f"{self.profile}:{MODEL_IDS[self.profile]}",
            api_key="test",
            base_url=self.server.base_url(self.profile),
        )
        try:
            settings = replace(CONFIG, **config)
            async with Session(model, environment=env, config=settings, hooks=hooks) as session:
                assert session.profile is not None and session.profile.id == self.profile
                yield session
                assert problems(session.history) == []
        finally:
            await model.aclose()

    async def run(self, env: Any, prompt: str, **config: Any) -> list[Event]:
        """Every event of one cycle of ``prompt`` in a new session."""
        async with self.session(env, **config) as session:
            return await cycle(session, prompt)


async def cycle(session: Session, prompt: str) -> list[Event]:
    events = [event async for event in session.submit(prompt)]
    assert_calls_ended(events)
    return events


def of(events: Iterable[Any], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def ends(events: Iterable[Event]) -> list[ToolCallEnd]:
    return of(events, ToolCallEnd)


def assert_calls_ended(events: list[Event]) -> None:
    """Every started call ends, in order, and the cycle ends with processing_end."""
    started = [e.call_id for e in of(events, ToolCallStart)]
    assert sorted(e.call_id for e in ends(events)) == sorted(started)
    assert isinstance(events[-1], ProcessingEnd)


def final(events: list[Event]) -> ProcessingEnd:
    end = events[-1]
    assert isinstance(end, ProcessingEnd)
    return end


def offers(parity: Parity, request: RecordedRequest, tool: str) -> bool:
    return tool in tool_definitions(parity.profile, request.json)


def route_child(parity: Parity, *steps: Any) -> None:
    """Send the requests of a subagent (a session without ``spawn_agent``: children may not
    spawn at the default depth) to ``steps``; the parent's stay on the main queue."""
    parity.script.route(lambda request: not offers(parity, request, "spawn_agent"), *steps)


def skip_unless_subagents(session: Session) -> None:
    if "spawn_agent" not in session.tools.names():
        pytest.skip("subagent wiring pending")

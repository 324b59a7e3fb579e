"""The fault matrix: each real adapter, through its official SDK, against the
loopback FakeProviderServer, with every provider fault on the first model call and on the call
after a tool round. Each ends in its documented state, with its documented events and a valid
transcript; a retry never runs a tool again."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import ErrorEvent, Event, ProcessingEnd, Retry, WarningEvent
from taor.agent.record.transcript import problems
from taor.agent.result import RunResult
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.errors import AuthenticationError
from taor.llm import Message, Request, RetryPolicy, Timeouts, complete, connect
from taor.llm.model import Model
from taor.llm.retry import NO_RETRY
from taor.testing import (
    FakeProviderServer,
    RecordedRequest,
    Reply,
    context_length,
    disconnect,
    malformed,
    overloaded,
    rate_limited,
    server_error,
    stall,
    text,
    tool_calls,
    unauthorized,
)

PROVIDERS = ["anthropic", "openai", "openai-compat", "gemini"]
POSITIONS = ["first_call", "after_tool_round"]
IDLE = 0.5
RETRY_AFTER = 0.01
CONFIG = SessionConfig(
    timeouts=Timeouts(idle=IDLE),
    retry=RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.005, jitter=0.0),
    permissions=PermissionConfig(mode="bypass"),
)
pytestmark = pytest.mark.asyncio(loop_scope="module")  # the models outlive a test
COMMAND = "touch side-effect"
LONG = Reply(text="an answer long enough to break part-way through", chunk=4)  # many frames


@dataclass(frozen=True, kw_only=True, slots=True)
class Retryable:
    step: Any
    error_type: str


RETRYABLE = {
    "429": Retryable(step=rate_limited(retry_after=RETRY_AFTER), error_type="RateLimitError"),
    "529": Retryable(step=overloaded(), error_type="OverloadedError"),
    "500": Retryable(step=server_error(), error_type="ServerError"),
    "reset_before_first_byte": Retryable(step=disconnect(after=0), error_type="NetworkError"),
    "reset_mid_stream": Retryable(
        step=disconnect(after=3, reply=LONG),
        error_type="StreamInterruptedError",
    ),
    "stall": Retryable(step=stall(IDLE * 4, after=2, reply=LONG), error_type="IdleTimeoutError"),
    "malformed": Retryable(
        step=malformed(after=2, reply=LONG), error_type="StreamInterruptedError"
    ),
}


class Script:
    """The steps of the running test: the module's one server asks it for each reply."""

    def __init__(self) -> None:
        self.steps: deque[Any] = deque()

    def __call__(self, request: RecordedRequest) -> Any:
        return self.steps.popleft() if self.steps else None  # None: the server answers 400

    def push(self, *steps: Any) -> None:
        self.steps.extend(steps)


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[FakeProviderServer, Script]]:
    steps = Script()
    with FakeProviderServer(default=steps, record=False) as server:
        yield server, steps


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def models(shared: tuple[FakeProviderServer, Script]) -> AsyncIterator[dict[str, Model]]:
    server, steps = shared
    built = {
        p: connect(f"{p}:fault-model", api_key="test", base_url=server.base_url(p))
        for p in PROVIDERS
    }
    # Warm up: a model's first call imports its SDK and builds the client, which can block the
    # event loop for longer than the tiny idle timeout of these tests.
    for model in built.values():
        steps.push(text("warm"))
        await complete(model, Request(messages=(Message.user("hi"),)), retry=NO_RETRY)
    yield built
    for model in built.values():
        await model.aclose()


@pytest.fixture
def server(shared: tuple[FakeProviderServer, Script]) -> Iterator[Script]:
    _, steps = shared
    steps.steps.clear()
    yield steps
    assert not steps.steps, f"{len(steps.steps)} scripted step(s) were never used"


@pytest.fixture(params=PROVIDERS)
def model(request: pytest.FixtureRequest, models: dict[str, Model]) -> Model:
    return models[request.param]


@pytest.fixture
def env() -> MemoryEnvironment:
    environment = MemoryEnvironment(files={"notes.txt": "hello\n"})
    environment.script(COMMAND, "")
    return environment


def script(position: str, fault: Any, *after: Any) -> list[Any]:
    """The server's steps: (a tool round,) the fault, then what follows it."""
    tool_round = [tool_calls(("shell", {"command": COMMAND}))] if position != "first_call" else []
    return [*tool_round, fault, *after]


async def run_collecting(
    session: Session, *inputs: str
) -> tuple[list[RunResult | BaseException], list[Event]]:
    """Run each input in turn (a failure is kept, not raised), then close the session and
    return every event it emitted."""
    stream = session.events()
    events: list[Event] = []

    async def collect() -> None:
        async for event in stream:
            events.append(event)

    collector = asyncio.create_task(collect())
    outcomes: list[RunResult | BaseException] = []
    for text_input in inputs:
        try:
            outcomes.append(await session.run(text_input))
        except Exception as error:
            outcomes.append(error)
    await session.close()
    await asyncio.wait_for(collector, 10)
    return outcomes, events


def assert_tool_ran_once(env: MemoryEnvironment, position: str) -> None:
    expected = 0 if position == "first_call" else 1
    assert len(env.calls_of("run")) == expected
    assert len(env.calls_of("tool:shell")) == expected


def of_kind(events: list[Event], kind: type[Any]) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("fault", list(RETRYABLE))
async def test_retryable_fault_is_retried_and_the_cycle_completes(
    model: Model,
    server: Script,
    env: MemoryEnvironment,
    fault: str,
    position: str,
) -> None:
    case = RETRYABLE[fault]
    server.push(*script(position, case.step, text("Recovered and done.")))
    session = Session(model, environment=env, config=CONFIG, profile=None)
    (result,), events = await run_collecting(session, "do the thing")

    assert isinstance(result, RunResult), result
    assert (result.stop_reason, result.text, result.error) == (
        "completed",
        "Recovered and done.",
        None,
    )
    (retry,) = of_kind(events, Retry)
    assert (retry.attempt, retry.error_type) == (1, case.error_type), retry
    if fault == "429":
        assert retry.delay == pytest.approx(RETRY_AFTER)  # Retry-After wins over the backoff
    assert not of_kind(events, ErrorEvent)
    assert problems(session.history) == []
    answers = [t for t in session.history if t.kind == "assistant"]
    assert len(answers) == (1 if position == "first_call" else 2)  # the failed try is not kept
    assert_tool_ran_once(env, position)


@pytest.mark.parametrize("position", POSITIONS)
async def test_unauthorized_closes_the_session_and_run_raises(
    model: Model, server: Script, env: MemoryEnvironment, position: str
) -> None:
    server.push(*script(position, unauthorized()))
    session = Session(model, environment=env, config=CONFIG, profile=None)
    (outcome,), events = await run_collecting(session, "do the thing")

    assert isinstance(outcome, AuthenticationError), outcome
    (error,) = of_kind(events, ErrorEvent)
    assert (error.fatal, error.error_type) == (True, "AuthenticationError")
    assert not of_kind(events, Retry)
    assert session.state == "closed"
    assert [e.stop_reason for e in of_kind(events, ProcessingEnd)] == ["error"]
    assert events[-1].kind == "session_end"
    assert problems(session.history) == []
    assert_tool_ran_once(env, position)


@pytest.mark.parametrize("position", POSITIONS)
async def test_context_length_ends_the_cycle_and_the_session_stays_usable(
    model: Model, server: Script, env: MemoryEnvironment, position: str
) -> None:
    server.push(*script(position, context_length(), text("Still here.")))
    session = Session(model, environment=env, config=CONFIG, profile=None)
    (first, second), events = await run_collecting(session, "do the thing", "go on")

    assert isinstance(first, RunResult), first
    assert first.stop_reason == "error"
    (error,) = of_kind(events, ErrorEvent)
    assert (error.fatal, error.error_type) == (False, "ContextLengthError")
    assert "context_length" in [w.code for w in of_kind(events, WarningEvent)]
    assert not of_kind(events, Retry)
    assert isinstance(second, RunResult), second
    assert (second.stop_reason, second.text) == ("completed", "Still here.")
    assert problems(session.history) == []
    assert_tool_ran_once(env, position)

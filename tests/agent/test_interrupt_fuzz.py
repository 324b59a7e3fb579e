"""Interrupt and abort at 500 random points of scripted multi-tool sessions.

Each case is built from its seed: a scripted model whose first input runs one to three rounds of
tool calls (concurrent reads, slow shell commands, writes), streaming its text slowly, with
retryable failures (and a real, short back-off) before some replies; the input ends with a
stalled model call, so the cycle is still running wherever the point falls. The point is the
n-th event of a kind (plus a small random delay) or a random delay after the input. There the
test calls ``interrupt()`` or, in a share of the cases, ``close()`` and checks:

1. the transcript passes the validator;
2. nothing the tools started still runs (handler tasks; real grandchildren on the local runs);
3. after an interrupt the session is idle and the next input runs to completion with valid
   requests; after a close it is closed, ``session_end`` was the last event and ``submit``
   raises ``SessionClosedError``;
4. the interrupted cycle's iterator ended with ``processing_end`` (interrupted or closed);
5. an ``interrupted`` event acknowledged it;
6. text streamed before the stop is kept (a partial assistant turn), none is invented.

A failure names its case; rerun it alone with ``pytest -k "<family>-<seed>"``.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import (
    AssistantTextDelta,
    AssistantTextEnd,
    AssistantTextStart,
    Event,
    Interrupted,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
)
from taor.agent.record.transcript import problems
from taor.agent.record.turns import AssistantTurn, Turn
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.errors import OverloadedError, RateLimitError, SessionClosedError
from taor.llm.events import TextDelta
from taor.llm.retry import RetryPolicy
from taor.llm.types import Request, ToolCallPart, ToolResultPart
from taor.testing import ScriptedModel, ToolCall, text, tool_calls
from taor.tools.registry import ToolRegistry

CASES = {
    "stream": 105,
    "tool": 105,
    "permission": 85,
    "retry": 85,
    "clock": 60,
    "early": 30,
    "local": 30,
}
TARGET = {
    "early": "submit",
    "stream": "assistant_text_delta",
    "tool": "tool_call_start",
    "permission": "permission_request",
    "retry": "retry",
    "clock": "user_input",
    "local": "tool_call_start",
}
CHUNK = 4  # characters per streamed text delta
PAUSE = 0.0005  # seconds before each streamed text delta
BACKOFF = 0.005  # seconds of retry back-off
WAIT = 5.0  # seconds any one step of a case may take before the case fails
WORDS = ("reading", "the", "files", "then", "running", "checks", "and", "writing", "notes")


def _points() -> list[Any]:
    return [
        pytest.param(family, seed, id=f"{family}-{seed}")
        for family, count in CASES.items()
        for seed in range(count)
    ]


def test_the_fuzz_has_500_points() -> None:
    assert len(_points()) == 500


# --- the scripted session -------------------------------------------------------------------


@dataclass(kw_only=True, slots=True)
class Plan:
    """The first input's script and what it will produce."""

    steps: list[Any] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    deltas: int = 0
    failures: int = 0

    def count(self, kind: str) -> int:
        return {
            "assistant_text_delta": self.deltas,
            "tool_call_start": len(self.calls),
            "permission_request": sum(c.name != "read_file" for c in self.calls),
            "retry": self.failures,
            "user_input": 1,
            "submit": 8,  # event-loop ticks after submit(): the cycle may not have started
        }[kind]


def _local_shell(rng: random.Random, pids: Path) -> ToolCall:
    """A real command whose background grandchild (sharing its pipes) it stops itself, unless
    it is stopped first: then only taor can end the grandchild."""
    seconds = rng.uniform(0.02, 0.06)
    command = f"sleep 30 & echo $! >> {pids}; sleep {seconds:.3f}; kill $!; wait; echo done"
    return ToolCall(name="shell", arguments={"command": command})


def _lingering(pids: Path) -> ToolCall:
    """A background child that redirects its output: it outlives its command by design (a dev
    server), not the session."""
    command = f"sleep 30 > /dev/null 2>&1 & echo $! >> {pids.with_name('lingering.txt')}"
    return ToolCall(name="shell", arguments={"command": command})


def _call(rng: random.Random, family: str, pids: Path) -> ToolCall:
    name = rng.choice(("read_file", "read_file", "shell", "shell", "write_file"))
    if name == "shell" and family == "local":
        return _local_shell(rng, pids)
    if name == "shell":
        return ToolCall(name="shell", arguments={"command": f"work {rng.uniform(0.001, 0.01):.4f}"})
    if name == "write_file":
        return ToolCall(name="write_file", arguments={"path": "notes.txt", "content": "x" * 50})
    return ToolCall(name="read_file", arguments={"path": rng.choice(("a.txt", "b.txt"))})


def _failure(rng: random.Random) -> Exception:
    if rng.random() < 0.5:
        return RateLimitError("slow down", provider="scripted", retry_after=BACKOFF)
    return OverloadedError("busy", provider="scripted")


def make_plan(rng: random.Random, family: str, pids: Path) -> Plan:
    plan = Plan()
    for round_number in range(rng.randint(1, 3)):
        least = 1 if family == "retry" and round_number == 0 else 0
        failures = rng.randint(least, 2) if family == "retry" else rng.choice((0, 0, 1, 2))
        plan.steps.extend(_failure(rng) for _ in range(failures))
        plan.failures += failures
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        calls = [_call(rng, family, pids) for _ in range(rng.randint(1, 3))]
        if family == "local":
            calls.append(_local_shell(rng, pids))
            if round_number == 0 and rng.random() < 0.5:
                calls.insert(0, _lingering(pids))
        if family == "permission" and all(c.name == "read_file" for c in calls):
            calls.append(ToolCall(name="shell", arguments={"command": "work 0.002"}))
        plan.steps.append(tool_calls(*calls, text=words, chunk=CHUNK))
        plan.calls.extend(calls)
        plan.deltas += math.ceil(len(words) / CHUNK)
    plan.steps.append(text("this reply never comes", delay=60))  # still running at any point
    return plan


class Paced:
    """A ``ScriptedModel`` that pauses before each text delta (a slow stream to cut)."""

    def __init__(self, steps: list[Any], pause: float) -> None:
        self.inner = ScriptedModel(steps)
        self.pause = pause

    @property
    def provider(self) -> str:
        return self.inner.provider

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def stream(self, request: Request) -> Any:
        async for event in self.inner.stream(request):
            if isinstance(event, TextDelta):
                await asyncio.sleep(self.pause)
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


class Workers:
    """The handler of the in-memory ``work <seconds>`` commands; counts those still running."""

    def __init__(self) -> None:
        self.active = 0

    async def __call__(self, command: str, cwd: str, env: Mapping[str, str]) -> str:
        self.active += 1
        try:
            await asyncio.sleep(float(command.split()[1]))
            return f"{command}: ok\n"
        finally:
            self.active -= 1


def make_environment(family: str, tmp_path: Path, workers: Workers) -> Any:
    files = {"a.txt": "alpha\n" * 20, "b.txt": "beta\n" * 20}
    if family == "local":
        for name, content in files.items():
            (tmp_path / name).write_text(content)
        return LocalEnvironment(tmp_path)
    env = MemoryEnvironment(files=files)
    env.script(re.compile(r"^work "), workers)
    env.script("echo quick", "quick\n")
    return env


def make_config(family: str) -> SessionConfig:
    asks = PermissionConfig(mode="default", interactive=True)
    return SessionConfig(
        retry=RetryPolicy(max_attempts=4, base_delay=BACKOFF, jitter=0.0),
        permissions=asks if family == "permission" else PermissionConfig(mode="bypass"),
    )


# --- checks ---------------------------------------------------------------------------------


def _running(pid: int) -> bool:
    """True while ``pid`` runs (a zombie left to an init that does not reap counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] not in "ZX"


def live_children(pids: Path, workers: Workers) -> list[int]:
    """Grandchildren (by the pids they wrote) and in-memory commands (as -1) still running."""
    written = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    return [pid for pid in written if _running(pid)] + ([-1] * workers.active)


def unanswered(request: Request) -> list[str]:
    """Tool calls of a request without their results in the next message, in call order."""
    found = []
    messages = list(request.messages)
    for before, after in zip([None, *messages], [*messages, None], strict=True):
        calls = [p.id for p in (before.parts if before else ()) if isinstance(p, ToolCallPart)]
        results = [
            p.call_id for p in (after.parts if after else ()) if isinstance(p, ToolResultPart)
        ]
        if calls != results and (calls or results):
            found.append(f"calls {calls} answered by {results}")
    return found


# --- one case -------------------------------------------------------------------------------


@dataclass(kw_only=True, slots=True)
class Point:
    """Act ``delay`` s after the ``nth`` event of ``kind`` (for ``submit``: ``nth`` event-loop
    ticks after ``submit()``), by ``close()`` when ``abort``, else by ``interrupt()``."""

    kind: str
    nth: int
    delay: float
    abort: bool


def choose_point(rng: random.Random, family: str, plan: Plan) -> Point:
    kind = TARGET[family]
    nth = rng.randint(1 if kind != "submit" else 0, min(plan.count(kind), 20))
    if family == "local":
        shells = [i + 1 for i, c in enumerate(plan.calls) if c.name == "shell"]
        nth = rng.choice(shells)
    delay = {"clock": rng.uniform(0, 0.08), "local": rng.uniform(0, 0.02), "early": 0.0}.get(
        family, rng.choice((0.0, rng.uniform(0, 0.005)))
    )
    return Point(kind=kind, nth=nth, delay=delay, abort=rng.random() < 0.25)


async def _act(session: Session, point: Point) -> None:
    if point.kind == "submit":
        for _ in range(point.nth):
            await asyncio.sleep(0)
    if point.delay:
        await asyncio.sleep(point.delay)
    if point.abort:
        await session.close()
    else:
        session.interrupt()


async def drive_first_input(session: Session, point: Point) -> list[Event]:
    """Submit the input, act at the point (allowing every other permission request), and
    return the cycle's events."""
    events: list[Event] = []
    try:
        return await _drive(session, point, events)
    except TimeoutError:
        raise AssertionError(f"the cycle did not end; events: {[e.kind for e in events]}") from None


async def _drive(session: Session, point: Point, events: list[Event]) -> list[Event]:
    seen = 0
    action: asyncio.Task[None] | None = None
    async with asyncio.timeout(WAIT):
        cycle = session.submit("do the work")
        if point.kind == "submit":
            action = asyncio.create_task(_act(session, point))
        async for event in cycle:
            events.append(event)
            if isinstance(event, PermissionRequest) and not (
                event.kind == point.kind and seen + 1 == point.nth
            ):
                session.decide(event.request_id, "allow")
            if action is None and event.kind == point.kind:
                seen += 1
                if seen == point.nth:
                    action = asyncio.create_task(_act(session, point))
        assert action is not None, "the point was never reached"
        await action
    return events


def check_partial_text(events: list[Event], history: list[Turn]) -> None:
    """The text streamed since the last ``assistant_text_start`` when the stop came is kept
    as a partial assistant turn (and reported as such); without such text, nothing is."""
    starts = [i for i, e in enumerate(events) if isinstance(e, AssistantTextStart)]
    tail = events[starts[-1] :] if starts else []
    if any(isinstance(e, AssistantTextEnd) and not e.partial for e in tail):
        tail = []  # that response was complete
    streamed = "".join(e.delta for e in tail if isinstance(e, AssistantTextDelta))
    partial = [e for e in events if isinstance(e, AssistantTextEnd) and e.partial]
    kept = [t for t in history if isinstance(t, AssistantTurn) and t.partial]
    if streamed.strip():
        assert [e.text for e in partial] == [streamed], (partial, streamed)
        assert [t.message.text for t in kept] == [streamed], kept
    else:
        assert partial == [] and kept == [], (partial, kept)


def check_cycle(events: list[Event], point: Point) -> None:
    last = events[-1]
    stop = "closed" if point.abort else "interrupted"
    assert isinstance(last, ProcessingEnd), f"the cycle ended with {last.kind}"
    assert last.stop_reason == stop, last
    reason = "session closed" if point.abort else "interrupted by the host"
    assert any(isinstance(e, Interrupted) and e.reason == reason for e in events), [
        e.kind for e in events
    ]


async def check_next_input(session: Session, family: str) -> None:
    assert session.state == "idle"
    quick = "echo quick"
    model = ScriptedModel(
        [tool_calls(("read_file", {"path": "a.txt"}), ("shell", {"command": quick})), text("ok")]
    )
    session.configure(model=model, permissions=PermissionConfig(mode="bypass"))
    async with asyncio.timeout(WAIT):
        result = await session.run("go on")
    assert result.stop_reason == "completed", result
    assert len(model.requests) == 2
    for request in model.requests:
        assert unanswered(request) == [], request.messages
    results = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert [r.is_error for r in results] == [False, False], results


async def check_closed(session: Session, everything: list[Event]) -> None:
    assert session.state == "closed"
    assert isinstance(everything[-1], SessionEnd), everything[-1]
    with pytest.raises(SessionClosedError):
        session.submit("more")


async def run_case(family: str, seed: int, tmp_path: Path, tools: ToolRegistry) -> None:
    rng = random.Random(f"{family}:{seed}")
    pids = tmp_path / "pids.txt"
    plan = make_plan(rng, family, pids)
    point = choose_point(rng, family, plan)
    workers = Workers()
    model = Paced(plan.steps, PAUSE if family != "local" else 0.0)
    env = make_environment(family, tmp_path, workers)
    session = Session(model, environment=env, tools=tools, config=make_config(family))
    everything: list[Event] = []

    async def collect() -> None:
        async for event in session.events():
            everything.append(event)

    try:
        collector = asyncio.create_task(collect())
        events = await drive_first_input(session, point)
        check_cycle(events, point)
        check_partial_text(events, session.history)
        assert problems(session.history) == []
        assert live_children(pids, workers) == []
        if point.abort:
            await collector
            await check_closed(session, everything)
        else:
            await check_next_input(session, family)
            assert problems(session.history) == []
    finally:
        async with asyncio.timeout(WAIT):
            await session.close()
            await collector
    assert isinstance(everything[-1], SessionEnd)
    assert live_children(pids, workers) == []
    assert live_children(pids.with_name("lingering.txt"), workers) == []


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    """The default tools, registered once: checking their schemas is the slow part of a new
    session, and the cases do not change the registry."""
    return ToolRegistry(default_tools())


@pytest.mark.parametrize(("family", "seed"), _points())
async def test_interrupt_or_abort_at_a_random_point(
    family: str, seed: int, tmp_path: Path, tools: ToolRegistry
) -> None:
    try:
        await run_case(family, seed, tmp_path, tools)
    except BaseException as error:
        raise AssertionError(f"case {family}-{seed} failed: {error!r}") from error


# --- the window between submit() and the cycle's first step ---------------------------------


async def test_interrupt_right_after_submit_stops_that_input(tools: ToolRegistry) -> None:
    model = ScriptedModel([text("first"), text("second")])
    async with Session(
        model, environment=MemoryEnvironment(), tools=tools, config=make_config("tool")
    ) as session:
        cycle = session.submit("do the work")
        session.interrupt()
        events = [event async for event in cycle]
        interrupted, end = events[-2:]
        assert isinstance(interrupted, Interrupted)
        assert interrupted.reason == "interrupted by the host"
        assert isinstance(end, ProcessingEnd)
        assert (end.cycle, end.stop_reason) == (1, "interrupted")
        assert session.state == "idle"
        assert (await session.run("go on")).text == "first"
        assert problems(session.history) == []


async def test_close_right_after_submit_ends_that_input(tools: ToolRegistry) -> None:
    model = ScriptedModel([text("never")])
    session = Session(
        model, environment=MemoryEnvironment(), tools=tools, config=make_config("tool")
    )
    cycle = session.submit("do the work")
    await session.close()
    events = [event async for event in cycle]
    interrupted, end = events[-2:]
    assert isinstance(interrupted, Interrupted)
    assert interrupted.reason == "session closed"
    assert isinstance(end, ProcessingEnd)
    assert (end.cycle, end.stop_reason) == (1, "closed")
    assert model.requests == []

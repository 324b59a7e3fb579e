"""Subagents through a real parent ``Session``: the subagent tools offered by the
profile or the config, spawn_agent then wait, child events in the parent's stream tagged with
the child's id, send_input, close_agent, the depth limit, parent close while a child runs a real
command, and a child's permission request answered through the parent's ``decide``.

Parent and children share one ``FunctionModel``; ``Agents`` plays each agent's script, chosen by
the first user message of the request (the parent's input, or a child's task)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.events import (
    Event,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
    ToolCallEnd,
    ToolCallOutputDelta,
    ToolCallStart,
    UserInput,
)
from taor.agent.profiles import SUBAGENT_TOOLS
from taor.agent.record.transcript import problems
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.llm.types import Request, TextPart, ToolResultPart
from taor.testing import FunctionModel, Reply, ScriptedModel, text, tool_calls
from taor.testing.script import ToolCall
from taor.tools.base import ToolContext, ToolOutput

from .loop_support import config

PARENT = "delegate the work"
TASK = "count the files"


class Agents:
    """Each agent's script, by the first user message of its requests."""

    def __init__(self, scripts: Mapping[str, list[Any]]) -> None:
        self.scripts = {first: list(steps) for first, steps in scripts.items()}
        self.requests: dict[str, list[Request]] = {first: [] for first in scripts}

    def __call__(self, request: Request) -> Any:
        first = first_text(request)
        self.requests[first].append(request)
        return self.scripts[first].pop(0)

    def model(self) -> FunctionModel:
        return FunctionModel(self)


def first_text(request: Request) -> str:
    message = request.messages[0]
    return "".join(p.text for p in message.parts if isinstance(p, TextPart))


def results_of(request: Request) -> list[ToolResultPart]:
    return [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]


def result_text(result: ToolResultPart) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def ends(events: list[Event], name: str, agent_id: str = "") -> list[ToolCallEnd]:
    return [
        e
        for e in events
        if isinstance(e, ToolCallEnd) and e.name == name and e.agent_id == agent_id
    ]


def with_subagents(**fields: Any) -> SessionConfig:
    return config(subagents=True, **fields)


@dataclass(frozen=True, kw_only=True, slots=True)
class Blocker:
    """A read-only tool that says it started and then waits until cancelled."""

    started: asyncio.Event = field(default_factory=asyncio.Event, compare=False)
    name: str = "block"
    description: str = "Waits until cancelled."
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    read_only: bool = True

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        self.started.set()
        await asyncio.Event().wait()
        return ToolOutput.of("never")


def after(event: asyncio.Event, reply: Reply) -> Any:
    """A model step answering ``reply`` once ``event`` is set."""

    async def step(request: Request) -> Reply:
        await event.wait()
        return reply

    return step


# --- which sessions offer subagents ---


def test_the_profile_decides_unless_the_config_or_the_hosts_tools_say_otherwise() -> None:
    claude = ScriptedModel([], provider="anthropic", model_id="claude-sonnet-4-5")
    env = MemoryEnvironment()
    assert set(SUBAGENT_TOOLS) <= set(Session(claude, environment=env).tools.names())
    assert Session(claude, environment=env).subagents is not None
    off = Session(claude, environment=env, config=SessionConfig(subagents=False))
    assert off.subagents is None and not set(SUBAGENT_TOOLS) & set(off.tools.names())
    depth0 = Session(claude, environment=env, config=SessionConfig(max_subagent_depth=0))
    assert depth0.subagents is None
    own_tools = Session(claude, environment=env, tools=default_tools())
    assert not set(SUBAGENT_TOOLS) & set(own_tools.tools.names())
    double = Session(ScriptedModel([]), environment=env)  # no profile: none unless asked
    assert double.subagents is None
    asked = Session(
        ScriptedModel([]), environment=env, tools=default_tools(), config=with_subagents()
    )
    assert set(SUBAGENT_TOOLS) <= set(asked.tools.names())


# --- spawn, wait, events ---


async def test_spawn_then_wait_gives_output_success_and_turns_used() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("the agent found 3 files"),
            ],
            TASK: [tool_calls(("glob", {"pattern": "*"})), text("there are 3 files")],
        }
    )
    env = MemoryEnvironment(files={"a.py": "", "b.py": "", "c.txt": ""})
    async with Session(agents.model(), environment=env, config=with_subagents()) as s:
        events = [e async for e in s.submit(PARENT)]
        (spawned,) = ends(events, "spawn_agent")
        assert spawned.metadata == {"agent_id": "agent-1", "status": "running"}
        (waited,) = ends(events, "wait")
        assert not waited.is_error
        assert waited.metadata["success"] is True and waited.metadata["turns_used"] == 2
        assert waited.metadata["output"] == "there are 3 files"
        assert "success: yes, turns used: 2" in waited.output
        assert "there are 3 files" in result_text(results_of(agents.requests[PARENT][-1])[0])
        # the child's events went through the parent's submit() iterator, tagged
        child = [e for e in events if e.agent_id == "agent-1"]
        assert isinstance(child[0], SessionStart)
        assert any(isinstance(e, UserInput) and e.text == TASK for e in child)
        assert ends(events, "glob", "agent-1")
        assert any(isinstance(e, ProcessingEnd) for e in child)
        last = events[-1]  # the child's processing_end did not end the parent's cycle
        assert isinstance(last, ProcessingEnd) and not last.agent_id
        assert last.text == "the agent found 3 files"
        assert problems(s.history) == []
        assert problems(s.subagents.session("agent-1").history) == []  # type: ignore[union-attr]
    # the child works on the parent's environment with its own history
    assert [first_text(r) for r in agents.requests[TASK]] == [TASK, TASK]


async def test_run_reports_only_the_parents_own_cycle() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [text("3")],
        }
    )
    async with Session(
        agents.model(), environment=MemoryEnvironment(), config=with_subagents()
    ) as s:
        result = await s.run(PARENT)
    assert result.text == "done" and result.stop_reason == "completed"
    assert result.turns == 3 and result.tool_calls == 2


async def test_a_host_reading_events_sees_the_childs_tagged_and_session_end_last() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [text("3")],
        }
    )
    s = Session(agents.model(), environment=MemoryEnvironment(), config=with_subagents())
    await s.start()
    seen: list[Event] = []

    async def read() -> None:
        async for event in s.events():
            seen.append(event)

    reader = asyncio.create_task(read())
    await s.run(PARENT)
    await s.close()
    await reader
    assert isinstance(seen[-1], SessionEnd) and not seen[-1].agent_id
    child_kinds = [e.kind for e in seen if e.agent_id == "agent-1"]
    assert child_kinds[0] == "session_start" and child_kinds[-1] == "session_end"
    assert "processing_end" in child_kinds and "user_input" in child_kinds


# --- send_input, close_agent ---


async def test_send_input_gives_an_idle_child_a_new_cycle() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                tool_calls(("send_input", {"agent_id": "agent-1", "message": "now the dirs"})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [text("3 files"), text("no dirs")],
        }
    )
    async with Session(
        agents.model(), environment=MemoryEnvironment(), config=with_subagents()
    ) as s:
        events = [e async for e in s.submit(PARENT)]
    (sent,) = ends(events, "send_input")
    assert sent.metadata == {"agent_id": "agent-1", "delivery": "queued"}
    first, second = ends(events, "wait")
    assert first.metadata["output"] == "3 files" and second.metadata["output"] == "no dirs"
    assert second.metadata["turns_used"] == 2
    last_child_request = agents.requests[TASK][-1]
    assert "now the dirs" in str(last_child_request.messages[-1])


async def test_close_agent_cancels_a_running_child_and_keeps_its_transcript_valid() -> None:
    blocker = Blocker()
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                after(blocker.started, tool_calls(("close_agent", {"agent_id": "agent-1"}))),
                text("stopped it"),
            ],
            TASK: [tool_calls(("block", {}))],
        }
    )
    tools = [*default_tools(), blocker]
    async with Session(
        agents.model(), environment=MemoryEnvironment(), tools=tools, config=with_subagents()
    ) as s:
        events = [e async for e in s.submit(PARENT)]
        (closed,) = ends(events, "close_agent")
        assert closed.metadata["status"] == "cancelled" and closed.metadata["success"] is False
        (blocked,) = ends(events, "block", "agent-1")
        assert blocked.is_error
        child = s.subagents.session("agent-1")  # type: ignore[union-attr]
        assert child.state == "closed" and problems(child.history) == []
        assert s.state == "idle"


# --- depth ---


async def test_a_child_at_the_depth_limit_has_no_spawn_tools() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [tool_calls(("spawn_agent", {"task": "deeper"})), text("did it myself")],
        }
    )
    async with Session(
        agents.model(), environment=MemoryEnvironment(), config=with_subagents()
    ) as s:
        events = [e async for e in s.submit(PARENT)]
    offered = {tool.name for tool in agents.requests[TASK][0].tools}
    assert not offered & set(SUBAGENT_TOOLS)
    (refused,) = ends(events, "spawn_agent", "agent-1")
    assert refused.is_error and "spawn_agent" in refused.output
    assert ends(events, "wait")[0].metadata["output"] == "did it myself"


async def test_depth_two_lets_a_child_spawn_and_its_events_are_tagged_with_the_path() -> None:
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [
                tool_calls(("spawn_agent", {"task": "deeper"})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("child done"),
            ],
            "deeper": [tool_calls(("spawn_agent", {"task": "deepest"})), text("leaf done")],
        }
    )
    cfg = with_subagents(max_subagent_depth=2)
    async with Session(agents.model(), environment=MemoryEnvironment(), config=cfg) as s:
        events = [e async for e in s.submit(PARENT)]
    assert any(isinstance(e, UserInput) and e.agent_id == "agent-1/agent-1" for e in events)
    (leaf_spawn,) = ends(events, "spawn_agent", "agent-1/agent-1")
    assert leaf_spawn.is_error  # the grandchild is at the limit
    assert ends(events, "wait")[0].metadata["output"] == "child done"


# --- close ---


async def test_parent_close_while_a_child_runs_a_command_kills_it_then_ends(
    tmp_path: Path,
) -> None:
    command = "echo $$; exec sleep 30"
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(("wait", {"agent_id": "agent-1", "timeout": 600})),
            ],
            TASK: [tool_calls(("shell", {"command": command, "timeout": 60}))],
        }
    )
    s = Session(
        agents.model(), environment=LocalEnvironment(str(tmp_path)), config=with_subagents()
    )
    await s.start()
    seen: list[Event] = []
    started = asyncio.Event()
    output: list[str] = []

    async def read() -> None:
        async for event in s.events():
            seen.append(event)
            if isinstance(event, ToolCallOutputDelta) and event.agent_id == "agent-1":
                output.append(event.delta)
                if "\n" in "".join(output):
                    started.set()  # the command printed its pid: it runs

    reader = asyncio.create_task(read())
    parent_cycle = asyncio.create_task(s.run(PARENT))
    await started.wait()
    pid = int("".join(output).split()[0])
    child = s.subagents.session("agent-1")  # type: ignore[union-attr]
    await s.close()
    await reader
    result = await parent_cycle
    assert result.stop_reason == "closed"
    assert not running(pid)
    assert child.state == "closed" and s.state == "closed"
    assert problems(child.history) == [] and problems(s.history) == []
    assert isinstance(seen[-1], SessionEnd) and not seen[-1].agent_id
    child_end = next(i for i, e in enumerate(seen) if isinstance(e, SessionEnd))
    assert seen[child_end].agent_id == "agent-1"
    (shell_end,) = ends(seen, "shell", "agent-1")
    assert shell_end.is_error


def running(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] not in "ZX"


# --- permissions ---


@pytest.mark.parametrize("by_agent_id", [True, False])
async def test_a_childs_permission_request_is_answered_through_the_parent(
    by_agent_id: bool,
) -> None:
    """By the event's agent_id, or by the request id alone (found among the children)."""
    same_id = "call_x"  # the parent's wait has the id of the child's write (it asks nothing)
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(ToolCall(name="wait", arguments={"agent_id": "agent-1"}, id=same_id)),
                text("done"),
            ],
            TASK: [
                tool_calls(
                    ToolCall(
                        name="write_file", arguments={"path": "n.txt", "content": "3"}, id=same_id
                    )
                ),
                text("wrote it"),
            ],
        }
    )
    env = MemoryEnvironment()
    permissions = PermissionConfig(mode="default", allow=("spawn_agent", "wait"))
    cfg = with_subagents(permissions=permissions)
    requests: list[PermissionRequest] = []
    async with Session(agents.model(), environment=env, config=cfg) as s:
        async for event in s.submit(PARENT):
            if isinstance(event, PermissionRequest):
                requests.append(event)
                if by_agent_id:
                    s.decide(event.request_id, "allow", agent_id=event.agent_id)
                else:
                    s.decide(event.request_id, "allow")
        with pytest.raises(KeyError):
            s.decide("perm_nothing", "allow")
    (request,) = requests
    assert request.agent_id == "agent-1" and request.name == "write_file"
    assert await env.read_text("n.txt") == "3"


async def test_same_request_ids_of_parent_and_child_are_told_apart_by_agent_id() -> None:
    same_id = "call_x"
    both_asked = asyncio.Event()
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                tool_calls(
                    ToolCall(
                        name="write_file", arguments={"path": "p.txt", "content": "P"}, id=same_id
                    )
                ),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("done"),
            ],
            TASK: [
                tool_calls(
                    ToolCall(
                        name="write_file", arguments={"path": "c.txt", "content": "C"}, id=same_id
                    )
                ),
                text("wrote it"),
            ],
        }
    )
    env = MemoryEnvironment()
    cfg = with_subagents(permissions=PermissionConfig(mode="default", allow=("spawn_agent",)))
    pending: list[PermissionRequest] = []
    async with Session(agents.model(), environment=env, config=cfg) as s:
        async for event in s.submit(PARENT):
            if isinstance(event, PermissionRequest):
                pending.append(event)
            if len(pending) == 2 and not both_asked.is_set():
                both_asked.set()  # both wait at once: answer the child with allow, the parent deny
                assert {p.request_id for p in pending} == {f"perm_{same_id}"}
                for request in pending:
                    verdict = "allow" if request.agent_id == "agent-1" else "deny"
                    s.decide(request.request_id, verdict, agent_id=request.agent_id)
    assert both_asked.is_set()
    assert await env.read_text("c.txt") == "C"
    assert not await env.exists("p.txt")


# --- interrupts ---


async def test_interrupting_the_parent_interrupts_its_running_child() -> None:
    blocker = Blocker()
    agents = Agents(
        {
            PARENT: [
                tool_calls(("spawn_agent", {"task": TASK})),
                after(blocker.started, tool_calls(("wait", {"agent_id": "agent-1"}))),
            ],
            TASK: [tool_calls(("block", {})), text("picked up again")],
        }
    )
    tools = [*default_tools(), blocker]
    async with Session(
        agents.model(), environment=MemoryEnvironment(), tools=tools, config=with_subagents()
    ) as s:
        events: list[Event] = []
        async with asyncio.timeout(30):
            async for event in s.submit(PARENT):
                events.append(event)
                if isinstance(event, ToolCallStart) and event.name == "wait":
                    s.interrupt()
            child = s.subagents.session("agent-1")  # type: ignore[union-attr]
            result = await s.subagents.wait("agent-1", timeout=10)  # type: ignore[union-attr]
        assert events[-1].stop_reason == "interrupted"  # type: ignore[attr-defined]
        (blocked,) = [r for t in child.history if t.kind == "tool_results" for r in t.results]
        assert blocked.is_error and "Interrupted" in result_text(blocked)
        assert result.stop_reason == "interrupted" and result.status == "cancelled"
        assert child.state == "idle" and problems(child.history) == []
        # the child stays open: new input gives it a new cycle
        assert s.subagents.send_input("agent-1", "go on") == "queued"  # type: ignore[union-attr]
        result = await s.subagents.wait("agent-1", timeout=10)  # type: ignore[union-attr]
        assert (result.status, result.output) == ("completed", "picked up again")


async def test_interrupting_an_idle_parent_still_stops_its_background_child() -> None:
    blocker = Blocker()
    agents = Agents(
        {
            PARENT: [tool_calls(("spawn_agent", {"task": TASK})), text("started it")],
            TASK: [tool_calls(("block", {}))],
        }
    )
    tools = [*default_tools(), blocker]
    async with Session(
        agents.model(), environment=MemoryEnvironment(), tools=tools, config=with_subagents()
    ) as s:
        assert (await s.run(PARENT)).text == "started it"
        async with asyncio.timeout(30):
            await blocker.started.wait()
            s.interrupt()
            result = await s.subagents.wait("agent-1", timeout=10)  # type: ignore[union-attr]
        assert result.stop_reason == "interrupted"
        assert problems(s.subagents.session("agent-1").history) == []  # type: ignore[union-attr]

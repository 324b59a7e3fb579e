"""Subagents: spawn/wait/send_input/close, events relayed to the
parent tagged with the child id, depth limit, scoped working directories, close_all, fan-out.

Each child is a real ``Session`` over its own ``ScriptedModel`` (chosen by task text) and the
parent's ``MemoryEnvironment`` (or a real directory for the scoped-environment test)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from taor.agent.config import Limits
from taor.agent.events import (
    Event,
    Interrupted,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
    ToolCallEnd,
    ToolCallStart,
    UserInput,
)
from taor.agent.record.transcript import problems
from taor.agent.record.turns import AssistantTurn, ToolResultsTurn, UserTurn
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.agent.subagents import (
    ChildSpec,
    ScopedEnvironment,
    SubagentManager,
    fan_out,
    snapshot,
    split_limits,
    subagent_tools,
)
from taor.env.base import PathPolicyError
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.errors import SessionError
from taor.llm.types import Message, TextPart, ToolCallPart
from taor.testing import Reply, ScriptedModel, text, tool_calls
from taor.tools.base import ToolContext
from taor.tools.decorator import tool

from .loop_support import config, of, session


class Children:
    """A ``ChildFactory``: each child gets a ``ScriptedModel`` playing the script of its task."""

    def __init__(self, scripts: Mapping[str, list[Any]], *, extra_tools: tuple[Any, ...] = ()):
        self.scripts = {task: list(steps) for task, steps in scripts.items()}
        self.extra_tools = extra_tools
        self.specs: list[ChildSpec] = []
        self.sessions: list[Session] = []
        self.models: list[ScriptedModel] = []

    def __call__(self, spec: ChildSpec) -> Session:
        model = ScriptedModel(self.scripts[spec.task], model_id=spec.model or "scripted-model")
        child = Session(
            model,
            environment=spec.environment,
            tools=spec.tools([*default_tools(), *self.extra_tools, *subagent_tools_placeholder()]),
            config=spec.config(config()),
            history=spec.history,
        )
        self.specs.append(spec)
        self.sessions.append(child)
        self.models.append(model)
        return child


def subagent_tools_placeholder() -> list[Any]:
    """Subagent tools of some other manager, as a parent's tool list would carry them:
    ``ChildSpec.tools`` must drop them (and add the child's own when it may spawn)."""
    return subagent_tools(SubagentManager(Children({}), MemoryEnvironment(), publish=print))


def manager_for(
    children: Children, env: Any = None, *, max_depth: int = 1
) -> tuple[SubagentManager, list[Event]]:
    published: list[Event] = []
    manager = SubagentManager(
        children, env or MemoryEnvironment(), publish=published.append, max_depth=max_depth
    )
    return manager, published


def gated(entered: asyncio.Event, gate: asyncio.Event, reply: Reply) -> Callable[[Any], Any]:
    """A model step that sets ``entered`` when called and answers ``reply`` once ``gate`` is."""

    async def step(request: Any) -> Reply:
        entered.set()
        await gate.wait()
        return reply

    return step


@tool(read_only=True)
async def block(context: ToolContext) -> str:
    """Waits until cancelled."""
    await asyncio.Event().wait()
    return "never"


def last_user_text(model: ScriptedModel) -> str:
    message = model.requests[-1].messages[-1]
    return "".join(p.text for p in message.parts if isinstance(p, TextPart))


# --- spawn, wait, events ---


async def test_spawn_then_wait_returns_output_success_and_turns_used() -> None:
    env = MemoryEnvironment()
    children = Children(
        {
            "write notes": [
                tool_calls(("write_file", {"path": "notes.md", "content": "x\n"})),
                text("wrote notes.md"),
            ]
        }
    )
    manager, _ = manager_for(children, env)
    agent_id = await manager.spawn("write notes")
    assert manager.result(agent_id).status == "running"
    result = await manager.wait(agent_id, timeout=10)
    assert (result.status, result.success, result.turns_used) == ("completed", True, 2)
    assert result.output == "wrote notes.md"
    assert env.tree.files["/workspace/notes.md"] == b"x\n"  # the parent's environment
    assert "initialize" not in [c.operation for c in env.log.calls]  # the parent's lifecycle
    await manager.close_all()
    assert "cleanup" not in [c.operation for c in env.log.calls]


async def test_child_events_reach_the_parent_tagged_with_the_child_id() -> None:
    children = Children({"a": [text("A")], "b": [tool_calls(("list_dir", {})), text("B")]})
    manager, published = manager_for(children)
    first, second = await manager.spawn("a"), await manager.spawn("b")
    await manager.wait(first, 10)
    await manager.wait(second, 10)
    await manager.close_all()
    assert {e.agent_id for e in published} == {first, second}
    for agent_id in (first, second):
        own = [e for e in published if e.agent_id == agent_id]
        assert isinstance(own[0], SessionStart) and isinstance(own[-1], SessionEnd)
        assert of(own, ProcessingEnd)[0].stop_reason == "completed"
    assert {(e.agent_id, e.text) for e in of(published, UserInput)} == {(first, "a"), (second, "b")}
    starts = [e for e in of(published, ToolCallStart) if e.agent_id == second]
    assert [e.name for e in starts] == ["list_dir"]


async def test_a_failed_child_reports_failure_with_its_error() -> None:
    children = Children({"go": [tool_calls(("read_file", {"path": "x"}))] * 2})
    manager, _ = manager_for(children)
    children_limits = Limits(max_model_calls=2, summary_on_limit=False)
    agent_id = await manager.spawn("go", limits=children_limits)
    result = await manager.wait(agent_id, 10)
    assert (result.status, result.success, result.stop_reason) == ("failed", False, "turn_limit")
    assert result.turns_used == 2
    await manager.close_all()


# --- send_input ---


async def test_send_input_to_an_idle_child_runs_a_new_cycle() -> None:
    children = Children({"start": [text("first"), text("second")]})
    manager, _ = manager_for(children)
    agent_id = await manager.spawn("start")
    assert (await manager.wait(agent_id, 10)).output == "first"
    assert manager.send_input(agent_id, "now this") == "queued"
    assert manager.result(agent_id).status == "running"
    result = await manager.wait(agent_id, 10)
    assert (result.output, result.turns_used) == ("second", 2)
    assert last_user_text(children.models[0]) == "now this"
    await manager.close_all()


async def test_send_input_to_a_running_child_steers_it() -> None:
    entered, gate = asyncio.Event(), asyncio.Event()
    script = [gated(entered, gate, tool_calls(("list_dir", {}))), text("steered answer")]
    children = Children({"work": script})
    manager, _ = manager_for(children)
    agent_id = await manager.spawn("work")
    await entered.wait()
    assert manager.send_input(agent_id, "also check docs/") == "steered"
    gate.set()
    result = await manager.wait(agent_id, 10)
    assert result.output == "steered answer"
    assert "also check docs/" in last_user_text(children.models[0])
    assert problems(children.sessions[0].history) == []
    await manager.close_all()


async def test_a_message_steered_as_the_cycle_ends_is_not_lost() -> None:
    entered, gate = asyncio.Event(), asyncio.Event()
    children = Children({"work": [gated(entered, gate, text("done early")), text("handled it")]})
    manager, _ = manager_for(children)
    agent_id = await manager.spawn("work")
    await entered.wait()
    manager.send_input(agent_id, "one more thing")  # steered while the model answers: no
    gate.set()  # tool round follows, so the cycle ends with the message still queued
    result = await manager.wait(agent_id, 10)
    assert (result.output, result.turns_used) == ("handled it", 2)
    assert "one more thing" in last_user_text(children.models[0])
    await manager.close_all()


# --- wait timeout, close ---


async def test_wait_with_a_timeout_returns_running_then_close_cancels() -> None:
    children = Children({"slow": [tool_calls(("block", {}))]}, extra_tools=(block,))
    manager, published = manager_for(children)
    agent_id = await manager.spawn("slow")
    running = await manager.wait(agent_id, timeout=0.05)
    assert running.status == "running" and running.output == ""
    closed = await manager.close(agent_id)
    assert (closed.status, closed.success) == ("cancelled", False)
    assert (await manager.wait(agent_id, 0)).status == "cancelled"
    history = children.sessions[0].history
    assert problems(history) == []  # the blocked call got a synthetic result
    assert [e.name for e in of(published, ToolCallStart)] == ["block"]
    results = history[-2]
    assert isinstance(results, ToolResultsTurn) and results.results[0].is_error
    assert [e.agent_id for e in of(published, Interrupted)] == [agent_id]
    assert isinstance(published[-1], SessionEnd) and published[-1].agent_id == agent_id
    with pytest.raises(SessionError, match="closed"):
        manager.send_input(agent_id, "more")


async def test_unknown_agent_ids_are_refused() -> None:
    manager, _ = manager_for(Children({}))
    with pytest.raises(KeyError, match="No agent 'agent-9'"):
        await manager.wait("agent-9", 1)


async def test_close_all_closes_every_child_and_refuses_new_ones() -> None:
    children = Children({"x": [tool_calls(("block", {}))], "y": [text("y")]}, extra_tools=(block,))
    manager, published = manager_for(children)
    ids = [await manager.spawn("x"), await manager.spawn("y")]
    await manager.wait(ids[1], 10)
    await manager.close_all()
    assert [manager.result(i).status for i in ids] == ["cancelled", "completed"]
    assert sorted(e.agent_id for e in of(published, SessionEnd)) == ids
    assert all(s.state == "closed" for s in children.sessions)
    with pytest.raises(SessionError, match="closing"):
        await manager.spawn("y")


# --- the tools, through a parent session ---


async def test_parent_model_spawns_and_waits_through_the_tools() -> None:
    env = MemoryEnvironment()
    children = Children({"count files": [text("3 files")]})
    manager, published = manager_for(children, env)
    parent_model = ScriptedModel(
        [
            tool_calls(("spawn_agent", {"task": "count files", "max_turns": 5, "model": "small"})),
            tool_calls(("wait", {"agent_id": "agent-1", "timeout": 30})),
            tool_calls(("close_agent", {"agent_id": "agent-1"})),
            text("the helper found 3 files"),
        ]
    )
    async with session(parent_model, env, tools=subagent_tools(manager)) as parent:
        events = [e async for e in parent.submit("delegate")]
        await manager.close_all()
    outputs = [e.output for e in of(events, ToolCallEnd)]
    assert outputs[0].startswith("Started agent agent-1 (status: running)")
    assert outputs[1] == (
        "Agent agent-1 completed (success: yes, turns used: 1).\nOutput:\n3 files"
    )
    assert outputs[2].startswith("Agent agent-1 completed")
    assert children.specs[0].limits == Limits(max_model_calls=5)
    assert children.sessions[0].config.limits.max_model_calls == 5
    assert children.models[0].model_id == "small"
    assert all(e.agent_id == "" for e in events)  # the parent's own stream
    assert {e.agent_id for e in published} == {"agent-1"}


async def test_tool_errors_are_results_for_the_model() -> None:
    manager, _ = manager_for(Children({}))
    wait, close = subagent_tools(manager)[2], subagent_tools(manager)[3]
    missing = await wait.execute({"agent_id": "agent-7"}, ToolContext())
    assert missing.is_error and "No agent 'agent-7'" in missing.text
    assert (await close.execute({"agent_id": "nope"}, ToolContext())).is_error


# --- depth ---


async def test_children_at_the_depth_limit_get_no_spawn_tools() -> None:
    children = Children({"leaf": [text("ok")]})
    manager, _ = manager_for(children)  # max depth 1
    await manager.wait(await manager.spawn("leaf"), 10)
    names = children.sessions[0].tools.names()
    assert children.specs[0].subagent_tools == () and children.specs[0].depth == 1
    assert "spawn_agent" not in names and "wait" not in names and "read_file" in names
    await manager.close_all()

    at_limit = SubagentManager(children, MemoryEnvironment(), publish=print, depth=1)
    with pytest.raises(SessionError, match="Depth limit"):
        await at_limit.spawn("leaf")
    refused = await subagent_tools(at_limit)[0].execute({"task": "leaf"}, ToolContext())
    assert refused.is_error and "Depth limit reached" in refused.text


async def test_a_grandchild_is_allowed_under_max_depth_2_and_tagged_by_path() -> None:
    children = Children(
        {
            "lead": [
                tool_calls(("spawn_agent", {"task": "sub"})),
                tool_calls(("wait", {"agent_id": "agent-1"})),
                text("lead done"),
            ],
            "sub": [text("sub done")],
        }
    )
    manager, published = manager_for(children, max_depth=2)
    result = await manager.wait(await manager.spawn("lead"), 10)
    await manager.close_all()
    assert result.output == "lead done"
    lead_spec, sub_spec = children.specs
    assert lead_spec.subagent_tools and sub_spec.subagent_tools == ()
    assert "spawn_agent" in children.sessions[0].tools.names()
    assert "spawn_agent" not in children.sessions[1].tools.names()
    assert {e.agent_id for e in published} == {"agent-1", "agent-1/agent-1"}
    grandchild_end = [e for e in of(published, ProcessingEnd) if e.agent_id == "agent-1/agent-1"]
    assert grandchild_end[0].text == "sub done"


# --- scoped working directory ---


async def test_a_scoped_child_writes_under_its_directory_and_cannot_leave_it() -> None:
    env = MemoryEnvironment(files={"pkg/mod.py": "x = 1\n", "top.txt": "secret\n"})
    children = Children(
        {
            "in pkg": [
                tool_calls(
                    ("write_file", {"path": "out.txt", "content": "hi\n"}),
                    ("write_file", {"path": "../escape.txt", "content": "no\n"}),
                    ("read_file", {"path": "/workspace/top.txt"}),
                    ("grep", {"pattern": "x ="}),
                ),
                text("done"),
            ]
        }
    )
    manager, published = manager_for(children, env)
    await manager.wait(await manager.spawn("in pkg", working_dir="pkg"), 10)
    await manager.close_all()
    assert env.tree.files["/workspace/pkg/out.txt"] == b"hi\n"
    assert "/workspace/escape.txt" not in env.tree.files
    write_ok, escape, outside, grep = of(published, ToolCallEnd)
    assert not write_ok.is_error
    assert escape.is_error and "outside" in escape.output
    assert outside.is_error and "outside" in outside.output
    assert "mod.py" in grep.output and "pkg/" not in grep.output
    with pytest.raises(PathPolicyError):
        await manager_for(children, env)[0].spawn("in pkg", working_dir="../elsewhere")


async def test_scoped_environment_on_a_real_directory(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    parent = LocalEnvironment(str(tmp_path))
    await parent.initialize()
    scoped = ScopedEnvironment(parent, "pkg")
    try:
        assert scoped.working_directory() == str(tmp_path / "pkg")
        await scoped.write("new/c.txt", "gamma\n")
        assert (tmp_path / "pkg" / "new" / "c.txt").read_text() == "gamma\n"
        assert await scoped.read_text("a.txt") == "alpha\n"
        assert (await scoped.stat("a.txt")).path == "a.txt"
        assert sorted(await scoped.glob("**/*.txt")) == ["a.txt", "new/c.txt"]
        assert [m.path for m in await scoped.grep("gamma")] == ["new/c.txt"]
        ran = await scoped.run("pwd && ls")
        assert ran.stdout.splitlines()[0] == str((tmp_path / "pkg").resolve())
        for escape in ("../b.txt", str(tmp_path / "b.txt"), "new/../../b.txt"):
            with pytest.raises(PathPolicyError):
                await scoped.read_text(escape)
    finally:
        await parent.cleanup()


# --- fan-out ---


def test_split_limits_shares_the_budget_evenly() -> None:
    budget = Limits(max_model_calls=7, max_cost=1.5, max_tool_rounds=4)
    share = split_limits(budget, 3)
    assert (share.max_model_calls, share.max_cost, share.max_tool_rounds) == (2, 0.5, 4)
    assert split_limits(Limits(), 3) == Limits()
    with pytest.raises(SessionError, match="cannot be shared"):
        split_limits(Limits(max_model_calls=2), 3)


def test_snapshot_leaves_out_the_call_in_flight() -> None:
    call = ToolCallPart(id="c1", name="fan_out", arguments={})
    turns = [
        UserTurn(content=(TextPart(text="plan"),)),
        AssistantTurn(message=Message(role="assistant", parts=(TextPart(text="ok"), call))),
    ]
    assert snapshot(turns) == (turns[0],)
    assert snapshot(turns[:1]) == (turns[0],)


async def test_fan_out_runs_children_from_the_snapshot_with_the_budget_shared() -> None:
    children = Children(
        {
            "part 1": [text("one")],
            "part 2": [tool_calls(("list_dir", {}))] * 2,  # runs out of its share
        }
    )
    manager, published = manager_for(children)
    history = [
        UserTurn(content=(TextPart(text="the whole job"),)),
        AssistantTurn(message=Message(role="assistant", parts=(TextPart(text="splitting"),))),
    ]
    budget = Limits(max_model_calls=4, max_cost=1.0, summary_on_limit=False)
    results = await fan_out(manager, history, ["part 1", "part 2"], budget=budget, timeout=10)
    first = results[0]
    assert (first.agent_id, first.status, first.output) == ("agent-1", "completed", "one")
    assert (results[1].status, results[1].stop_reason, results[1].turns_used) == (
        "failed",
        "turn_limit",
        2,
    )
    assert [s.limits for s in children.specs] == [
        Limits(max_model_calls=2, max_cost=0.5, summary_on_limit=False)
    ] * 2
    first_request = children.models[0].requests[0]
    texts = [
        "".join(p.text for p in m.parts if isinstance(p, TextPart)) for m in first_request.messages
    ]
    assert texts == ["the whole job", "splitting", "part 1"]
    assert all(s.state == "closed" for s in children.sessions)
    assert len(of(published, SessionEnd)) == 2


async def test_fan_out_closes_children_that_outlive_the_timeout() -> None:
    children = Children(
        {"quick": [text("q")], "stuck": [tool_calls(("block", {}))]}, extra_tools=(block,)
    )
    manager, _ = manager_for(children)
    quick, stuck = await fan_out(manager, [], ["quick", "stuck"], timeout=0.1)
    assert (quick.status, quick.output) == ("completed", "q")
    assert stuck.status == "cancelled"
    assert problems(children.sessions[1].history) == []

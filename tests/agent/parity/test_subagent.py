"""The subagent row: the parent spawns a child with its profile's
subagent tools, the child works in the shared environment through the same adapter, its events
reach the parent's stream tagged with its id, and wait brings its output back as a result."""

from __future__ import annotations

from taor.agent.events import ProcessingEnd, ToolCallEnd, ToolCallStart
from taor.env.memory import MemoryEnvironment
from taor.testing import text, tool_calls

from .harness import Parity, cycle, final, of, offers, route_child, skip_unless_subagents

TASK = "Write a pytest test for add() in test_calc.py."
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


async def test_subagent(parity: Parity) -> None:
    env = MemoryEnvironment(files={"calc.py": "def add(a, b):\n    return a + b\n"})
    async with parity.session(env) as session:
        skip_unless_subagents(session)
        route_child(
            parity,
            tool_calls(parity.native.write("test_calc.py", TESTS)),
            text("Wrote test_calc.py with one test."),
        )
        parity.script.push(
            tool_calls(("spawn_agent", {"task": TASK})),
            tool_calls(("wait", {"agent_id": "agent-1", "timeout": 30})),
            text("A subagent wrote the tests."),
        )
        events = await cycle(session, "Have a subagent write tests for calc.py.")
    assert env.files["test_calc.py"] == TESTS.encode()
    child = [e for e in events if e.agent_id]
    assert {e.agent_id for e in child} == {"agent-1"}
    (write,) = [e for e in of(child, ToolCallStart)]
    assert (write.name, write.arguments) == parity.native.write("test_calc.py", TESTS)
    assert not of(child, ToolCallEnd)[0].is_error
    assert of(child, ProcessingEnd)[-1].text == "Wrote test_calc.py with one test."
    parent_ends = [e for e in of(events, ToolCallEnd) if not e.agent_id]
    assert [e.name for e in parent_ends] == ["spawn_agent", "wait"]
    assert "Wrote test_calc.py with one test." in parent_ends[1].output
    assert parent_ends[1].metadata["success"] is True
    child_requests = [r for r in parity.requests if not offers(parity, r, "spawn_agent")]
    assert len(child_requests) == 2  # the child's conversation, through the same adapter
    assert TASK in child_requests[0].body.decode()
    assert final(events).text == "A subagent wrote the tests."

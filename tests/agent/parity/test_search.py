"""Parity rows on searching and reading: grep + glob, and parallel calls
(two read-only calls in one response, their results sent back in call order)."""

from __future__ import annotations

import itertools

from taor.agent.events import ToolCallStart
from taor.env.memory import MemoryEnvironment
from taor.testing import text, tool_calls

from .harness import Parity, ends, final, of
from .native import last_user_message

FILES = {
    "src/old.py": "x = 1  # TODO: remove\n",
    "src/new.py": "def f():\n    pass  # TODO: write\n",
    "docs/notes.md": "TODO: not python\n",
}


def env_with_ordered_mtimes() -> MemoryEnvironment:
    ticks = itertools.count(1_700_000_000)
    return MemoryEnvironment(files=FILES, clock=lambda: float(next(ticks)))


async def test_grep_and_glob(parity: Parity) -> None:
    env = env_with_ordered_mtimes()
    parity.script.push(
        tool_calls(parity.native.grep("TODO", "*.py")),
        tool_calls(parity.native.glob("**/*.py")),
        text("Two Python files have TODOs."),
    )
    events = await parity.run(env, "Which Python files have TODOs?")
    assert not any(e.is_error for e in ends(events))
    grep_result = parity.requests[1].tool_results[0]
    assert "old.py:1:" in grep_result and "new.py:2:" in grep_result
    assert "notes.md" not in grep_result
    glob_result = parity.requests[2].tool_results[1]
    lines = [line for line in glob_result.splitlines() if line.endswith(".py")]
    assert [line.rsplit("/", 1)[-1] for line in lines] == ["new.py", "old.py"]  # newest first
    assert final(events).text == "Two Python files have TODOs."


async def test_parallel_calls(parity: Parity) -> None:
    env = MemoryEnvironment(files={"one.txt": "first file\n", "two.txt": "second file\n"})
    parity.script.push(
        tool_calls(parity.native.read("two.txt"), parity.native.read("one.txt")),
        text("Read both."),
    )
    events = await parity.run(env, "Read two.txt and one.txt.")
    starts = of(events, ToolCallStart)
    assert [s.arguments for s in starts] == [
        parity.native.read("two.txt")[1],
        parity.native.read("one.txt")[1],
    ]
    assert sorted(e.call_id for e in ends(events)) == sorted(s.call_id for s in starts)
    second_request = parity.requests[1]
    results = list(second_request.tool_results)
    assert "second file" in results[0] and "first file" in results[1]  # in call order
    sent = last_user_message(parity.profile, second_request.json)
    assert sent == [f"tool_result:{results[0]}", f"tool_result:{results[1]}"]

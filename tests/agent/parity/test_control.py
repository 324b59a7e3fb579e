"""Parity rows on the loop itself: a multi-step task, steering, an effort
change, loop detection and error recovery, each through the profile's real adapter."""

from __future__ import annotations

from collections.abc import Mapping

from taor.agent.events import LoopDetection, Retry, SteeringInjected
from taor.env.memory import MemoryEnvironment
from taor.testing import overloaded, text, tool_calls

from .harness import Parity, cycle, ends, final, of
from .native import effort_fields, last_user_message

STEER = "Stop after this run and tell me the result."
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS10aG91Z2h0"
BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def scripted_pytest(env: MemoryEnvironment) -> None:
    """``pytest -q`` passes once calc.py adds (a command whose result follows the files)."""

    def run(command: str, cwd: str, variables: Mapping[str, str]) -> str:
        if b"a + b" in env.files.get("calc.py", b""):
            return "1 passed in 0.01s\n"
        return "FAILED test_calc.py::test_add - assert -1 == 5\n1 failed in 0.01s\n"

    env.script("pytest -q", run)


async def test_multi_step_task(parity: Parity) -> None:
    env = MemoryEnvironment(files={"calc.py": BUGGY})
    scripted_pytest(env)
    native = parity.native
    parity.script.push(
        tool_calls(native.write("test_calc.py", TESTS), text="I'll add a test first."),
        tool_calls(native.shell("pytest -q")),
        tool_calls(native.read("calc.py")),
        tool_calls(native.edit("calc.py", "    return a - b", "    return a + b")),
        tool_calls(native.shell("pytest -q")),
        text("Fixed add() and the test passes."),
    )
    events = await parity.run(env, "Add a test for add() and fix it.")
    assert env.files["test_calc.py"] == TESTS.encode()
    assert env.files["calc.py"] == b"def add(a, b):\n    return a + b\n"
    outputs = [e.output for e in ends(events)]
    assert "1 failed" in outputs[1] and "1 passed" in outputs[4]
    assert [len(r.tool_results) for r in parity.requests] == [0, 1, 2, 3, 4, 5]
    assert final(events).text == "Fixed add() and the test passes."


async def test_steering(parity: Parity) -> None:
    env = MemoryEnvironment(files={"calc.py": BUGGY})
    parity.script.push(
        tool_calls(parity.native.shell("pytest -q")),
        text("The run failed: add() subtracts."),
    )
    async with parity.session(env) as session:

        def run_and_steer(command: str, cwd: str, variables: Mapping[str, str]) -> str:
            session.steer(STEER)  # the user speaks up while the tool round runs
            return "1 failed\n"

        env.script("pytest -q", run_and_steer)
        events = await cycle(session, "Run the tests.")
    (injected,) = of(events, SteeringInjected)
    assert (injected.text, injected.source) == (STEER, "user")
    assert events.index(ends(events)[0]) < events.index(injected)
    before, after = parity.requests
    assert STEER not in before.body.decode()
    sent = last_user_message(parity.profile, after.json)
    assert sent == ["tool_result:Exit code: 0 | Duration: 0.00 s\n1 failed\n", f"text:{STEER}"]


EFFORT_BEFORE = {
    "anthropic": None,  # no thinking asked for
    "openai": {"summary": "auto"},
    "gemini": {"includeThoughts": True},
}
EFFORT_HIGH = {
    "anthropic": {"type": "enabled", "budget_tokens": 24576},
    "openai": {"effort": "high", "summary": "auto"},
    "gemini": {"includeThoughts": True, "thinkingLevel": "HIGH"},
}


async def test_effort_change(parity: Parity) -> None:
    """configure() changes the next request; the thinking of a high-effort turn (with its
    signature) goes back verbatim within the tool loop."""
    env = MemoryEnvironment(files={"a.txt": "a\n"})
    thought = tool_calls(parity.native.read("a.txt"), thinking="Look first.", signature=SIGNATURE)
    parity.script.push(text("quick"), thought, text("careful"), text("quick again"))
    async with parity.session(env) as session:
        await session.run("first")
        session.configure(reasoning_effort="high")
        await session.run("second")
        session.configure(reasoning_effort=None)
        await session.run("third")
    efforts = [effort_fields(parity.profile, body) for body in parity.bodies()]
    before, high = EFFORT_BEFORE[parity.profile], EFFORT_HIGH[parity.profile]
    assert efforts == [before, high, high, before]
    after_thinking = parity.requests[2].body.decode()
    assert SIGNATURE in after_thinking


async def test_loop_detection(parity: Parity) -> None:
    env = MemoryEnvironment(files={"a.txt": "same\n"})
    read = tool_calls(parity.native.read("a.txt"))
    parity.script.push(*[read] * 10, text("I keep reading the same file; trying another way."))
    events = await parity.run(env, "Read a.txt until it changes.")
    (detected,) = of(events, LoopDetection)
    assert (detected.cycle_length, detected.stopped) == (1, False)
    (warning,) = of(events, SteeringInjected)
    assert warning.source == "loop_detection"
    assert f"text:{warning.text}" in last_user_message(parity.profile, parity.requests[-1].json)
    assert warning.text not in parity.requests[-2].body.decode()
    assert final(events).stop_reason == "completed"


async def test_error_recovery(parity: Parity) -> None:
    """A failed edit comes back as an error result the model acts on; a 529 is retried."""
    env = MemoryEnvironment(files={"calc.py": BUGGY})
    native = parity.native
    parity.script.push(
        tool_calls(native.edit("calc.py", "    return a * b", "    return a + b")),
        tool_calls(native.read("calc.py")),
        tool_calls(native.edit("calc.py", "    return a - b", "    return a + b")),
        overloaded(),
        text("Fixed after a second look."),
    )
    events = await parity.run(env, "Make add() add.")
    assert [e.is_error for e in ends(events)] == [True, False, False]
    failed = parity.requests[1].tool_results[0]
    assert "not found" in failed and "return a - b" in failed  # with the closest region
    assert env.files["calc.py"] == b"def add(a, b):\n    return a + b\n"
    (retry,) = of(events, Retry)
    assert (retry.attempt, retry.error_type) == (1, "OverloadedError")
    assert len(parity.requests) == 5  # the 529'd request was sent again, no tool re-ran
    edit_tool = "apply_patch" if parity.profile == "openai" else "edit_file"
    assert len(env.calls_of(f"tool:{edit_tool}")) == 2
    assert final(events).text == "Fixed after a second look."

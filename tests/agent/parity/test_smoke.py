"""The smoke scenario of the coding-agent-loop spec, scripted per profile on LocalEnvironment in
a temporary directory, one session, one input per step:

1. hello.py contains "Hello"; 2. adding "Goodbye" keeps both; 3. running it is a shell call;
4. big.txt of 100,000 "x" (read with cat: read_file cuts lines at 2000 characters):
   tool_call_end has it all, the model's result the truncation marker;
5. a Flask-like app with several routes, then the user steers to "just /health";
7. ``sleep 30`` times out (each model passes timeout 1000 ms: that the profile's own default,
   10 s for openai and gemini, 120 s for Claude Code, is the one a call without a timeout gets
   is held by test_shell, so no test waits 10 s for it);
6. a subagent writes tests and its events reach the parent (its own test, after step 1; skipped
   while the session offers no subagent tools).
"""

from __future__ import annotations

from pathlib import Path

from taor.agent.events import SteeringInjected, ToolCallEnd, ToolCallStart
from taor.agent.policy.hooks import Hooks, ToolCallInfo
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.testing import text, tool_calls
from taor.tools.base import ToolOutput

from .harness import Parity, cycle, ends, final, of, offers, route_child, skip_unless_subagents
from .native import last_user_message

HELLO = 'print("Hello")\n'
FLASK = """from flask import Flask

app = Flask(__name__)


@app.get("/")
def index():
    return "index"


@app.get("/users")
def users():
    return []


@app.get("/health")
def health():
    return {"ok": True}
"""
HEALTH_ONLY = """from flask import Flask

app = Flask(__name__)


@app.get("/health")
def health():
    return {"ok": True}
"""
STEER = "Actually, just /health."
TESTS = "import subprocess\n\n\ndef test_hello():\n    assert b'Hello' in subprocess.check_output(['python3', 'hello.py'])\n"


class Steerer:
    """The user, who steers once app.py with all its routes has been written."""

    def __init__(self) -> None:
        self.session: Session | None = None

    async def after_tool(self, call: ToolCallInfo, output: ToolOutput) -> None:
        if self.session is not None and "/users" in str(call.arguments.get("content", "")):
            self.session.steer(STEER)


async def hello_steps(local: Parity, session: Session, tmp_path: Path) -> None:
    """Steps 1-3: create hello.py, add Goodbye, run it."""
    native, script = local.native, local.script
    script.push(tool_calls(native.write("hello.py", HELLO)), text("Created hello.py."))
    await cycle(session, "Create hello.py that prints Hello.")
    assert "Hello" in (tmp_path / "hello.py").read_text()

    two_lines = 'print("Hello")\nprint("Goodbye")'
    script.push(
        tool_calls(native.read("hello.py")),
        tool_calls(native.edit("hello.py", 'print("Hello")', two_lines)),
        text("Added Goodbye."),
    )
    await cycle(session, "Make it also print Goodbye.")
    assert (tmp_path / "hello.py").read_text() == two_lines + "\n"

    script.push(tool_calls(native.shell("python3 hello.py")), text("It prints both."))
    events = await cycle(session, "Run it.")
    (run,) = of(events, ToolCallStart)
    assert run.name == "shell"
    assert "Hello\nGoodbye" in ends(events)[0].output


async def big_file_step(local: Parity, session: Session, tmp_path: Path) -> None:
    """Step 4 (cat, not read_file: read_file cuts a line at 2000 characters, as Claude Code's)."""
    (tmp_path / "big.txt").write_text("x" * 100_000)
    local.script.push(tool_calls(local.native.shell("cat big.txt")), text("It is all x."))
    events = await cycle(session, "What is in big.txt?")
    assert "x" * 100_000 in ends(events)[0].output
    assert "[WARNING: Tool output was truncated." in local.requests[-1].tool_results[-1]


async def flask_step(local: Parity, session: Session, tmp_path: Path) -> None:
    """Step 5: the user steers (the hook) once the app with every route is written."""
    local.script.push(
        tool_calls(local.native.write("app.py", FLASK)),
        tool_calls(local.native.write("app.py", HEALTH_ONLY)),
        text("app.py now serves just /health."),
    )
    events = await cycle(session, "Write a Flask app with /, /users and /health.")
    (steered,) = of(events, SteeringInjected)
    assert steered.text == STEER
    assert f"text:{STEER}" in last_user_message(local.profile, local.requests[-2].json)
    assert (tmp_path / "app.py").read_text() == HEALTH_ONLY


async def sleep_step(local: Parity, session: Session) -> None:
    """Step 7: ``sleep 30`` times out."""
    local.script.push(
        tool_calls(local.native.shell("sleep 30", timeout_ms=1000)), text("It timed out.")
    )
    events = await cycle(session, "Run sleep 30.")
    (end,) = of(events, ToolCallEnd)
    assert end.metadata["timed_out"] is True and end.metadata["timeout"] == 1.0
    assert "timed out after 1 s" in local.requests[-1].tool_results[-1]


async def test_smoke(local: Parity, tmp_path: Path) -> None:
    steerer = Steerer()
    hooks = Hooks(after_tool=(steerer.after_tool,))
    async with local.session(LocalEnvironment(tmp_path), hooks=hooks) as session:
        steerer.session = session
        await hello_steps(local, session, tmp_path)
        await big_file_step(local, session, tmp_path)
        await flask_step(local, session, tmp_path)
        await sleep_step(local, session)


async def test_smoke_subagent(local: Parity, tmp_path: Path) -> None:
    """Step 6, in a session that has created hello.py."""
    native, script = local.native, local.script
    async with local.session(LocalEnvironment(tmp_path)) as session:
        skip_unless_subagents(session)
        script.push(tool_calls(native.write("hello.py", HELLO)), text("Created hello.py."))
        await cycle(session, "Create hello.py that prints Hello.")
        route_child(
            local, tool_calls(native.write("test_hello.py", TESTS)), text("Wrote test_hello.py.")
        )
        script.push(
            tool_calls(("spawn_agent", {"task": "Write a pytest test for hello.py."})),
            tool_calls(("wait", {"agent_id": "agent-1"})),
            text("The subagent wrote test_hello.py."),
        )
        events = await cycle(session, "Have a subagent write tests for hello.py.")
    assert (tmp_path / "test_hello.py").read_text() == TESTS
    child = [e for e in events if e.agent_id == "agent-1"]
    assert [(e.name, e.arguments) for e in of(child, ToolCallStart)] == [
        native.write("test_hello.py", TESTS)
    ]
    assert [e.output for e in of(child, ToolCallEnd)] and not of(child, ToolCallEnd)[0].is_error
    assert final(events).text == "The subagent wrote test_hello.py."
    assert sum(not offers(local, r, "spawn_agent") for r in local.requests) == 2  # the child's

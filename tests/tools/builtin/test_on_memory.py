"""The built-in tools on MemoryEnvironment: scripted commands, injected faults, the call log.

The file tools' ordinary behaviour runs on both environments in test_read/test_write/test_edit
(the ``ws`` fixture); this module covers what only the in-memory double can do: script command
results, fail the Nth call of an operation or of a tool, and show every call it saw.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

import pytest

from taor.env import CommandResult, EnvError, MemoryEnvironment
from taor.llm.types import ToolCallPart
from taor.tools.base import ToolContext, ToolOutput
from taor.tools.builtin import EditFileTool, WriteFileTool, file_tools
from taor.tools.builtin.search import GlobTool, GrepTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.registry import ToolRegistry


def registry() -> ToolRegistry:
    return ToolRegistry([*file_tools(), ShellTool(), GrepTool(), GlobTool()])


async def call(env: MemoryEnvironment, name: str, **arguments: object) -> ToolOutput:
    part = ToolCallPart(id=f"call_{name}", name=name, arguments=arguments)
    return await registry().execute(part, ToolContext(environment=env))


async def shell(env: MemoryEnvironment, command: str, **more: object) -> ToolOutput:
    return await call(env, "shell", command=command, **more)


async def test_shell_scripts_by_exact_text_regex_and_handler() -> None:
    env = MemoryEnvironment(files={"a.txt": "x"})
    seen: list[tuple[str, str, Mapping[str, str]]] = []

    def handler(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        seen.append((command, cwd, extra))
        return f"handled {command}\n"

    env.script("git status", "clean\n")
    env.script(re.compile(r"^git "), "", exit_code=128, stderr="fatal: bad\n")
    env.script(re.compile(r"^make\b"), handler)
    assert (await shell(env, "git status")).text.endswith("\nclean\n")
    failed = await shell(env, "git push")
    assert not failed.is_error and failed.text.startswith("Exit code: 128 |")
    assert failed.metadata["stderr"] == "fatal: bad\n"
    assert (await shell(env, "make all")).text.endswith("\nhandled make all\n")
    assert seen == [("make all", "/workspace", {})]
    unscripted = await shell(env, "rm -rf /")
    assert unscripted.text.startswith("Exit code: 127 |")
    assert "no scripted result for 'rm -rf /'" in unscripted.text
    assert [c.arguments["command"] for c in env.calls_of("run")] == [
        "git status",
        "git push",
        "make all",
        "rm -rf /",
    ]


async def test_shell_streams_scripted_output_through_the_context() -> None:
    env = MemoryEnvironment()
    env.script("pytest", "1 passed\n", stderr="warning\n")
    chunks: list[str] = []
    context = ToolContext(environment=env, on_output=chunks.append)
    part = ToolCallPart(id="c", name="shell", arguments={"command": "pytest"})
    output = await registry().execute(part, context)
    assert chunks == ["1 passed\n", "warning\n"]
    assert output.metadata["full_output"] == "1 passed\nwarning\n"


async def test_shell_timeouts_scripted_or_simulated_are_error_results() -> None:
    env = MemoryEnvironment(max_timeout=30)
    partial = CommandResult(
        command="build",
        exit_code=-15,
        stdout="step 1\n",
        stderr="",
        output="step 1\n",
        duration=2.0,
        timed_out=True,
        timeout=2.0,
    )
    env.script("build", partial)

    async def hang(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        await asyncio.sleep(3600)
        return "never"

    env.script("serve", hang)
    scripted = await shell(env, "build")
    assert (
        scripted.is_error and "TIMED OUT after 2 s" in scripted.text and "step 1" in scripted.text
    )
    hung = await shell(env, "serve", timeout=0.05)
    assert hung.is_error and hung.metadata["timed_out"]
    assert "TIMED OUT after 0.05 s" in hung.text


async def test_shell_cancelled_by_the_context_stops_a_slow_command() -> None:
    env = MemoryEnvironment()
    started = asyncio.Event()

    async def slow(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        started.set()
        await asyncio.sleep(3600)
        return "never"

    env.script("slow", slow)
    context = ToolContext(environment=env)
    task = asyncio.create_task(ShellTool().execute({"command": "slow"}, context))
    await started.wait()
    context.cancelled.set()
    output = await task
    assert output.is_error and "cancelled" in output.text
    assert isinstance(env.calls_of("run")[0].error, asyncio.CancelledError)


async def test_grep_falls_back_to_python_and_glob_walks_the_tree() -> None:
    ticks = iter(range(100))
    env = MemoryEnvironment(
        files={
            "src/a.py": "def needle():\n    pass\n",
            "src/b.py": "NEEDLE = 1\n",
            "build/gen.py": "needle\n",
            ".gitignore": "build/\n",
            "blob.bin": b"needle\x00",
        },
        clock=lambda: next(ticks),
    )
    found = await call(env, "grep", pattern="needle", case_insensitive=True)
    assert found.metadata["engine"] == "python"
    assert found.text.splitlines() == ["src/a.py:1:def needle():", "src/b.py:1:NEEDLE = 1"]
    assert not env.calls_of("run")  # rg never runs on memory
    files = await call(env, "glob", pattern="**/*.py")
    assert files.text.splitlines() == ["src/b.py", "src/a.py"]  # newest first, build/ ignored
    bad = await call(env, "grep", pattern="(")
    assert bad.is_error and "Invalid regular expression" in bad.text


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "../secret.txt"}),
        ("read_file", {"path": "/etc/passwd"}),
        ("read_many_files", {"paths": ["/etc/passwd"]}),
        ("write_file", {"path": "../x.txt", "content": "x"}),
        ("write_file", {"path": "/tmp/x.txt", "content": "x"}),
        ("list_dir", {"path": ".."}),
        ("edit_file", {"path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
        ("apply_patch", {"patch": "*** Begin Patch\n*** Add File: ../x\n+x\n*** End Patch"}),
        ("grep", {"pattern": "x", "path": "/etc"}),
        ("glob", {"pattern": "*", "path": "../"}),
    ],
)
async def test_path_escapes_are_error_results(tool: str, arguments: dict[str, object]) -> None:
    env = MemoryEnvironment(root="/workspace/project", files={"a.txt": "a\n"})
    output = await call(env, tool, **arguments)
    assert output.is_error
    assert "outside" in output.text
    assert env.files == {"a.txt": b"a\n"}


async def test_the_second_write_failing_leaves_that_file_as_it_was() -> None:
    env = MemoryEnvironment(files={"b.txt": "old\n"})
    env.fail("write", nth=2, error=OSError(28, "No space left on device"))
    assert not (await call(env, "write_file", path="a.txt", content="new\n")).is_error
    failed = await call(env, "write_file", path="b.txt", content="half\n")
    assert failed.is_error and "No space left on device" in failed.text
    assert env.files == {"a.txt": b"new\n", "b.txt": b"old\n"}
    [first, second] = env.calls_of("write")
    assert not first.injected and second.injected and isinstance(second.error, OSError)


async def test_faults_in_reads_and_edits_are_error_results() -> None:
    env = MemoryEnvironment(files={"a.py": "x = 1\n"})
    env.fail("read_text", error=EnvError("I/O error"))
    assert (await call(env, "read_file", path="a.py")).text == "I/O error"
    env.fail("write", error=PermissionError("read-only file system"))
    edit = await call(env, "edit_file", path="a.py", old_string="1", new_string="2")
    assert edit.is_error and "read-only" in edit.text
    assert env.files == {"a.py": b"x = 1\n"}
    env.fail("stat", result=None)  # a broken environment: the tool fails, the registry reports it
    broken = await call(env, "read_file", path="a.py")
    assert broken.is_error and broken.text.startswith("Tool error (read_file): AttributeError")


async def test_faults_by_tool_name_through_the_registry() -> None:
    env = MemoryEnvironment(files={"a.txt": "one\n"})
    env.fail_tool("read_file", nth=2, error=TimeoutError("disk stalled"))
    env.fail_tool("shell", result="Exit code: 0 | Duration: 0.00 s\nsimulated\n")
    env.fail_tool("write_file", result=ToolOutput.error("simulated: quota exceeded"))
    assert not (await call(env, "read_file", path="a.txt")).is_error
    stalled = await call(env, "read_file", path="a.txt")
    assert stalled.is_error
    assert stalled.text == "Tool error (read_file): TimeoutError: disk stalled"
    assert (await call(env, "shell", command="make")).text.endswith("simulated\n")
    assert not env.calls_of("run")  # the injected result replaced the command
    quota = await call(env, "write_file", path="a.txt", content="two\n")
    assert quota == ToolOutput.error("simulated: quota exceeded")
    assert env.files == {"a.txt": b"one\n"}
    assert [c.operation for c in env.calls if c.operation.startswith("tool:")] == [
        "tool:read_file",
        "tool:read_file",
        "tool:shell",
        "tool:write_file",
    ]


async def test_every_tool_call_is_recorded_after_the_operations_it_made() -> None:
    env = MemoryEnvironment()
    output = await call(env, "write_file", path="notes.md", content="hi\n")
    assert [c.operation for c in env.calls] == ["exists", "write", "tool:write_file"]
    recorded = env.calls[-1]
    assert recorded.arguments == {"path": "notes.md", "content": "hi\n"}
    assert recorded.result == output and not recorded.injected
    await call(env, "write_file", path="notes.md")  # invalid arguments: the tool never runs
    assert env.calls[-1] is recorded


async def test_tools_called_directly_ignore_the_tool_faults() -> None:
    env = MemoryEnvironment()
    env.fail_tool("write_file", error=OSError("never seen"))
    context = ToolContext(environment=env)
    output = await WriteFileTool().execute({"path": "a", "content": "x"}, context)
    assert not output.is_error
    assert not env.calls_of("tool:write_file")
    edit = await EditFileTool().execute(
        {"path": "a", "old_string": "x", "new_string": "y"}, context
    )
    assert not edit.is_error and env.files == {"a": b"y"}

"""MemoryEnvironment: its in-memory tree, scripted commands, fault injection and call log."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

import pytest

from taor.env import (
    Call,
    CommandResult,
    EnvError,
    Environment,
    MemoryEnvironment,
    PathNotFoundError,
    StreamName,
)


def test_satisfies_the_protocol_and_reports_its_facts() -> None:
    env = MemoryEnvironment(root="/repo", platform="darwin", os_version="Darwin 23")
    assert isinstance(env, Environment)
    assert (env.working_directory(), env.platform(), env.os_version()) == (
        "/repo",
        "darwin",
        "Darwin 23",
    )


def test_roots_must_be_absolute() -> None:
    with pytest.raises(ValueError, match="absolute"):
        MemoryEnvironment(root="relative")


async def test_starts_from_given_files_and_directories() -> None:
    env = MemoryEnvironment(files={"a/b.txt": "hi\n", "c.bin": b"\x01"}, directories=["empty"])
    assert await env.read_text("/workspace/a/b.txt") == "hi\n"
    assert [(e.path, e.is_dir) for e in await env.list_dir(depth=2)] == [
        ("a", True),
        ("a/b.txt", False),
        ("c.bin", False),
        ("empty", True),
    ]
    await env.write("new.txt", "n")
    assert env.files == {"a/b.txt": b"hi\n", "c.bin": b"\x01", "new.txt": b"n"}


async def test_instances_share_nothing() -> None:
    first, second = MemoryEnvironment(), MemoryEnvironment()
    await first.write("f", "x")
    first.script("ls", "f\n")
    first.fail("read_text", error=EnvError("boom"))
    assert not await second.exists("f")
    assert (await second.run("ls")).exit_code == 127
    assert second.calls_of("read_text") == []


async def test_glob_is_newest_first_even_when_the_clock_stands_still() -> None:
    env = MemoryEnvironment(clock=lambda: 100.0)
    for name in ("b.py", "a.py", "c.py"):
        await env.write(name, "")
    assert await env.glob("*.py") == ["c.py", "a.py", "b.py"]
    await env.write("b.py", "touched")
    assert await env.glob("*.py") == ["b.py", "c.py", "a.py"]
    assert (await env.stat("b.py")).mtime > 100.0


async def test_allowed_roots_are_reachable_by_absolute_path() -> None:
    env = MemoryEnvironment(root="/ws", allowed_roots=["/cache"])
    await env.write("/cache/note.txt", "kept\n")
    assert await env.read_text("/cache/note.txt") == "kept\n"
    assert await env.glob("*.txt", "/cache") == ["/cache/note.txt"]
    assert [m.path for m in await env.grep("kept", "/cache")] == ["/cache/note.txt"]


async def test_commands_are_scripted_exactly_by_regex_or_by_a_handler() -> None:
    env = MemoryEnvironment(directories=["sub"])
    seen: list[tuple[str, str, Mapping[str, str]]] = []

    def handler(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        seen.append((command, cwd, extra))
        return f"handled {command}\n"

    env.script(re.compile(r"^git "), "", exit_code=128, stderr="not a git repository\n")
    env.script("git status", "clean\n")
    env.script(None, handler)

    exact = await env.run("git status")
    assert (exact.exit_code, exact.stdout, exact.output) == (0, "clean\n", "clean\n")
    by_regex = await env.run("git log")
    assert (by_regex.exit_code, by_regex.stderr) == (128, "not a git repository\n")
    other = await env.run("make", cwd="sub", env={"CC": "gcc"})
    assert other.stdout == "handled make\n"
    assert seen == [("make", "/workspace/sub", {"CC": "gcc"})]


async def test_a_handler_or_script_may_give_a_whole_result() -> None:
    env = MemoryEnvironment()
    slow = CommandResult(
        command="sleep 99",
        exit_code=-15,
        stdout="",
        stderr="",
        output="timed out",
        duration=10.0,
        timed_out=True,
        timeout=10.0,
    )
    env.script("sleep 99", slow)
    env.script(re.compile("^fail"), lambda command, cwd, extra: slow)
    assert await env.run("sleep 99") is slow
    assert await env.run("fail now") is slow


async def test_an_async_handler_simulates_a_slow_command_that_cleanup_cancels() -> None:
    env = MemoryEnvironment()
    started = asyncio.Event()

    async def slow(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    async def quick(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        return "done\n"

    env.script("sleep 30", slow)
    env.script("quick", quick)
    assert (await env.run("quick")).stdout == "done\n"
    task = asyncio.create_task(env.run("sleep 30"))
    await started.wait()
    await env.cleanup()
    assert task.cancelled()
    run = env.calls_of("run")[-1]
    assert isinstance(run.error, asyncio.CancelledError)
    assert [c.operation for c in env.calls][-1] == "cleanup"


async def test_an_async_handler_that_outlasts_the_timeout_times_out() -> None:
    env = MemoryEnvironment()
    cancelled = asyncio.Event()

    async def hang(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def failing(command: str, cwd: str, extra: Mapping[str, str]) -> str:
        raise TimeoutError("the handler's own timeout")

    env.script("serve", hang)
    env.script("flaky", failing)
    result = await env.run("serve", timeout=0.05)
    assert result.timed_out and cancelled.is_set()
    assert (result.exit_code, result.timeout, result.stdout) == (-15, 0.05, "")
    assert result.output == "[ERROR: Command timed out after 0.05 s.]"
    with pytest.raises(TimeoutError, match="own timeout"):
        await env.run("flaky", timeout=5)


async def test_an_unscripted_command_exits_127_and_says_so() -> None:
    env = MemoryEnvironment()
    result = await env.run("rm -rf /")
    assert result.exit_code == 127 and not result.timed_out
    assert "no scripted result for 'rm -rf /'" in result.stderr
    assert result.output == result.stderr


async def test_timeouts_are_clamped_and_cwd_checked() -> None:
    env = MemoryEnvironment(files={"f": ""}, default_timeout=5, max_timeout=60)
    env.script("x", "")
    assert (await env.run("x")).timeout == 5
    clamped = await env.run("x", timeout=600)
    assert (clamped.timeout, clamped.requested_timeout) == (60, 600)
    with pytest.raises(EnvError, match="positive"):
        await env.run("x", timeout=0)
    with pytest.raises(PathNotFoundError, match="not a directory"):
        await env.run("x", cwd="f")
    with pytest.raises(PathNotFoundError, match="No such file"):
        await env.run("x", cwd="missing")


async def test_on_output_receives_the_scripted_output() -> None:
    env = MemoryEnvironment()
    env.script("build", "compiling\n", stderr="warning\n", exit_code=1)
    chunks: list[tuple[str, StreamName]] = []

    async def collect(text: str, stream: StreamName) -> None:
        chunks.append((text, stream))

    await env.run("build", on_output=collect)
    await env.run("build", on_output=lambda text, stream: chunks.append((text, stream)))
    assert chunks == [("compiling\n", "stdout"), ("warning\n", "stderr")] * 2


async def test_the_nth_call_raises_the_given_error() -> None:
    env = MemoryEnvironment()
    env.fail("write", nth=2, error=EnvError("disk full"))
    env.fail("read_text", error=PermissionError)

    await env.write("a", "1")
    with pytest.raises(EnvError, match="disk full"):
        await env.write("b", "2")
    await env.write("c", "3")
    assert env.files == {"a": b"1", "c": b"3"}
    with pytest.raises(PermissionError):
        await env.read_text("a")
    assert await env.read_text("a") == "1"


async def test_a_fault_may_return_a_result_on_every_call() -> None:
    env = MemoryEnvironment()
    env.fail("exists", nth=None, result=True)
    env.fail("run", nth=2, result="not a CommandResult, on purpose")
    env.script("true", "")
    assert await env.exists("anything") and await env.exists("else")
    assert (await env.run("true")).exit_code == 0
    assert await env.run("true") == "not a CommandResult, on purpose"  # type: ignore[comparison-overlap]
    assert env.platform() == "linux"
    env.fail("platform", nth=2, result="plan9")  # counted from now
    assert (env.platform(), env.platform(), env.platform()) == ("linux", "plan9", "linux")
    env.fail("os_version", error=EnvError("no uname"))
    with pytest.raises(EnvError, match="no uname"):
        env.os_version()


def test_a_fault_needs_exactly_one_outcome_and_a_positive_nth() -> None:
    env = MemoryEnvironment()
    with pytest.raises(ValueError, match="exactly one"):
        env.fail("write")
    with pytest.raises(ValueError, match="exactly one"):
        env.fail("write", error=EnvError("x"), result=None)
    with pytest.raises(ValueError, match="from 1"):
        env.fail("write", nth=0, error=EnvError("x"))


async def test_every_operation_is_recorded_with_its_arguments_and_outcome() -> None:
    env = MemoryEnvironment()
    env.fail("stat", error=EnvError("flaky"))
    env.script("ls", "a\n")
    await env.write("a", "1")
    await env.read_text("a", offset=0, limit=5)
    with pytest.raises(EnvError):
        await env.stat("a")
    with pytest.raises(PathNotFoundError):
        await env.read_bytes("missing")
    await env.run("ls", timeout=3)

    assert [c.operation for c in env.calls] == ["write", "read_text", "stat", "read_bytes", "run"]
    write, read, stat, missing, run = env.calls
    assert write == Call(operation="write", arguments={"path": "a", "content": "1"})
    assert (read.arguments, read.result, read.outcome) == (
        {"path": "a", "offset": 0, "limit": 5},
        "1",
        "1",
    )
    assert stat.injected and isinstance(stat.error, EnvError) and stat.outcome is stat.error
    assert isinstance(missing.outcome, PathNotFoundError) and not missing.injected
    assert run.arguments["timeout"] == 3
    assert isinstance(run.result, CommandResult) and run.result.stdout == "a\n"
    assert env.calls_of("run") == [run]


async def test_other_layers_can_route_named_calls_through_the_log() -> None:
    env = MemoryEnvironment()
    env.fail("tool:read_file", nth=2, error=TimeoutError)

    async def execute() -> str:
        return "contents"

    assert await env.log.intercept("tool:read_file", {"path": "a"}, execute) == "contents"
    with pytest.raises(TimeoutError):
        await env.log.intercept("tool:read_file", {"path": "a"}, execute)
    assert [c.injected for c in env.calls_of("tool:read_file")] == [False, True]


async def test_tool_calls_are_intercepted_and_failed_by_tool_name() -> None:
    env = MemoryEnvironment()
    env.fail_tool("shell", nth=2, result="simulated")
    env.fail_tool("grep", error=PermissionError("no"))

    async def execute() -> str:
        return "ran"

    assert await env.intercept_tool("shell", {"command": "ls"}, execute) == "ran"
    assert await env.intercept_tool("shell", {"command": "ls"}, execute) == "simulated"
    with pytest.raises(PermissionError):
        await env.intercept_tool("grep", {"pattern": "x"}, execute)
    assert [(c.operation, c.outcome, c.injected) for c in env.calls][:2] == [
        ("tool:shell", "ran", False),
        ("tool:shell", "simulated", True),
    ]
    assert env.calls[2].operation == "tool:grep"
    assert env.calls[2].arguments == {"pattern": "x"}


async def test_remove_is_recorded_and_fault_injectable() -> None:
    env = MemoryEnvironment(files={"a.txt": "a", "b.txt": "b"})
    env.fail("remove", nth=2, error=EnvError("read-only filesystem"))

    await env.remove("a.txt")
    with pytest.raises(EnvError, match="read-only"):
        await env.remove("b.txt")

    assert env.files == {"b.txt": b"b"}
    assert [(c.arguments, c.injected) for c in env.calls_of("remove")] == [
        ({"path": "a.txt"}, False),
        ({"path": "b.txt"}, True),
    ]

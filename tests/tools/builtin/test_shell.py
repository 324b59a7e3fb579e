"""The shell tool on LocalEnvironment: real bash, real output, exit codes, timeouts, streaming."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from taor.env.base import EnvError
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.tools.base import Tool, ToolContext
from taor.tools.builtin.shell import ShellTool
from taor.tools.registry import ToolRegistry
from taor.tools.truncation import Limits

from ...processes import group_running


@pytest.fixture
def env(tmp_path: Path) -> LocalEnvironment:
    return LocalEnvironment(tmp_path, default_timeout=5.0)


def _context(env: LocalEnvironment, chunks: list[str] | None = None) -> ToolContext:
    if chunks is None:
        return ToolContext(environment=env)
    return ToolContext(environment=env, on_output=chunks.append)


def test_is_a_tool_that_writes() -> None:
    tool = ShellTool()
    assert isinstance(tool, Tool)
    assert tool.name == "shell" and not tool.read_only
    ToolRegistry([tool])  # the schema compiles


async def test_returns_exit_code_duration_and_output(env: LocalEnvironment) -> None:
    (Path(env.working_directory()) / "f.txt").write_text("content\n")
    args = {"command": "cat f.txt; echo oops >&2", "description": "Show f.txt"}
    out = await ShellTool().execute(args, _context(env))
    assert not out.is_error
    header, _, body = out.text.partition("\n")
    assert header.startswith("Exit code: 0 | Duration: ")
    assert "content\n" in body and "oops" in body
    assert out.metadata["exit_code"] == 0 and out.metadata["stderr"] == "oops\n"
    assert out.metadata["duration"] >= 0 and out.metadata["description"] == "Show f.txt"


async def test_non_zero_exit_is_not_an_error_result(env: LocalEnvironment) -> None:
    out = await ShellTool().execute({"command": "echo failing; exit 3"}, _context(env))
    assert not out.is_error
    assert out.text.startswith("Exit code: 3 |") and "failing" in out.text
    assert out.metadata["exit_code"] == 3


async def test_no_output_says_so(env: LocalEnvironment) -> None:
    out = await ShellTool().execute({"command": "true"}, _context(env))
    assert out.text.endswith("\n(no output)")


async def test_timeout_is_an_error_with_partial_output(env: LocalEnvironment) -> None:
    args = {"command": "echo started $$; sleep 30; touch slept", "timeout": 0.5}
    out = await ShellTool().execute(args, _context(env))
    assert out.is_error and out.metadata["timed_out"]
    group = int(out.metadata["stdout"].split()[1])  # bash leads the command's process group
    assert group_running(group) == [] and out.metadata["exit_code"] == -signal.SIGTERM
    assert not (Path(env.working_directory()) / "slept").exists()  # stopped, not waited for
    assert "TIMED OUT after 0.5 s" in out.text and "started" in out.text
    assert "Retry with a larger `timeout`" in out.text


async def test_default_timeout_comes_from_the_environment(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path, default_timeout=0.3)
    out = await ShellTool().execute({"command": "sleep 10"}, _context(env))
    assert out.is_error and out.metadata["timeout"] == 0.3


async def test_a_timeout_above_the_maximum_is_clamped_with_a_note(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path, max_timeout=2.0)
    out = await ShellTool().execute({"command": "echo hi", "timeout": 5000}, _context(env))
    assert not out.is_error
    assert "timeout clamped from 5000 s to the maximum 2 s" in out.text
    assert out.metadata["timeout"] == 2.0 and out.metadata["requested_timeout"] == 5000


async def test_output_streams_through_the_context_as_it_arrives(env: LocalEnvironment) -> None:
    chunks: list[str] = []
    seen_before_exit = asyncio.Event()

    def on_output(text: str) -> None:
        chunks.append(text)
        if "first" in "".join(chunks):
            seen_before_exit.set()

    context = ToolContext(environment=env, on_output=on_output)
    command = "echo first; sleep 0.5; echo second"
    task = asyncio.create_task(ShellTool().execute({"command": command}, context))
    await asyncio.wait_for(seen_before_exit.wait(), 3)
    assert not task.done()  # "first" arrived while the command still ran
    out = await task
    assert "".join(chunks) == "first\nsecond\n"
    assert "first\nsecond" in out.text


async def test_long_output_is_truncated_for_the_model_only(env: LocalEnvironment) -> None:
    tool = ShellTool(limits=Limits(chars=1000, lines=20))
    out = await tool.execute({"command": "seq 1 5000"}, _context(env))
    assert len(out.text) < 1500
    assert out.text.splitlines()[1] == "1" and out.text.rstrip().endswith("5000")
    assert "lines omitted" in out.text or "truncated" in out.text
    assert out.metadata["full_output"].splitlines() == [str(i) for i in range(1, 5001)]
    assert out.metadata["omitted_chars"] > 0


async def test_default_limits_are_the_shell_limits(env: LocalEnvironment) -> None:
    out = await ShellTool().execute({"command": "seq 1 1000"}, _context(env))
    assert "[... 744 lines omitted ...]" in out.text  # 256 lines kept


async def test_cancel_event_stops_the_command(env: LocalEnvironment, tmp_path: Path) -> None:
    context = ToolContext(environment=env)
    marker = tmp_path / "survived"
    command = f"sleep 1 && touch {marker}"
    task = asyncio.create_task(ShellTool().execute({"command": command}, context))
    await asyncio.sleep(0.2)
    context.cancelled.set()
    out = await asyncio.wait_for(task, 3)
    assert out.is_error and "cancelled" in out.text
    await asyncio.sleep(1.2)
    assert not marker.exists()


async def test_a_bad_working_environment_is_an_error_result(tmp_path: Path) -> None:
    out = await ShellTool().execute({"command": "true"}, ToolContext())
    assert out.is_error and "environment" in out.text
    env = LocalEnvironment(tmp_path / "missing")
    out = await ShellTool().execute({"command": "true"}, _context(env))
    assert out.is_error


async def test_on_memory_environment_scripted_results_and_faults() -> None:
    env = MemoryEnvironment(max_timeout=60)
    env.script("make test", "3 passed, 1 failed\n", exit_code=2, stderr="FAILED t.py\n")
    chunks: list[str] = []
    context = ToolContext(environment=env, on_output=chunks.append)
    out = await ShellTool().execute({"command": "make test", "timeout": 900}, context)
    assert not out.is_error and out.text.startswith("Exit code: 2 |")
    assert "3 passed, 1 failed" in out.text and "FAILED t.py" in out.text
    assert "timeout clamped from 900 s to the maximum 60 s" in out.text
    assert "".join(chunks) == "3 passed, 1 failed\nFAILED t.py\n"
    assert env.calls_of("run")[0].arguments["timeout"] == 900
    env.fail("run", error=EnvError("The command could not be started: no bash"))
    out = await ShellTool().execute({"command": "make test"}, context)
    assert out.is_error and out.text == "The command could not be started: no bash"


async def test_plain_results_say_whether_the_command_succeeded(env: LocalEnvironment) -> None:
    tool = ShellTool(plain=True)
    ok = await tool.execute({"command": "echo fine"}, _context(env))
    assert ok.text.startswith("The command succeeded (exit code 0). It printed:\nfine\n\nIf")
    assert ok.text.endswith("reply now with a short answer and no tool call.")
    failed = await tool.execute({"command": "echo bad; exit 2"}, _context(env))
    assert failed.text.startswith("The command failed (exit code 2). Its output:\nbad")
    assert not failed.is_error and failed.metadata["exit_code"] == 2


async def test_plain_results_name_what_a_command_added_or_removed(
    env: LocalEnvironment, tmp_path: Path
) -> None:
    tool = ShellTool(plain=True)
    (tmp_path / "notes.txt").write_text("buy milk\n")
    (tmp_path / "keep").mkdir()
    moved = await tool.execute({"command": "mv notes.txt docs"}, _context(env))
    assert "In the folder now, new: docs (a file); gone: notes.txt (a file)." in moved.text
    swapped = await tool.execute({"command": "rm docs && mkdir docs"}, _context(env))
    assert "new: docs (a folder); gone: docs (a file)." in swapped.text
    quiet = await tool.execute({"command": "touch keep/x .hidden"}, _context(env))
    assert "In the folder now" not in quiet.text  # nothing changed at its top level
    empty = await tool.execute({"command": "touch rev.py"}, _context(env))
    assert "new: rev.py (an empty file)." in empty.text


async def test_plain_results_say_a_script_run_before_it_was_written_does_not_exist(
    env: LocalEnvironment, tmp_path: Path
) -> None:
    tool = ShellTool(plain=True)
    python = await tool.execute({"command": "python3 rev.py"}, _context(env))
    assert python.text.endswith(
        "\nrev.py does not exist yet. Write it first: call write_file with its whole content, "
        "then run it."
    )
    bash = await tool.execute({"command": "bash ./tools/go.sh"}, _context(env))
    assert "\ntools/go.sh does not exist yet." in bash.text
    # A folder, or a script outside the workspace, is not one to write.
    elsewhere = await tool.execute({"command": "cd nowhere; python3 /etc/none.py"}, _context(env))
    assert "does not exist yet" not in elsewhere.text
    full = await ShellTool().execute({"command": "python3 rev.py"}, _context(env))
    assert "does not exist yet" not in full.text  # plain results only

"""Parity rows with real processes on LocalEnvironment(tmp_path): shell,
shell timeout and truncation, with each profile's native shell arguments."""

from __future__ import annotations

from pathlib import Path

from taor.agent.events import ToolCallOutputDelta
from taor.env.local import LocalEnvironment
from taor.testing import text, tool_calls

from .harness import Parity, ends, final, of

DEFAULT_TIMEOUTS = {"anthropic": 120.0, "openai": 10.0, "gemini": 10.0}
MARKER = "[WARNING: Tool output was truncated."


async def test_shell(local: Parity, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    native = local.native
    local.script.push(
        tool_calls(native.shell("echo out; echo err >&2; exit 3")),
        tool_calls(native.shell_in("pwd && touch made-here", "sub")),
        text("Ran both."),
    )
    events = await local.run(LocalEnvironment(tmp_path), "Run the commands.")
    failing, in_sub = ends(events)
    assert failing.metadata["exit_code"] == 3 and not failing.is_error
    assert "out" in failing.output and "err" in failing.output
    assert failing.metadata["timeout"] == DEFAULT_TIMEOUTS[local.profile]  # the profile's
    assert str(tmp_path / "sub") in in_sub.output
    assert (tmp_path / "sub" / "made-here").exists()
    assert of(events, ToolCallOutputDelta)  # output streamed to the host as it came
    exit_3, pwd = local.requests[2].tool_results
    assert exit_3.startswith("Exit code: 3") and str(tmp_path / "sub") in pwd
    assert final(events).text == "Ran both."


async def test_shell_timeout(local: Parity, tmp_path: Path) -> None:
    local.script.push(
        tool_calls(local.native.shell("echo started; sleep 30", timeout_ms=1000)),
        text("It timed out."),
    )
    events = await local.run(LocalEnvironment(tmp_path), "Run sleep 30.")
    (end,) = ends(events)
    assert end.metadata["timed_out"] is True and end.metadata["timeout"] == 1.0
    assert "started" in end.output  # the partial output is kept
    (result,) = local.requests[1].tool_results
    assert "timed out after 1 s" in result
    assert final(events).stop_reason == "completed"


async def test_truncation(local: Parity, tmp_path: Path) -> None:
    local.script.push(tool_calls(local.native.shell("seq 1 20000")), text("Long."))
    events = await local.run(LocalEnvironment(tmp_path), "Count to 20000.")
    (end,) = ends(events)
    full = "".join(f"{n}\n" for n in range(1, 20001))
    assert full in end.output  # the host gets all of it
    (result,) = local.requests[1].tool_results
    assert MARKER in result
    assert len(result) < 31_000 and result.count("\n") < 300  # 30k chars, 256 lines
    assert "\n1\n" in result and "20000" in result  # head and tail kept

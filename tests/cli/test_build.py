"""``taor build`` as a person runs it, against the fake server: the narration printed, the
report written, the exit codes of each end, the inputs checked before any model call, and a
build killed with SIGKILL continued from its transcript."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, tool_calls

from ..build.scripts import (
    DONE,
    HANDOFF,
    LIST,
    REPORT,
    SCAFFOLD,
    TESTS,
    complete_build,
    write_inputs,
)
from .support import TAOR, environ, local, taor


def events_of(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_build_prints_its_narration_and_writes_its_report(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(*complete_build())
    flags = write_inputs(tmp_path / "inputs")
    done = taor("build", *flags, "--workspace", "ws", *local(server), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "## Scaffolding\n\nWe start with `tally.py`, because everything else calls it." in out
    assert "  ▸ write_file: tally.py" in out
    assert "✓ Milestone: `tally.py` counts words." in out and "## Tests" in out
    assert out.rstrip().endswith(f"Build complete: the report is in {tmp_path}/ws/BUILD_REPORT.md")
    report = (tmp_path / "ws" / "BUILD_REPORT.md").read_text()
    assert "# Build report: Tally" in report and "- `test_tally.py` (created)" in report
    assert done.stderr == ""
    server.assert_done()


def test_stream_json_carries_the_build_events_and_the_result(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(*complete_build())
    flags = write_inputs(tmp_path / "inputs")
    done = taor("build", *flags, "--workspace", "ws", *local(server),
                "--output-format", "stream-json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = events_of(done.stdout)
    kinds = [e.get("kind") for e in events]
    assert {"phase", "narration", "section_summary", "tool_call_start"} <= set(kinds)
    assert kinds[-2] == "build_report"
    result = events[-1]
    assert result["type"] == "result" and result["complete"] is True
    assert result["files"] == ["tally.py", "test_tally.py"]
    assert result["result"] == events[-2]["markdown"]
    assert result["result"] == (tmp_path / "ws" / "BUILD_REPORT.md").read_text()


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"remove": "brief.md"}, "--brief {inputs}/brief.md: no such file"),
        ({"qna.md": "\n\n"}, "--qna {inputs}/qna.md: the file is empty"),
        ({"plan.md": "Build something good.\n"}, "the plan has no steps"),
        ({"brief.md": "word " * 80_000}, "the brief, interview and plan are about 100,0"),
    ],
)
def test_bad_inputs_are_one_line_and_exit_2_before_any_model_call(
    tmp_path: Path, server: FakeProviderServer, change: dict[str, str], line: str
) -> None:
    inputs = tmp_path / "inputs"
    flags = write_inputs(inputs)
    for name, content in change.items():
        if name == "remove":
            (inputs / content).unlink()
        else:
            (inputs / name).write_text(content)
    done = taor("build", *flags, *local(server), cwd=tmp_path)
    assert done.returncode == 2
    (only,) = done.stderr.splitlines()
    assert only.startswith(f"taor build: {line.format(inputs=inputs)}")
    assert server.requests == []


def test_flags_that_do_not_go_together_are_usage_errors(tmp_path: Path) -> None:
    flags = write_inputs(tmp_path / "inputs")
    both = taor("build", "--continue", *flags, cwd=tmp_path)
    assert both.returncode == 2 and "leave out --brief" in both.stderr
    some = taor("build", "--brief", flags[1], cwd=tmp_path)
    assert some.returncode == 2 and "--qna and --plan needed" in some.stderr
    nothing = taor("build", "--continue", cwd=tmp_path)
    assert nothing.returncode == 2 and "no build to continue" in nothing.stderr


def test_at_the_cap_it_hands_over_and_exits_3(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(SCAFFOLD, LIST, HANDOFF)
    flags = write_inputs(tmp_path / "inputs")
    done = taor("build", *flags, "--workspace", "ws", "--max-tool-calls", "2", *local(server),
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "[turn_limit:" in done.stdout
    assert "We reached our limit." in done.stdout
    assert "Build incomplete (we reached the action limit" in done.stdout
    assert done.stdout.rstrip().endswith("Go on with: taor build --continue")
    report = (tmp_path / "ws" / "BUILD_REPORT.md").read_text()
    assert "Status: **incomplete" in report and "## Where we stopped" in report


def test_a_repetition_is_steered_once_then_stopped(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    same = tool_calls(("shell", {"command": "python3 nothing.py"}), text="Running it. ")
    other = tool_calls(("read_file", {"path": "brief.md"}), text="Another way. ")
    server.push(same, same, same, other, same, same, same, HANDOFF)
    flags = write_inputs(tmp_path / "inputs")
    done = taor("build", *flags, "--workspace", "ws", *local(server), cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout.count("[loop_detection:") == 2
    assert "(we kept repeating the same step" in done.stdout
    server.assert_done()


def test_a_build_killed_mid_command_goes_on_with_continue(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    slow = tool_calls(("shell", {"command": "sleep 60 && touch slept"}), text="Waiting. ")
    server.push(SCAFFOLD, slow)
    flags = write_inputs(tmp_path / "inputs")
    args = [TAOR, "build", *flags, "--workspace", "ws", *local(server), "--output-format",
            "stream-json"]  # fmt: skip
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, text=True,
                            env=environ(tmp_path), start_new_session=True)  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        if event.get("kind") == "tool_call_start" and "sleep" in str(event.get("arguments")):
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert not (tmp_path / "ws" / "BUILD_REPORT.md").exists()
    server.push(TESTS, DONE, REPORT)
    done = taor("build", "--continue", "--workspace", "ws", *local(server), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(server.requests[2].json)
    assert "interrupted" in sent and "We were interrupted" in sent
    assert "Tally" in sent  # the brief, from the build's own record
    report = (tmp_path / "ws" / "BUILD_REPORT.md").read_text()
    assert "Status: **complete**" in report and "- `tally.py` (created)" in report
    assert not (tmp_path / "ws" / "slept").exists()  # the killed command never ran again

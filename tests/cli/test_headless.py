"""``taor -p`` as a person or CI runs it: the installed ``taor`` command in a real process,
against the fake provider server on 127.0.0.1, in a scratch workspace."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

from taor import __version__
from taor.testing import FakeProviderServer, text, tool_calls

from .support import TAOR, environ, local, running_a_tool, taor


def test_version_and_help(tmp_path: Path) -> None:
    assert taor("--version", cwd=tmp_path).stdout.strip() == f"taor {__version__}"
    helped = taor("--help", cwd=tmp_path)
    assert helped.returncode == 0 and "-p" in helped.stdout and "130" in helped.stdout


def test_a_task_runs_in_the_current_directory_and_the_answer_is_on_stdout(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo hello > out.txt"})), text("Wrote out.txt."))
    done = taor("-p", "write hello", *local(server), "--permission-mode", "bypass", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "Wrote out.txt.\n")
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert done.stderr == ""  # progress goes to stderr only on a terminal or with --verbose


def test_the_prompt_can_come_on_stdin_and_progress_with_verbose(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("list_dir", {"path": "."})), text("Nothing here."))
    done = taor("-p", *local(server), "--verbose", cwd=tmp_path, stdin="what is here?")
    assert (done.returncode, done.stdout) == (0, "Nothing here.\n")
    assert "list_dir" in done.stderr
    assert server.requests[0].json["messages"][-1]["content"] == "what is here?"


def test_json_is_one_final_object(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(text("All good."))
    done = taor("-p", "check", *local(server), "--output-format", "json", cwd=tmp_path)
    (line,) = done.stdout.splitlines()
    final = json.loads(line)
    assert final["type"] == "result" and final["result"] == "All good."
    assert final["stop_reason"] == "completed" and final["model_calls"] == 1
    assert final["session_id"] and final["usage"]["output_tokens"] > 0


def test_stream_json_is_every_event_then_the_result(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("list_dir", {"path": "."})), text("Empty."))
    done = taor("-p", "look", *local(server), "--output-format", "stream-json", cwd=tmp_path)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [line.get("kind") for line in lines[:-1]]
    assert kinds[0] == "session_start" and "tool_call_end" in kinds
    assert kinds[-1] == "processing_end"
    assert [line["seq"] for line in lines[:-1]] == list(range(1, len(lines)))  # SSE-style ids
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "Empty."


def test_a_denied_call_in_headless_mode_exits_4(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Could not run it."))
    done = taor("-p", "make a file", *local(server), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (4, "Could not run it.\n")
    assert not (tmp_path / "made").exists()
    assert "1 tool call(s) denied (shell)" in done.stderr and "--allow" in done.stderr
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Could not run it."))
    done = taor("-p", "again", *local(server), "--output-format", "json", cwd=tmp_path)
    (denial,) = json.loads(done.stdout)["permission_denials"]
    assert denial["tool"] == "shell" and denial["call_id"]


def test_a_limit_exits_3(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(tool_calls(("list_dir", {"path": "."})), text("Summary so far."))
    done = taor("-p", "explore", *local(server), "--max-turns", "1", cwd=tmp_path)
    assert done.returncode == 3


def test_a_provider_error_exits_1_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    done = taor(
        "-p", "hi", "--model", "openai-compat:x", "--base-url", "http://127.0.0.1:9/v1",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("taor: ") and "connect" in line.lower()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["-p", "x", "--output-format", "yaml"], "invalid choice"),
        (["-p", "x", "--max-turns", "0"], "must be a positive whole number"),
        (["-p", "x", "--no-such-flag"], "unrecognized arguments"),
        (["-p", "x", "--verbose", "--quiet"], "not allowed with"),
        (["do it"], "the interactive mode needs a terminal"),
        (["-p", "   "], "no prompt"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    done = taor(*args, cwd=tmp_path, stdin="")
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_no_key_says_where_it_looked_and_how_to_use_a_local_server(tmp_path: Path) -> None:
    done = taor("-p", "hi", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ANTHROPIC_API_KEY" in done.stderr and "--base-url" in done.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_interrupts_the_run_and_exits_130(
    tmp_path: Path, server: FakeProviderServer, sig: signal.Signals
) -> None:
    server.push(tool_calls(("shell", {"command": "sleep 60; touch late", "timeout": 120})))
    args = ["-p", "wait", *local(server), "--permission-mode", "bypass"]
    proc = running_a_tool(*args, cwd=tmp_path)
    proc.send_signal(sig)
    rest, errors = proc.communicate(timeout=60)  # closes the pipes
    assert proc.returncode == 130 and "Traceback" not in errors
    kinds = [json.loads(line).get("kind") for line in rest.splitlines()]
    assert "interrupted" in kinds and kinds[-2] == "processing_end"
    assert not (tmp_path / "late").exists()


def test_a_reader_that_goes_away_does_not_stop_the_work(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo done > out.txt"})), text("Wrote it."))
    args = [*local(server), "--permission-mode", "bypass", "--output-format", "stream-json"]
    piped = subprocess.run(
        f"{TAOR} -p 'write it' {shlex.join(args)} | head -c 1",
        shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env=environ(tmp_path),
    )  # fmt: skip
    assert piped.stdout == "{" and piped.stderr == ""
    assert (tmp_path / "out.txt").read_text() == "done\n"

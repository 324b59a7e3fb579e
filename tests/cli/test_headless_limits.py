"""Limits of ``taor -p`` that hold: no call past ``--max-turns`` or ``--max-budget-usd`` (not
even taor's own summary or recovery calls), one stderr line that says what stopped the run and
how to go on, exit 3 for a loop too, and ``model_calls`` counting every request sent."""

from __future__ import annotations

import json
from pathlib import Path

from taor.llm.response import Usage
from taor.testing import FakeProviderServer, HttpError, Reply, disconnect, text, tool_calls

from .support import local, taor

LIST = tool_calls(("list_dir", {"path": "."}))
READ = tool_calls(("read_file", {"path": "a.txt"}))


def result_of(stdout: str) -> dict[str, object]:
    (line,) = stdout.splitlines()
    return dict(json.loads(line))


def test_max_turns_is_the_number_of_model_calls_summary_included(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(LIST, LIST, LIST, text("Summary so far."))
    done = taor("-p", "explore", *local(server), "--max-turns", "2", "--output-format", "json",
                cwd=tmp_path)  # fmt: skip
    assert done.returncode == 3
    assert len(server.requests) == 2
    final = result_of(done.stdout)
    assert (final["stop_reason"], final["model_calls"]) == ("turn_limit", 2)
    (line,) = done.stderr.splitlines()
    assert "2 model call(s)" in line and "--max-turns" in line and "taor -p --continue" in line


def test_the_budget_is_never_passed_by_a_call_started_after_it_was_spent(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    """claude-fable-5-1 costs $10 per million input tokens: the first call costs $1."""
    server.push(
        Reply(tool_calls=LIST.tool_calls, usage=Usage(input_tokens=100_000, output_tokens=10)),
        text("Summary so far."),
    )
    args = ["--model", "anthropic:claude-fable-5-1", "--base-url", server.base_url("anthropic")]
    done = taor("-p", "explore", *args, "--max-budget-usd", "0.5", "--output-format", "json",
                cwd=tmp_path, env={"ANTHROPIC_API_KEY": "sk-test"})  # fmt: skip
    assert done.returncode == 3
    assert len(server.requests) == 1
    final = result_of(done.stdout)
    assert final["stop_reason"] == "turn_limit" and final["cost_usd"] < 1.01
    (line,) = done.stderr.splitlines()
    assert "--max-budget-usd" in line and "$1.0" in line


def test_malformed_call_recoveries_stop_at_the_call_limit(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    bad = HttpError(status=500, message="Failed to parse tool call arguments as JSON")
    server.push(bad, bad, bad, bad, text("never asked"))
    done = taor("-p", "go", *local(server), "--max-turns", "2", "--output-format", "json",
                cwd=tmp_path)  # fmt: skip
    assert len(server.requests) == 2
    assert done.returncode == 3 and result_of(done.stdout)["model_calls"] == 2


def test_a_loop_stop_exits_3_and_says_so(tmp_path: Path, server: FakeProviderServer) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    server.push(*[READ] * 12)
    done = taor("-p", "read", *local(server), "--output-format", "json", cwd=tmp_path)
    assert done.returncode == 3
    final = result_of(done.stdout)
    assert final["stop_reason"] == "loop_detected"
    assert str(final["result"]).startswith("Stopped: the model kept repeating")
    (line,) = done.stderr.splitlines()
    assert "kept repeating" in line and "taor -p --continue" in line


def test_the_stop_line_also_in_text_mode_but_not_with_quiet(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(LIST)  # no summary: it would be a second call
    done = taor("-p", "explore", *local(server), "--max-turns", "1", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (3, "")
    assert "--max-turns" in done.stderr and len(done.stderr.splitlines()) == 1
    server.push(LIST)
    quiet = taor("-p", "explore", *local(server), "--max-turns", "1", "--quiet", cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (3, "")


def test_the_stop_line_of_a_stream_json_run_but_not_with_quiet(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    stream = ["--input-format", "stream-json", "--output-format", "stream-json"]
    for quiet in (False, True):
        server.push(LIST)
        flags = ["--quiet"] if quiet else []
        done = taor("-p", "explore", *local(server), *stream, "--max-turns", "1", *flags,
                    cwd=tmp_path, stdin="")  # fmt: skip
        assert done.returncode == 3
        assert ("--max-turns" in done.stderr) is not quiet, done.stderr


def test_model_calls_counts_a_call_cut_short(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(disconnect(after=2, reply=Reply(text="This will be cut off.")), text("Whole."))
    done = taor("-p", "hi", *local(server), "--output-format", "json", cwd=tmp_path)
    final = result_of(done.stdout)
    assert (done.returncode, final["result"]) == (0, "Whole.")
    assert final["model_calls"] == len(server.requests) == 2

"""``taor -p --input-format stream-json`` as an IDE or a script drives it: the real ``taor``
process, its stdin a pipe written line by line while it runs, its stdout read as it comes,
against the fake provider server."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.commands import ListCheckpoints, Rewind, Submit
from taor.agent.events import PermissionRequest
from taor.agent.record.codec import event_from_json, to_json
from taor.cli.stream_input import parse_line
from taor.errors import SessionError
from taor.testing import FakeProviderServer, text, tool_calls

from .support import TAOR, environ, local, taor

STREAM = ("--input-format", "stream-json", "--output-format", "stream-json")
WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done; echo went"


class Driven:
    """A ``taor -p ... --input-format stream-json`` process and its output lines so far."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [TAOR, "-p", *args, *STREAM],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ(cwd),
        )
        self.seen: list[dict[str, Any]] = []
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(json.loads(line))  # every line taor prints is one JSON object
        self._lines.put(None)

    def send(self, line: dict[str, Any] | str | bytes) -> None:
        data = (
            line if isinstance(line, bytes) else line if isinstance(line, str) else json.dumps(line)
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write((data if isinstance(data, bytes) else data.encode()) + b"\n")
        self.proc.stdin.flush()

    def until(self, *, kind: str = "", type: str = "") -> dict[str, Any]:
        """The next line of that ``kind`` (an event) or ``type`` (``result``)."""
        while True:
            try:
                line = self._lines.get(timeout=60)  # a hang guard, not a timing check
            except queue.Empty:
                raise AssertionError(f"no {kind or type} line; seen: {self.seen}") from None
            if line is None:
                raise AssertionError(f"taor ended before a {kind or type} line: {self.seen}")
            self.seen.append(line)
            if (kind and line.get("kind") == kind) or (type and line.get("type") == type):
                return line

    def end(self) -> int:
        """Close stdin, read the rest; the exit code."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        while (line := self._lines.get(timeout=60)) is not None:
            self.seen.append(line)
        code = self.proc.wait(timeout=60)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()
        with self.proc.stderr as errors:
            assert b"Traceback" not in errors.read()
        return code

    def kinds(self) -> list[str]:
        return [line.get("kind") or line["type"] for line in self.seen]


def waiting(server: FakeProviderServer, cwd: Path) -> Driven:
    """A run whose first input starts a command that does not end on its own."""
    server.push(tool_calls(("shell", {"command": "sleep 60; touch late", "timeout": 120})))
    run = Driven(*local(server), "--permission-mode", "bypass", cwd=cwd)
    run.send({"type": "user", "text": "wait"})
    return run


def test_each_user_line_runs_a_cycle_with_a_result_line(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("One."), text("Two."))
    run = Driven(*local(server), cwd=tmp_path)
    run.send({"type": "user", "text": "first"})
    assert run.until(type="result")["result"] == "One."
    claude_code = {"role": "user", "content": [{"type": "text", "text": "second"}]}
    run.send({"type": "user", "message": claude_code})
    second = run.until(type="result")
    assert (second["result"], second["stop_reason"], second["model_calls"]) == (
        "Two.",
        "completed",
        1,
    )
    assert run.end() == 0
    assert run.kinds()[0] == "session_start" and run.kinds()[-1] == "session_end"
    assert [r.json["messages"][-1]["content"] for r in server.requests] == ["first", "second"]


def test_the_prompt_after_p_goes_first_and_the_end_of_stdin_ends_the_run(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("Done."))
    done = taor("-p", "go", *local(server), *STREAM, cwd=tmp_path, stdin="")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    (result,) = [line for line in lines if line.get("type") == "result"]
    assert result["result"] == "Done."
    assert lines[-1]["kind"] == "session_end"


def test_steering_sent_while_a_tool_runs_reaches_the_next_model_request(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": WAIT_FOR_GO})), text("Used tabs."))
    run = Driven(*local(server), "--permission-mode", "bypass", cwd=tmp_path)
    run.send({"type": "user", "text": "format it"})
    run.until(kind="tool_call_start")
    run.send({"type": "steer", "text": "use tabs, not spaces"})
    run.until(kind="steering_queued")
    (tmp_path / "go").touch()  # the command ends only now, after the steering arrived
    run.until(kind="steering_injected")
    assert run.until(type="result")["result"] == "Used tabs."
    assert run.end() == 0
    assert "use tabs, not spaces" in json.dumps(server.requests[1].json["messages"][-2:])


def test_interrupt_stops_a_running_command_and_the_next_input_still_works(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    run = waiting(server, tmp_path)
    run.until(kind="tool_call_start")
    run.send({"type": "interrupt"})
    assert run.until(type="result")["stop_reason"] == "interrupted"
    server.push(text("Still here."))
    run.send({"type": "user", "text": "are you there?"})
    assert run.until(type="result")["result"] == "Still here."
    assert run.end() == 0
    assert not (tmp_path / "late").exists()


def test_a_permission_request_waits_for_its_answer(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(
        tool_calls(("shell", {"command": "echo yes > allowed.txt"})),
        tool_calls(("shell", {"command": "echo no > denied.txt"})),
        text("One of two."),
    )
    run = Driven(*local(server), cwd=tmp_path)
    run.send({"type": "user", "text": "write both"})
    asked = run.until(kind="permission_request")
    run.send({"type": "permission", "request_id": asked["request_id"], "decision": "allow"})
    asked = run.until(kind="permission_request")
    assert (tmp_path / "allowed.txt").read_text() == "yes\n"
    answer = {"decision": "deny", "message": "not that one"}
    run.send({"type": "permission", "request_id": asked["request_id"], **answer})
    assert run.until(type="result")["result"] == "One of two."
    assert run.end() == 0  # a denial the driver gave is an answer, not a failure
    assert not (tmp_path / "denied.txt").exists()
    assert "not that one" in json.dumps(server.requests[2].json["messages"][-1])


def test_an_edit_s_permission_request_line_carries_the_diff_it_would_make(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    (tmp_path / "app.py").write_text("a = 1\n")
    edit = ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 2"})
    server.push(tool_calls(edit), text("Edited."))
    run = Driven(*local(server), cwd=tmp_path)
    run.send({"type": "user", "text": "edit it"})
    asked = run.until(kind="permission_request")
    assert asked["diff"] == "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    assert (tmp_path / "app.py").read_text() == "a = 1\n"  # not yet written
    request = event_from_json(asked)  # what a host reading the line decodes
    assert isinstance(request, PermissionRequest) and request.diff == asked["diff"]
    assert to_json(request) == asked
    run.send({"type": "permission", "request_id": asked["request_id"], "decision": "allow"})
    assert run.until(type="result")["result"] == "Edited."
    assert run.end() == 0
    assert (tmp_path / "app.py").read_text() == "a = 2\n"


def test_at_the_end_of_stdin_an_open_permission_request_is_denied(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Could not."))
    run = Driven(*local(server), cwd=tmp_path)
    run.send({"type": "user", "text": "make it"})
    run.until(kind="permission_request")
    assert run.end() == 4  # denied because no one could answer it
    assert not (tmp_path / "made").exists()
    (result,) = [line for line in run.seen if line.get("type") == "result"]
    assert result["result"] == "Could not."
    assert [d["tool"] for d in result["permission_denials"]] == ["shell"]


def test_malformed_lines_get_error_lines_and_the_run_goes_on(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    bad: list[tuple[str | bytes | dict[str, Any], str]] = [
        ("this is not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ({"type": "shout", "text": "hi"}, "'shout' is not one of"),
        ({"text": "no type"}, "is not one of"),
        ({"type": "steer"}, '"text" is missing'),
        ({"type": "user", "text": 42}, '"text" is not a string'),
        ({"type": "follow_up", "text": "  "}, '"text" is empty'),
        ({"type": "user", "message": {"content": [{"type": "image"}]}}, "only text blocks"),
        ({"type": "permission", "request_id": "perm_x", "decision": "allow"}, "perm_x"),
        ({"type": "permission", "request_id": "perm_x", "decision": "yes"}, "'yes' is not one"),
        (b"\xff\xfe", "not JSON"),
    ]
    server.push(text("Fine."))
    run = Driven(*local(server), cwd=tmp_path)
    run.send("")  # a blank line is skipped without a word
    for number, (line, says) in enumerate(bad, start=2):
        run.send(line)
        error = run.until(kind="error")
        assert error["error_type"] == "invalid_input", error
        assert error["message"].startswith(f"input line {number}: ") and says in error["message"]
    run.send({"type": "user", "text": "still there?"})
    assert run.until(type="result")["result"] == "Fine."
    assert run.end() == 0


def test_close_stops_the_running_cycle_at_once_and_ends_the_run(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    run = waiting(server, tmp_path)
    run.send({"type": "follow_up", "text": "then this"})
    run.until(kind="tool_call_start")
    run.send({"type": "close"})
    assert run.proc.wait(timeout=60) == 130  # stdin still open: close alone ended it
    run.end()
    results = [line["stop_reason"] for line in run.seen if line.get("type") == "result"]
    assert sorted(results) == ["closed", "closed"]  # the running input and the queued one
    assert run.kinds()[-1] == "session_end" and len(server.requests) == 1
    assert not (tmp_path / "late").exists()


def test_a_signal_interrupts_exits_130_and_leaves_a_session_to_continue(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    run = waiting(server, tmp_path)
    run.until(kind="tool_call_start")
    run.proc.send_signal(signal.SIGINT)
    assert run.proc.wait(timeout=60) == 130  # stdin still open: the reader does not hold it
    run.end()
    assert "interrupted" in run.kinds() and run.kinds()[-1] == "session_end"
    server.push(text("Picked up."))
    again = taor("-p", "go on", "--continue", *local(server), cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Picked up.\n")


def test_stream_json_input_needs_stream_json_output(tmp_path: Path) -> None:
    done = taor("-p", "--input-format", "stream-json", cwd=tmp_path, stdin="")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--input-format stream-json needs --output-format stream-json" in done.stderr


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
line_fields = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["user", "steer", "follow_up", "permission", "close", "x"]),
        "text": json_values,
        "message": json_values | st.fixed_dictionaries({"content": json_values}),
        "request_id": json_values,
        "decision": st.sampled_from(["allow", "deny", "allow_always", "Allow"]) | json_values,
        "agent_id": json_values,
    },
)


@given(st.text() | line_fields.map(json.dumps) | json_values.map(json.dumps))
def test_any_line_is_a_command_a_blank_or_a_session_error(line: str) -> None:
    try:
        command: object = parse_line(line)
    except SessionError as error:  # nothing else escapes
        command = error
    if isinstance(command, SessionError):
        assert str(command)  # says what is wrong
    else:
        assert command is not None or not line.strip()


def test_both_shapes_of_a_user_input_give_its_text() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    shapes = [{"text": "a\nb"}, {"message": {"content": "a\nb"}}, {"message": {"content": blocks}}]
    for shape in shapes:
        assert parse_line(json.dumps({"type": "user", **shape})) == Submit(text="a\nb")


def test_checkpoint_lines() -> None:
    assert parse_line('{"type": "checkpoints"}') == ListCheckpoints()
    assert parse_line('{"type": "rewind", "turn": 3}') == Rewind(turn=3)
    files_only = parse_line('{"type": "rewind", "turn": 1, "conversation": false}')
    assert files_only == Rewind(turn=1, files=True, conversation=False)
    for bad in ('{"type": "rewind"}', '{"type": "rewind", "turn": 1, "files": "no"}'):
        with pytest.raises(SessionError):
            parse_line(bad)

"""Every ``taor -p`` run is a recorded session of its project; ``--continue``, ``--resume`` and
``--fork`` pick it up, through the real command against the fake server."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.testing import FakeProviderServer, text, tool_calls

from .support import data_home, local, running_a_tool, taor


def transcripts(cwd: Path) -> list[Path]:
    return sorted((data_home(cwd) / "taor" / "sessions").glob("*/*.jsonl"))


def run_json(cwd: Path, fake: FakeProviderServer, *args: str) -> dict:
    done = taor("-p", *args, *local(fake), "--output-format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def first_user_texts(fake: FakeProviderServer) -> list[str]:
    return [m["content"] for m in fake.requests[-1].json["messages"] if m["role"] == "user"]


def test_a_run_is_recorded_and_continue_picks_it_up(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("The answer is 42."), text("You asked about 42."))
    first = run_json(tmp_path, server, "what is the answer?")
    (path,) = transcripts(tmp_path)
    assert path.stem.endswith(first["session_id"])
    second = run_json(tmp_path, server, "what did I ask?", "--continue")
    assert second["session_id"] == first["session_id"] and len(transcripts(tmp_path)) == 1
    assert first_user_texts(server) == ["what is the answer?", "what did I ask?"]
    assert problems(list(load(path).turns)) == []


def test_resume_by_id_prefix_and_fork_leaves_the_original_alone(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("one"), text("two"), text("forked"))
    first = run_json(tmp_path, server, "first")
    run_json(tmp_path, server, "second")  # the newest now
    resumed = run_json(tmp_path, server, "back to the first", "--resume", first["session_id"][:8])
    assert resumed["session_id"] == first["session_id"]
    before = {p: p.read_bytes() for p in transcripts(tmp_path)}
    server.push(text("a copy"))
    fork = run_json(tmp_path, server, "on a copy", "--continue", "--fork")
    assert fork["session_id"] not in (first["session_id"],)
    assert len(transcripts(tmp_path)) == 3
    assert all(p.read_bytes() == data for p, data in before.items())  # the originals unchanged


def test_resume_errors_are_usage_errors(tmp_path: Path, server: FakeProviderServer) -> None:
    nothing = taor("-p", "x", *local(server), "--continue", cwd=tmp_path)
    assert nothing.returncode == 2 and "no session of this project" in nothing.stderr
    unknown = taor("-p", "x", *local(server), "--resume", "feedbeef", cwd=tmp_path)
    assert unknown.returncode == 2 and "feedbeef" in unknown.stderr
    fork_alone = taor("-p", "x", *local(server), "--fork", cwd=tmp_path)
    assert fork_alone.returncode == 2 and "--fork needs" in fork_alone.stderr


def test_a_run_killed_mid_command_continues_without_running_it_again(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo ran >> log.txt; sleep 60", "timeout": 120})))
    args = ["-p", "log it", *local(server), "--permission-mode", "bypass"]
    proc = running_a_tool(*args, cwd=tmp_path)
    log = tmp_path / "log.txt"
    for _ in range(200):  # the command has started when its line is there
        if log.exists():
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)  # closes the pipes
    server.push(text("It may have run; the log says so."))
    after = run_json(tmp_path, server, "go on", "--continue")
    assert after["stop_reason"] == "completed"
    assert log.read_text() == "ran\n"  # once: never run again
    tool_messages = [m for m in server.requests[-1].json["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 1 and "nterrupted" in tool_messages[0]["content"]


def test_a_second_process_on_the_same_session_gets_a_clear_error(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "sleep 60", "timeout": 120})))
    proc = running_a_tool("-p", "wait", *local(server), "--permission-mode", "bypass", cwd=tmp_path)
    second = taor("-p", "me too", *local(server), "--continue", cwd=tmp_path)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert second.returncode == 1 and "Traceback" not in second.stderr
    assert "in use by another session" in second.stderr
    assert proc.returncode == 130
    (path,) = transcripts(tmp_path)
    assert problems(list(load(path).turns)) == []


def test_continue_with_another_provider_sends_the_whole_history(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("list_dir", {"path": "."})), text("It is empty."))
    run_json(tmp_path, server, "what is here?")
    server.push(text("I listed the folder, it was empty."))
    anthropic = {"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": server.base_url("anthropic")}
    done = taor(
        "-p", "what did you do?", "--continue", "--model", "anthropic:claude-sonnet-4-5",
        cwd=tmp_path, env=anthropic,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "I listed the folder, it was empty.\n")
    sent = server.requests[-1]
    assert sent.wire == "anthropic"
    blocks = [b["type"] for m in sent.json["messages"] for b in m["content"]]
    assert blocks.count("tool_use") == 1 and blocks.count("tool_result") == 1
    assert sent.json["messages"][-1]["content"][-1]["text"] == "what did you do?"

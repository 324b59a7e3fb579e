"""Hooks from the person's config file, run by the real ``taor`` as shell commands at a
session's events: what each answer does, and how a failing hook is reported."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from .support import home, local, taor

# A hook script: it saves what it read on stdin, then answers as its arguments say.
SCRIPT = """
import json, sys, pathlib
seen = json.load(sys.stdin)
log = pathlib.Path("hook-log.jsonl")
with log.open("a") as handle:
    handle.write(json.dumps(seen) + "\\n")
answer, code = sys.argv[1], int(sys.argv[2])
if answer == "stderr":
    sys.stderr.write("not that one, use ls")
elif answer != "-":
    sys.stdout.write(answer)
sys.exit(code)
"""


def with_hook(tmp_path: Path, event: str, answer: str, code: int = 0, extra: str = "") -> Path:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "hook.py").write_text(SCRIPT)
    command = f"{sys.executable} hook.py {shlex.quote(answer)} {code}"
    config = home(cwd, "config") / "taor"
    config.mkdir(parents=True)
    hook = f"[[hooks.{event}]]\ncommand = {json.dumps(command)}\n{extra}"
    (config / "config.toml").write_text(hook)
    return cwd


def seen(cwd: Path) -> list[dict[str, object]]:
    path = cwd / "hook-log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run(cwd: Path, server: FakeProviderServer) -> str:
    done = taor("-p", "go", *local(server), "--permission-mode", "bypass", cwd=cwd)
    assert "Traceback" not in done.stderr
    return done.stdout


def result_of_call(server: FakeProviderServer) -> str:
    return str(server.requests[1].json["messages"][-1]["content"])


@pytest.mark.parametrize(
    ("answer", "code"),
    [('{"decision": "deny", "message": "not that one, use ls"}', 0), ("stderr", 2)],
)
def test_a_before_tool_hook_refuses_a_call(
    tmp_path: Path, server: FakeProviderServer, answer: str, code: int
) -> None:
    cwd = with_hook(tmp_path, "before_tool", answer, code, 'match = "shell"\n')
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Ok."))
    run(cwd, server)
    assert not (cwd / "made").exists()
    assert "not that one, use ls" in result_of_call(server)
    [call] = seen(cwd)
    assert call["event"] == "before_tool" and call["tool"] == "shell"
    assert call["arguments"] == {"command": "touch made"} and call["cwd"] == str(cwd)


def test_a_before_tool_hook_changes_the_arguments_and_match_picks_the_tools(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    answer = '{"arguments": {"command": "touch changed"}}'
    cwd = with_hook(tmp_path, "before_tool", answer, 0, 'match = "sh*"\n')
    server.push(
        tool_calls(("shell", {"command": "touch made"})),
        tool_calls(("read_file", {"path": "hook.py"})),
        text("Ok."),
    )
    run(cwd, server)
    assert (cwd / "changed").exists() and not (cwd / "made").exists()
    assert [call["tool"] for call in seen(cwd)] == ["shell"]  # read_file did not match


def test_an_after_tool_hook_replaces_what_the_model_gets(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    cwd = with_hook(tmp_path, "after_tool", '{"output": "redacted by the hook"}')
    server.push(tool_calls(("shell", {"command": "echo secret-output"})), text("Ok."))
    run(cwd, server)
    assert "redacted by the hook" in result_of_call(server)
    assert "secret-output" not in result_of_call(server)
    assert "secret-output" in str(seen(cwd)[0]["output"])


def test_a_user_prompt_hook_replaces_the_input(tmp_path: Path, server: FakeProviderServer) -> None:
    cwd = with_hook(tmp_path, "user_prompt", '{"prompt": "go, and be brief"}')
    server.push(text("Ok."))
    run(cwd, server)
    assert server.requests[0].json["messages"][-1]["content"] == "go, and be brief"
    assert seen(cwd)[0]["prompt"] == "go"


def test_a_stop_hook_keeps_the_model_going(tmp_path: Path, server: FakeProviderServer) -> None:
    once = 'cat > seen.json; test -e once || { touch once; echo "run the tests too" >&2; exit 2; }'
    cwd = with_hook(tmp_path, "stop", "-")
    (home(cwd, "config") / "taor" / "config.toml").write_text(
        f"[[hooks.stop]]\ncommand = {json.dumps(once)}\n"
    )
    server.push(text("First answer."), text("Second answer."))
    assert run(cwd, server).strip().endswith("Second answer.")
    assert "run the tests too" in json.dumps(server.requests[1].json)
    assert json.loads((cwd / "seen.json").read_text())["final_text"] == "Second answer."


@pytest.mark.parametrize(
    ("answer", "code", "extra", "says"),
    [
        ("-", 1, "", "exited with 1"),
        ("this is not json", 0, "", "not one JSON object"),
        ("-", 0, "timeout = 0.5\n", "timed out after 0.5 s"),
    ],
)
def test_a_failing_hook_is_a_tool_error_the_model_reads(
    tmp_path: Path, server: FakeProviderServer, answer: str, code: int, extra: str, says: str
) -> None:
    cwd = with_hook(tmp_path, "before_tool", answer, code, extra)
    if "timeout" in extra:
        hook = home(cwd, "config") / "taor" / "config.toml"
        hook.write_text('[[hooks.before_tool]]\ncommand = "sleep 30"\n' + extra)
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Ok."))
    run(cwd, server)
    assert not (cwd / "made").exists()
    assert says in result_of_call(server)


def test_a_bad_hook_table_is_named_with_what_is_allowed(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    config = home(cwd, "config") / "taor"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[[hooks.before_everything]]\ncommand = "true"\n')
    done = taor("-p", "go", cwd=cwd)
    assert done.returncode == 2 and "hooks = " in done.stderr
    assert "before_tool, after_tool, user_prompt, stop" in done.stderr


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        ("toml", "temperature = 0\nmax_output_tokens = 321\n", (0, 321)),
        ("toml", "temperature = 1.5\n", (1.5, None)),
        ("env", {"TAOR_TEMPERATURE": "0.2", "TAOR_MAX_OUTPUT_TOKENS": "77"}, (0.2, 77)),
        ("flag", ["--temperature", "0", "--max-output-tokens", "5"], (0, 5)),
    ],
)
def test_temperature_and_output_tokens_reach_the_request(
    tmp_path: Path, server: FakeProviderServer, where: str, value: object, expected: tuple
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    env, flags = {}, []
    if where == "toml":
        config = home(cwd, "config") / "taor"
        config.mkdir(parents=True)
        (config / "config.toml").write_text(str(value))
    elif where == "env":
        env = dict(value)  # type: ignore[call-overload]
    else:
        flags = list(value)  # type: ignore[call-overload]
    server.push(text("Ok."))
    done = taor("-p", "hi", *local(server), *flags, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    sent = server.requests[0].json
    assert sent.get("temperature") == expected[0]
    if expected[1] is not None:
        assert expected[1] in (sent.get("max_tokens"), sent.get("max_completion_tokens"))


@pytest.mark.parametrize(
    "bad", ["temperature = 2.5\n", "temperature = -1\n", "max_output_tokens = 0\n"]
)
def test_a_bad_temperature_or_token_count_is_refused(tmp_path: Path, bad: str) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    config = home(cwd, "config") / "taor"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(bad)
    done = taor("-p", "hi", cwd=cwd)
    assert done.returncode == 2 and "is not allowed; it must be" in done.stderr

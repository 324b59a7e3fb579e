"""``taor sessions`` lists the recorded runs of a project (``--all``: of every project) and
``taor sessions show ID`` prints one, through the real command after real runs against the
fake server (the listings by the command's ``main`` in the test's process, as the installed
command's once)."""

from __future__ import annotations

import json
from pathlib import Path

from taor.testing import FakeProviderServer, HttpError, text, tool_calls

from .support import data_home, in_process, local, taor


def run(cwd: Path, server: FakeProviderServer, prompt: str, **env: str) -> str:
    args = ["-p", prompt, *local(server), "--permission-mode", "bypass", "--output-format", "json"]
    done = taor(*args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout.splitlines()[-1])["session_id"])


def sessions(cwd: Path, *args: str, **env: str) -> tuple[int, str, str]:
    done = in_process("sessions", *args, cwd=cwd, env=env)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def test_the_list_is_newest_first_with_prompt_turns_and_model(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "echo hello"})), text("It said hello."))
    first = run(tmp_path, server, "say hello\nin a shell")
    server.push(text("Nothing to do."))
    second = run(tmp_path, server, "second task")
    code, out, _ = sessions(tmp_path)
    assert code == 0
    assert taor("sessions", cwd=tmp_path).stdout == out  # the installed command's, too
    header, newest, oldest = out.splitlines()
    assert header.split() == ["ID", "STARTED", "TURNS", "COST", "MODEL", "FIRST", "PROMPT"]
    assert newest.startswith(second[:12]) and oldest.startswith(first[:12])
    assert newest.split()[4:] == ["1", "?", "local", "second", "task"]  # unpriced: cost "?"
    assert oldest.split()[4:] == ["2", "?", "local", "say", "hello", "in", "a", "shell"]
    assert all(len(line) <= 80 for line in out.splitlines())
    listed = json.loads(sessions(tmp_path, "--json")[1])
    assert [s["id"] for s in listed] == [second, first]
    assert listed[1]["model_calls"] == 2 and listed[1]["model"] == "openai-compat:local"
    assert (
        listed[1]["cwd"] == str(tmp_path) and listed[1]["first_prompt"] == "say hello\nin a shell"
    )


def test_a_priced_model_shows_its_cost(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(text("Done."))
    args = ["--model", "anthropic:claude-sonnet-4-5", "--base-url", server.base_url("anthropic")]
    done = taor("-p", "hi", *args, cwd=tmp_path, env={"ANTHROPIC_API_KEY": "test-key"})
    assert done.returncode == 0, done.stderr
    (listed,) = json.loads(sessions(tmp_path, "--json")[1])
    assert listed["cost_usd"] > 0 and listed["model"] == "anthropic:claude-sonnet-4-5"
    assert "$" in sessions(tmp_path)[1].splitlines()[1]


def test_all_lists_every_project_under_its_name(tmp_path: Path, server: FakeProviderServer) -> None:
    shared = {"XDG_DATA_HOME": str(tmp_path / "data")}
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    server.push(text("a"), text("b"))
    mine = run(here, server, "in here", **shared)
    theirs = run(there, server, "over there", **shared)
    assert theirs[:12] not in sessions(here, **shared)[1]
    code, out, _ = sessions(here, "--all", **shared)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == str(there) and lines[2].startswith(theirs[:12])  # newest project first
    assert str(here) in lines and mine[:12] in out


def test_show_prints_the_transcript_by_a_prefix_of_the_id(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(tool_calls(("shell", {"command": "seq 1 10"})), text("Counted to ten."))
    session_id = run(tmp_path, server, "count to ten")
    code, out, _ = sessions(tmp_path, "show", session_id[:6])
    assert code == 0
    assert f"session  {session_id}" in out and "model    openai-compat:local" in out
    assert f"cwd      {tmp_path}" in out and "2 model calls" in out
    body = out.split("\n\n", 1)[1].splitlines()
    assert body[:2] == ["> count to ten", "- shell: seq 1 10"]
    assert body[2].startswith("    Exit code: 0")  # the result under its call, folded:
    assert body[3:7] == ["    1", "    2", "    3", "    … 7 more lines"]  # 4 of 11 lines
    assert body[7:] == ["Counted to ten."]


def test_show_prints_the_error_that_ended_a_run(tmp_path: Path, server: FakeProviderServer) -> None:
    server.push(HttpError(status=404, message="model local not found"))
    done = taor("-p", "hello", *local(server), cwd=tmp_path)
    assert done.returncode == 1
    code, out, _ = sessions(tmp_path, "show", "")  # the only session: the empty prefix names it
    assert code == 0
    body = out.split("\n\n", 1)[1].splitlines()
    assert body[0] == "> hello" and body[1].startswith("[error: ")
    assert "model local not found" in body[1]


def test_show_with_an_id_that_names_none_or_several(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("a"), text("b"))
    run(tmp_path, server, "one"), run(tmp_path, server, "two")
    code, out, err = sessions(tmp_path, "show", "zzzz")
    assert (code, out) == (2, "") and "no session of this project has an id starting 'zzzz'" in err
    code, out, err = sessions(tmp_path, "show", "")
    assert code == 2 and "names several sessions" in err and len(err.splitlines()) == 1
    code, _, err = sessions(tmp_path, "show")
    assert code == 2 and "ID" in err and len(err.splitlines()) == 1


def test_a_torn_or_foreign_file_does_not_break_the_list(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    server.push(text("first answer"), text("second answer"))
    first = run(tmp_path, server, "first")
    second = run(tmp_path, server, "second")
    (folder,) = (data_home(tmp_path) / "taor" / "sessions").iterdir()
    (path,) = folder.glob(f"*{second}.jsonl")
    with path.open("a") as file:
        file.write('{"kind":"assistant","message":{"ro')  # a run killed mid-write
    (folder / "notes.jsonl").write_text("my own notes\n")
    code, out, _ = sessions(tmp_path)
    assert code == 0
    rows = out.splitlines()[1:]
    assert len(rows) == 3 and rows[0].startswith("notes")
    assert "unreadable: not a taor transcript" in rows[0]
    assert rows[1].startswith(second[:12]) and rows[1].split()[4] == "1"
    assert rows[2].startswith(first[:12])
    code, out, _ = sessions(tmp_path, "show", second[:8])
    assert code == 0 and "second answer" in out and "skipped a torn last record" in out


def test_no_sessions_and_usage_errors(tmp_path: Path) -> None:
    code, out, _ = sessions(tmp_path)
    assert code == 0 and len(out.splitlines()) == 1 and 'taor -p "task"' in out
    assert sessions(tmp_path, "--json")[1].strip() == "[]"
    code, out, err = sessions(tmp_path, "--bogus")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--bogus" in err

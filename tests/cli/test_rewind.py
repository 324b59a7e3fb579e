"""``taor --rewind N`` through the real command against the fake server: the files put back
as they were before input N, the conversation forked there (the original transcript kept),
alone or followed by ``-p``; and its usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from .support import data_home, local, taor


def transcripts(cwd: Path) -> list[Path]:
    return sorted((data_home(cwd) / "taor" / "sessions").glob("*/*.jsonl"))


def run(cwd: Path, server: FakeProviderServer, *args: str) -> dict:
    done = taor(
        *args, *local(server), "--permission-mode", "bypass", "--output-format", "json", cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def two_inputs(cwd: Path, server: FakeProviderServer) -> str:
    """A session whose first input writes a.txt and whose second changes it and adds b.txt."""
    server.push(
        tool_calls(("write_file", {"path": "a.txt", "content": "one\n"})),
        text("made a"),
        tool_calls(("write_file", {"path": "a.txt", "content": "two\n"})),
        tool_calls(("shell", {"command": "echo made > b.txt"})),
        text("changed a, made b"),
    )
    first = run(cwd, server, "-p", "make a")
    run(cwd, server, "-p", "change a, make b", "--resume", first["session_id"])
    return str(first["session_id"])


def test_rewind_alone_puts_the_files_back_and_forks_the_session(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    session_id = two_inputs(tmp_path, server)
    (original,) = transcripts(tmp_path)
    kept = original.read_bytes()
    requests = len(server.requests)
    done = taor("--rewind", "2", "--resume", session_id[:8], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Rewound to before input 2." in done.stdout
    assert "Files put back: a.txt" in done.stdout
    assert "Files removed (created since): b.txt" in done.stdout
    assert (tmp_path / "a.txt").read_text() == "one\n" and not (tmp_path / "b.txt").exists()
    assert original.read_bytes() == kept and len(transcripts(tmp_path)) == 2
    assert len(server.requests) == requests  # no model was asked


def test_rewind_then_a_prompt_runs_on_the_fork(tmp_path: Path, server: FakeProviderServer) -> None:
    session_id = two_inputs(tmp_path, server)
    server.push(text("starting over"))
    done = taor(
        "--rewind", "2", "--resume", session_id, "-p", "another way", *local(server),
        "--output-format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout)
    assert final["result"] == "starting over" and final["session_id"] != session_id
    assert "Rewound to before input 2." in done.stderr
    sent = [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert sent[0] == "make a" and sent[-1] == "another way"
    assert "change a, make b" not in json.dumps(server.requests[-1].json)
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_rewind_only_files_as_json(tmp_path: Path, server: FakeProviderServer) -> None:
    session_id = two_inputs(tmp_path, server)
    done = taor(
        "--rewind", "1", "--rewind-only", "files", "--resume", session_id,
        "--output-format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["type"] == "rewind" and result["conversation"] is False
    assert result["session_id"] == session_id and sorted(result["removed"]) == ["a.txt", "b.txt"]
    assert len(transcripts(tmp_path)) == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--rewind", "1"], "--rewind needs --continue or --resume"),
        (["--rewind", "0", "--continue"], "counts the session's inputs from 1"),
        (["--rewind", "1", "--continue", "--fork"], "leave out --fork"),
        (["--rewind-only", "files", "--continue"], "--rewind-only needs --rewind"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], says: str) -> None:
    done = taor(*args, cwd=tmp_path)
    assert done.returncode == 2 and says in done.stderr


def test_a_turn_the_session_does_not_have(tmp_path: Path, server: FakeProviderServer) -> None:
    session_id = two_inputs(tmp_path, server)
    done = taor("--rewind", "3", "--resume", session_id, cwd=tmp_path)
    assert done.returncode == 2 and "there is no turn 3" in done.stderr


def test_sessions_show_numbers_the_inputs_that_changed_files(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    session_id = two_inputs(tmp_path, server)
    shown = taor("sessions", "show", session_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "[input 1 changed a.txt (created)]" in lines
    assert "[input 2 changed a.txt, b.txt (created)]" in lines
    assert lines.index("[input 1 changed a.txt (created)]") < lines.index("> change a, make b")


def test_stream_json_lists_the_checkpoints_and_rewinds_between_inputs(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    session_id = two_inputs(tmp_path, server)
    server.push(text("on the fork"))
    lines = [
        {"type": "checkpoints"},
        {"type": "rewind", "turn": 2},
        {"type": "user", "text": "go on from input 1"},
    ]
    done = taor(
        "-p", "--input-format", "stream-json", "--output-format", "stream-json",
        "--resume", session_id, *local(server), cwd=tmp_path,
        stdin="".join(json.dumps(line) + "\n" for line in lines),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    (listing,) = [o for o in out if o.get("type") == "checkpoints"]
    assert [(c["turn"], c["prompt"]) for c in listing["checkpoints"]] == [
        (1, "make a"),
        (2, "change a, make b"),
    ]
    assert listing["checkpoints"][1]["files"][1] == {
        "path": "b.txt", "state": "created", "restorable": True, "reason": "",
    }  # fmt: skip
    (rewound,) = [o for o in out if o.get("type") == "rewind"]
    assert rewound["removed"] == ["b.txt"] and rewound["forked_from"] == session_id
    (result,) = [o for o in out if o.get("type") == "result"]
    assert result["result"] == "on the fork" and result["session_id"] == rewound["session_id"]
    assert (tmp_path / "a.txt").read_text() == "one\n"

"""Checkpoints through a real ``Session``: edits by write_file, edit_file and apply_patch and
changes by real shell commands (in a git work tree and outside one) are listed per user input
by ``Session.checkpoints()`` and put back by ``Session.rewind``, which also forks the
conversation (the original transcript untouched); the index survives a resume."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from taor.agent.checkpoints import FileChange
from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.agent.record.turns import UserTurn
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.errors import SessionClosedError, SessionError
from taor.testing import FunctionModel, ScriptedModel, text, tool_calls
from taor.tools.builtin import ApplyPatchTool

from .loop_support import config

BINARY = bytes(range(256)) * 4


def workspace(tmp_path: Path, *, git: bool) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "keep.txt").write_text("kept\n")
    (root / "blob.bin").write_bytes(BINARY)
    if git:
        run_git(root, "init -q")
        run_git(root, "add -A")
        run_git(root, "-c user.email=t@t -c user.name=t commit -qm init")
    return root


def run_git(root: Path, args: str) -> None:
    subprocess.run(f"git {args}", shell=True, cwd=root, check=True)


def shell(command: str) -> Any:
    return tool_calls(("shell", {"command": command}))


def recorded(path: Path, root: Path, script: list[Any], **options: Any) -> Session:
    return Session.recorded(
        path,
        ScriptedModel(script),
        environment=LocalEnvironment(root),
        tools=[*default_tools(), ApplyPatchTool()],
        config=config(),
        **options,
    )


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def listed(session: Session, turn: int) -> dict[str, tuple[str, bool]]:
    (checkpoint,) = [c for c in session.checkpoints() if c.turn == turn]
    return {f.path: (f.state, f.restorable) for f in checkpoint.files}


PATCH = (
    "*** Begin Patch\n*** Update File: keep.txt\n@@\n-kept\n+patched\n"
    "*** Add File: added.txt\n+added\n*** End Patch\n"
)


async def test_file_tool_edits_are_listed_per_input_and_rewound_with_the_conversation(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=False)
    original = files(root)
    script = [
        tool_calls(("write_file", {"path": "new.txt", "content": "one\n"})),
        text("wrote it"),
        tool_calls(("edit_file", {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"})),
        tool_calls(("apply_patch", {"patch": PATCH})),
        tool_calls(("write_file", {"path": "new.txt", "content": "two\n"})),
        text("changed them"),
    ]
    path = tmp_path / "s.jsonl"
    async with recorded(path, root, script) as session:
        await session.run("write new.txt\nplease")
        after_first = files(root)
        await session.run("change things")
        checkpoints = session.checkpoints()
        assert [(c.turn, c.prompt) for c in checkpoints] == [
            (1, "write new.txt"),
            (2, "change things"),
        ]
        assert listed(session, 1) == {"new.txt": ("created", True)}
        assert listed(session, 2) == {
            "a.txt": ("changed", True),
            "keep.txt": ("changed", True),
            "added.txt": ("created", True),
            "new.txt": ("changed", True),
        }
        before = path.read_bytes()
        old_id = session.id

        result = await session.rewind(2)
        assert files(root) == after_first
        assert set(result.restored) == {"a.txt", "keep.txt", "new.txt"}
        assert result.removed == ("added.txt",) and result.unrestorable == ()
        assert (result.forked_from, result.session_id) == (old_id, session.id) != (old_id, old_id)
        assert path.read_bytes() == before  # the original transcript is left alone
        fork = load(result.transcript or "")
        assert fork.header.session_id == session.id
        assert fork.header.metadata == {"forked_from": old_id, "rewound_to_turn": 2}
        assert [t.text for t in fork.turns if isinstance(t, UserTurn)] == ["write new.txt\nplease"]
        assert session.history == list(fork.turns)
        assert [c.turn for c in session.checkpoints()] == [1]  # the fork keeps turn 1's

        await session.rewind(1, conversation=False)  # further back, in the fork
        assert files(root) == original


async def test_shell_changes_in_a_git_work_tree_are_restored_binary_included(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=True)
    (root / "dirty.txt").write_text("uncommitted\n")  # untracked: git cannot give it back
    original = files(root)
    script = [
        shell(
            "echo more >> a.txt && printf 'x' > blob.bin && echo new > made.txt && "
            "rm keep.txt && echo changed > dirty.txt"
        ),
        text("done"),
    ]
    async with recorded(tmp_path / "s.jsonl", root, script) as session:
        await session.run("change files with a command")
        assert listed(session, 1) == {
            "a.txt": ("changed", True),
            "blob.bin": ("changed", True),
            "made.txt": ("created", True),
            "keep.txt": ("deleted", True),
            "dirty.txt": ("changed", True),
        }
        result = await session.rewind(1, conversation=False)
        assert files(root) == original
        assert result.unrestorable == () and result.removed == ("made.txt",)


async def test_a_commit_or_checkout_by_a_command_is_seen_against_the_earlier_commit(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=True)
    original = files(root)
    script = [
        shell("echo v2 > a.txt && git -c user.email=t@t -c user.name=t commit -qam two"),
        text("committed"),
    ]
    async with recorded(tmp_path / "s.jsonl", root, script) as session:
        await session.run("commit a change")
        assert listed(session, 1) == {"a.txt": ("changed", True)}
        await session.rewind(1, conversation=False)
        assert files(root) == original


async def test_outside_git_what_a_command_changed_unseen_is_reported_not_restorable(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=False)
    script = [
        tool_calls(("edit_file", {"path": "a.txt", "old_string": "alpha", "new_string": "A"})),
        text("edited"),
        shell("echo later >> a.txt && echo gone > keep.txt && echo new > made.txt"),
        text("ran it"),
    ]
    async with recorded(tmp_path / "s.jsonl", root, script) as session:
        await session.run("edit a.txt")
        await session.run("run a command")
        assert listed(session, 2) == {
            "a.txt": ("changed", True),  # the session wrote it last: its content is known
            "keep.txt": ("changed", False),
            "made.txt": ("created", True),
        }
        result = await session.rewind(2, conversation=False)
        assert (root / "a.txt").read_text() == "A\n"
        assert not (root / "made.txt").exists()
        (unrestorable,) = result.unrestorable
        assert unrestorable.path == "keep.txt" and "not saved" in unrestorable.reason
        assert (root / "keep.txt").read_text() == "gone\n"  # reported, left as it is


async def test_a_file_created_then_deleted(tmp_path: Path) -> None:
    root = workspace(tmp_path, git=False)
    script = [
        tool_calls(("write_file", {"path": "t.txt", "content": "temp\n"})),
        shell("rm t.txt"),
        text("made and removed"),
        tool_calls(("write_file", {"path": "u.txt", "content": "kept one turn\n"})),
        text("made u"),
        shell("rm u.txt"),
        text("removed u"),
    ]
    async with recorded(tmp_path / "s.jsonl", root, script) as session:
        await session.run("make and remove t")
        await session.run("make u")
        await session.run("remove u")
        assert listed(session, 1) == {}  # created and deleted in the same input: no change
        assert listed(session, 3) == {"u.txt": ("deleted", True)}
        await session.rewind(3, conversation=False)
        assert (root / "u.txt").read_text() == "kept one turn\n"
        result = await session.rewind(2, conversation=False)
        assert not (root / "u.txt").exists() and result.removed == ("u.txt",)
        assert not (root / "t.txt").exists()


async def test_the_checkpoints_survive_a_resume(tmp_path: Path) -> None:
    root = workspace(tmp_path, git=False)
    path = tmp_path / "s.jsonl"
    script = [tool_calls(("write_file", {"path": "a.txt", "content": "new\n"})), text("ok")]
    async with recorded(path, root, script) as session:
        await session.run("rewrite a.txt")
        listing = session.checkpoints()
    assert (tmp_path / "s.checkpoints" / "index.jsonl").is_file()
    model = ScriptedModel([text("again")])
    resumed = Session.resume(path, model, environment=LocalEnvironment(root), config=config())
    async with resumed:
        assert resumed.checkpoints() == listing
        await resumed.rewind(1)
        assert (root / "a.txt").read_text() == "alpha\n"
        result = await resumed.run("start over")
        assert result.text == "again"
        assert [c.turn for c in resumed.checkpoints()] == [1]
        assert problems(resumed.history) == []


async def test_rewind_is_refused_while_running_for_a_bad_turn_and_once_closed(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=False)
    session = recorded(tmp_path / "s.jsonl", root, [shell("sleep 0.3"), text("slept")])
    async with session:
        with pytest.raises(SessionError, match="no turn 1"):
            await session.rewind(1)
        stream = session.submit("sleep")
        async for event in stream:
            if event.kind == "tool_call_start":
                with pytest.raises(SessionError, match="idle"):
                    await session.rewind(1)
        with pytest.raises(SessionError, match="no turn 2"):
            await session.rewind(2)
    with pytest.raises(SessionClosedError):
        await session.rewind(1)


async def test_without_a_transcript_the_checkpoints_live_in_scratch_until_close(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path, git=False)
    script = [tool_calls(("write_file", {"path": "a.txt", "content": "x\n"})), text("ok")]
    session = Session(ScriptedModel(script), environment=LocalEnvironment(root), config=config())
    async with session:
        await session.run("rewrite")
        scratch = session._rt.checkpoint_dir()
        assert scratch.is_dir()
        result = await session.rewind(1)
        assert result.transcript is None and session.history == []
        assert (root / "a.txt").read_text() == "alpha\n"
    assert not scratch.exists()


async def test_in_a_memory_environment_file_tools_are_tracked_and_commands_noted() -> None:
    env = MemoryEnvironment(files={"a.txt": "alpha\n"})
    env.script(None, "ok")
    script = [
        tool_calls(("edit_file", {"path": "a.txt", "old_string": "alpha", "new_string": "beta"})),
        shell("touch b.txt"),
        text("done"),
    ]
    async with Session(ScriptedModel(script), environment=env, config=config()) as session:
        await session.run("edit")
        (checkpoint,) = session.checkpoints()
        assert checkpoint.files == (FileChange(path="a.txt", state="changed"),)
        assert checkpoint.notes == (
            "Changes made by commands are not tracked in this environment.",
        )
        result = await session.rewind(1, conversation=False)
        assert await env.read_text("a.txt") == "alpha\n" and result.notes == checkpoint.notes


async def test_checkpoints_can_be_switched_off(tmp_path: Path) -> None:
    root = workspace(tmp_path, git=False)
    script = [tool_calls(("write_file", {"path": "a.txt", "content": "x\n"})), text("ok")]
    path = tmp_path / "s.jsonl"
    async with recorded(path, root, script) as session:
        session.configure(checkpoints=False)
        await session.run("rewrite")
        assert session.checkpoints()[0].files == ()
    assert not (tmp_path / "s.checkpoints").exists()


async def test_a_subagents_edits_are_in_its_parents_checkpoint(tmp_path: Path) -> None:
    root = workspace(tmp_path, git=False)
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_text("x\n")
    scripts = {
        "delegate": [
            tool_calls(("spawn_agent", {"task": "edit x", "working_dir": "sub"})),
            tool_calls(("wait", {"agent_id": "agent-1"})),
            text("the agent edited x"),
        ],
        "edit x": [
            tool_calls(("write_file", {"path": "x.txt", "content": "changed\n"})),
            text("edited"),
        ],
    }

    def play(request: Any) -> Any:
        first = request.messages[0].parts[0].text
        return scripts[first].pop(0)

    session = Session(
        FunctionModel(play),
        environment=LocalEnvironment(root),
        tools=default_tools(),
        config=config(subagents=True),
    )
    async with session:
        await session.run("delegate")
        assert listed(session, 1) == {"sub/x.txt": ("changed", True)}
        child = session.subagents.session("agent-1")  # type: ignore[union-attr]
        assert child.checkpoints() == []  # type: ignore[attr-defined]
        await session.rewind(1, conversation=False)
    assert (root / "sub" / "x.txt").read_text() == "x\n"

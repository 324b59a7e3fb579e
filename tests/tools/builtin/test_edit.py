"""edit_file and apply_patch on LocalEnvironment with real files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.env import EnvError, LocalEnvironment, MemoryEnvironment
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin import ApplyPatchTool, EditFileTool

SOURCE = "def greet(name):\n    message = 'hello ' + name\n    return message\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("keep = 1\n")
    (tmp_path / "ws" / "greet.py").write_text(SOURCE)
    return tmp_path / "ws"


async def run(tool: Tool, root: Path, **arguments: Any) -> ToolOutput:
    return await tool.execute(arguments, ToolContext(environment=LocalEnvironment(root)))


async def edit(root: Path, path: str, old: str, new: str, **more: Any) -> ToolOutput:
    return await run(EditFileTool(), root, path=path, old_string=old, new_string=new, **more)


async def test_edit_replaces_and_shows_the_region(root: Path) -> None:
    output = await edit(root, "greet.py", "'hello '", "'hi '")
    assert not output.is_error
    assert output.text.startswith("Edited greet.py. Replaced 1 occurrence.")
    assert "message = 'hi ' + name" in output.text
    assert (root / "greet.py").read_text() == SOURCE.replace("hello", "hi")
    assert output.metadata["fuzzy"] is None


async def test_edit_says_when_a_fuzzy_pass_matched(root: Path) -> None:
    output = await edit(root, "greet.py", "message = \u2018hello \u2019 + name", "message = name")
    assert not output.is_error
    assert "typographic" in output.text
    assert "    message = name\n" in (root / "greet.py").read_text()


async def test_edit_errors_leave_the_file_alone(root: Path) -> None:
    several = await edit(root, "greet.py", "message", "msg")
    assert several.is_error
    assert "2" in several.text
    none = await edit(root, "greet.py", "goodbye", "x")
    assert none.is_error
    assert (root / "greet.py").read_text() == SOURCE
    replaced = await edit(root, "greet.py", "message", "msg", replace_all=True)
    assert "Replaced 2 occurrences" in replaced.text


async def test_edit_a_missing_file_or_create_one(root: Path) -> None:
    missing = await edit(root, "gret.py", "x", "y")
    assert missing.is_error
    assert "greet.py" in missing.text
    assert "write_file" in missing.text
    created = await edit(root, "new/file.py", "", "A = 1\n")
    assert not created.is_error
    assert (root / "new/file.py").read_text() == "A = 1\n"


async def test_edit_keeps_crlf_and_refuses_binary_and_non_utf8(root: Path) -> None:
    (root / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert not (await edit(root, "dos.txt", "two", "2")).is_error
    assert (root / "dos.txt").read_bytes() == b"one\r\n2\r\n"
    (root / "blob.bin").write_bytes(b"a\x00b")
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    assert "binary" in (await edit(root, "blob.bin", "a", "b")).text
    assert "UTF-8" in (await edit(root, "latin.txt", "caf", "x")).text
    assert (root / "latin.txt").read_bytes() == b"caf\xe9\n"


async def test_edit_path_escapes_are_errors(root: Path) -> None:
    (root / "link.py").symlink_to(root.parent / "outside.txt")
    for path in ("../outside.txt", str(root.parent / "outside.txt"), "link.py"):
        output = await edit(root, path, "keep", "lost")
        assert output.is_error, path
        assert "outside" in output.text
    assert (root.parent / "outside.txt").read_text() == "keep = 1\n"


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


async def test_patch_adds_updates_moves_and_deletes(root: Path) -> None:
    (root / "old.txt").write_text("bye\n")
    (root / "move.txt").write_text("a\nb\n")
    text = patch(
        "*** Add File: pkg/new.py",
        "+NEW = 1",
        "*** Update File: greet.py",
        "@@ def greet(name):",
        "-    message = 'hello ' + name",
        "+    message = 'hey ' + name",
        "*** Delete File: old.txt",
        "*** Update File: move.txt",
        "*** Move to: moved/here.txt",
        "@@",
        " a",
        "-b",
        "+c",
    )
    output = await run(ApplyPatchTool(), root, patch=text)
    assert not output.is_error, output.text
    assert output.text.splitlines() == [
        "Success. Updated the following files:",
        "A pkg/new.py",
        "M greet.py",
        "D old.txt",
        "R move.txt -> moved/here.txt",
    ]
    assert (root / "pkg/new.py").read_text() == "NEW = 1\n"
    assert "'hey '" in (root / "greet.py").read_text()
    assert not (root / "old.txt").exists()
    assert not (root / "move.txt").exists()
    assert (root / "moved/here.txt").read_text() == "a\nc\n"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_a_failed_patch_changes_nothing(root: Path) -> None:
    (root / "old.txt").write_text("bye\n")
    before = snapshot(root)
    text = patch(
        "*** Add File: added.py",
        "+X = 1",
        "*** Update File: greet.py",
        "@@",
        "-    message = 'hello ' + name",
        "+    message = 'hey ' + name",
        "*** Delete File: old.txt",
        "*** Update File: greet.py",
        "@@",
        "-    return nothing_like_this",
        "+    return None",
    )
    output = await run(ApplyPatchTool(), root, patch=text)
    assert output.is_error
    assert "greet.py" in output.text
    assert snapshot(root) == before


async def test_bad_grammar_is_an_error(root: Path) -> None:
    output = await run(ApplyPatchTool(), root, patch="*** Begin Patch\nnonsense\n")
    assert output.is_error
    assert "Invalid patch" in output.text


async def test_patch_path_escapes_are_errors_and_write_nothing(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "outside.txt")
    before = snapshot(root.parent)
    for target in ("../outside.txt", str(root.parent / "outside.txt"), "link.txt"):
        text = patch(
            "*** Add File: fine.txt",
            "+ok",
            f"*** Update File: {target}",
            "@@",
            "-keep = 1",
            "+keep = 2",
        )
        output = await run(ApplyPatchTool(), root, patch=text)
        assert output.is_error, target
        assert "outside" in output.text
    escape = patch("*** Add File: ../escape.txt", "+x")
    assert (await run(ApplyPatchTool(), root, patch=escape)).is_error
    assert snapshot(root.parent) == before


MEMORY_PATCH = patch(
    "*** Add File: a_new.py",
    "+NEW = 1",
    "*** Delete File: old.txt",
    "*** Update File: move.txt",
    "*** Move to: moved/here.txt",
    "@@",
    " a",
    "-b",
    "+c",
    "*** Update File: z.py",
    "@@",
    "-Z = 1",
    "+Z = 2",
)


def memory_workspace() -> MemoryEnvironment:
    return MemoryEnvironment(files={"old.txt": "bye\n", "move.txt": "a\nb\n", "z.py": "Z = 1\n"})


async def test_patch_deletes_and_moves_on_memory_environment() -> None:
    env = memory_workspace()
    output = await ApplyPatchTool().execute({"patch": MEMORY_PATCH}, ToolContext(environment=env))
    assert not output.is_error, output.text
    assert env.files == {"a_new.py": b"NEW = 1\n", "moved/here.txt": b"a\nc\n", "z.py": b"Z = 2\n"}
    written = [c.arguments["path"] for c in env.calls_of("write")]
    assert written == ["a_new.py", "moved/here.txt", "z.py"]
    assert [c.arguments["path"] for c in env.calls_of("remove")] == ["old.txt", "move.txt"]
    assert [c.operation for c in env.calls if c.operation in ("write", "remove")] == [
        *["write"] * 3,
        *["remove"] * 2,
    ]
    assert not env.calls_of("run")


async def test_a_write_failing_mid_patch_names_the_files_that_changed() -> None:
    env = memory_workspace()
    env.fail("write", nth=2, error=EnvError("disk full."))
    output = await ApplyPatchTool().execute({"patch": MEMORY_PATCH}, ToolContext(environment=env))
    assert output.is_error
    assert output.text == (
        "Could not write moved/here.txt: disk full. The patch was applied only in part: "
        "already changed: wrote a_new.py; not changed: moved/here.txt, z.py, old.txt, move.txt. "
        "Read those files before patching again."
    )
    assert env.files == {
        "a_new.py": b"NEW = 1\n",
        "old.txt": b"bye\n",
        "move.txt": b"a\nb\n",
        "z.py": b"Z = 1\n",
    }


async def test_a_failing_delete_is_reported_and_a_first_failure_changed_nothing() -> None:
    env = memory_workspace()
    env.fail("remove", nth=2, error=PermissionError("read-only"))
    output = await ApplyPatchTool().execute({"patch": MEMORY_PATCH}, ToolContext(environment=env))
    assert output.is_error
    assert output.text.startswith("Could not delete move.txt: read-only. The patch was applied")
    assert "deleted old.txt; not changed: move.txt." in output.text
    assert env.files["move.txt"] == b"a\nb\n"  # the source stays; its destination was written
    assert env.files["moved/here.txt"] == b"a\nc\n"

    fresh = memory_workspace()
    fresh.fail("write", error=EnvError("disk full"))
    output = await ApplyPatchTool().execute({"patch": MEMORY_PATCH}, ToolContext(environment=fresh))
    assert output.text == "Could not write a_new.py: disk full. No file was changed."
    assert fresh.files == memory_workspace().files

"""edit_file and apply_patch on LocalEnvironment (real files) and MemoryEnvironment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.env import EnvError, LocalEnvironment, MemoryEnvironment
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin import ApplyPatchTool, EditFileTool
from tests.tools.builtin.workspace import Workspace

SOURCE = "def greet(name):\n    message = 'hello ' + name\n    return message\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A real workspace next to ``outside.txt``, for the symlink cases (LocalEnvironment only)."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("keep = 1\n")
    (tmp_path / "ws" / "greet.py").write_text(SOURCE)
    return tmp_path / "ws"


@pytest.fixture
def gws(ws: Workspace) -> Workspace:
    """``ws`` with greet.py."""
    ws.put("greet.py", SOURCE)
    return ws


async def run(tool: Tool, root: Path, **arguments: Any) -> ToolOutput:
    return await tool.execute(arguments, ToolContext(environment=LocalEnvironment(root)))


async def edit(ws: Workspace, path: str, old: str, new: str, **more: Any) -> ToolOutput:
    return await ws.run(EditFileTool(), path=path, old_string=old, new_string=new, **more)


async def test_edit_replaces_and_shows_the_region(gws: Workspace) -> None:
    output = await edit(gws, "greet.py", "'hello '", "'hi '")
    assert not output.is_error
    assert output.text.startswith("Edited greet.py. Replaced 1 occurrence.")
    assert "message = 'hi ' + name" in output.text
    assert gws.get("greet.py") == SOURCE.replace("hello", "hi").encode()
    assert output.metadata["fuzzy"] is None


async def test_a_plain_edit_result_has_no_line_numbers(gws: Workspace) -> None:
    tool = EditFileTool(plain=True)
    output = await gws.run(tool, path="greet.py", old_string="'hello '", new_string="'hi '")
    assert output.text == (
        "Edited greet.py. Changed 1 place. That part of the file now reads:\n"
        "def greet(name):\n    message = 'hi ' + name\n    return message\n"
    )


async def test_a_plain_rename_in_one_file_says_where_the_old_name_still_appears(
    ws: Workspace,
) -> None:
    ws.put("config.py", "MAX_SIZE = 10\n")
    ws.put("app/main.py", "from config import MAX_SIZE\n\nprint(MAX_SIZE + 1)\n")
    tool = EditFileTool(plain=True)
    renamed = await ws.run(tool, path="config.py", old_string="MAX_SIZE", new_string="MAX_ITEMS")
    assert renamed.text.endswith(
        "\nMAX_SIZE still appears in app/main.py line 1, app/main.py line 3."
    )
    done = await ws.run(
        tool, path="app/main.py", old_string="MAX_SIZE", new_string="MAX_ITEMS", replace_all=True
    )
    assert "still appears" not in done.text
    # Not a rename (more than names changed), or not a plain result: nothing is searched.
    ws.put("b.py", "total = 0\nx = total\n")
    changed = await ws.run(tool, path="b.py", old_string="total = 0", new_string="count = 1")
    assert "still appears" not in changed.text
    ws.put("c.py", "MAX_SIZE = 1\n")
    full = await edit(ws, "c.py", "MAX_SIZE = 1", "LIMIT = 1")
    assert "still appears" not in full.text


async def test_edit_says_when_a_fuzzy_pass_matched(gws: Workspace) -> None:
    output = await edit(gws, "greet.py", "message = \u2018hello \u2019 + name", "message = name")
    assert not output.is_error
    assert "typographic" in output.text
    assert b"    message = name\n" in (gws.get("greet.py") or b"")
    indented = await edit(gws, "greet.py", "return message", "return name")
    assert not indented.is_error
    spaces = await edit(gws, "greet.py", "return name   \n", "return 1\n")
    assert not spaces.is_error and "trailing whitespace" in spaces.text


async def test_edit_errors_leave_the_file_alone(gws: Workspace) -> None:
    several = await edit(gws, "greet.py", "message", "msg")
    assert several.is_error
    assert "matches 2 places" in several.text and "surrounding lines" in several.text
    none = await edit(gws, "greet.py", "mesage = 'hello ' + nme", "x")
    assert none.is_error
    assert "message = 'hello ' + name" in none.text  # the closest region
    assert gws.get("greet.py") == SOURCE.encode()
    replaced = await edit(gws, "greet.py", "message", "msg", replace_all=True)
    assert "Replaced 2 occurrences" in replaced.text


async def test_edit_a_missing_file_or_create_one(gws: Workspace) -> None:
    missing = await edit(gws, "gret.py", "x", "y")
    assert missing.is_error
    assert "greet.py" in missing.text
    assert "write_file" in missing.text
    created = await edit(gws, "new/file.py", "", "A = 1\n")
    assert not created.is_error
    assert gws.get("new/file.py") == b"A = 1\n"


async def test_edit_keeps_crlf_and_refuses_binary_and_non_utf8(ws: Workspace) -> None:
    ws.put("dos.txt", b"one\r\ntwo\r\n")
    assert not (await edit(ws, "dos.txt", "two", "2")).is_error
    assert ws.get("dos.txt") == b"one\r\n2\r\n"
    ws.put("blob.bin", b"a\x00b")
    ws.put("latin.txt", b"caf\xe9\n")
    assert "binary" in (await edit(ws, "blob.bin", "a", "b")).text
    assert "UTF-8" in (await edit(ws, "latin.txt", "caf", "x")).text
    assert ws.get("latin.txt") == b"caf\xe9\n"


async def test_edit_path_escapes_are_errors(gws: Workspace) -> None:
    for path in ("../outside.txt", gws.outside):
        output = await edit(gws, path, "secret", "lost")
        assert output.is_error, path
        assert "outside" in output.text
    assert gws.outside_untouched()


async def test_edit_through_a_symlink_out_is_refused(root: Path) -> None:
    (root / "link.py").symlink_to(root.parent / "outside.txt")
    output = await run(EditFileTool(), root, path="link.py", old_string="keep", new_string="lost")
    assert output.is_error and "outside" in output.text
    assert (root.parent / "outside.txt").read_text() == "keep = 1\n"


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


async def test_patch_adds_updates_moves_and_deletes(gws: Workspace) -> None:
    gws.put("old.txt", "bye\n")
    gws.put("move.txt", "a\nb\n")
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
    output = await gws.run(ApplyPatchTool(), patch=text)
    assert not output.is_error, output.text
    assert output.text.splitlines() == [
        "Success. Updated the following files:",
        "A pkg/new.py",
        "M greet.py",
        "M moved/here.txt",
        "D old.txt",
    ]
    assert gws.snapshot() == {
        "greet.py": SOURCE.replace("hello", "hey").encode(),
        "pkg/new.py": b"NEW = 1\n",
        "moved/here.txt": b"a\nc\n",
    }


async def test_a_failed_patch_changes_nothing(gws: Workspace) -> None:
    gws.put("old.txt", "bye\n")
    before = gws.snapshot()
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
    output = await gws.run(ApplyPatchTool(), patch=text)
    assert output.is_error
    assert "greet.py" in output.text and "nothing_like_this" in output.text
    assert gws.snapshot() == before


async def test_patch_replaces_an_added_file_and_a_move_destination_that_exist(
    gws: Workspace,
) -> None:
    gws.put("dup.txt", "old content\n")
    gws.put("old/name.txt", "from\n")
    gws.put("renamed/name.txt", "existing\n")
    text = patch(
        "*** Add File: dup.txt",
        "+new content",
        "*** Update File: old/name.txt",
        "*** Move to: renamed/name.txt",
        "@@",
        "-from",
        "+new",
    )
    output = await gws.run(ApplyPatchTool(), patch=text)
    assert output.text == "Success. Updated the following files:\nA dup.txt\nM renamed/name.txt"
    assert gws.get("dup.txt") == b"new content\n"
    assert gws.get("renamed/name.txt") == b"new\n"
    assert gws.get("old/name.txt") is None


async def test_patch_keeps_each_lines_ending_and_ends_the_file_with_one(ws: Workspace) -> None:
    ws.put("mixed.txt", b"one\r\ntwo\nthree\r\nfour")
    text = patch("*** Update File: mixed.txt", "@@", " two", "-three", "+THREE", "+3b")
    output = await ws.run(ApplyPatchTool(), patch=text)
    assert output.text == "Success. Updated the following files:\nM mixed.txt"
    assert ws.get("mixed.txt") == b"one\r\ntwo\nTHREE\r\n3b\r\nfour\r\n"


async def test_bad_grammar_is_an_error(ws: Workspace) -> None:
    output = await ws.run(ApplyPatchTool(), patch="*** Begin Patch\nnonsense\n")
    assert output.is_error
    assert "Invalid patch" in output.text
    assert ws.snapshot() == {}


async def test_patch_path_escapes_are_errors_and_write_nothing(gws: Workspace) -> None:
    before = gws.snapshot()
    for target in ("../outside.txt", gws.outside):
        text = patch(
            "*** Add File: fine.txt",
            "+ok",
            f"*** Update File: {target}",
            "@@",
            "-secret",
            "+public",
        )
        output = await gws.run(ApplyPatchTool(), patch=text)
        assert output.is_error, target
        assert "outside" in output.text
    escape = patch("*** Add File: ../escape.txt", "+x")
    assert (await gws.run(ApplyPatchTool(), patch=escape)).is_error
    assert gws.snapshot() == before
    assert gws.outside_untouched()


async def test_patch_through_a_symlink_out_writes_nothing(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "outside.txt")
    text = patch(
        "*** Add File: fine.txt", "+ok", "*** Update File: link.txt", "@@", "-keep = 1", "+keep = 2"
    )
    output = await run(ApplyPatchTool(), root, patch=text)
    assert output.is_error and "outside" in output.text
    assert not (root / "fine.txt").exists()
    assert (root.parent / "outside.txt").read_text() == "keep = 1\n"


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

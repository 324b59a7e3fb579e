"""write_file and list_dir on LocalEnvironment with real files; file_tools()."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.env import LocalEnvironment
from taor.llm.types import ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin import ListDirTool, WriteFileTool, file_tools
from taor.tools.registry import ToolRegistry


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


async def run(tool: Tool, root: Path, **arguments: Any) -> ToolOutput:
    return await tool.execute(arguments, ToolContext(environment=LocalEnvironment(root)))


def test_file_tools_are_the_six_with_their_read_only_flags() -> None:
    flags = {tool.name: tool.read_only for tool in file_tools()}
    assert flags == {
        "read_file": True,
        "read_many_files": True,
        "list_dir": True,
        "write_file": False,
        "edit_file": False,
        "apply_patch": False,
    }
    assert all(isinstance(tool, Tool) for tool in file_tools())


async def test_the_registry_validates_their_arguments_and_runs_them(root: Path) -> None:
    registry = ToolRegistry(file_tools())
    assert len(registry.definitions()) == 6
    context = ToolContext(environment=LocalEnvironment(root))
    bad = ToolCallPart(id="1", name="write_file", arguments={"path": "a.txt"})
    assert (await registry.execute(bad, context)).is_error
    good = ToolCallPart(id="2", name="write_file", arguments={"path": "a.txt", "content": "x"})
    assert (await registry.execute(good, context)).text == "Created a.txt (1 line)."
    listing = ToolCallPart(id="3", name="list_dir", arguments={"depth": 1})
    assert "a.txt (1 byte)" in (await registry.execute(listing, context)).text


async def test_write_creates_parents_then_overwrites(root: Path) -> None:
    created = await run(WriteFileTool(), root, path="a/b/c.txt", content="one\ntwo\n")
    assert not created.is_error
    assert created.text == "Created a/b/c.txt (2 lines)."
    assert (root / "a/b/c.txt").read_text() == "one\ntwo\n"
    again = await run(WriteFileTool(), root, path="a/b/c.txt", content="only")
    assert again.text == "Overwrote a/b/c.txt (1 line)."
    assert (root / "a/b/c.txt").read_text() == "only"
    assert again.metadata["created"] is False


async def test_write_errors(root: Path) -> None:
    (root / "dir").mkdir()
    (root / "out").symlink_to(root.parent)
    assert (await run(WriteFileTool(), root, path="dir", content="x")).is_error
    for path in ("../escape.txt", str(root.parent / "escape.txt"), "out/escape.txt"):
        output = await run(WriteFileTool(), root, path=path, content="x")
        assert output.is_error, path
        assert "outside" in output.text
    assert not (root.parent / "escape.txt").exists()


def make_tree(root: Path) -> None:
    for path in ("src/pkg/mod.py", "src/main.py", "build/out.o", "docs/a.md", "x.log", "keep.txt"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("12345")
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src" / ".gitignore").write_text("/main.py\n")


async def test_list_dir_shows_a_tree_without_git_and_ignored_paths(root: Path) -> None:
    make_tree(root)
    output = await run(ListDirTool(), root)
    assert not output.is_error
    assert output.text.splitlines() == [
        "./",
        ".gitignore (13 bytes)",
        "docs/",
        "  a.md (5 bytes)",
        "keep.txt (5 bytes)",
        "src/",
        "  .gitignore (9 bytes)",
        "  pkg/",
    ]


async def test_list_dir_depth_and_subdirectories_keep_parent_rules(root: Path) -> None:
    make_tree(root)
    deep = await run(ListDirTool(), root, path="src", depth=3)
    assert deep.text.splitlines() == ["src/", ".gitignore (9 bytes)", "pkg/", "  mod.py (5 bytes)"]
    (root / "src" / "pkg" / "debug.log").write_text("x")
    assert "debug.log" not in (await run(ListDirTool(), root, path="src/pkg")).text


async def test_list_dir_errors(root: Path) -> None:
    (root / "file.txt").write_text("x")
    (root / "out").symlink_to(root.parent)
    assert (await run(ListDirTool(), root, path="file.txt")).is_error
    assert "No such file" in (await run(ListDirTool(), root, path="missing")).text
    for path in ("..", str(root.parent), "out"):
        output = await run(ListDirTool(), root, path=path)
        assert output.is_error, path
        assert "outside" in output.text

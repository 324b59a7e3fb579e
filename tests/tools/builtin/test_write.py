"""write_file and list_dir on LocalEnvironment (real files) and MemoryEnvironment; file_tools()."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taor.env import LocalEnvironment
from taor.llm.types import ToolCallPart
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin import ListDirTool, ReadFileTool, WriteFileTool, file_tools
from taor.tools.registry import ToolRegistry
from tests.tools.builtin.workspace import Workspace


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


async def test_the_registry_validates_their_arguments_and_runs_them(ws: Workspace) -> None:
    registry = ToolRegistry(file_tools())
    assert len(registry.definitions()) == 6
    bad = ToolCallPart(id="1", name="write_file", arguments={"path": "a.txt"})
    assert (await registry.execute(bad, ws.context())).is_error
    good = ToolCallPart(id="2", name="write_file", arguments={"path": "a.txt", "content": "x"})
    assert (await registry.execute(good, ws.context())).text == "Created a.txt (1 line)."
    listing = ToolCallPart(id="3", name="list_dir", arguments={"depth": 1})
    assert "a.txt (1 byte)" in (await registry.execute(listing, ws.context())).text


async def write(ws: Workspace, **arguments: Any) -> ToolOutput:
    return await ws.run(WriteFileTool(), **arguments)


async def test_write_creates_parents_then_overwrites_and_reads_back(ws: Workspace) -> None:
    created = await write(ws, path="a/b/c.txt", content="one\ntwo\n")
    assert not created.is_error
    assert created.text == "Created a/b/c.txt (2 lines)."
    assert ws.get("a/b/c.txt") == b"one\ntwo\n"
    again = await write(ws, path="a/b/c.txt", content="only")
    assert again.text == "Overwrote a/b/c.txt (1 line)."
    assert ws.get("a/b/c.txt") == b"only"
    assert again.metadata == {"path": "a/b/c.txt", "created": False, "lines": 1}
    back = await ws.run(ReadFileTool(), path="a/b/c.txt")
    assert back.text == "     1\tonly"
    empty = await write(ws, path="empty.txt", content="")
    assert empty.text == "Created empty.txt (0 lines)."


async def test_writing_what_a_file_already_holds_says_nothing_changed(ws: Workspace) -> None:
    await write(ws, path="calc.py", content="x = 1\ny = 2\n")
    same = await write(ws, path="calc.py", content="x = 1\ny = 2\n")
    assert same.text == "calc.py already holds exactly this content (2 lines): nothing changed."
    assert not same.is_error and same.metadata["unchanged"] is True
    other = await write(ws, path="calc.py", content="x = 1\ny = 3\n")  # same size, not the same
    assert other.text == "Overwrote calc.py (2 lines)." and ws.get("calc.py") == b"x = 1\ny = 3\n"


async def test_write_errors(ws: Workspace) -> None:
    ws.mkdir("dir")
    ws.put("file.txt", "x")
    assert "directory" in (await write(ws, path="dir", content="x")).text
    under_a_file = await write(ws, path="file.txt/inner.txt", content="x")
    assert under_a_file.is_error
    for path in ("../escape.txt", str(Path(ws.outside).parent / "escape.txt")):
        output = await write(ws, path=path, content="x")
        assert output.is_error, path
        assert "outside" in output.text
    assert ws.outside_untouched()
    assert ws.snapshot() == {"file.txt": b"x"}


async def test_write_through_a_symlink_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "out").symlink_to(tmp_path)
    context = ToolContext(environment=LocalEnvironment(tmp_path / "ws"))
    output = await WriteFileTool().execute({"path": "out/escape.txt", "content": "x"}, context)
    assert output.is_error and "outside" in output.text
    assert not (tmp_path / "escape.txt").exists()


def make_tree(ws: Workspace) -> None:
    for path in ("src/pkg/mod.py", "src/main.py", "build/out.o", "docs/a.md", "x.log", "keep.txt"):
        ws.put(path, "12345")
    ws.mkdir(".git/objects")
    ws.put(".git/HEAD", "ref")
    ws.put(".gitignore", "build/\n*.log\n")
    ws.put("src/.gitignore", "/main.py\n")


async def test_list_dir_shows_a_tree_without_git_and_ignored_paths(ws: Workspace) -> None:
    make_tree(ws)
    output = await ws.run(ListDirTool())
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
    assert output.metadata == {"path": ".", "entries": 7}


async def test_list_dir_depth_and_subdirectories_keep_parent_rules(ws: Workspace) -> None:
    make_tree(ws)
    deep = await ws.run(ListDirTool(), path="src", depth=3)
    assert deep.text.splitlines() == ["src/", ".gitignore (9 bytes)", "pkg/", "  mod.py (5 bytes)"]
    ws.put("src/pkg/debug.log", "x")
    assert "debug.log" not in (await ws.run(ListDirTool(), path="src/pkg")).text
    one = await ws.run(ListDirTool(), depth=1)
    assert one.text.splitlines() == [
        "./",
        ".gitignore (13 bytes)",
        "docs/",
        "keep.txt (5 bytes)",
        "src/",
    ]


async def test_a_gitignore_applies_only_below_its_directory(ws: Workspace) -> None:
    ws.put("a/.gitignore", "*.tmp\n")
    ws.put("a/x.tmp", "1")
    ws.put("b/y.tmp", "1")
    output = await ws.run(ListDirTool())
    assert output.text.splitlines() == [
        "./",
        "a/",
        "  .gitignore (6 bytes)",
        "b/",
        "  y.tmp (1 byte)",
    ]


async def test_list_dir_honours_negations_and_git_info_exclude(ws: Workspace) -> None:
    ws.put(".git/info/exclude", "secret/\n")
    ws.put(".gitignore", "*.log\n!keep.log\n")
    ws.put("secret/key.txt", "k")
    ws.put("a.log", "x")
    ws.put("keep.log", "x")
    ws.put("sub/b.log", "x")
    output = await ws.run(ListDirTool())
    assert output.text.splitlines() == [
        "./",
        ".gitignore (16 bytes)",
        "keep.log (1 byte)",
        "sub/",
    ]
    nested = await ws.run(ListDirTool(), path="sub")
    assert "b.log" not in nested.text


async def test_list_dir_empty_and_errors(ws: Workspace) -> None:
    ws.mkdir("empty")
    ws.put("file.txt", "x")
    assert (await ws.run(ListDirTool(), path="empty")).text == "empty/\n(empty directory)"
    assert (await ws.run(ListDirTool(), path="file.txt")).is_error
    assert "No such file" in (await ws.run(ListDirTool(), path="missing")).text
    for path in ("..", str(Path(ws.outside).parent)):
        output = await ws.run(ListDirTool(), path=path)
        assert output.is_error, path
        assert "outside" in output.text


async def test_list_dir_through_a_symlink_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "out").symlink_to(tmp_path)
    context = ToolContext(environment=LocalEnvironment(tmp_path / "ws"))
    output = await ListDirTool().execute({"path": "out"}, context)
    assert output.is_error and "outside" in output.text


SOURCE = (
    "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
    "def spread(xs):\n    return max(xs) - min(xs)\n\n\n"
    "def total(xs):\n    return sum(xs)\n"
)


async def test_a_guarded_rewrite_that_drops_most_of_a_file_is_refused_once(ws: Workspace) -> None:
    ws.put("stats.py", SOURCE)
    tool = WriteFileTool(guard_rewrites=True)
    shorter = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    refused = await ws.run(tool, path="stats.py", content=shorter)
    assert refused.is_error and "6 lines and this content keeps only 2 of them" in refused.text
    assert "def spread(xs):" in refused.text and "edit_file" in refused.text
    assert refused.text.endswith(f"The current content of stats.py:\n{SOURCE}")
    assert ws.get("stats.py") == SOURCE.encode()
    again = await ws.run(tool, path="stats.py", content=shorter)  # the model insists
    assert not again.is_error and ws.get("stats.py") == shorter.encode()


async def test_a_guarded_write_of_lines_that_carry_line_numbers_is_refused_once(
    ws: Workspace,
) -> None:
    tool = WriteFileTool(guard_rewrites=True)
    numbered = '1 | {\n2 |   "port": 9000\n3 | }\n'
    refused = await ws.run(tool, path="settings.json", content=numbered)
    assert refused.is_error and "Leave the numbers out" in refused.text
    assert ws.get("settings.json") is None
    again = await ws.run(tool, path="settings.json", content=numbered)  # it is meant
    assert not again.is_error and ws.get("settings.json") == numbered.encode()


async def test_a_guarded_rewrite_of_a_two_line_file_that_keeps_neither_is_refused(
    ws: Workspace,
) -> None:
    ws.put("requirements.txt", "click\nrich\n")
    tool = WriteFileTool(guard_rewrites=True)
    refused = await ws.run(tool, path="requirements.txt", content="requests\n")
    assert refused.is_error and "would delete click; rich" in refused.text
    assert ws.get("requirements.txt") == b"click\nrich\n"
    added = await ws.run(tool, path="requirements.txt", content="click\nrich\nrequests\n")
    assert not added.is_error and ws.get("requirements.txt") == b"click\nrich\nrequests\n"


async def test_a_guarded_rewrite_that_keeps_most_lines_or_makes_a_file_goes_through(
    ws: Workspace,
) -> None:
    ws.put("stats.py", SOURCE)
    tool = WriteFileTool(guard_rewrites=True)
    fixed = SOURCE.replace("len(xs)", "max(len(xs), 1)")
    assert not (await ws.run(tool, path="stats.py", content=fixed)).is_error
    assert not (await ws.run(tool, path="new.py", content="x = 1\n")).is_error
    unguarded = await write(ws, path="stats.py", content="")
    assert not unguarded.is_error and ws.get("stats.py") == b""

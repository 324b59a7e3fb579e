"""grep and glob on LocalEnvironment: real files, real rg, and the pure-Python fallback."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from taor.agent.subagents.scoped import ScopedEnvironment, SharedEnvironment
from taor.env.base import EnvError, capabilities
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.tools.base import Tool, ToolContext, ToolOutput
from taor.tools.builtin.search import GlobTool, GrepTool
from taor.tools.registry import ToolRegistry
from taor.tools.ripgrep import find_rg

RIPGREP = GrepTool()
FALLBACK = GrepTool(rg_path="/nonexistent/bin/rg")  # rg cannot run: exit 127, fallback
ENGINES = [pytest.param(RIPGREP, id="ripgrep"), pytest.param(FALLBACK, id="fallback")]

FILES = {
    "a.py": "import os\nprint('Hello')\n",
    "pkg/b.py": "HELLO = 1\nhello = 2\n",
    "pkg/deep/c.txt": "hello there\n",
    "build/out.py": "hello built\n",
    "pkg/gen.log": "hello log\n",
    ".git/config": "hello from git\n",
    "data.bin": "hello\x00binary",
}


@pytest.fixture
def env(tmp_path: Path) -> LocalEnvironment:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    return LocalEnvironment(tmp_path)


async def _grep(tool: GrepTool, env: LocalEnvironment, **arguments: object) -> ToolOutput:
    return await tool.execute(arguments, ToolContext(environment=env))


def test_rg_is_installed_with_the_package() -> None:
    assert find_rg() is not None


def test_both_are_read_only_tools() -> None:
    for tool in (GrepTool(), GlobTool()):
        assert isinstance(tool, Tool) and tool.read_only
    ToolRegistry([GrepTool(), GlobTool()])  # the schemas compile


@pytest.mark.parametrize("tool", ENGINES)
async def test_content_mode_respects_gitignore(tool: GrepTool, env: LocalEnvironment) -> None:
    out = await _grep(tool, env, pattern="hello")
    assert not out.is_error
    assert out.text.splitlines() == ["pkg/b.py:2:hello = 2", "pkg/deep/c.txt:1:hello there"]
    assert out.metadata["engine"] == ("ripgrep" if tool is RIPGREP else "python")


@pytest.mark.parametrize("tool", ENGINES)
async def test_case_insensitive(tool: GrepTool, env: LocalEnvironment) -> None:
    out = await _grep(tool, env, pattern="hello", case_insensitive=True)
    assert out.text.splitlines() == [
        "a.py:2:print('Hello')",
        "pkg/b.py:1:HELLO = 1",
        "pkg/b.py:2:hello = 2",
        "pkg/deep/c.txt:1:hello there",
    ]


@pytest.mark.parametrize("tool", ENGINES)
async def test_files_with_matches_and_count(tool: GrepTool, env: LocalEnvironment) -> None:
    args = {"pattern": "hello", "case_insensitive": True}
    files = await _grep(tool, env, output_mode="files_with_matches", **args)
    assert files.text.splitlines() == ["a.py", "pkg/b.py", "pkg/deep/c.txt"]
    counts = await _grep(tool, env, output_mode="count", **args)
    assert counts.text.splitlines() == ["a.py:1", "pkg/b.py:2", "pkg/deep/c.txt:1"]


@pytest.mark.parametrize("tool", ENGINES)
async def test_glob_filter_and_path(tool: GrepTool, env: LocalEnvironment) -> None:
    out = await _grep(tool, env, pattern="(?i)hello", glob="*.py")
    assert out.text.splitlines() == [
        "a.py:2:print('Hello')",
        "pkg/b.py:1:HELLO = 1",
        "pkg/b.py:2:hello = 2",
    ]
    out = await _grep(tool, env, pattern="hello", path="pkg/deep")
    assert out.text.splitlines() == ["pkg/deep/c.txt:1:hello there"]
    out = await _grep(tool, env, pattern="hello", path="pkg/b.py")
    assert out.text.splitlines() == ["pkg/b.py:2:hello = 2"]


@pytest.mark.parametrize("tool", ENGINES)
async def test_head_limit_caps_and_says_so(tool: GrepTool, env: LocalEnvironment) -> None:
    lines = "".join(f"match {i}\n" for i in range(1, 301))
    (Path(env.working_directory()) / "many.txt").write_text(lines)
    out = await _grep(tool, env, pattern="^match", head_limit=5)
    assert out.text.splitlines()[:5] == [f"many.txt:{i}:match {i}" for i in range(1, 6)]
    assert out.text.splitlines()[-1].startswith("[Showing 5 of 300 matching lines.")
    default = await _grep(tool, env, pattern="^match")
    assert "[Showing 100 of 300 matching lines." in default.text


@pytest.mark.parametrize("tool", ENGINES)
async def test_no_match_is_not_an_error(tool: GrepTool, env: LocalEnvironment) -> None:
    out = await _grep(tool, env, pattern="absent-word")
    assert not out.is_error and out.text == "No matches for 'absent-word' in .."


@pytest.mark.parametrize("tool", ENGINES)
async def test_mistakes_are_error_results(tool: GrepTool, env: LocalEnvironment) -> None:
    bad_regex = await _grep(tool, env, pattern="(unclosed")
    assert bad_regex.is_error and "unclosed" in bad_regex.text
    missing = await _grep(tool, env, pattern="x", path="nowhere")
    assert missing.is_error and "nowhere" in missing.text
    outside = await _grep(tool, env, pattern="x", path="../")
    assert outside.is_error and "outside" in outside.text


async def test_long_lines_are_cut(env: LocalEnvironment) -> None:
    (Path(env.working_directory()) / "long.txt").write_text("needle" + "x" * 5000 + "\n")
    for tool in (RIPGREP, FALLBACK):
        out = await _grep(tool, env, pattern="needle")
        assert out.text.endswith("[... 4506 characters cut]") and len(out.text) < 600


async def test_no_environment_is_an_error_result() -> None:
    out = await GrepTool().execute({"pattern": "x"}, ToolContext())
    assert out.is_error
    out = await GlobTool().execute({"pattern": "x"}, ToolContext())
    assert out.is_error


def _touch(root: Path, name: str, age: float) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(name)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))


async def test_glob_is_newest_first_and_respects_gitignore(tmp_path: Path) -> None:
    for name, age in [("old.py", 300), ("src/new.py", 10), ("src/mid.py", 100)]:
        _touch(tmp_path, name, age)
    _touch(tmp_path, "build/gen.py", 0)
    _touch(tmp_path, "notes.txt", 0)
    (tmp_path / ".gitignore").write_text("build/\n")
    context = ToolContext(environment=LocalEnvironment(tmp_path))
    out = await GlobTool().execute({"pattern": "**/*.py"}, context)
    assert out.text.splitlines() == ["src/new.py", "src/mid.py", "old.py"]
    out = await GlobTool().execute({"pattern": "*.py", "path": "src"}, context)
    assert out.text.splitlines() == ["src/new.py", "src/mid.py"]


async def test_glob_caps_and_explains_empty_results(tmp_path: Path) -> None:
    for i in range(10):
        _touch(tmp_path, f"f{i}.txt", i)
    context = ToolContext(environment=LocalEnvironment(tmp_path))
    out = await GlobTool(max_results=3).execute({"pattern": "*.txt"}, context)
    assert out.text.splitlines() == ["f0.txt", "f1.txt", "f2.txt", out.text.splitlines()[-1]]
    assert out.text.splitlines()[-1].startswith("[Showing 3 of 10 files.")
    out = await GlobTool().execute({"pattern": "*.py"}, context)
    assert not out.is_error and "No files match '*.py'" in out.text and "**/" in out.text
    out = await GlobTool().execute({"pattern": "*", "path": "../"}, context)
    assert out.is_error and "outside" in out.text


@pytest.mark.parametrize("tool", ENGINES)
async def test_colons_in_names_and_lines_survive(tool: GrepTool, env: LocalEnvironment) -> None:
    root = Path(env.working_directory())
    (root / "odd:name.txt").write_text("x\nkey: needle: value\n\nneedle\n")
    out = await _grep(tool, env, pattern="needle")
    assert out.text.splitlines() == ["odd:name.txt:2:key: needle: value", "odd:name.txt:4:needle"]
    out = await _grep(tool, env, pattern="needle", output_mode="count")
    assert out.text.splitlines() == ["odd:name.txt:2"]


async def test_on_memory_environment_grep_falls_back_and_glob_works() -> None:
    ticks = iter(range(100))
    env = MemoryEnvironment(
        files=FILES | {".gitignore": "build/\n*.log\n"}, clock=lambda: next(ticks)
    )
    context = ToolContext(environment=env)
    out = await GrepTool().execute({"pattern": "hello"}, context)
    assert out.metadata["engine"] == "python" and not env.calls_of("run")
    assert out.text.splitlines() == ["pkg/b.py:2:hello = 2", "pkg/deep/c.txt:1:hello there"]
    out = await GlobTool().execute({"pattern": "**/*.py"}, context)
    assert out.text.splitlines() == ["pkg/b.py", "a.py"]  # written later is newer
    env.fail("grep", error=EnvError("disk on fire"))
    out = await GrepTool().execute({"pattern": "hello"}, context)
    assert out.is_error and out.text == "disk on fire"


async def test_rg_output_cut_by_the_environment_is_reported(tmp_path: Path) -> None:
    for i in range(50):
        (tmp_path / f"f{i:02}.txt").write_text("needle\n" * 20)
    env = LocalEnvironment(tmp_path, output_cap=2000)  # keeps 2000 bytes of head and of tail
    out = await _grep(RIPGREP, env, pattern="needle", head_limit=5)
    assert not out.is_error and out.metadata["engine"] == "ripgrep"
    lines = out.text.splitlines()
    assert all(line.endswith(":needle") for line in lines[:5])
    assert lines[-1] == "[NOTE: the search may be incomplete: output cut]"


async def test_grep_through_a_subagents_view_still_uses_ripgrep(env: LocalEnvironment) -> None:
    """A subagent's shared or scoped view of a local workspace says what the workspace can do,
    so grep keeps ripgrep (its syntax, its speed, no match cap), confined to the view."""
    shared, scoped = SharedEnvironment(env), ScopedEnvironment(env, "pkg")
    for view in (shared, scoped):
        assert capabilities(view).host_programs

    direct = await _grep(RIPGREP, env, pattern=r"(?i)hello\b", output_mode="files_with_matches")
    via_shared = await _grep(
        RIPGREP, shared, pattern=r"(?i)hello\b", output_mode="files_with_matches"
    )
    assert via_shared.metadata["engine"] == "ripgrep" and via_shared.text == direct.text

    lookaround = await _grep(RIPGREP, scoped, pattern=r"hel(?=lo)")  # Python re only, not rg's
    assert lookaround.is_error  # rg refuses a look-ahead: ripgrep really ran
    inside = await _grep(RIPGREP, scoped, pattern="hello", case_insensitive=True)
    assert inside.metadata["engine"] == "ripgrep"
    assert inside.text.splitlines() == [
        "b.py:1:HELLO = 1",
        "b.py:2:hello = 2",
        "deep/c.txt:1:hello there",
    ]
    escape = await _grep(RIPGREP, scoped, pattern="hello", path="..")
    assert escape.is_error and "a.py" not in escape.text

"""The same file, search and path-policy behaviour from LocalEnvironment and MemoryEnvironment.

Both environments use the same absolute workspace root (a real directory for the local one), so
paths, results and error messages can be compared as they are.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.env import (
    EnvError,
    Environment,
    LocalEnvironment,
    MemoryEnvironment,
    PathNotFoundError,
    PathPolicyError,
)


@pytest.fixture(params=["local", "memory"])
async def env(request: pytest.FixtureRequest, tmp_path: Path) -> Environment:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("top secret\n")
    local = LocalEnvironment(root)
    environment: Environment = local
    if request.param == "memory":
        environment = MemoryEnvironment(root=local.working_directory())
    await environment.initialize()
    return environment


def test_satisfies_the_protocol(env: Environment) -> None:
    assert isinstance(env, Environment)


async def test_write_then_read_with_offset_and_limit(env: Environment) -> None:
    await env.write("deep/new/file.txt", "one\r\ntwo\rthree\nfour")
    await env.write("blob", b"\xff\x00")

    assert await env.read_text("deep/new/file.txt") == "one\r\ntwo\rthree\nfour"
    assert await env.read_text("deep/new/file.txt", offset=1, limit=2) == "two\rthree\n"
    assert await env.read_text("deep/new/file.txt", offset=3) == "four"
    assert await env.read_text("deep/new/file.txt", offset=9) == ""
    assert await env.read_bytes("deep/new/file.txt", offset=5, limit=3) == b"two"
    assert await env.read_bytes("blob") == b"\xff\x00"
    assert await env.read_text("blob") == "\ufffd\x00"
    await env.write("deep/new/file.txt", "replaced")
    assert await env.read_text("./deep/x/../new/file.txt") == "replaced"
    with pytest.raises(EnvError, match="must not be negative"):
        await env.read_text("blob", offset=-1)


async def test_exists_stat_and_list_dir_to_a_depth(env: Environment) -> None:
    await env.write("src/a.py", "x = 1\n")
    await env.write("src/pkg/b.py", "")
    await env.write(".git/HEAD", "ref")

    assert await env.exists("src/a.py") and await env.exists("src")
    assert not await env.exists("nope")
    stat = await env.stat("src/a.py")
    assert (stat.path, stat.is_file, stat.is_dir, stat.size) == ("src/a.py", True, False, 6)
    directory = await env.stat("src/pkg")
    assert (directory.path, directory.is_file, directory.is_dir) == ("src/pkg", False, True)
    assert [(e.path, e.is_dir, e.depth) for e in await env.list_dir(".")] == [
        (".git", True, 1),
        ("src", True, 1),
    ]
    deep = await env.list_dir(".", depth=3)
    assert [(e.path, e.name, e.size, e.depth) for e in deep] == [
        (".git", ".git", None, 1),
        ("src", "src", None, 1),
        ("src/a.py", "a.py", 6, 2),
        ("src/pkg", "pkg", None, 2),
        ("src/pkg/b.py", "b.py", 0, 3),
    ]
    assert [e.path for e in await env.list_dir("src/pkg")] == ["b.py"]


async def test_missing_paths_and_wrong_kinds_are_the_same_errors(env: Environment) -> None:
    await env.write("dir/f", "")
    with pytest.raises(PathNotFoundError, match=r"No such file or directory: 'missing.txt'"):
        await env.read_text("missing.txt")
    with pytest.raises(PathNotFoundError, match="'dir' is a directory, not a file"):
        await env.read_bytes("dir")
    with pytest.raises(PathNotFoundError, match="'dir/f' is a file, not a directory"):
        await env.list_dir("dir/f")
    with pytest.raises(EnvError, match="'dir' is a directory; give a file path"):
        await env.write("dir", "x")
    with pytest.raises(EnvError, match="Cannot write"):
        await env.write("dir/f/inside", "x")
    with pytest.raises(PathNotFoundError):
        await env.stat("missing")
    with pytest.raises(PathNotFoundError):
        await env.grep("x", "missing")


async def _tree(env: Environment) -> None:
    await env.write("src/main.py", "def main():\n    return MAIN\n")
    await env.write("src/util.py", "def helper():\n    pass\n")
    await env.write("src/pkg/deep.py", "main = 1\n")
    await env.write("src/notes.txt", "main notes\n")
    await env.write("src/data.bin", b"main\x00binary")
    await env.write("build/out.py", "main\n")
    await env.write(".gitignore", "build/\n*.log\n")
    await env.write("debug.log", "main\n")
    await env.write(".git/config", "main\n")
    await env.write("README.md", "Main project\n")


async def test_grep_finds_the_same_matches_in_the_same_order(env: Environment) -> None:
    await _tree(env)
    found = [(m.path, m.line_number, m.line) for m in await env.grep("main")]
    assert sorted(found) == [
        ("src/main.py", 1, "def main():"),
        ("src/notes.txt", 1, "main notes"),
        ("src/pkg/deep.py", 1, "main = 1"),
    ]
    assert found == [(m.path, m.line_number, m.line) for m in await env.grep("main", ".")]
    by_case = await env.grep("main", ".", ignore_case=True)
    assert {m.path for m in by_case} == {
        "README.md",
        "src/main.py",
        "src/notes.txt",
        "src/pkg/deep.py",
    }
    assert [m.path for m in await env.grep("main", "src", glob="*.py")] == [
        "src/main.py",
        "src/pkg/deep.py",
    ]
    assert [m.path for m in await env.grep("main", "src", glob="pkg/*.py")] == ["src/pkg/deep.py"]
    assert len(await env.grep("main", ignore_case=True, max_matches=2)) == 2
    assert [m.line_number for m in await env.grep("MAIN", "src/main.py")] == [2]
    with pytest.raises(EnvError, match="Invalid regular expression"):
        await env.grep("(unclosed")


async def test_grep_order_is_the_walk_order_of_local(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    local = LocalEnvironment(root)
    memory = MemoryEnvironment(root=local.working_directory())
    for env in (local, memory):
        await _tree(env)
        await env.write("src/zeta.py", "main\n")
        await env.write("src/a/x.py", "main\n")
    assert await memory.grep("main", ignore_case=True) == await local.grep("main", ignore_case=True)


async def test_glob_matches_files_under_a_path(env: Environment) -> None:
    await _tree(env)
    assert sorted(await env.glob("*.py", "src")) == ["src/main.py", "src/util.py"]
    assert sorted(await env.glob("**/*.py")) == [
        "src/main.py",
        "src/pkg/deep.py",
        "src/util.py",
    ]
    assert sorted(await env.glob("./src/*.txt")) == ["src/notes.txt"]
    assert await env.glob("*.nothing") == []


async def test_remove_deletes_a_file_and_refuses_the_rest(env: Environment) -> None:
    await env.write("src/a.txt", "a\n")
    await env.write("src/b.txt", "b\n")

    await env.remove("src/a.txt")

    assert not await env.exists("src/a.txt")
    assert [e.path for e in await env.list_dir("src")] == ["b.txt"]
    with pytest.raises(PathNotFoundError, match=r"No such file or directory: 'src/a.txt'"):
        await env.remove("src/a.txt")
    with pytest.raises(EnvError, match=r"'src' is a directory; remove deletes files only"):
        await env.remove("src")
    assert await env.read_text("src/b.txt") == "b\n"


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "a/../../secret.txt", "/"])
async def test_every_escape_is_refused(env: Environment, path: str) -> None:
    attempts = [
        env.read_text(path),
        env.read_bytes(path),
        env.write(path, "x"),
        env.remove(path),
        env.exists(path),
        env.stat(path),
        env.list_dir(path),
        env.grep("x", path),
        env.glob("*", path),
        env.run("true", cwd=path),
    ]
    for attempt in attempts:
        with pytest.raises(PathPolicyError, match="outside the workspace"):
            await attempt
    assert not await env.exists("x")
    assert (Path(env.working_directory()).parent / "secret.txt").exists()

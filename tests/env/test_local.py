"""LocalEnvironment with real files and processes: paths, files, commands, env vars, search."""

from __future__ import annotations

import asyncio
import os
import platform
from pathlib import Path

import pytest

from taor.env import (
    EnvError,
    Environment,
    LocalEnvironment,
    PathNotFoundError,
    PathPolicyError,
)
from taor.env.base import StreamName

from ..processes import running


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("top secret\n")
    return workspace


@pytest.fixture
async def env(root: Path) -> LocalEnvironment:
    environment = LocalEnvironment(root, environ={"PATH": os.environ["PATH"], "HOME": "/h"})
    await environment.initialize()
    return environment


def test_satisfies_the_protocol(env: LocalEnvironment) -> None:
    assert isinstance(env, Environment)


def test_facts(root: Path) -> None:
    env = LocalEnvironment(root)
    assert env.working_directory() == os.path.realpath(root)
    assert env.platform() == "linux"
    assert platform.release() in env.os_version()


async def test_initialize_refuses_a_missing_root(tmp_path: Path) -> None:
    with pytest.raises(EnvError, match="not an existing directory"):
        await LocalEnvironment(tmp_path / "missing").initialize()


async def test_write_then_read_text_and_bytes_with_offset_and_limit(env: LocalEnvironment) -> None:
    await env.write("deep/new/file.txt", "one\r\ntwo\nthree\n")

    assert await env.read_text("deep/new/file.txt") == "one\r\ntwo\nthree\n"
    assert await env.read_text("deep/new/file.txt", offset=1, limit=1) == "two\n"
    assert await env.read_bytes("deep/new/file.txt", offset=5, limit=3) == b"two"
    await env.write("blob", b"\xff\x00")
    assert await env.read_bytes("blob") == b"\xff\x00"
    assert await env.read_text("blob") == "\ufffd\x00"


async def test_write_is_atomic_and_keeps_permissions(env: LocalEnvironment, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("old")
    script.chmod(0o755)

    await env.write("run.sh", "new")

    assert script.read_text() == "new"
    assert script.stat().st_mode & 0o777 == 0o755
    assert os.listdir(root) == ["run.sh"]  # no temp file left


async def test_exists_stat_and_list_dir(env: LocalEnvironment, root: Path) -> None:
    await env.write("src/a.py", "x = 1\n")
    await env.write("src/pkg/b.py", "")
    await env.write(".git/HEAD", "ref")

    assert await env.exists("src/a.py") and not await env.exists("nope")
    stat = await env.stat("src/a.py")
    assert (stat.path, stat.is_file, stat.is_dir, stat.size) == ("src/a.py", True, False, 6)
    top = await env.list_dir(".")
    assert [(e.path, e.is_dir) for e in top] == [(".git", True), ("src", True)]
    deep = await env.list_dir(".", depth=3)
    assert [e.path for e in deep] == [".git", "src", "src/a.py", "src/pkg", "src/pkg/b.py"]
    assert next(e for e in deep if e.path == "src/a.py").size == 6


async def test_missing_paths_and_wrong_kinds_are_clear_errors(env: LocalEnvironment) -> None:
    await env.write("dir/f", "")
    with pytest.raises(PathNotFoundError, match="No such file"):
        await env.read_text("missing.txt")
    with pytest.raises(PathNotFoundError, match="is a directory"):
        await env.read_text("dir")
    with pytest.raises(PathNotFoundError, match="is a file"):
        await env.list_dir("dir/f")
    with pytest.raises(EnvError, match="is a directory"):
        await env.write("dir", "x")


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "link/secret.txt", "file-link"])
async def test_every_escape_is_refused(env: LocalEnvironment, root: Path, path: str) -> None:
    (root / "link").symlink_to(root.parent)
    (root / "file-link").symlink_to(root.parent / "secret.txt")

    for attempt in (env.read_text(path), env.write(path, "x"), env.stat(path), env.exists(path)):
        with pytest.raises(PathPolicyError, match="outside the workspace"):
            await attempt
    with pytest.raises(PathPolicyError):
        await env.run("true", cwd=path)
    assert (root.parent / "secret.txt").read_text() == "top secret\n"


async def test_run_uses_the_cwd_and_the_filtered_environment(root: Path) -> None:
    (root / "sub").mkdir()
    host = {"PATH": os.environ["PATH"], "EDITOR": "vi", "OPENAI_API_KEY": "sk"}
    env = LocalEnvironment(root, environ=host, env_policy="core_only")

    result = await env.run(
        'pwd; echo "[$EDITOR][$OPENAI_API_KEY][$MINE]"', cwd="sub", env={"MINE": "m"}
    )

    assert result.stdout == f"{(root / 'sub').resolve()}\n[][][m]\n"


async def test_run_with_inherit_all_drops_only_secrets(root: Path) -> None:
    host = {"PATH": os.environ["PATH"], "EDITOR": "vi", "GH_TOKEN": "t"}
    env = LocalEnvironment(root, environ=host)

    result = await env.run('echo "$EDITOR|$GH_TOKEN"')

    assert result.stdout == "vi|\n"


async def test_run_drops_credentials_by_value_and_by_name(root: Path) -> None:
    host = {
        "PATH": os.environ["PATH"],
        "DATABASE_URL": "postgres://app:hunter2@db/app",
        "MYSQL_PWD": "hunter2",
        "RELEASE_NOTES_URL": "https://example.com/notes",
    }
    env = LocalEnvironment(root, environ=host)

    result = await env.run("env")

    assert "hunter2" not in result.stdout
    assert "RELEASE_NOTES_URL=https://example.com/notes" in result.stdout


async def test_run_times_out_with_the_default_and_clamps_requests(root: Path) -> None:
    env = LocalEnvironment(root, default_timeout=0.3, max_timeout=0.5)

    assert (await env.run("sleep 5")).timed_out
    clamped = await env.run("sleep 5", timeout=100)
    assert clamped.timed_out and clamped.timeout == 0.5 and clamped.requested_timeout == 100


async def test_cleanup_cancels_running_commands(env: LocalEnvironment) -> None:
    pids: list[int] = []
    started = asyncio.Event()

    def collect(text: str, stream: StreamName) -> None:
        pids.extend(int(word) for word in text.split())
        started.set()

    task = asyncio.create_task(env.run("echo $$; exec sleep 30", timeout=60, on_output=collect))
    await asyncio.wait_for(started.wait(), 10)
    assert running(pids[0])  # the command runs (as sleep, which took over bash's pid)

    await env.cleanup()

    assert task.cancelled()
    assert not running(pids[0])


async def test_grep_and_glob_report_workspace_relative_paths(env: LocalEnvironment) -> None:
    await env.write("src/a.py", "def main():\n    pass\n")
    await env.write("src/b.txt", "main\n")

    matches = await env.grep("def main", "src")
    assert [(m.path, m.line_number) for m in matches] == [("src/a.py", 1)]
    assert await env.glob("*.py", "src") == ["src/a.py"]
    assert sorted(await env.glob("**/*")) == ["src/a.py", "src/b.txt"]


async def test_allowed_roots_are_usable_by_absolute_path(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    env = LocalEnvironment(root, allowed_roots=[cache])

    await env.write(str(cache / "note.txt"), "kept\n")

    assert await env.read_text(str(cache / "note.txt")) == "kept\n"
    assert await env.glob("*.txt", str(cache)) == [str((cache / "note.txt").resolve())]


async def test_remove_deletes_a_symlink_not_its_target(env: LocalEnvironment, root: Path) -> None:
    (root / "target.txt").write_text("kept\n")
    (root / "link.txt").symlink_to(root / "target.txt")
    (root / "outward").symlink_to(root.parent / "secret.txt")

    await env.remove("link.txt")

    assert not (root / "link.txt").is_symlink()
    assert (root / "target.txt").read_text() == "kept\n"
    with pytest.raises(PathPolicyError):
        await env.remove("outward")
    assert (root.parent / "secret.txt").exists()

"""Pictures of a real workspace through ``LocalEnvironment``: in a git work tree the files
that differ from a commit (untracked included, ignored ones not, paths from the workspace
even when it is a folder of the repository); elsewhere sizes and times, big folders skipped,
up to a cap; and files fetched from a commit, binary ones whole."""

from __future__ import annotations

import subprocess
from pathlib import Path

from taor.agent.checkpoints.picture import (
    GitPicture,
    NoPicture,
    ScanPicture,
    base_content,
    run_whole,
    stat_of,
    take,
)
from taor.env.local import LocalEnvironment

BINARY = bytes(range(256)) * 64


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def repository(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "top.txt").write_text("top\n")
    (root / "pkg" / "a.py").write_text("a = 1\n")
    (root / "pkg" / "blob.bin").write_bytes(BINARY)
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    return root


async def test_in_git_the_dirty_files_of_the_workspace_folder(tmp_path: Path) -> None:
    root = repository(tmp_path)
    (root / "top.txt").write_text("changed, outside the workspace folder\n")
    (root / "pkg" / "a.py").write_text("a = 2\n")
    (root / "pkg" / "new.py").write_text("new\n")
    (root / "pkg" / "debug.log").write_text("ignored\n")
    picture = await take(LocalEnvironment(root / "pkg"), tmp_path / "spill")
    assert picture == GitPicture(
        head=git(root, "rev-parse", "HEAD"), dirty=frozenset({"a.py", "new.py"})
    )


async def test_against_an_earlier_commit_after_a_new_one(tmp_path: Path) -> None:
    root = repository(tmp_path)
    first = git(root, "rev-parse", "HEAD")
    (root / "top.txt").write_text("two\n")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "two")
    environment = LocalEnvironment(root)
    now = await take(environment, tmp_path / "spill")
    assert isinstance(now, GitPicture) and now.dirty == frozenset()
    against_first = await take(environment, tmp_path / "spill", "git", first)
    assert isinstance(against_first, GitPicture) and against_first.dirty == {"top.txt"}


async def test_files_as_a_commit_has_them(tmp_path: Path) -> None:
    root = repository(tmp_path)
    head = git(root, "rev-parse", "HEAD")
    (root / "pkg" / "blob.bin").write_bytes(b"overwritten")
    found = await base_content(
        LocalEnvironment(root), tmp_path / "spill", head, ["pkg/blob.bin", "nothing.txt", "pkg"]
    )
    assert found == {"pkg/blob.bin": BINARY, "nothing.txt": None}  # a folder is left out


async def test_outside_git_a_scan_of_sizes_and_times_with_a_cap(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("skipped\n")
    (root / "src").mkdir()
    (root / "src" / "main.c").write_text("int main;\n")
    (root / "notes with spaces.txt").write_text("n\n")
    environment = LocalEnvironment(root)
    picture = await take(environment, tmp_path / "spill")
    assert isinstance(picture, ScanPicture) and not picture.capped
    assert sorted(picture.files) == ["notes with spaces.txt", "src/main.c"]
    stat = stat_of(picture.files["src/main.c"])
    assert stat is not None and stat.size == len("int main;\n")
    capped = await take(environment, tmp_path / "spill", cap=1)
    assert isinstance(capped, ScanPicture) and capped.capped and len(capped.files) == 1


async def test_a_git_picture_where_the_repository_went_away(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    picture = await take(LocalEnvironment(root), tmp_path / "spill", "git", "-")
    assert isinstance(picture, NoPicture) and "went away" in picture.why


async def test_output_too_big_to_keep_is_read_back_whole_from_its_spill_file(
    tmp_path: Path,
) -> None:
    command = "head -c 3000000 /dev/zero | tr '\\0' a"
    output = await run_whole(LocalEnvironment(tmp_path), command, tmp_path / "spill")
    assert output == "a" * 3_000_000
    assert not (tmp_path / "spill").exists()


async def test_the_folders_a_spill_folder_needs_are_created_private(tmp_path: Path) -> None:
    spill = tmp_path / "data" / "checkpoints" / "spill"
    environment = LocalEnvironment(tmp_path)
    assert await run_whole(environment, "echo hi", spill) == "hi\n"
    assert not spill.exists()  # removed when done, as no other picture uses it
    for folder in (spill.parent, spill.parent.parent):
        assert folder.stat().st_mode & 0o777 == 0o700, folder

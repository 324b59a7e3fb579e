"""The blocking file helpers: line slices, atomic writes (new-file mode, no temp left), listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from taor.env.base import EnvError
from taor.env.local.files import list_entries, read_lines, write_atomic


def test_read_lines_slices_and_refuses_negative_values(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a\nb\r\nc")

    assert read_lines(path, 1, None) == "b\r\nc"
    assert read_lines(path, 5, 2) == ""
    with pytest.raises(EnvError, match="negative"):
        read_lines(path, -1, None)


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a" / "b.txt", b"x")

    mode = (tmp_path / "a" / "b.txt").stat().st_mode & 0o777
    umask = os.umask(0o022)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_a_failed_write_leaves_no_temp_file_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()

    with pytest.raises(EnvError, match="Cannot write"):
        write_atomic(tmp_path / "target", b"x")  # os.replace onto a directory fails

    assert [p.name for p in tmp_path.iterdir()] == ["target"]


def test_list_entries_does_not_enter_git_or_symlinked_directories(tmp_path: Path) -> None:
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("12")
    (tmp_path / "loop").symlink_to(tmp_path)

    entries = list_entries(tmp_path, depth=5)

    assert [(e.path, e.depth, e.size) for e in entries] == [
        (".git", 1, None),
        ("d", 1, None),
        ("d/f", 2, 2),
        ("loop", 1, None),
    ]

"""grep and glob over a real tree: .git skipped, .gitignore honoured (negations too), symlinks
out skipped."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from taor.env.base import EnvError
from taor.env.search import glob_files, glob_regex, grep_files


def _allow_all(path: Path) -> bool:
    return True


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "a.py": "import os\nprint('hello')\n",
        "pkg/b.py": "HELLO = 1\n",
        "pkg/deep/c.txt": "hello there\n",
        ".git/config": "hello from git\n",
        "build/out.py": "hello built\n",
        "pkg/gen.log": "hello log\n",
        "data.bin": "hello\x00binary",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".gitignore").write_text("# comment\nbuild/\n*.log\n")
    return tmp_path


def test_glob_regex_follows_glob_rules() -> None:
    assert glob_regex("*.py").match("a.py") and not glob_regex("*.py").match("pkg/b.py")
    assert glob_regex("**/*.py").match("a.py") and glob_regex("**/*.py").match("x/y/b.py")
    assert glob_regex("pkg/?.py").match("pkg/b.py")
    assert glob_regex("[!a]*.py").match("b.py") and not glob_regex("[!a]*.py").match("a.py")


def test_glob_skips_git_and_ignored_files(tree: Path) -> None:
    found = glob_files(tree, tree, "**/*", _allow_all)

    names = sorted(p.relative_to(tree).as_posix() for p in found)
    assert names == [".gitignore", "a.py", "data.bin", "pkg/b.py", "pkg/deep/c.txt"]


def test_glob_lists_newest_first(tree: Path) -> None:
    old = time.time() - 100
    os.utime(tree / "a.py", (old, old))

    found = glob_files(tree, tree, "**/*.py", _allow_all)

    assert [p.name for p in found] == ["b.py", "a.py"]


def test_grep_finds_lines_in_text_files_only(tree: Path) -> None:
    matches = grep_files(tree, tree, "hello", allowed=_allow_all, ignore_case=True)

    found = {(m.path, m.line_number, m.line) for m in matches}
    assert found == {
        ("a.py", 2, "print('hello')"),
        ("pkg/b.py", 1, "HELLO = 1"),
        ("pkg/deep/c.txt", 1, "hello there"),
    }


def test_grep_filters_by_glob_and_caps_results(tree: Path) -> None:
    assert [m.path for m in grep_files(tree, tree, "hello", allowed=_allow_all, glob="*.txt")] == [
        "pkg/deep/c.txt"
    ]
    assert len(grep_files(tree, tree, ".", allowed=_allow_all, max_matches=2)) == 2


def test_grep_in_a_subdirectory_keeps_parent_gitignore_rules(tree: Path) -> None:
    matches = grep_files(tree, tree / "pkg", "hello", allowed=_allow_all)

    assert [m.path for m in matches] == ["pkg/deep/c.txt"]


def test_grep_skips_symlinks_that_are_not_allowed(
    tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("hello secret\n")
    (tree / "link.txt").symlink_to(outside)

    matches = grep_files(tree, tree, "secret", allowed=lambda p: not p.is_symlink())

    assert matches == []


def test_a_bad_regex_is_an_env_error(tree: Path) -> None:
    with pytest.raises(EnvError, match="Invalid regular expression"):
        grep_files(tree, tree, "(", allowed=_allow_all)


def test_grep_outside_the_root_reports_absolute_paths(
    tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("other")
    (other / "x.txt").write_text("hello\n")

    matches = grep_files(tree, other, "hello", allowed=_allow_all)

    assert [m.path for m in matches] == [str(other / "x.txt")]


def test_grep_and_glob_honour_a_negation(tree: Path) -> None:
    (tree / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (tree / "keep.log").write_text("hello kept\n")

    assert [m.path for m in grep_files(tree, tree, "kept", allowed=_allow_all)] == ["keep.log"]
    found = glob_files(tree, tree, "**/*.log", _allow_all)
    assert [p.relative_to(tree).as_posix() for p in found] == ["keep.log"]

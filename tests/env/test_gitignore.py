"""Git's ignore rules: a table of patterns, real trees, and a differential test against git."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taor.env.gitignore import is_path_ignored, parse_gitignore
from taor.env.local import LocalEnvironment
from taor.env.memory import MemoryEnvironment
from taor.env.search import walk_files
from taor.tools.base import ToolContext
from taor.tools.builtin.search import GrepTool
from taor.tools.ripgrep import find_rg

TABLE = [
    # (.gitignore text, path, is a directory, ignored)
    ("*.log", "a.log", False, True),
    ("*.log", "deep/er/a.log", False, True),
    ("*.log\n!keep.log", "keep.log", False, False),
    ("*.log\n!keep.log", "deep/keep.log", False, False),
    ("!keep.log\n*.log", "keep.log", False, True),  # the last matching rule decides
    ("build/\n!build/keep.txt", "build/keep.txt", False, True),  # under an ignored directory
    ("build/*\n!build/keep.txt", "build/keep.txt", False, False),
    ("build/*\n!build/keep.txt", "build/other.txt", False, True),
    ("/top.txt", "top.txt", False, True),  # a leading / anchors
    ("/top.txt", "sub/top.txt", False, False),
    ("doc/frotz", "doc/frotz", False, True),  # a / in the middle anchors
    ("doc/frotz", "a/doc/frotz", False, False),
    ("frotz/", "a/frotz", True, True),  # a / only at the end does not
    ("frotz/", "frotz", False, False),  # ... and matches directories only
    ("frotz/", "a/frotz/inside.txt", False, True),
    ("**/foo", "foo", False, True),
    ("**/foo", "a/b/foo", False, True),
    ("**/foo/bar", "foo/bar", False, True),
    ("**/foo/bar", "x/y/foo/bar", False, True),
    ("abc/**", "abc/x", False, True),
    ("abc/**", "abc/x/y", False, True),
    ("abc/**", "abc", True, False),
    ("abc/**\n!abc/keep", "abc/keep", False, False),
    ("a/**/b", "a/b", False, True),
    ("a/**/b", "a/x/y/b", False, True),
    ("a/**/b", "a/xb", False, False),
    ("doc/a**b", "doc/axyb", False, True),  # any other ** is a *
    ("doc/a**b", "doc/ax/yb", False, False),
    ("doc/x**/y", "doc/xa/b/y", False, True),  # git's quirk: ** right after the literal head
    ("doc/*.txt", "doc/a.txt", False, True),
    ("doc/*.txt", "doc/sub/a.txt", False, False),
    ("?.c", "a.c", False, True),
    ("?.c", "ab.c", False, False),
    ("[abc].txt", "b.txt", False, True),
    ("[!abc].txt", "b.txt", False, False),
    ("[!abc].txt", "d.txt", False, True),
    ("*.[[:digit:]]", "x.7", False, True),
    ("#hash", "#hash", False, False),  # a comment
    ("\\#hash", "#hash", False, True),
    ("\\!bang", "!bang", False, True),
    ("trail  ", "trail", False, True),  # trailing spaces are dropped ...
    ("trail\\ ", "trail ", False, True),  # ... unless escaped
    ("a\\*b", "a*b", False, True),
    ("a\\*b", "axb", False, False),
    ("*.log\r\n!keep.log\r\n", "keep.log", False, False),
]


@pytest.mark.parametrize(("text", "path", "is_dir", "ignored"), TABLE)
def test_pattern_table(text: str, path: str, is_dir: bool, ignored: bool) -> None:
    assert is_path_ignored(path, is_dir, parse_gitignore(text, "")) is ignored


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _walked(root: Path, start: Path | None = None) -> list[str]:
    found = walk_files(root, start or root, lambda p: True)
    return sorted(p.relative_to(root).as_posix() for p in found)


def test_deeper_gitignore_files_win(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "*.txt\n!x.log\n",
            "sub/.gitignore": "!keep.txt\n*.log\n",
            "sub/deeper/.gitignore": "!/x.log\n",
            **{name: "" for name in ("keep.txt", "x.log", "sub/keep.txt", "sub/other.txt")},
            **{name: "" for name in ("sub/x.log", "sub/deeper/x.log", "sub/deeper/keep.txt")},
        },
    )

    assert _walked(tmp_path) == [
        ".gitignore",
        "sub/.gitignore",
        "sub/deeper/.gitignore",
        "sub/deeper/keep.txt",
        "sub/deeper/x.log",
        "sub/keep.txt",
        "x.log",
    ]
    assert _walked(tmp_path, tmp_path / "sub" / "deeper") == [
        "sub/deeper/.gitignore",
        "sub/deeper/keep.txt",
        "sub/deeper/x.log",
    ]


def test_info_exclude_applies_below_every_gitignore(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".git/info/exclude": "# local\nsecret.txt\nnotes/\n",
            ".gitignore": "!/secret.txt\n",
            **{name: "" for name in ("secret.txt", "sub/secret.txt", "notes/a.md", "a.md")},
        },
    )

    assert _walked(tmp_path) == [".gitignore", "a.md", "secret.txt"]


def test_a_workspace_inside_a_repository_gets_its_rules(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".git/info/exclude": "/ws/skip.txt\n",
            ".gitignore": "*.log\n",
            **{name: "" for name in ("ws/skip.txt", "ws/a.log", "ws/a.md", "ws/sub/skip.txt")},
        },
    )

    assert _walked(tmp_path / "ws") == ["a.md", "sub/skip.txt"]


def test_a_git_file_points_at_the_git_directory(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "main/.git/worktrees/wt/commondir": "../..\n",
            "main/.git/info/exclude": "*.tmp\n",
            "wt/.git": "gitdir: ../main/.git/worktrees/wt\n",
            **{name: "" for name in ("wt/a.tmp", "wt/a.md")},
        },
    )

    assert _walked(tmp_path / "wt") == ["a.md"]


async def test_memory_search_honours_negations_and_info_exclude() -> None:
    env = MemoryEnvironment(
        files={
            ".gitignore": "*.log\n!keep.log\nbuild/\n!build/kept.log\n",
            ".git/info/exclude": "mine.txt\n",
            **{name: "hit\n" for name in ("a.log", "keep.log", "build/kept.log", "mine.txt")},
            "sub/.gitignore": "!*.log\n",
            "sub/b.log": "hit\n",
        }
    )

    assert sorted(m.path for m in await env.grep("hit")) == ["keep.log", "sub/b.log"]
    assert sorted(await env.glob("**/*.log")) == ["keep.log", "sub/b.log"]


@pytest.fixture
def negations(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n!build/kept.log\nout/*\n!out/shown.txt\n",
            ".git/info/exclude": "mine.txt\n",
            "sub/.gitignore": "!*.log\n/local.txt\n",
            "docs/.gitignore": "**/gen/**\n",
            **{
                name: "hit\n"
                for name in (
                    "a.log",
                    "keep.log",
                    "build/kept.log",
                    "mine.txt",
                    "out/hidden.txt",
                    "out/shown.txt",
                    "sub/b.log",
                    "sub/local.txt",
                    "sub/deep/local.txt",
                    "docs/gen/x.md",
                    "docs/a/gen/y.md",
                    "docs/gen.md",
                )
            },
        },
    )
    return tmp_path


async def test_ripgrep_and_the_fallback_agree(negations: Path) -> None:
    if find_rg() is None:
        pytest.skip("rg is not installed")
    env = LocalEnvironment(negations)
    arguments = {"pattern": "hit", "output_mode": "files_with_matches"}
    ripgrep = await GrepTool().execute(arguments, ToolContext(environment=env))
    fallback = await GrepTool(rg_path="/nonexistent/bin/rg").execute(
        arguments, ToolContext(environment=env)
    )

    assert fallback.metadata["engine"] == "python"
    assert fallback.text == ripgrep.text
    assert fallback.text.splitlines() == [
        "docs/gen.md",
        "keep.log",
        "out/shown.txt",
        "sub/b.log",
        "sub/deep/local.txt",
    ]


# The differential test: random trees and ignore files, judged by `git check-ignore`.

NAMES = ["a", "b", "ab", "a.log", "b.txt", "logs", " sp", "t ", "#h", "!n", "[e]", "x*y"]
SEGMENTS = [
    *("a", "b", "ab", "*", "**", "***", "?", "a*", "*b", "*.log", "*.txt", "log?", "[ab]"),
    *("[!a]*", "[a-b]?", "[^b]", "\\#h", "#h", "\\!n", "a**", "**b", "[[:alpha:]]*", " sp"),
    *("t\\ ", "t ", "\\[e]", "[[]e]", "x\\*y", "[z-a]", "[]", "[", "a\\"),
]


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    segments = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3))
    lead = draw(st.sampled_from(["", "", "!", "/", "!/"]))
    return lead + "/".join(segments) + draw(st.sampled_from(["", "", "/", " ", "\\"]))


_IGNORE_FILE = st.lists(_patterns(), max_size=5).map(lambda lines: "\n".join(lines) + "\n")
_PATHS = st.lists(
    st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join),
    min_size=1,
    max_size=8,
    unique=True,
)


@pytest.fixture(scope="module")
def repo() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=_git_env(root))
        yield root


def _git_env(root: Path) -> dict[str, str]:
    isolated = {"HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    return {"PATH": os.environ.get("PATH", ""), **isolated}


def _git_ignored(root: Path, paths: list[str]) -> set[str]:
    """The paths git check-ignore calls ignored (its -v output names the deciding pattern)."""
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "-v", "-n", "--stdin", "-z"],
        input="".join(p + "\0" for p in paths),
        cwd=root,
        env=_git_env(root),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    fields = out.stdout.split("\0")
    records = [fields[i : i + 4] for i in range(0, len(fields) - 1, 4)]
    return {path for source, _, pattern, path in records if source and pattern[:1] != "!"}


def _reset(root: Path) -> None:
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths=_PATHS, top=_IGNORE_FILE, nested=_IGNORE_FILE, exclude=_IGNORE_FILE)
def test_matches_git_check_ignore(
    repo: Path, paths: list[str], top: str, nested: str, exclude: str
) -> None:
    files = [p for p in paths if not any(q.startswith(p + "/") for q in paths)]
    tree = {p: "" for p in files} | {".gitignore": top}
    if any(p.startswith("a/") for p in files):
        tree["a/.gitignore"] = nested
    _reset(repo)
    _write(repo, tree)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(exclude)
    dirs = sorted({p.rsplit("/", n)[0] for p in tree for n in range(1, p.count("/") + 1)})
    ignored = _git_ignored(repo, [*tree, *dirs])

    walked = {p.relative_to(repo).as_posix() for p in walk_files(repo, repo, lambda p: True)}
    assert walked == {p for p in tree if p not in ignored}
    rules = parse_gitignore(exclude, "") + parse_gitignore(top, "")
    rules += parse_gitignore(nested, "a") if "a/.gitignore" in tree else []
    for path in [*tree, *dirs]:
        assert is_path_ignored(path, path in dirs, rules) is (path in ignored), path

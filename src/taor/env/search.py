"""Pure-Python grep and glob over a real directory tree (ripgrep comes later, in the tools).

Both skip ``.git`` and what git would ignore: ``.gitignore`` files and the repository's
``.git/info/exclude``, read and matched by ``taor.env.gitignore`` (negations, anchoring, ``**``,
directory-only patterns, escapes); an ignored directory is not entered. Symlinks are not followed into directories; a symlinked file is
searched only when ``allowed`` accepts its target.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from taor.env.base import EnvError, GrepMatch
from taor.env.gitignore import (
    GitignoreRule,
    gitignore_rules,
    inherited_rules,
    is_ignored,
    parse_gitignore,
)
from taor.env.paths import relative_display

__all__ = [
    "GitignoreRule",
    "glob_files",
    "glob_regex",
    "grep_files",
    "is_ignored",
    "parse_gitignore",
    "walk_files",
]

_SKIPPED = frozenset({".git"})  # a directory, or a file in a linked worktree
_BINARY_SNIFF = 8192


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def walk_files(root: Path, start: Path, allowed: Callable[[Path], bool]) -> Iterator[Path]:
    """Files under ``start`` (itself, if a file), skipping .git, ignored paths, symlinks out."""
    if start.is_file():
        yield start
        return
    inherited = inherited_rules(str(root), str(start), exists=os.path.lexists, read=_read_text)
    stack = [(str(start), inherited)]
    while stack:
        directory, rules = stack.pop()
        rules = rules + gitignore_rules(directory, _read_text)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.name in _SKIPPED or is_ignored(entry.path, is_dir, rules):
                continue
            if is_dir:
                stack.append((entry.path, rules))
            elif entry.is_file() and (not entry.is_symlink() or allowed(Path(entry.path))):
                yield Path(entry.path)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over ``/``-separated paths: ``**/`` any directories, ``*`` no ``/``."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            closing = pattern.find("]", i + 2) if char == "[" else -1
            if char == "[" and closing != -1:
                body = pattern[i + 1 : closing]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = closing + 1
                continue
            out.append({"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_files(
    root: Path, start: Path, pattern: str, allowed: Callable[[Path], bool]
) -> list[Path]:
    """Files under ``start`` whose path relative to it matches ``pattern``, newest first."""
    regex = glob_regex(pattern.removeprefix("./"))
    found = [
        p for p in walk_files(root, start, allowed) if regex.match(p.relative_to(start).as_posix())
    ]
    return sorted(found, key=lambda p: (-p.stat().st_mtime, p.as_posix()))


def _compile(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise EnvError(f"Invalid regular expression {pattern!r}: {exc}.") from exc


def _is_binary(path: Path) -> bool:
    with path.open("rb") as f:
        return b"\x00" in f.read(_BINARY_SNIFF)


def grep_files(
    root: Path,
    start: Path,
    pattern: str,
    *,
    allowed: Callable[[Path], bool],
    glob: str | None = None,
    ignore_case: bool = False,
    max_matches: int | None = None,
) -> list[GrepMatch]:
    """Lines matching ``pattern`` (Python regex) in text files under ``start``.

    ``glob`` filters files: by name when it has no ``/``, else by path relative to ``start``.
    Paths in the result are relative to ``root`` (absolute when outside it).
    """
    regex, name_filter = _compile(pattern, ignore_case), glob_regex(glob) if glob else None
    matches: list[GrepMatch] = []
    for path in walk_files(root, start, allowed):
        if name_filter is not None:
            subject = path.name if "/" not in (glob or "") else path.relative_to(start).as_posix()
            if not name_filter.match(subject):
                continue
        try:
            if _is_binary(path):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        shown = relative_display(str(path), str(root))
        for number, line in enumerate(text.splitlines(), 1):
            if regex.search(line):
                matches.append(GrepMatch(path=shown, line_number=number, line=line))
                if max_matches is not None and len(matches) >= max_matches:
                    return matches
    return matches

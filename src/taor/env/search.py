"""Pure-Python grep and glob over a real directory tree (ripgrep comes later, in the tools).

Both skip ``.git`` and honour ``.gitignore`` files minimally: each line is a pattern scoped to
its directory (``*`` may cross ``/``, a trailing ``/`` means directories only, a pattern with a
``/`` elsewhere is anchored). TODO: ``!`` negations, ``.git/info/exclude`` and the global
excludes file are not read. Symlinks are not followed into directories; a symlinked file is
searched only when ``allowed`` accepts its target.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from taor.env.base import EnvError, GrepMatch
from taor.env.paths import relative_display

_SKIPPED_DIRS = frozenset({".git"})
_BINARY_SNIFF = 8192


@dataclass(frozen=True, kw_only=True, slots=True)
class GitignoreRule:
    base: str
    pattern: str
    dir_only: bool
    anchored: bool


def parse_gitignore(text: str, base: str) -> list[GitignoreRule]:
    """The rules of a .gitignore in directory ``base`` (``!`` negations are not supported)."""
    rules = []
    for line in (raw.strip() for raw in text.splitlines()):
        if line and not line.startswith(("#", "!")):
            pattern = line.rstrip("/")
            rules.append(
                GitignoreRule(
                    base=base,
                    pattern=pattern.lstrip("/"),
                    dir_only=line.endswith("/"),
                    anchored="/" in pattern,
                )
            )
    return rules


def is_ignored(path: str, is_dir: bool, rules: list[GitignoreRule]) -> bool:
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        target = posixpath.relpath(path, rule.base) if rule.anchored else posixpath.basename(path)
        if fnmatch.fnmatchcase(target, rule.pattern):
            return True
    return False


def _read_gitignore(directory: str) -> list[GitignoreRule]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            return parse_gitignore(f.read(), directory)
    except OSError:
        return []


def _inherited_rules(root: str, start: str) -> list[GitignoreRule]:
    rules: list[GitignoreRule] = []
    current = root
    for part in Path(os.path.relpath(start, root)).parts if start != root else ():
        rules += _read_gitignore(current)
        current = os.path.join(current, part)
    return rules


def walk_files(root: Path, start: Path, allowed: Callable[[Path], bool]) -> Iterator[Path]:
    """Files under ``start`` (itself, if a file), skipping .git, ignored paths, symlinks out."""
    if start.is_file():
        yield start
        return
    base_rules = _inherited_rules(str(root), str(start)) if start.is_relative_to(root) else []
    stack = [(str(start), base_rules)]
    while stack:
        directory, rules = stack.pop()
        rules = rules + _read_gitignore(directory)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if (is_dir and entry.name in _SKIPPED_DIRS) or is_ignored(entry.path, is_dir, rules):
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

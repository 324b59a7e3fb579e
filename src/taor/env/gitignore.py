"""Git's ignore rules (``man gitignore``): ``.gitignore`` files and ``.git/info/exclude``.

The rules in force for a path, lowest precedence first: the ``info/exclude`` of the repository
around the workspace, then the ``.gitignore`` files from the work tree's top (or the workspace
root, outside a repository) down to the path's directory. The last rule that matches decides:
a ``!`` rule re-includes, but nothing under an ignored directory comes back, since git (and the
walks of ``taor.env.search`` and ``taor.env.memory.search``) never enter it.

Each pattern is compiled once, to one regex (``taor.env.wildmatch``). Lines are read as git
reads them: ``#`` starts a comment, ``\\#`` and ``\\!`` are literal, trailing spaces are dropped
unless escaped. A pattern with a ``/`` before its end is relative to its file's directory, any
other matches a name at any depth; a trailing ``/`` matches directories only. The user's global
``core.excludesFile`` is not read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from taor._records import frozen
from taor.env.wildmatch import wildmatch_regex

Reader = Callable[[str], str | None]  # the text of a file; None when missing or not a file


@frozen
class GitignoreRule:
    """One pattern; ``prefix`` is its file's directory with a ``/`` ("" for relative paths)."""

    prefix: str
    pattern: str
    negated: bool
    dir_only: bool
    anchored: bool
    regex: re.Pattern[str]


def parse_gitignore(text: str, base: str) -> list[GitignoreRule]:
    """The rules of an ignore file whose patterns are relative to directory ``base``."""
    prefix = "" if base in ("", ".") else base.rstrip("/") + "/"
    rules = []
    for raw in text.removeprefix("\ufeff").split("\n"):
        line = _trim_trailing_spaces(raw.removesuffix("\r"))
        rule = _rule(line, prefix) if line and not line.startswith("#") else None
        if rule is not None:
            rules.append(rule)
    return rules


def _trim_trailing_spaces(line: str) -> str:
    """Without its trailing spaces, except escaped ones (git's trim_trailing_spaces)."""
    last_space, i = -1, 0
    while i < len(line):
        if line[i] == " ":
            last_space = i if last_space < 0 else last_space
        elif line[i] == "\\" and i + 1 == len(line):
            return line
        else:
            i += line[i] == "\\"
            last_space = -1
        i += 1
    return line if last_space < 0 else line[:last_space]


def _rule(line: str, prefix: str) -> GitignoreRule | None:
    negated = line.startswith("!")
    body = line[1:] if negated else line
    dir_only = body.endswith("/")
    body = body[:-1] if dir_only else body
    anchored = "/" in body
    body = body[1:] if body.startswith("/") else body
    if not body:
        return None
    regex = wildmatch_regex(body)
    return GitignoreRule(
        prefix=prefix,
        pattern=line,
        negated=negated,
        dir_only=dir_only,
        anchored=anchored,
        regex=regex,
    )


def is_ignored(path: str, is_dir: bool, rules: Sequence[GitignoreRule]) -> bool:
    """Whether the last of ``rules`` that matches ``path`` ignores it (a ``!`` rule does not).

    Rules of files in other directories than ``path``'s ancestors are passed over; whether a
    parent directory is ignored is not looked at (see ``is_path_ignored``).
    """
    name = path[path.rfind("/") + 1 :]
    for rule in reversed(rules):
        if (rule.dir_only and not is_dir) or not path.startswith(rule.prefix):
            continue
        if rule.regex.fullmatch(path[len(rule.prefix) :] if rule.anchored else name):
            return not rule.negated
    return False


def is_path_ignored(path: str, is_dir: bool, rules: Sequence[GitignoreRule]) -> bool:
    """Whether ``path`` is ignored, as git sees it: also when a parent directory is."""
    parts = path.split("/")
    parents = ("/".join(parts[:n]) for n in range(1, len(parts)))
    return any(p and is_ignored(p, True, rules) for p in parents) or is_ignored(path, is_dir, rules)


def gitignore_rules(directory: str, read: Reader) -> list[GitignoreRule]:
    """The rules of ``directory``'s own ``.gitignore`` (none when it has none)."""
    text = read(posixpath.join(directory, ".gitignore"))
    return [] if text is None else parse_gitignore(text, directory)


def work_tree_top(directory: str, exists: Callable[[str], bool]) -> str | None:
    """The nearest directory at or above ``directory`` holding a ``.git`` (directory or file)."""
    current = directory
    while not exists(posixpath.join(current, ".git")):
        parent = posixpath.dirname(current)
        if parent == current:
            return None
        current = parent
    return current


def exclude_rules(top: str, read: Reader) -> list[GitignoreRule]:
    """The rules of ``info/exclude`` in the repository whose work tree is ``top``.

    A ``.git`` file (a linked worktree or a submodule) points at the git directory; a linked
    worktree's ``commondir`` points at the directory that holds ``info``.
    """
    git_dir = posixpath.join(top, ".git")
    pointer = read(git_dir)
    if pointer is not None and pointer.startswith("gitdir:"):
        git_dir = posixpath.normpath(posixpath.join(top, pointer[7:].strip()))
    common = read(posixpath.join(git_dir, "commondir"))
    if common and common.strip():
        git_dir = posixpath.normpath(posixpath.join(git_dir, common.strip()))
    text = read(posixpath.join(git_dir, "info", "exclude"))
    return [] if text is None else parse_gitignore(text, top)


def inherited_rules(
    root: str, start: str, *, exists: Callable[[str], bool], read: Reader
) -> list[GitignoreRule]:
    """The rules in force in directory ``start`` before its own ``.gitignore``.

    The repository's ``info/exclude`` and the ``.gitignore`` files from the work tree's top (or
    ``root``) down to ``start``'s parent; none for a ``start`` outside ``root``.
    """
    if start != root and not start.startswith(root.rstrip("/") + "/"):
        return []
    top = work_tree_top(root, exists)
    rules = [] if top is None else exclude_rules(top, read)
    current = root if top is None else top
    for part in posixpath.relpath(start, current).split("/") if start != current else ():
        rules += gitignore_rules(current, read)
        current = posixpath.join(current, part)
    return rules

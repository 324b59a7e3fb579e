"""grep and glob over a ``MemoryTree``, with the walk order and results of ``taor.env.search``.

``.git`` is skipped and the ``.gitignore`` files and ``.git/info/exclude`` in the tree are
honoured the same way, by ``taor.env.gitignore``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from taor.env.base import EnvError, GrepMatch
from taor.env.gitignore import GitignoreRule, gitignore_rules, inherited_rules, is_ignored
from taor.env.memory.fs import MemoryTree
from taor.env.paths import relative_display
from taor.env.search import glob_regex

_SKIPPED = frozenset({".git"})  # a directory, or a file in a linked worktree
_BINARY_SNIFF = 8192


def _reader(tree: MemoryTree) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        data = tree.files.get(path)
        return None if data is None else data.decode("utf-8", "replace")

    return read


def _inherited(tree: MemoryTree, root: str, start: str) -> list[GitignoreRule]:
    def exists(path: str) -> bool:
        return path in tree.files or path in tree.dirs

    return inherited_rules(root, start, exists=exists, read=_reader(tree))


def walk_files(tree: MemoryTree, root: str, start: str) -> Iterator[str]:
    """Files under ``start`` (itself, if a file), skipping .git and ignored paths."""
    if start in tree.files:
        yield start
        return
    stack, read = [(start, _inherited(tree, root, start))], _reader(tree)
    while stack:
        directory, rules = stack.pop()
        rules = rules + gitignore_rules(directory, read)
        for name in reversed(tree.children(directory)):
            full = posixpath.join(directory, name)
            is_dir = full in tree.dirs
            if name in _SKIPPED or is_ignored(full, is_dir, rules):
                continue
            if is_dir:
                stack.append((full, rules))
            else:
                yield full


def glob_files(tree: MemoryTree, root: str, start: str, pattern: str) -> list[str]:
    """Files under ``start`` whose path relative to it matches, newest first, shown from root."""
    regex = glob_regex(pattern.removeprefix("./"))
    found = [p for p in walk_files(tree, root, start) if regex.match(posixpath.relpath(p, start))]
    found.sort(key=lambda p: (-tree.mtimes[p], p))
    return [relative_display(p, root) for p in found]


def grep_files(
    tree: MemoryTree,
    root: str,
    start: str,
    pattern: str,
    *,
    glob: str | None = None,
    ignore_case: bool = False,
    max_matches: int | None = None,
) -> list[GrepMatch]:
    """Lines matching ``pattern`` in the text files under ``start`` (see ``search.grep_files``)."""
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise EnvError(f"Invalid regular expression {pattern!r}: {exc}.") from exc
    name_filter = glob_regex(glob) if glob else None
    matches: list[GrepMatch] = []
    for path in walk_files(tree, root, start):
        subject = (
            posixpath.basename(path) if "/" not in (glob or "") else posixpath.relpath(path, start)
        )
        data = tree.files[path]
        if (name_filter and not name_filter.match(subject)) or b"\x00" in data[:_BINARY_SNIFF]:
            continue
        shown = relative_display(path, root)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if regex.search(line):
                matches.append(GrepMatch(path=shown, line_number=number, line=line))
                if max_matches is not None and len(matches) >= max_matches:
                    return matches
    return matches

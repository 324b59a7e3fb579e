"""grep and glob over a ``MemoryTree``, with the walk order and results of ``taor.env.search``.

``.git`` is skipped and ``.gitignore`` files in the tree are honoured the same minimal way
(each line a pattern scoped to its directory; a trailing ``/`` means directories only; a ``/``
elsewhere anchors it; ``!`` negations are not read).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from taor.env.base import EnvError, GrepMatch
from taor.env.memory_fs import MemoryTree
from taor.env.paths import relative_display
from taor.env.search import GitignoreRule, glob_regex, is_ignored, parse_gitignore

_SKIPPED_DIRS = frozenset({".git"})
_BINARY_SNIFF = 8192


def _rules(tree: MemoryTree, directory: str) -> list[GitignoreRule]:
    data = tree.files.get(posixpath.join(directory, ".gitignore"))
    return [] if data is None else parse_gitignore(data.decode("utf-8", "replace"), directory)


def _inherited(tree: MemoryTree, root: str, start: str) -> list[GitignoreRule]:
    if start == root or not start.startswith(root.rstrip("/") + "/"):
        return []
    rules, current = [], root
    for part in posixpath.relpath(start, root).split("/"):
        rules += _rules(tree, current)
        current = posixpath.join(current, part)
    return rules


def walk_files(tree: MemoryTree, root: str, start: str) -> Iterator[str]:
    """Files under ``start`` (itself, if a file), skipping .git and ignored paths."""
    if start in tree.files:
        yield start
        return
    stack = [(start, _inherited(tree, root, start))]
    while stack:
        directory, rules = stack.pop()
        rules = rules + _rules(tree, directory)
        for name in reversed(tree.children(directory)):
            full = posixpath.join(directory, name)
            is_dir = full in tree.dirs
            if (is_dir and name in _SKIPPED_DIRS) or is_ignored(full, is_dir, rules):
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

"""The in-memory file tree of ``MemoryEnvironment``: absolute POSIX paths to bytes.

Directories are explicit (the root, those given, and every parent of a written file), so an
empty directory can exist. Modification times come from the injected clock and strictly
increase, so "newest first" is well defined even when the clock stands still.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from taor.env.base import DirEntry, EnvError, FileStat, PathNotFoundError
from taor.env.paths import relative_display, resolve_lexically

_SKIPPED_DIRS = frozenset({".git"})
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def encode(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def _check_range(offset: int, limit: int | None) -> None:
    if offset < 0 or (limit is not None and limit < 0):
        raise EnvError("offset and limit must not be negative.")


def read_lines(data: bytes, offset: int, limit: int | None) -> str:
    """Lines ``offset`` to ``offset + limit`` (0-based), endings kept, bad UTF-8 replaced.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only, as when reading a file.
    """
    _check_range(offset, limit)
    lines = _LINE.findall(data.decode("utf-8", "replace"))
    return "".join(lines[offset : None if limit is None else offset + limit])


def read_range(data: bytes, offset: int, limit: int | None) -> bytes:
    """Bytes ``offset`` to ``offset + limit``."""
    _check_range(offset, limit)
    return data[offset : None if limit is None else offset + limit]


def _parents(path: str) -> Iterator[str]:
    parent = posixpath.dirname(path)
    while parent != path:
        yield parent
        path, parent = parent, posixpath.dirname(parent)


class MemoryTree:
    """Files and directories held in dictionaries, keyed by normalized absolute path."""

    def __init__(self, roots: list[str], clock: Callable[[], float]) -> None:
        self.roots = roots
        self.files: dict[str, bytes] = {}
        self.mtimes: dict[str, float] = {}
        self.dirs: set[str] = set()
        self._clock = clock
        self._last = float("-inf")
        for root in roots:
            self.make_dir(root)

    def _tick(self) -> float:
        self._last = max(self._clock(), self._last + 1e-6)
        return self._last

    # paths as the model gives them

    def resolve(self, path: str) -> str:
        """The absolute path of ``path`` under the policy, or ``PathPolicyError``."""
        return resolve_lexically(path, self.roots)

    def existing(self, path: str) -> str:
        resolved = self.resolve(path)
        if not self.exists(resolved):
            raise PathNotFoundError(f"No such file or directory: {path!r} (in {self.roots[0]}).")
        return resolved

    def file(self, path: str) -> bytes:
        """The content of the file ``path``, or ``PathNotFoundError``."""
        resolved = self.existing(path)
        if resolved in self.dirs:
            raise PathNotFoundError(f"{path!r} is a directory, not a file; list it instead.")
        return self.files[resolved]

    def directory(self, path: str, instead: str) -> str:
        """The resolved directory ``path``; when a file, an error that suggests ``instead``."""
        resolved = self.existing(path)
        if resolved not in self.dirs:
            raise PathNotFoundError(f"{path!r} is a file, not a directory; {instead}.")
        return resolved

    def stat(self, path: str) -> FileStat:
        resolved = self.existing(path)
        data = self.files.get(resolved)
        return FileStat(
            path=relative_display(resolved, self.roots[0]),
            is_file=data is not None,
            is_dir=data is None,
            is_symlink=False,
            size=0 if data is None else len(data),
            mtime=self.mtimes[resolved],
        )

    # the tree (absolute paths)

    def make_dir(self, path: str) -> None:
        """Create ``path`` and its parents as directories."""
        for directory in [path, *_parents(path)]:
            if directory in self.files:
                raise EnvError(f"Cannot create {path}: {directory} is a file.")
            if directory not in self.dirs:
                self.dirs.add(directory)
                self.mtimes[directory] = self._tick()

    def write(self, path: str, data: bytes) -> None:
        """Store ``data`` at ``path``, creating the parent directories."""
        try:
            self.make_dir(posixpath.dirname(path))
        except EnvError as exc:
            raise EnvError(f"Cannot write {path}: a parent is a file ({exc}).") from exc
        self.files[path] = data
        self.mtimes[path] = self._tick()

    def remove(self, path: str) -> None:
        """Delete the file ``path``."""
        del self.files[path]
        del self.mtimes[path]

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.dirs

    def children(self, directory: str) -> list[str]:
        """Names directly inside ``directory``, sorted."""
        prefix = directory.rstrip("/") + "/"
        names = {
            p[len(prefix) :].split("/", 1)[0]
            for p in (*self.files, *self.dirs)
            if p.startswith(prefix) and p != prefix
        }
        return sorted(names)

    def list_entries(self, directory: str, depth: int) -> list[DirEntry]:
        """Entries under ``directory`` down to ``depth`` levels, sorted by path, .git not entered."""
        entries: list[DirEntry] = []
        pending = [(directory, 1)]
        while pending:
            current, level = pending.pop()
            for name in self.children(current):
                full = posixpath.join(current, name)
                is_dir = full in self.dirs
                entries.append(
                    DirEntry(
                        path=posixpath.relpath(full, directory),
                        name=name,
                        is_dir=is_dir,
                        size=None if is_dir else len(self.files[full]),
                        depth=level,
                    )
                )
                if is_dir and level < depth and name not in _SKIPPED_DIRS:
                    pending.append((full, level + 1))
        return sorted(entries, key=lambda e: e.path)

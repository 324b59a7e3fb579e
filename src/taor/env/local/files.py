"""File helpers of ``LocalEnvironment`` (blocking; it runs them in a worker thread)."""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path

from taor.env.base import DirEntry, EnvError, FileStat, PathNotFoundError

_SKIPPED_DIRS = frozenset({".git"})


def read_lines(path: Path, offset: int, limit: int | None) -> str:
    """Lines ``offset`` to ``offset + limit`` (0-based), endings kept, bad UTF-8 replaced."""
    if offset < 0 or (limit is not None and limit < 0):
        raise EnvError("offset and limit must not be negative.")
    with path.open(encoding="utf-8", errors="replace", newline="") as f:
        stop = None if limit is None else offset + limit
        return "".join(itertools.islice(f, offset, stop))


def read_range(path: Path, offset: int, limit: int | None) -> bytes:
    """``limit`` bytes (None: all) from byte ``offset``."""
    with path.open("rb") as f:
        f.seek(offset)
        return f.read(-1 if limit is None else limit)


def file_stat(path: Path, display: str, *, is_symlink: bool) -> FileStat:
    """The ``FileStat`` of an existing ``path``, named ``display``."""
    info = path.stat()
    return FileStat(
        path=display,
        is_file=path.is_file(),
        is_dir=path.is_dir(),
        is_symlink=is_symlink,
        size=info.st_size,
        mtime=info.st_mtime,
    )


def _umask() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` through a temporary file in the same directory, then ``os.replace``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask()
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise EnvError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException as exc:
        Path(temp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise EnvError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
        raise


def remove_file(link: Path, target: Path, shown: str) -> None:
    """Unlink the file ``target`` or, when ``link`` is a symlink, the link itself.

    ``target`` is where ``link`` resolves (already checked by the path policy). A directory is
    refused: deleting a tree is a command the model runs on purpose, not a file operation.
    """
    victim = link if link.is_symlink() else target
    if not victim.is_symlink() and victim.is_dir():
        raise EnvError(f"{shown!r} is a directory; remove deletes files only.")
    try:
        victim.unlink()
    except FileNotFoundError as exc:
        raise PathNotFoundError(f"No such file or directory: {shown!r}.") from exc
    except OSError as exc:
        raise EnvError(f"Cannot remove {shown!r}: {exc.strerror or exc}.") from exc


def list_entries(directory: Path, depth: int) -> list[DirEntry]:
    """Entries under ``directory`` down to ``depth`` levels, sorted by path, .git not entered.

    Symlinked directories are listed but not entered.
    """
    entries: list[DirEntry] = []
    pending = [(directory, 1)]
    while pending:
        current, level = pending.pop()
        try:
            scanned = list(os.scandir(current))
        except OSError:
            continue
        for item in scanned:
            is_dir = item.is_dir()
            relative = Path(item.path).relative_to(directory).as_posix()
            size = None if is_dir else _size(item)
            entries.append(
                DirEntry(path=relative, name=item.name, is_dir=is_dir, size=size, depth=level)
            )
            if (
                is_dir
                and level < depth
                and item.name not in _SKIPPED_DIRS
                and not item.is_symlink()
            ):
                pending.append((Path(item.path), level + 1))
    return sorted(entries, key=lambda e: e.path)


def _size(item: os.DirEntry[str]) -> int | None:
    try:
        return item.stat().st_size
    except OSError:
        return None

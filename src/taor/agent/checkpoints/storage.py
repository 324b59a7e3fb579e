"""Where checkpoints are kept, on the host, in one folder per session: ``objects/`` (file
contents by their sha256, each stored once) and ``index.jsonl`` (the records of
``taor.agent.checkpoints.records``, one a line).

An object is written to a temporary file in its own directory, then renamed into place, so a
crash never leaves a half-written object under its name; one that is there already is not
written again. The index is appended the way transcripts are: one ``os.write`` per record on a
file opened with ``O_APPEND``, so a record is with the operating system before the change it
describes is made. Loading skips lines that cannot be read (a torn last line, a record of a
newer kind). Files are created 0600 and folders 0700: contents may hold secrets.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from taor._private import private_dir, private_open
from taor.agent.checkpoints.records import Record, decode, encode


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ObjectStore:
    """File contents by sha256 under ``root`` (``root/ab/abcdef...``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha: str) -> Path:
        return self.root / sha[:2] / sha

    def has(self, sha: str) -> bool:
        return self.path(sha).is_file()

    def get(self, sha: str) -> bytes:
        """The content; ``OSError`` when the object is missing or unreadable."""
        return self.path(sha).read_bytes()

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its sha256."""
        sha = digest(data)
        target = self.path(sha)
        if target.is_file():
            return sha
        private_dir(target.parent)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return sha

    def copy_into(self, other: ObjectStore, shas: Iterable[str]) -> None:
        """Give ``other`` these objects: hard links where the filesystem allows, else copies."""
        for sha in shas:
            source, target = self.path(sha), other.path(sha)
            if target.is_file() or not source.is_file():
                continue
            private_dir(target.parent)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)


class IndexFile:
    """The records of one session's checkpoints, appended one a line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def load(self) -> list[Record]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        records = []
        for line in data.splitlines():
            try:
                record = decode(json.loads(line))
            except ValueError:
                continue
            if record is not None:
                records.append(record)
        return records

    def append(self, record: Record) -> None:
        line = (json.dumps(encode(record), ensure_ascii=False) + "\n").encode("utf-8", "replace")
        fd = self._open()
        while line:
            line = line[os.write(fd, line) :]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int:
        if self._fd is None:
            private_dir(self.path.parent)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
            fd = private_open(self.path, flags)
            if not _ends_a_line(self.path):
                os.write(fd, b"\n")  # a torn last line: the next record starts on its own
            self._fd = fd
        return self._fd


def _ends_a_line(path: Path) -> bool:
    """True for an empty file or one whose last byte is a newline."""
    with path.open("rb") as file:
        if file.seek(0, os.SEEK_END) == 0:
            return True
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"

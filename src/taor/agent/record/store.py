"""Where a session's transcript is kept: the store protocol and JSONL files.

A JSONL transcript is a header record, then one turn per line (``taor.agent.record.codec``)::

    {"kind":"header","version":1,"session_id":"...","created":...,"provider":"...",...}
    {"kind":"user","timestamp":...,"content":[{"kind":"text","text":"hi"}]}

Each record is written with one ``os.write`` on a file opened with ``O_APPEND``, so it reaches
the operating system before ``append`` returns (a crash of the process loses nothing written;
``fsync=True`` also survives a power cut, at the price of a disk flush per record) and records
appended at the same time (from threads) never mix within a line. A store holds an exclusive
``flock`` on its file while open, so a second session cannot continue the same transcript.

``append`` is a coroutine (the protocol lets other stores do real async I/O) that writes
synchronously: a record of a few hundred bytes takes microseconds, less than a hop to a thread,
and a coroutine that never suspends cannot be cancelled half-way, so an interrupt or ``close`` of
the session never leaves a turn half-recorded. ``append_sync`` / ``close_sync`` serve sync code.

Loading skips a torn last line (the process died while writing it) and says so in ``skipped``;
reopening cuts it off so that the next record starts on a line of its own. Anything else that
cannot be read (a damaged line before the last, no header, a newer format) is a
``TranscriptError`` that names the line and what to do. No record types beyond the header and
turns are needed: notices are ``NoticeTurn`` records, and a tool call whose result never made it
to the file is recognised by the assistant turn without a following ``ToolResultsTurn``.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from taor._private import private_dir, private_open
from taor.agent.record.codec import to_json
from taor.agent.record.store_load import (
    VERSION,
    LoadedTranscript,
    TranscriptHeader,
    load,
    read_transcript,
)
from taor.agent.record.turns import Turn
from taor.errors import TranscriptError

__all__ = [
    "VERSION",
    "JsonlTranscriptStore",
    "LoadedTranscript",
    "TranscriptHeader",
    "TranscriptStore",
    "load",
]


class TranscriptStore(Protocol):
    """Where a session records each turn as it is added; the host creates or opens it."""

    async def append(self, turn: Turn) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class FileTranscriptStore(TranscriptStore, Protocol):
    """A store kept in one file (``JsonlTranscriptStore``): what belongs to the session, its
    checkpoints, is kept beside it."""

    @property
    def path(self) -> Path: ...


class JsonlTranscriptStore:
    """A transcript in one JSONL file at ``path`` (created with mode 0600: it holds secrets)."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._fd: int | None = None
        self._closed = False

    def create(self, header: TranscriptHeader) -> None:
        """Start a new transcript; an existing file is refused (``open`` continues one)."""
        self._check_unopened()
        record = to_json(header)  # before the file exists: metadata may not be JSON data
        private_dir(self.path.parent)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            self._fd = _locked(private_open(self.path, flags), self.path)
        except FileExistsError:
            raise TranscriptError(
                f"{self.path} already exists: open() it to continue that session, "
                "or choose another path"
            ) from None
        self._write(record)
        if self.fsync:
            _fsync_dir(self.path.parent)

    def open(self) -> LoadedTranscript:
        """Load an existing transcript and get ready to append after its last complete record."""
        self._check_unopened()
        try:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
            fd = _locked(private_open(self.path, flags), self.path)
        except FileNotFoundError:
            raise TranscriptError(f"{self.path}: no such transcript") from None
        try:
            loaded, end = read_transcript(self.path)
        except BaseException:
            os.close(fd)
            raise
        size = os.fstat(fd).st_size
        if size > end:  # a torn tail: cut it so the next record starts on its own line
            os.ftruncate(fd, end)
        elif size < end:  # the last record lacks only its newline
            os.write(fd, b"\n")
        self._fd = fd
        return loaded

    async def append(self, turn: Turn) -> None:
        self._write(to_json(turn))

    async def close(self) -> None:
        self.close_sync()

    def append_sync(self, turn: Turn) -> None:
        self._write(to_json(turn))

    def close_sync(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd, self._closed = None, True

    def __enter__(self) -> JsonlTranscriptStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close_sync()

    def _write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            state = "closed" if self._closed else "not open: call create() or open() first"
            raise TranscriptError(f"transcript store for {self.path} is {state}")
        data = _line(record)
        while data:  # a regular file takes it in one write unless the disk is full
            data = data[os.write(self._fd, data) :]
        if self.fsync:
            os.fsync(self._fd)

    def _check_unopened(self) -> None:
        if self._fd is not None or self._closed:
            raise TranscriptError(
                f"transcript store for {self.path} was already used: make another"
            )


def _locked(fd: int, path: Path) -> int:
    """``fd`` with the file's exclusive lock: one writer per transcript, across processes."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise TranscriptError(
            f"{path} is in use by another session (it holds the file's lock): close that one "
            "first, or continue in it"
        ) from None
    return fd


def _line(record: dict[str, Any]) -> bytes:
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        return (text + "\n").encode()
    except UnicodeEncodeError:  # a lone surrogate (undecodable output): escape everything
        return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

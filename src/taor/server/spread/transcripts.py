"""``Mirror``: a run's transcript, copied into the database as the run goes, so that a worker
on another machine can continue the run.

The session writes its transcript to a JSONL file (``taor.server.compose.transcript_of``);
while a worker holds the run, the file's new whole lines are appended to the database before
each tool call runs (the worker's ``write_ahead``: what may have side effects is on record
first), every ``interval`` seconds, and once more when the run lets go; a run's syncs take
turns, each appending what the one before it left. A worker that takes a run writes the file
back from the database first when the database has more of it than the file here (its
machine never had it, or has an older copy); a file with more (the same shared folder, the
database a moment behind) is kept, and what the database lacks is copied on the next sync.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path

from taor._private import FILE_MODE, private_dir
from taor.server.store.transcripts import Transcripts

log = logging.getLogger("taor.server")


class Mirror:
    def __init__(self, store: Transcripts, interval: float = 1.0) -> None:
        self._store = store
        self._interval = interval
        self._kept: dict[str, tuple[int, int]] = {}  # run: (lines kept, bytes of the file)
        self._turns: dict[str, asyncio.Lock] = {}

    async def restore(self, run_id: str, path: Path) -> None:
        """Make the file at ``path`` at least what the database keeps of it."""
        kept = await self._store.read(run_id)
        lines = _whole_lines(await asyncio.to_thread(_read_from, path, 0))
        if len(kept) > len(lines):
            data = "".join(line + "\n" for line in kept).encode()
            await asyncio.to_thread(_write, path, data)
            lines = [line.encode() for line in kept]
        size = sum(len(line) + 1 for line in lines[: len(kept)])
        self._kept[run_id] = (len(kept), size)

    async def sync(self, run_id: str, path: Path) -> None:
        """Append the file's new whole lines to the database."""
        async with self._turns.setdefault(run_id, asyncio.Lock()):
            count, size = self._kept.get(run_id, (0, 0))
            lines = _whole_lines(await asyncio.to_thread(_read_from, path, size))
            if not lines:
                return
            await self._store.append(run_id, count, [line.decode() for line in lines])
            self._kept[run_id] = (count + len(lines), size + sum(len(line) + 1 for line in lines))

    async def follow(self, run_id: str, path: Path, done: asyncio.Event) -> None:
        """Sync every ``interval`` seconds until ``done``, and once more then. A sync that
        fails (the database out of reach) is tried again at the next one."""
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._interval):
                    await done.wait()
            try:
                await self.sync(run_id, path)
            except Exception:
                log.warning("copying a transcript into the database failed", exc_info=True)

    def forget(self, run_id: str) -> None:
        self._kept.pop(run_id, None)
        self._turns.pop(run_id, None)


def _read_from(path: Path, offset: int) -> bytes:
    """The file's bytes after ``offset`` (none when there is no file)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read()
    except FileNotFoundError:
        return b""


def _whole_lines(data: bytes) -> list[bytes]:
    *lines, _rest = data.split(b"\n")  # a line not ended yet waits for its newline
    return lines


def _write(path: Path, data: bytes) -> None:
    """Replace the file at once: a reader sees the old one or the new one, never half."""
    private_dir(path.parent)
    temporary = path.with_name(path.name + ".restoring")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(temporary, path)

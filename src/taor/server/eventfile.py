"""``EventFiles``: each run's events, appended to a file of its own before anyone is sent them.

The database keeps events in batches, a moment after they happen; a service killed in that
moment (``kill -9``) would lose events a client had already been sent. So every event is first
appended to the run's event file, one ``write`` per event on a file opened for appending: once
it returns the event is the operating system's, and a crash of the process cannot take it back
(no ``fsync``: a power cut is another matter). Once a run's events are all in the database
its file is removed; on the next start ``recover`` copies the events a file left behind has
and the database lacks into the database.

One line per event: its number, kind and data (its JSON, which holds no tab or newline: the
codec escapes them) separated by tabs. A line cut short, with no newline (a crash of the
machine mid-write, not of the process), or damaged otherwise is skipped when read.
"""

from __future__ import annotations

import os
from pathlib import Path

from taor._private import FILE_MODE, private_dir
from taor.server.seams import EventStore, RunStore
from taor.server.store.runs import StoredEvent
from taor.server.store.tokens import SERVICE


class EventFiles:
    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._open: dict[str, int] = {}

    def path(self, run_id: str) -> Path:
        return self._folder / f"{run_id}.events"

    def append(self, run_id: str, event: StoredEvent) -> None:
        """Hand ``event`` to the operating system (one write)."""
        fd = self._open.get(run_id)
        if fd is None:
            private_dir(self._folder)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
            fd = self._open[run_id] = os.open(self.path(run_id), flags, FILE_MODE)
        line = memoryview(f"{event.seq}\t{event.kind}\t{event.data}\n".encode())
        while line:  # one write, but for a short one (a full disk) the rest after it
            line = line[os.write(fd, line) :]

    def done(self, run_id: str) -> None:
        """The run's worker will not append for now: let its file go."""
        fd = self._open.pop(run_id, None)
        if fd is not None:
            os.close(fd)

    def remove(self, run_id: str) -> None:
        self.done(run_id)
        self.path(run_id).unlink(missing_ok=True)

    def read(self, run_id: str) -> list[StoredEvent]:
        """The run's events as its file has them (none without a file)."""
        try:
            *lines, _cut = self.path(run_id).read_bytes().split(b"\n")  # whole lines only
        except FileNotFoundError:
            return []
        found = []
        for line in lines:
            seq, _, rest = line.decode(errors="replace").partition("\t")
            kind, tab, data = rest.partition("\t")
            if seq.isdigit() and tab:  # else damaged (by something else): skipped
                found.append(StoredEvent(seq=int(seq), kind=kind, data=data))
        return found

    def runs(self) -> list[str]:
        """The runs that have a file: their events may not all be in the database."""
        if not self._folder.is_dir():
            return []
        return sorted(p.name.removesuffix(".events") for p in self._folder.glob("*.events"))

    def close(self) -> None:
        for run_id in list(self._open):
            self.done(run_id)


async def recover(files: EventFiles, runs: RunStore, events: EventStore) -> int:
    """Copy into the database the events that runs' files have and it lacks, then let the
    files go (a deleted run's too); how many events were copied."""
    copied = 0
    for run_id in files.runs():
        if await runs.get(run_id, SERVICE) is not None:
            last = await events.last(run_id)
            missing = [event for event in files.read(run_id) if event.seq > last]
            if missing:
                await events.write(run_id, missing)
                copied += len(missing)
        files.remove(run_id)
    return copied

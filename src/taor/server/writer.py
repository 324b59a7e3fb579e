"""``EventWriter``: runs' events onto disk in batches, off the runs' path.

``add`` only appends to a buffer; a background task writes what has gathered every
``interval`` seconds (sooner when ``batch`` events wait), every run's in one transaction.
A run's events are on disk once ``flush(run_id)`` returns (the end of a run waits for it). A
write that fails is tried again at the next tick with the same numbers (the log keeps each
number once), so a database that stalls for a moment loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict

from taor.server.seams import EventStore
from taor.server.store.runs import StoredEvent

log = logging.getLogger("taor.server")


class EventWriter:
    def __init__(self, events: EventStore, *, interval: float = 0.05, batch: int = 500) -> None:
        self._events = events
        self._interval = interval
        self._batch = batch
        self._pending: defaultdict[str, list[StoredEvent]] = defaultdict(list)
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()  # one write of a run's events at a time
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="taor-event-writer")

    def add(self, run_id: str, event: StoredEvent) -> None:
        """Keep ``event`` soon; never waits."""
        waiting = self._pending[run_id]
        waiting.append(event)
        if len(waiting) >= self._batch:
            self._wake.set()

    async def flush(self, run_id: str | None = None) -> None:
        """Write what waits (of one run, or of all); raises when the database refuses."""
        async with self._lock:
            runs = [run_id] if run_id is not None else list(self._pending)
            batches = {run: batch for run in runs if (batch := self._pending.pop(run, None))}
            try:
                await self._events.write_all(batches)  # one transaction for them all
            except BaseException:
                for run, batch in batches.items():
                    self._pending[run][:0] = batch  # in front of what came meanwhile
                raise

    async def close(self) -> None:
        """Stop the background task and write everything that waits."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._interval):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # kept; tried again at the next tick
                log.warning("writing events failed; trying again", exc_info=True)

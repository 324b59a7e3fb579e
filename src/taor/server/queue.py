"""``LocalQueue``: the runs waiting for one of this process's workers (a ``RunQueue``)."""

from __future__ import annotations

import asyncio


class LocalQueue:
    def __init__(self) -> None:
        self._ids: list[str] = []
        self._ready = asyncio.Condition()
        self._closed = False

    async def put(self, run_id: str) -> None:
        async with self._ready:
            self._ids.append(run_id)
            self._ready.notify()

    async def take(self) -> str | None:
        """The next run, waiting for one; None once the queue is closed."""
        async with self._ready:
            await self._ready.wait_for(lambda: self._closed or bool(self._ids))
            return None if self._closed else self._ids.pop(0)

    async def remove(self, run_id: str) -> bool:
        """Take the run out; False when it was not waiting."""
        if run_id not in self._ids:
            return False
        self._ids.remove(run_id)
        return True

    def position(self, run_id: str) -> int | None:
        """1 for the next run taken; None when the run is not waiting."""
        return self._ids.index(run_id) + 1 if run_id in self._ids else None

    async def close(self) -> None:
        """Stop giving runs: every ``take`` returns None."""
        async with self._ready:
            self._closed = True
            self._ready.notify_all()

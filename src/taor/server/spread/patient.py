"""A worker's writes to a database that may be out of reach for a while (a PostgreSQL restart,
a lost link): the run goes on, and what it would have written waits, in order, until the
database is back.

``PatientRuns`` keeps a run's row changes that met a lost connection (and every change after
them, so that none overtakes another) and writes them when it can. ``PatientWriter`` leaves
events it could not write in its buffer, for its next tick, rather than failing the run.
What waits is in the worker's memory (and the events on the run's Redis stream as well).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from taor.server.store.database import connection_lost
from taor.server.store.runs import Runs
from taor.server.writer import EventWriter

log = logging.getLogger("taor.server")


class PatientRuns(Runs):
    _backlog: list[tuple[str, dict[str, Any]]]
    _retrying: asyncio.Task[None] | None = None
    pause = 0.5  # seconds between tries

    async def change(self, run_id: str, **values: Any) -> None:
        backlog = self.__dict__.setdefault("_backlog", [])
        if not backlog:
            try:
                await super().change(run_id, **values)
                return
            except Exception as error:
                if not connection_lost(error):
                    raise
                log.warning("database out of reach: the run goes on; writing it later")
        backlog.append((run_id, values))
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.create_task(self._retry(backlog))

    async def _retry(self, backlog: list[tuple[str, dict[str, Any]]]) -> None:
        while backlog:
            run_id, values = backlog[0]
            try:
                await super().change(run_id, **values)
            except Exception as error:
                if connection_lost(error):
                    await asyncio.sleep(self.pause)
                    continue
                log.exception("a run's change could not be written")
            backlog.pop(0)

    async def settle(self, wait: float = 10.0) -> None:
        """Wait (``wait`` seconds at most) for the changes that wait to be written."""
        if self._retrying is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await asyncio.shield(self._retrying)


class PatientWriter(EventWriter):
    async def flush(self, run_id: str | None = None) -> None:
        try:
            await super().flush(run_id)
        except Exception as error:
            if not connection_lost(error):
                raise
            # kept in the buffer: the next tick tries again

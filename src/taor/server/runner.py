"""``RunManager``: the service's runs, carried out on a pool of workers in this process.

A created run waits in a queue (its position known) until a worker takes it; a worker carries
it out (``taor.server.carry``). Commands reach a live run's session as data
(``taor.agent.commands``): steer, follow-up, interrupt, permission answers. ``cancel`` takes a
queued run out of the queue, or closes a running one for good. ``close`` stops taking runs and
closes the running ones (their transcripts stay valid, a permission wait parked) as
``interrupted``; ``continue`` (``submit`` again) resumes them from their transcripts.

The queue is this process's list; ``RunQueue`` is the seam a queue across machines fills.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from taor.agent.commands import Command, Reply
from taor.agent.events import PermissionRequest
from taor.errors import TaorError
from taor.server.carry import Compose, Live, carry_out, now
from taor.server.eventfile import recover

if TYPE_CHECKING:
    from taor.server.service import Service

log = logging.getLogger("taor.server")


class NotLive(TaorError):
    """The run is not being carried out by this service right now (its state says why)."""


class RunManager:
    def __init__(self, service: Service, compose: Compose, *, workers: int = 2) -> None:
        self._service = service
        self._compose = compose
        self._size = workers
        self._queue: list[str] = []
        self._ready = asyncio.Condition()
        self._live: dict[str, Live] = {}
        self._workers: list[asyncio.Task[None]] = []
        self._closing = False
        self.admission = asyncio.Lock()  # one quota check and create at a time

    async def start(self) -> None:
        """Start the workers. Events an earlier start had handed out but not kept yet are
        kept now (from the runs' event files); runs it was carrying out when it stopped are
        marked ``interrupted``; runs it left queued are queued again."""
        runs = self._service.runs
        stopped = await runs.in_states(["running", "awaiting_permission"])
        queued = await runs.in_states(["queued"])
        await recover(self._service.files, self._service.events, [*stopped, *queued])
        for run_id in stopped:
            await runs.change(run_id, status="interrupted", finished_at=now())
        self._queue.extend(queued)
        for run_id in queued:
            self._service.feeds.open(run_id)
        self._workers = [
            asyncio.create_task(self._work(), name=f"taor-worker-{n}") for n in range(self._size)
        ]

    async def submit(self, run_id: str) -> None:
        """Queue a created (or continued) run."""
        self._service.feeds.open(run_id)
        async with self._ready:
            self._queue.append(run_id)
            self._ready.notify()

    def position(self, run_id: str) -> int | None:
        """1 for the next run a worker takes; None when the run is not queued."""
        return self._queue.index(run_id) + 1 if run_id in self._queue else None

    def queued(self) -> int:
        return len(self._queue)

    def is_live(self, run_id: str) -> bool:
        return run_id in self._live or run_id in self._queue

    def pending(self, run_id: str) -> list[PermissionRequest]:
        live = self._live.get(run_id)
        return list(live.pending.values()) if live is not None else []

    async def command(self, run_id: str, command: Command) -> Reply:
        """Carry out ``command`` on the run's session; ``NotLive`` when no worker holds it."""
        live = self._live.get(run_id)
        if live is None:
            raise NotLive(run_id)
        return await live.session.apply(command)

    async def cancel(self, run_id: str) -> bool:
        """Take the run out of the queue, or stop it; False when it is neither."""
        if run_id in self._queue:
            self._queue.remove(run_id)
            await self._service.runs.change(run_id, status="cancelled", finished_at=now())
            self._service.feeds.end(run_id)
            return True
        live = self._live.get(run_id)
        if live is None:
            return False
        live.cancelled = True
        await live.session.close("cancelled")
        return True

    async def close(self) -> None:
        """Stop taking runs; close the running ones and wait for their workers."""
        self._closing = True
        await asyncio.gather(
            *(live.session.close("service stopped") for live in list(self._live.values())),
            return_exceptions=True,
        )
        async with self._ready:
            self._ready.notify_all()
        for task in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _work(self) -> None:
        while True:
            async with self._ready:
                await self._ready.wait_for(lambda: self._closing or bool(self._queue))
                if self._closing:
                    return
                run_id = self._queue.pop(0)
            try:
                await carry_out(
                    self._service, self._compose, run_id, self._live, lambda: self._closing
                )
            except Exception:  # a bug of taor's: the run fails, the worker goes on
                log.exception("run %s failed", run_id)
                await self._service.runs.change(
                    run_id, status="failed", error="internal error", finished_at=now()
                )
            finally:
                self._service.feeds.end(run_id)  # its followers finish (done already, mostly)

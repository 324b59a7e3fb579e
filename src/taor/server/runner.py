"""``RunManager``: the service's runs, carried out on a pool of workers in this process.

A created run waits in a queue (its position known) until a worker takes it; a worker carries
it out (``taor.server.carry``). Commands reach a live run's session as data
(``taor.agent.commands``): steer, follow-up, interrupt, permission answers. ``cancel`` takes a
queued run out of the queue, or closes a running one for good. ``close`` stops taking runs and
closes the running ones (their transcripts stay valid, a permission wait parked) as
``interrupted``; ``continue`` (``submit`` again) resumes them from their transcripts.

The queue is a ``RunQueue`` (``taor.server.seams``): this process's list here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from taor.agent.commands import Command, Reply
from taor.agent.events import PermissionRequest
from taor.agent.session import Session
from taor.errors import TaorError
from taor.llm.model import Model
from taor.server.carry import Compose, Live, carry_out, now
from taor.server.eventfile import recover
from taor.server.queue import LocalQueue
from taor.server.seams import RunQueue

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
        self._queue: RunQueue = LocalQueue()
        self._live: dict[str, Live] = {}
        self._preparing: dict[str, asyncio.Task[tuple[Session, Model]]] = {}
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
        await recover(self._service.files, runs, self._service.events)
        for run_id in stopped:
            await runs.change(run_id, status="interrupted", finished_at=now())
        for run_id in queued:
            self._service.feeds.open(run_id)
            await self._queue.put(run_id)
        self._workers = [
            asyncio.create_task(self._work(), name=f"taor-worker-{n}") for n in range(self._size)
        ]

    async def submit(self, run_id: str) -> None:
        """Queue a created (or continued) run."""
        self._service.feeds.open(run_id)
        await self._queue.put(run_id)

    def position(self, run_id: str) -> int | None:
        """1 for the next run a worker takes; None when the run is not queued."""
        return self._queue.position(run_id)

    def is_live(self, run_id: str) -> bool:
        held = run_id in self._live or run_id in self._preparing
        return held or self._queue.position(run_id) is not None

    def state_of(self, run_id: str, recorded: str) -> str:
        """The run's state as a person should read it (``recorded``: its row's)."""
        if self._queue.position(run_id) is not None:
            return "queued"
        return "preparing its workspace" if run_id in self._preparing else recorded

    def pending(self, run_id: str) -> list[PermissionRequest]:
        live = self._live.get(run_id)
        return list(live.pending.values()) if live is not None else []

    async def pending_of(self, run_id: str) -> list[PermissionRequest]:
        return self.pending(run_id)

    async def command(self, run_id: str, command: Command) -> Reply:
        """Carry out ``command`` on the run's session; ``NotLive`` when no worker holds it."""
        live = self._live.get(run_id)
        if live is None:
            raise NotLive(run_id)
        return await live.session.apply(command)

    async def cancel(self, run_id: str) -> bool:
        """Take the run out of the queue, or stop it; False when it is neither."""
        if await self._queue.remove(run_id):
            await self._service.runs.change(run_id, status="cancelled", finished_at=now())
            self._service.feeds.end(run_id)
            return True
        if (task := self._preparing.get(run_id)) is not None:
            task.cancel()
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
        for preparing in self._preparing.values():
            preparing.cancel()
        await asyncio.gather(
            *(live.session.close("service stopped") for live in list(self._live.values())),
            return_exceptions=True,
        )
        await self._queue.close()
        for task in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _work(self) -> None:
        while (run_id := await self._queue.take()) is not None:
            try:
                await carry_out(
                    self._service,
                    self._compose,
                    run_id,
                    self._live,
                    self._preparing,
                    lambda: self._closing,
                )
            except Exception:  # a bug of taor's: the run fails, the worker goes on
                log.exception("run %s failed", run_id)
                await self._service.runs.change(
                    run_id, status="failed", error="internal error", finished_at=now()
                )
            finally:
                self._service.feeds.end(run_id)  # its followers finish (done already, mostly)

"""One task an MCP client asked for: its session working in the background, and what the
request that waits on it is told, in order (``Progress`` lines, a permission request to ``Ask``
about, then ``Done``). The work outlives one request: on the 2026 protocol a permission
question ends the request and the client's retry picks the same job up again (``Jobs``)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator
from typing import Any, TypeAlias

from taor._records import frozen
from taor.agent.events import PermissionRequest
from taor.agent.session import Session
from taor.host.outcome import Outcome
from taor.llm.model import Model
from taor.mcp_server.progress import Lines


@frozen
class Progress:
    text: str


@frozen
class Ask:
    request: PermissionRequest


@frozen
class Done:
    summary: dict[str, Any]


Item: TypeAlias = Progress | Ask | Done


class Job:
    """``start`` it with the task's text; read ``next`` until ``Done``; ``decide`` each ``Ask``.
    ``close`` stops it (an interrupt, then the session closed) when no one waits any more."""

    def __init__(self, session: Session, model: Model, *, notes: tuple[str, ...] = ()) -> None:
        self.handle = uuid.uuid4().hex
        self.session, self._model = session, model
        self._items: asyncio.Queue[Item] = asyncio.Queue()
        for note in notes:
            self._items.put_nowait(Progress(text=note))
        self._task: asyncio.Task[None] | None = None
        self.waiting: PermissionRequest | None = None  # the request asked about, not yet answered
        self._outcome = Outcome()
        self.step = 0  # progress notifications sent so far, over every request of the job

    def start(self, text: str) -> None:
        self._task = asyncio.create_task(self._pump(text), name=f"mcp task {self.handle}")

    async def next(self) -> Item:
        return await self._items.get()

    def decide(self, request: PermissionRequest, decision: str, message: str = "") -> None:
        self.waiting = None
        if decision == "deny":  # counted as the command counts the calls no one could allow
            self._outcome.deny(request.name, request.call_id)
        self.session.decide(request.request_id, decision, message, agent_id=request.agent_id)

    async def close(self) -> None:
        """Stop the work (its transcript stays valid: pending calls are answered) and wait."""
        if self._task is not None and not self._task.done():
            self.session.interrupt()
            await self.session.close("the MCP client stopped waiting")
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _pump(self, text: str) -> None:
        outcome, lines = self._outcome, Lines()
        try:
            async for event in self.session.submit(text):
                outcome.feed(event)
                for line in lines.feed(event):
                    await self._items.put(Progress(text=line))
                if isinstance(event, PermissionRequest):
                    self.waiting = event
                    await self._items.put(Ask(request=event))
        finally:
            try:
                await self.session.close()
                await self._model.aclose()
            finally:
                await self._items.put(Done(summary=outcome.summary(self.session.id)))


class Jobs:
    """The jobs of one server, by handle; a job parked on a question its client never answers
    is closed after ``patience`` seconds."""

    def __init__(self, *, patience: float = 600.0) -> None:
        self._jobs: dict[str, Job] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.patience = patience

    def add(self, job: Job) -> None:
        self._jobs[job.handle] = job

    def park(self, job: Job) -> None:
        """The job waits for its client's retry; closed if it does not come in time."""
        loop = asyncio.get_running_loop()
        self._timers[job.handle] = loop.call_later(
            self.patience, lambda: asyncio.ensure_future(self.drop(job))
        )

    def take(self, handle: str) -> Job | None:
        """The parked job ``handle`` names, its timer stopped (None when there is none)."""
        timer = self._timers.pop(handle, None)
        if timer is not None:
            timer.cancel()
        return self._jobs.get(handle)

    async def drop(self, job: Job) -> None:
        self._jobs.pop(job.handle, None)
        timer = self._timers.pop(job.handle, None)
        if timer is not None:
            timer.cancel()
        await job.close()

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._jobs.values()))

    async def close_all(self) -> None:
        for job in self:
            await self.drop(job)

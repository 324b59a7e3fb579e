"""``RunManager``: the service's runs, carried out on a pool of workers in this process.

A created run waits in a queue (its position known) until a worker takes it. The worker makes
the run's ``Session`` (``Compose``: the service decides its model, workspace, environment and
transcript), submits the prompt, and hands every event on as it comes: numbered and encoded
by the library's codec, to the run's feed at once (live clients) and to the event writer
(disk, in batches). The run's row follows its state: ``running``, ``awaiting_permission``
while a person is asked, then how it ended (``finished``, ``failed``, ``interrupted``,
``cancelled``) with its usage, cost and stop reason.

Commands reach a live run's session as data (``taor.agent.commands``): steer, follow-up,
interrupt, permission answers. ``cancel`` takes a queued run out of the queue, or interrupts
and closes a running one. ``close`` stops taking runs, interrupts the running ones (their
transcripts stay valid) and marks them ``interrupted``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taor.agent.commands import Command, Reply
from taor.agent.events import (
    Event,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    UsageEvent,
)
from taor.agent.record.codec import to_json
from taor.agent.session import Session
from taor.errors import TaorError, brief
from taor.llm.model import Model
from taor.server.store.runs import RunRecord, StoredEvent
from taor.server.store.tokens import User

if TYPE_CHECKING:
    from taor.server.service import Service

log = logging.getLogger("taor.server")

Compose = Callable[[RunRecord], Awaitable[tuple[Session, Model]]]
"""Makes a run's session (not started: its model, workspace, environment and transcript) and
the model it made for it, closed after the session."""


class NotLive(TaorError):
    """The run is not being carried out by this service right now (its state says why)."""


@dataclass(kw_only=True)
class _Live:
    session: Session
    pending: dict[str, PermissionRequest] = field(default_factory=dict)
    cancelled: bool = False


class RunManager:
    def __init__(self, service: Service, compose: Compose, *, workers: int = 2) -> None:
        self._service = service
        self._compose = compose
        self._size = workers
        self._queue: list[str] = []
        self._ready = asyncio.Condition()
        self._live: dict[str, _Live] = {}
        self._workers: list[asyncio.Task[None]] = []
        self._closing = False

    async def start(self) -> None:
        """Start the workers; runs left queued by an earlier start are queued again, and runs
        an earlier start was carrying out when it stopped are marked ``interrupted``."""
        runs = self._service.runs
        for run_id in await runs.in_states(["running", "awaiting_permission"]):
            await runs.change(run_id, status="interrupted", finished_at=_now())
        self._queue.extend(await runs.in_states(["queued"]))
        self._workers = [
            asyncio.create_task(self._work(), name=f"taor-worker-{n}") for n in range(self._size)
        ]

    async def submit(self, run_id: str) -> None:
        """Queue a created run."""
        async with self._ready:
            self._queue.append(run_id)
            self._ready.notify()

    def position(self, run_id: str) -> int | None:
        """1 for the next run a worker takes; None when the run is not queued."""
        return self._queue.index(run_id) + 1 if run_id in self._queue else None

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
            await self._service.runs.change(run_id, status="cancelled", finished_at=_now())
            return True
        live = self._live.get(run_id)
        if live is None:
            return False
        live.cancelled = True
        live.session.interrupt()
        return True

    async def close(self) -> None:
        """Stop taking runs; interrupt the running ones and wait for them to end."""
        self._closing = True
        for live in self._live.values():
            live.session.interrupt()
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
                await self._carry_out(run_id)
            except Exception:  # a bug of taor's: the run fails, the worker goes on
                log.exception("run %s failed", run_id)
                await self._service.runs.change(
                    run_id, status="failed", error="internal error", finished_at=_now()
                )

    async def _carry_out(self, run_id: str) -> None:
        runs = self._service.runs
        record = await runs.get(run_id, _SERVICE)
        if record is None:  # deleted while queued
            return
        try:
            session, model = await self._compose(record)
        except TaorError as error:
            await runs.change(run_id, status="failed", error=brief(str(error)), finished_at=_now())
            return
        live = self._live[run_id] = _Live(session=session)
        await runs.change(run_id, status="running", started_at=_now())
        ending: dict[str, Any] = {"status": "finished"}
        try:
            async for event in session.submit(record.prompt):
                await self._note(run_id, live, event, ending)
        except TaorError as error:
            ending = {"status": "failed", "error": brief(str(error))}
        finally:
            with contextlib.suppress(Exception):
                await session.close()
            with contextlib.suppress(Exception):
                await model.aclose()
            del self._live[run_id]
            await self._service.writer.flush(run_id)
            self._service.feeds.end(run_id)
        if live.cancelled:
            ending["status"] = "cancelled"
        elif self._closing and ending["status"] == "finished":
            ending["status"] = "interrupted"
        await runs.change(run_id, finished_at=_now(), **ending)

    async def _note(self, run_id: str, live: _Live, event: Event, ending: dict[str, Any]) -> None:
        """Hand ``event`` on, and keep the run's row in step with it."""
        stored = StoredEvent(seq=event.seq, kind=event.kind, data=_encoded(event))
        self._service.feeds.publish(run_id, stored)
        self._service.writer.add(run_id, stored)
        runs = self._service.runs
        if isinstance(event, PermissionRequest):
            live.pending[event.request_id] = event
            await runs.change(run_id, status="awaiting_permission")
        elif isinstance(event, PermissionDecision):
            if live.pending.pop(event.request_id, None) is not None and not live.pending:
                await runs.change(run_id, status="running")
        elif isinstance(event, UsageEvent):
            await runs.change(run_id, usage=to_json(event.total), cost=event.total_cost)
        elif isinstance(event, ProcessingEnd):
            ending["stop_reason"] = event.stop_reason
            if event.stop_reason in ("interrupted", "closed"):
                ending["status"] = "interrupted"
            elif event.stop_reason == "error":
                ending["status"] = "failed"


def _encoded(event: Event) -> str:
    return json.dumps(to_json(event), ensure_ascii=False, separators=(",", ":"))


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


_SERVICE = User(id=0, name="(service)", admin=True)  # the service reads every run

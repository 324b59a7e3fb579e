"""How a worker carries out a run.

It makes the run's ``Session`` (``Compose``: a new one, or the run's own resumed from its
transcript when the run is continued), gives it its input (the prompt; a continued run's text,
if any), and hands every event on as it comes: numbered, encoded by the library's codec,
appended to the run's event file (so a crash cannot lose it), then to the run's feed (live
clients) and the event writer (the database, in batches). The run's row follows its state:
``running``, ``awaiting_permission`` while a person is asked, then how it ended (``finished``,
``failed``, ``interrupted``, ``cancelled``) with its usage, cost and stop reason. The session
is closed once it has nothing left to do (a follow-up queued before the end runs first), so
``session_end`` is the last event of the stream.

A resumed session numbers its events after its transcript's last; when the run kept more
(the service was killed before the transcript marked its last event; the event file had them),
the numbers are moved up to follow the last one kept: a client that follows by number sees no
gap and nothing twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taor.agent.events import (
    Event,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from taor.agent.record.codec import from_json, to_json
from taor.agent.session import Session
from taor.errors import TaorError, brief
from taor.llm.model import Model
from taor.llm.response import Usage
from taor.server.store.runs import RunRecord, StoredEvent
from taor.server.store.tokens import SERVICE

if TYPE_CHECKING:
    from taor.server.service import Service

log = logging.getLogger("taor.server")

Compose = Callable[[RunRecord], Coroutine[Any, Any, tuple[Session, Model]]]
"""Makes a run's session (not started: its model, workspace, environment and transcript; the
run's recorded one resumed when there is one) and the model it made for it, closed after."""

GO_ON = "Go on with the task from where you stopped."  # a continue that brings no text

_ENDINGS = {"interrupted": "interrupted", "closed": "interrupted", "error": "failed"}


@dataclass(kw_only=True)
class Live:
    session: Session
    pending: dict[str, PermissionRequest] = field(default_factory=dict)
    cancelled: bool = False
    shift: int | None = None  # added to the session's numbers (None: not known yet)
    after: int = 0  # the last number the run had before this session
    ending: dict[str, Any] = field(default_factory=lambda: {"status": "finished"})
    usage: Usage = field(default_factory=Usage)  # the run's before this session (continued)
    cost: float | None = None
    calls: set[str] = field(default_factory=set)  # the tool calls running now
    between_calls: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.between_calls.set()

    def note_call(self, event: Event) -> None:
        """Follow which tool calls run, so that a worker told to stop can let the current one
        finish before it closes the session."""
        if isinstance(event, ToolCallStart):
            self.calls.add(event.call_id)
            self.between_calls.clear()
        elif isinstance(event, ToolCallEnd):
            self.calls.discard(event.call_id)
            if not self.calls:
                self.between_calls.set()


async def carry_out(
    service: Service,
    compose: Compose,
    run_id: str,
    lives: dict[str, Live],
    preparing: dict[str, asyncio.Task[tuple[Session, Model]]],
    closing: Callable[[], bool],
) -> None:
    runs = service.runs
    record = await runs.get(run_id, SERVICE)
    if record is None:  # deleted while queued
        return
    await runs.change(run_id, status="running", started_at=record.started_at or now())
    task = preparing[run_id] = asyncio.create_task(compose(record))
    try:
        session, model = await task
    except TaorError as error:
        await runs.change(run_id, status="failed", error=brief(str(error)), finished_at=now())
        return
    except asyncio.CancelledError:
        if not task.cancelled():
            raise  # this worker is stopped, not the preparation
        # cancelled, or the service stops: then it is taken again at the next start
        status = "queued" if closing() else "cancelled"
        await runs.change(run_id, status=status, finished_at=None if closing() else now())
        return
    finally:
        del preparing[run_id]
    if closing():  # the service began to stop while the session was made: not started
        await _let_go(session, model)
        await runs.change(run_id, status="queued")
        return
    live = lives[run_id] = Live(session=session, usage=_usage(record), cost=record.cost)
    live.after = await service.events.last(run_id)  # all of them: recovered at the start
    stream = session.events()
    settled = False
    try:
        try:
            text = _input(record, session)
            if text:
                session.submit(text)  # its own stream, dropped unread, unsubscribes
            else:
                await session.start()  # a parked permission wait: asked again
            async for event in stream:
                await _note(service, run_id, live, event)
                ended = isinstance(event, ProcessingEnd) and not event.agent_id
                if ended and session.state == "idle":  # no follow-up waits: the run is done
                    await session.close("finished")
        except TaorError as error:
            live.ending = {"status": "failed", "error": brief(str(error))}
        settled = True
    finally:
        try:
            await _let_go(session, model)
            del lives[run_id]
            await service.writer.flush(run_id)  # raises when the database refuses: file kept
            service.files.remove(run_id)  # every event is in the database now
            if settled:
                if live.cancelled:
                    live.ending["status"] = "cancelled"
                await runs.change(run_id, finished_at=now(), **live.ending)
        finally:
            service.feeds.end(run_id)  # after the row: a follower told the run ended finds it so


async def _let_go(session: Session, model: Model) -> None:
    """Close the session and its model; what goes wrong then is only logged."""
    for close in (session.close, model.aclose):
        try:
            await close()
        except Exception:
            log.warning("closing a run's session failed", exc_info=True)


def _input(record: RunRecord, session: Session) -> str:
    """What the session is given: the prompt for a new run; a continued run's text, or a
    nudge to go on, unless it resumes a permission wait (which goes on by itself)."""
    if not session.history:
        return record.prompt
    text = str(record.options.get("next_input") or "")
    return text or ("" if session.parked is not None else GO_ON)


async def _note(service: Service, run_id: str, live: Live, event: Event) -> None:
    """Keep ``event`` (event file first), hand it on, and keep the run's row in step."""
    if live.shift is None:
        live.shift = max(0, live.after + 1 - event.seq)
    if live.shift:
        event = dataclasses.replace(event, seq=event.seq + live.shift)
    stored = StoredEvent(seq=event.seq, kind=event.kind, data=_encoded(event))
    service.files.append(run_id, stored)
    service.feeds.publish(run_id, stored)
    service.writer.add(run_id, stored)
    live.note_call(event)
    runs = service.runs
    if isinstance(event, PermissionRequest):
        live.pending[event.request_id] = event
        await runs.change(run_id, status="awaiting_permission")
    elif isinstance(event, PermissionDecision):
        if live.pending.pop(event.request_id, None) is not None and not live.pending:
            await runs.change(run_id, status="running")
    elif isinstance(event, UsageEvent):  # a session's totals, after the run's earlier ones
        cost = event.total_cost
        if cost is not None and live.cost is not None:
            cost += live.cost
        await runs.change(run_id, usage=to_json(live.usage + event.total), cost=cost)
    elif isinstance(event, ProcessingEnd) and not event.agent_id:
        live.ending["stop_reason"] = event.stop_reason
        live.ending["status"] = _ENDINGS.get(event.stop_reason, "finished")


def _usage(record: RunRecord) -> Usage:
    """The run's usage so far, as its row keeps it (the codec's JSON)."""
    return from_json(Usage, record.usage) if record.usage else Usage()


def _encoded(event: Event) -> str:
    return json.dumps(to_json(event), ensure_ascii=False, separators=(",", ":"))


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)

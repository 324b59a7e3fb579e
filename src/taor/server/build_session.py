"""A build run's session, as a worker carries it out (``taor.server.carry``).

A build is several inputs of one session (the build, then its report) and events of its own
(``taor.build.events``). ``BuildSession`` stands in for the run's ``Session``: ``submit``
starts the build (or, for a continued run, goes on with it, the person's text as a note),
``events`` is the build's stream, numbered on its own (the worker numbers a run's events on
after the last it kept). The inputs' ``processing_end`` events are held back: the stream has
one, last, after ``build_report``, with the build's own stop reason and the report as its
text (the run's result), and the session is idle only then, so the worker closes it after the
report. Every other command goes to the session as it is.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from taor.agent.events import (
    ErrorEvent,
    Event,
    Numbering,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
)
from taor.agent.policy.decisions import Decision
from taor.agent.record.turns import Turn
from taor.agent.result import RunResult
from taor.agent.runtime import SessionState
from taor.agent.session import Session
from taor.build.events import BuildReportReady, BuildStreamEvent
from taor.build.runner import BuildRun
from taor.errors import SessionError
from taor.llm.types import ImagePart
from taor.server.carry import GO_ON

if TYPE_CHECKING:
    from taor.agent.commands import Command, Reply


class BuildSession:
    def __init__(self, session: Session, run: BuildRun) -> None:
        self.session = session
        self.run_ = run
        self._numbering = Numbering()
        self._readers: list[asyncio.Queue[BuildStreamEvent]] = []
        self._pump: asyncio.Task[None] | None = None
        self._ended = False

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def state(self) -> SessionState:
        state = self.session.state
        if self._pump is not None and not self._pump.done() and state == "idle":
            return "running"  # between the build's inputs, or writing the report
        return state

    @property
    def parked(self) -> PermissionRequest | None:
        return self.session.parked

    @property
    def history(self) -> list[Turn]:
        return self.session.history

    async def start(self) -> None:
        await self.session.start()

    def submit(self, text: str, *, images: Sequence[ImagePart] = ()) -> AsyncIterator[Event]:
        if self._pump is not None:
            raise SessionError("a build runs one input: steer it, or continue it once it ends")
        note = "" if text == GO_ON or not self.session.history else text
        self._pump = asyncio.create_task(self._carry(note), name=f"build-{self.id}")
        return self._follow()  # subscribed when first read: one dropped unread holds nothing

    def events(self) -> AsyncIterator[Event]:
        queue: asyncio.Queue[BuildStreamEvent] = asyncio.Queue()
        self._readers.append(queue)
        return self._read(queue)  # type: ignore[return-value]  # build events beside them

    async def close(self, reason: str = "closed") -> None:
        await self.session.close(reason)
        if self._pump is not None:
            await asyncio.gather(self._pump, return_exceptions=True)
        if not self._ended:
            self._ended = True
            self._publish(SessionEnd(reason=reason))

    async def run(self, text: str) -> RunResult:
        raise SessionError("a build run is carried out by the service's worker")

    def steer(self, text: str) -> None:
        self.session.steer(text)

    def follow_up(self, text: str) -> None:
        self.session.steer(text)  # a build has one input: more words reach it as steering

    def interrupt(self) -> None:
        self.session.interrupt()

    def compact(self, focus: str | None = None) -> None:
        self.session.compact(focus)

    def decide(
        self, request_id: str, decision: Decision | str, message: str = "", *, agent_id: str = ""
    ) -> None:
        self.session.decide(request_id, decision, message, agent_id=agent_id)

    async def apply(self, command: Command) -> Reply:
        if command.kind == "follow_up":
            self.follow_up(command.text)
            return None
        return await self.session.apply(command)

    async def _follow(self) -> AsyncIterator[Event]:
        async for event in self.events():
            yield event

    async def _carry(self, note: str) -> None:
        try:
            await self._build(note)
        except Exception as error:  # a bug: the run fails, and its worker closes it
            message = f"Internal error in the build: {type(error).__name__}: {error}"
            self._publish(ErrorEvent(message=message, error_type=type(error).__name__))
            self._publish(ProcessingEnd(cycle=0, stop_reason="error", text=message))

    async def _build(self, note: str) -> None:
        ends: list[ProcessingEnd] = []
        async for event in self.run_.run(note):
            if isinstance(event, ProcessingEnd) and not event.agent_id:
                ends.append(event)
                continue
            self._publish(event)
            if isinstance(event, BuildReportReady) and ends:
                last = ends[-1]
                stop = self.run_.stop_reason or last.stop_reason
                calls = sum(end.model_calls for end in ends)
                self._publish(
                    dataclasses.replace(
                        last, stop_reason=stop, text=event.markdown, model_calls=calls
                    )
                )

    def _publish(self, event: BuildStreamEvent) -> None:
        numbered = dataclasses.replace(event, seq=self._numbering.take())
        for queue in self._readers:
            queue.put_nowait(numbered)

    async def _read(
        self, queue: asyncio.Queue[BuildStreamEvent]
    ) -> AsyncIterator[BuildStreamEvent]:
        try:
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, SessionEnd) and not event.agent_id:
                    return
        finally:
            self._readers.remove(queue)

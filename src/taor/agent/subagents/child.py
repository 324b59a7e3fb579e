"""One running child: its session, the task relaying its events, and where it stands.

Every input reaches the child as a queued cycle (``follow_up``, so the first one too: the host
sees ``follow_up_queued`` then the cycle's ``user_input``), and every
event of the child goes to the parent's ``publish`` tagged with the child's id (an event already
tagged by a grandchild becomes ``child/grandchild``). The relay also keeps the books: model calls
made, cycles outstanding, the last ``processing_end``. A message steered into a cycle that then
ended before the loop took it up would wait for an input that may never come: the relay runs a
short follow-up cycle for it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable

from taor.agent.events import (
    ErrorEvent,
    Event,
    ProcessingEnd,
    SessionEnd,
    SteeringInjected,
    UsageEvent,
    UserInput,
)
from taor.agent.subagents.records import (
    ChildSession,
    Grandchildren,
    SubagentResult,
    SubagentStatus,
)

Publish = Callable[[Event], object]  # the parent channel's publish (it returns the event, numbered)

LATE_MESSAGE_INPUT = "A message for you arrived after you finished; it follows. Act on it."


def tagged(event: Event, agent_id: str) -> Event:
    """``event`` as the parent sees it: ``agent_id`` set, or prefixed for a grandchild's."""
    inner = event.agent_id
    return dataclasses.replace(event, agent_id=f"{agent_id}/{inner}" if inner else agent_id)


class Child:
    """A child session and its books; created by ``SubagentManager.spawn``."""

    def __init__(
        self,
        agent_id: str,
        session: ChildSession,
        publish: Publish,
        subagents: Grandchildren | None,
    ) -> None:
        self.id = agent_id
        self.session = session
        self.subagents = subagents
        self._publish = publish
        self._events: AsyncIterator[Event] = session.events()  # subscribed before any input
        self._relay: asyncio.Task[None] | None = None
        self._outstanding = 0
        self._steered = 0
        self._injected = 0
        self._turns = 0
        self._error: str | None = None
        self._last: ProcessingEnd | None = None
        self._closed = False
        self._cancelled = False
        self.settled = asyncio.Event()

    @property
    def closed(self) -> bool:
        return self._closed

    async def start(self, task: str) -> None:
        """Start the session (so ``session_start`` is its first event), the relay, the task."""
        await self.session.start()
        self._relay = asyncio.get_running_loop().create_task(self._run_relay())
        self.queue(task)

    def queue(self, text: str) -> None:
        """A new cycle for ``text``, run once the current one (if any) ends."""
        self._outstanding += 1
        self.settled.clear()
        self.session.follow_up(text)

    def send(self, message: str) -> str:
        """Steer a running child, or start a cycle for an idle one; says which."""
        if self._outstanding:
            self._steered += 1
            self.session.steer(message)
            return "steered"
        self.queue(message)
        return "queued"

    def interrupt(self) -> None:
        """Stop the cycle the child is running (it, and its own children, stay open)."""
        if self._outstanding and not self._closed:
            self.session.interrupt()

    async def close(self) -> None:
        if self._outstanding:
            self._cancelled = True
        self._closed = True
        if self.subagents is not None:
            await self.subagents.close_all()
        await self.session.close()
        if self._relay is not None:
            await asyncio.wait([self._relay])
        self.settled.set()

    def result(self) -> SubagentResult:
        last = self._last
        return SubagentResult(
            agent_id=self.id,
            status=self.status,
            output=last.text if last else "",
            success=last is not None and last.stop_reason == "completed",
            turns_used=self._turns,
            stop_reason=last.stop_reason if last else None,
            error=self._error,
        )

    @property
    def status(self) -> SubagentStatus:
        if self._cancelled:
            return "cancelled"
        if self._outstanding and not self._closed:
            return "running"
        last = self._last
        if last is None or last.stop_reason in ("interrupted", "closed"):
            return "cancelled"
        return "completed" if last.stop_reason == "completed" else "failed"

    async def _run_relay(self) -> None:
        async for event in self._events:
            self._observe(event)
            self._publish(tagged(event, self.id))

    def _observe(self, event: Event) -> None:
        if isinstance(event, UsageEvent):
            self._turns += 1
        elif isinstance(event, UserInput):
            self._error = None  # a cycle's error is reported until the next cycle starts
        elif isinstance(event, ErrorEvent):
            self._error = event.message
        elif isinstance(event, SteeringInjected) and event.source == "user":
            self._injected += 1
        elif isinstance(event, ProcessingEnd):
            self._ended(event)
        elif isinstance(event, SessionEnd):
            self._closed = True
            self.settled.set()

    def _ended(self, event: ProcessingEnd) -> None:
        self._outstanding = max(0, self._outstanding - 1)
        self._last = event
        if self._outstanding:
            return
        stopped = event.stop_reason in ("closed", "interrupted")
        if self._steered > self._injected and not self._closed and not stopped:
            self.queue(LATE_MESSAGE_INPUT)  # its start takes the queued steering in
            return
        self.settled.set()

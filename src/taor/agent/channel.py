"""Event delivery from the loop to any number of subscribers, without ever blocking the loop.

Publishing numbers each event (``seq``, from the session's ``Numbering``): every subscriber
sees the same numbers. An event relayed from a subagent is numbered again, in this stream.

Each subscriber has its own unbounded queue, so a consumer that stops reading never stalls tool
execution. Under backpressure (a backlog of ``coalesce_after`` events or more) a new text,
thinking or tool-output delta is merged into the delta at the back of the queue when both belong
to the same stream, so a slow reader gets fewer, longer deltas (a merged delta has the number of the last delta
in it, so a reader that resumes after that number misses nothing and sees nothing twice); other
events are never merged or dropped. A merged tool-output delta keeps at most ``max_delta_chars`` (head and tail, with a
marker): the whole output still arrives in ``tool_call_end`` (see its ``output_file``).

A reader holds only what it has not read yet: a subscriber whose ``until`` event has arrived
takes nothing more, and an ``EventStream`` dropped unread (made by ``submit()`` and never
iterated, say) unsubscribes when it is garbage-collected.
"""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from taor.agent.events import (
    AssistantTextDelta,
    Event,
    Numbering,
    ThinkingDelta,
    ToolCallOutputDelta,
)

COALESCE_AFTER = 32
MAX_DELTA_CHARS = 64 * 1024
_DELTAS = (AssistantTextDelta, ThinkingDelta, ToolCallOutputDelta)


def _mergeable(last: Event, event: Event) -> bool:
    if type(last) is not type(event) or last.agent_id != event.agent_id:
        return False
    if isinstance(event, ToolCallOutputDelta):
        return isinstance(last, ToolCallOutputDelta) and last.call_id == event.call_id
    return True


def _joined(first: str, second: str) -> str:
    text = first + second
    if len(text) <= MAX_DELTA_CHARS:
        return text
    half = MAX_DELTA_CHARS // 2
    return f"{text[:half]}\n[... output skipped while the reader was behind ...]\n{text[-half:]}"


def _numbered(event: Event, seq: int) -> Event:
    """``event`` with its number. An event not numbered yet was made for this stream and no
    one holds it: it is numbered in place (a copy per event would cost as much as making it);
    one numbered before (a subagent's, relayed) is copied."""
    if event.seq:
        return dataclasses.replace(event, seq=seq)
    object.__setattr__(event, "seq", seq)  # frozen for readers; completed before any has it
    return event


class Subscriber:
    """One reader's queue. ``until`` ends the iteration after the event it accepts."""

    def __init__(
        self, until: Callable[[Event], bool] | None = None, coalesce_after: int = COALESCE_AFTER
    ) -> None:
        self._items: deque[Event] = deque()
        self._until = until
        self._coalesce_after = coalesce_after
        self._wakeup = asyncio.Event()
        self._closed = False

    def put(self, event: Event) -> None:
        if self._closed:
            return
        if self._until is not None and self._until(event):
            self._closed = True  # the reader's last event: keep nothing after it
        items = self._items
        if (
            isinstance(event, _DELTAS)
            and len(items) >= self._coalesce_after
            and _mergeable(items[-1], event)
        ):
            last: Any = items[-1]
            delta = _joined(last.delta, event.delta)
            items[-1] = dataclasses.replace(last, delta=delta, seq=event.seq)
        else:
            items.append(event)
        self._wakeup.set()

    def close(self) -> None:
        self._closed = True
        self._wakeup.set()

    @property
    def closed(self) -> bool:
        return self._closed

    async def __aiter__(self) -> AsyncIterator[Event]:
        while True:
            while self._items:
                event = self._items.popleft()
                yield event
                if self._until is not None and self._until(event):
                    return
            if self._closed:
                return
            self._wakeup.clear()
            await self._wakeup.wait()


class Channel:
    """Numbers each event and publishes it to every current subscriber."""

    def __init__(self, numbering: Numbering | None = None) -> None:
        self._subscribers: list[Subscriber] = []
        self._closed = False
        self.numbering = numbering or Numbering()

    def subscribe(self, until: Callable[[Event], bool] | None = None) -> Subscriber:
        """A new reader; on a closed channel one that ends at once (never a reader that waits
        for events that cannot come)."""
        subscriber = Subscriber(until)
        if self._closed:
            subscriber.close()
        else:
            self._subscribers.append(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        subscriber.close()
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def publish(self, event: Event) -> Event:
        """Number ``event``, deliver it; returns it numbered."""
        event = _numbered(event, self.numbering.take())
        for subscriber in self._subscribers:
            subscriber.put(event)
        if any(subscriber.closed for subscriber in self._subscribers):
            self._subscribers = [s for s in self._subscribers if not s.closed]
        return event

    def stream(self, until: Callable[[Event], bool] | None = None) -> EventStream:
        """A new reader as an async iterator that unsubscribes when done, closed or dropped."""
        return EventStream(self, self.subscribe(until))

    def close(self) -> None:
        self._closed = True
        for subscriber in self._subscribers:
            subscriber.close()
        self._subscribers.clear()


class EventStream:
    """One subscription as an async iterator. It subscribes when made, so it sees every event
    from then on, and unsubscribes when exhausted, closed, or garbage-collected unread."""

    def __init__(self, channel: Channel, subscriber: Subscriber) -> None:
        self.subscriber = subscriber
        self._events = aiter(subscriber)
        self._release = weakref.finalize(self, channel.unsubscribe, subscriber)

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        try:
            return await anext(self._events)
        except BaseException:
            self._release()
            raise

    async def aclose(self) -> None:
        self._release()
        await self._events.aclose()  # type: ignore[attr-defined]

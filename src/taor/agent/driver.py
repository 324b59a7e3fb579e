"""The driver of a session: queued inputs run one cycle at a time, their events published.

One task takes inputs from the queue and runs each through the turn loop in a task of its own
(``current``), publishing every event to the channel. ``interrupt`` cancels that task with
``rt.cycle.stopping`` set, which the loop turns into a clean end (partial text, synthetic results,
``interrupted``, ``processing_end``); an input interrupted before its first step is recorded as a
user turn, then ends with those two events. ``close`` drops queued inputs, stops the current
cycle, waits for the driver, releases the session's resources and publishes ``session_end``; an
authentication failure closes the session the same way. A resumed session that was parked
waiting for a permission answer runs that round first (``go_on``).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

from taor.agent.channel import Channel
from taor.agent.events import Event, Interrupted, ProcessingEnd, SessionEnd, UserInput
from taor.agent.loop.compact_step import run_requested
from taor.agent.loop.cycle import run_cycle
from taor.agent.loop.parking import forget_parked
from taor.agent.loop.steps import settle_pending
from taor.agent.record.parking import ParkedRound
from taor.agent.record.turns import NoticeTurn, UserTurn
from taor.agent.runtime import Runtime
from taor.errors import AuthenticationError, SessionClosedError, SessionError
from taor.llm.types import ImagePart, TextPart


class Driver:
    def __init__(
        self,
        rt: Runtime,
        channel: Channel,
        *,
        start: Callable[[], Awaitable[None]],
        release: Callable[[], Awaitable[None]],
    ) -> None:
        self._rt, self._channel = rt, channel
        self._start, self._release = start, release
        self._queue: deque[tuple[int, str, tuple[ImagePart, ...], ParkedRound | None]] = deque()
        self._cycles = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._current: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._ended = 0  # the last cycle whose processing_end went out
        self._interrupt_next = False
        self.closed = False
        self.held = False  # while the session rewinds: no input may start

    def check_open(self) -> None:
        if self.closed:
            raise SessionClosedError("This session is closed; open a new session to go on.")

    def enqueue(self, text: str, images: tuple[ImagePart, ...] = ()) -> int:
        """Queue an input (its text, and images that go with it); the number of its cycle."""
        self.check_open()
        if self.held:
            raise SessionError("The session is rewinding; submit once rewind() has returned.")
        if not isinstance(text, str) or not text.strip():
            raise SessionError("The input is empty; give the agent something to do.")
        cycle = next(self._cycles)
        self._queue.append((cycle, text, images, None))
        self.wake()
        return cycle

    def go_on(self, parked: ParkedRound) -> None:
        """Queue the round a resumed session was parked in, waiting for a permission answer:
        the first cycle, run once the session starts (``taor.agent.loop.parking``)."""
        self._queue.append((next(self._cycles), "", (), parked))
        self._rt.parked = parked.request

    def wake(self) -> None:
        """Start the driver task unless it runs (it ends when there is nothing to do)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drive())

    def interrupt(self) -> None:
        """Stop the current cycle (or the input about to start); queued inputs still run."""
        current = self._current
        if current is None and self._queue and self._task and not self._task.done():
            self._interrupt_next = True
            return
        if current is None or current.done() or self._rt.cycle.stopping is not None:
            self._channel.publish(Interrupted(reason="nothing to interrupt"))
            return
        self._rt.cycle.stopping = "interrupted"
        current.cancel()

    async def close(self, reason: str) -> None:
        """Idempotent; concurrent callers all wait for the one shutdown."""
        if self._closing is None:
            self._closing = asyncio.create_task(self._shutdown(reason))
        await asyncio.shield(self._closing)

    async def _drive(self) -> None:
        await self._start()
        while (self._queue or self._rt.compaction_requests) and not self.closed:
            if self._rt.compaction_requests:  # Session.compact between cycles
                await self._between_cycles()
                continue
            cycle, text, images, parked = self._queue.popleft()
            self._rt.busy = True
            self._rt.new_cycle()
            recorded = len(self._rt.transcript.turns)
            self._current = asyncio.create_task(self._run_cycle(cycle, text, images, parked))
            if self._interrupt_next:
                self._interrupt_next = False
                self.interrupt()
            await asyncio.wait([self._current])
            if self._ended != cycle and parked is not None:
                await self._end_unstarted_round(cycle, parked)
            elif self._ended != cycle:  # cancelled before its first step: nothing went out
                await self._end_unstarted(cycle, text, images, recorded)
            self._current = None
            self._rt.busy = bool(self._queue)
            if isinstance(self._rt.cycle.failure, AuthenticationError) and self._closing is None:
                self._closing = asyncio.create_task(self._shutdown("authentication failed"))
                return

    async def _between_cycles(self) -> None:
        self._rt.new_cycle()
        self._current = asyncio.create_task(self._publish_all(run_requested(self._rt)))
        await asyncio.wait([self._current])
        self._current = None
        self._settle_state()

    async def _publish_all(self, events: AsyncGenerator[Event, None]) -> None:
        async with aclosing(events):
            async for event in events:
                self._channel.publish(event)

    async def _run_cycle(
        self, cycle: int, text: str, images: tuple[ImagePart, ...], parked: ParkedRound | None
    ) -> None:
        async with aclosing(run_cycle(self._rt, cycle, text, images, parked=parked)) as events:
            async for event in events:
                if isinstance(event, ProcessingEnd):
                    self._ended = cycle
                    self._settle_state()
                self._channel.publish(event)

    async def _end_unstarted(
        self, cycle: int, text: str, images: tuple[ImagePart, ...], recorded: int
    ) -> None:
        """The events of a cycle stopped before the loop ran (or that ended without them). The
        input is still recorded, unless the loop got as far as recording it (``recorded``: the
        number of turns before the cycle): whatever was submitted is in the transcript."""
        stop = self._rt.cycle.stopping
        if len(self._rt.transcript.turns) == recorded:
            await self._rt.append(UserTurn(content=(TextPart(text=text), *images)))
            self._channel.publish(UserInput(text=text, cycle=cycle))
        if stop is not None:
            self._channel.publish(Interrupted(reason=self._rt.cycle.stop_notice))
        self._settle_state()
        self._channel.publish(ProcessingEnd(cycle=cycle, stop_reason=stop or "closed"))

    async def _end_unstarted_round(self, cycle: int, parked: ParkedRound) -> None:
        """A parked round stopped before it went on: a close leaves it parked; an interrupt
        answers it (the recorded results, ``interrupted`` for the rest), as it would have."""
        stop = self._rt.cycle.stopping
        forget_parked(self._rt)
        if stop != "closed":
            await settle_pending(self._rt, dict(parked.done), "interrupted")
            await self._rt.append(NoticeTurn(text=self._rt.cycle.stop_notice))
            self._channel.publish(Interrupted(reason=self._rt.cycle.stop_notice))
        self._settle_state()
        self._channel.publish(ProcessingEnd(cycle=cycle, stop_reason=stop or "closed"))

    def _settle_state(self) -> None:
        """Before ``processing_end`` goes out, so a host that reads ``state`` on it sees
        ``idle`` (or ``running`` when another input is queued)."""
        self._rt.busy = bool(self._queue) and not self.closed

    async def _shutdown(self, reason: str) -> None:
        self.closed = True
        for cycle, _, _, parked in self._queue:
            if parked is None:  # a parked round stays as it is: it never started here
                self._channel.publish(ProcessingEnd(cycle=cycle, stop_reason="closed"))
        self._queue.clear()
        current = self._current
        if current is not None and not current.done():
            self._rt.cycle.stopping = self._rt.cycle.stopping or "closed"
            current.cancel()
        task = self._task
        if task is not None and task is not asyncio.current_task():
            await asyncio.wait([task])
        await self._release()
        self._channel.publish(SessionEnd(reason=reason))
        self._channel.close()

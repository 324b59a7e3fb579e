"""``taor -p --input-format stream-json``: JSON lines on stdin (``taor.cli.stream_input``) drive
one live session while its events go out on stdout as JSON lines, with a ``result`` object
after each input's cycle.

A line is applied the moment it arrives, also while a cycle runs: an input is queued behind the
running one, ``steer`` reaches the model after the current tool round, ``interrupt`` stops the
cycle, a ``permission`` line answers a ``permission_request`` (nothing else does in this mode).
``checkpoints`` and ``rewind`` are answered by a line of their own type (a rewind only once the
session is idle: after the ``result`` of the last input), before the next line is read.
A line that cannot be applied gets an ``error`` event (``error_type`` ``invalid_input``, the
line's number in the message) and is skipped. At the end of stdin the work in hand finishes
(a permission request still open, or asked after, is denied: no one is left to answer it),
then the session closes; ``close`` closes it at once. The exit code is that of the last cycle.
"""

from __future__ import annotations

import asyncio
import dataclasses
from argparse import Namespace
from collections.abc import AsyncIterator, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from taor.agent.commands import Close, Command, FollowUp, ListCheckpoints, Rewind, Submit
from taor.agent.events import (
    ErrorEvent,
    Event,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    UserInput,
)
from taor.cli.ending import on_signals, stop_line
from taor.cli.logs import log_event
from taor.cli.rewind import as_json
from taor.cli.stream_input import parse_line, read_lines
from taor.errors import TaorError
from taor.host.outcome import EXIT_DONE, EXIT_INTERRUPTED, EXIT_USAGE, Outcome

if TYPE_CHECKING:
    from logging import Logger

    from taor.agent.session import Session
    from taor.cli.render import Renderer
    from taor.host.settings import Settings

T = TypeVar("T")
NO_ONE_LEFT = "no one is left to answer: the input ended"


async def run_stream(
    args: Namespace, settings: Settings, prompt: str, render: Renderer, log: Logger
) -> int:
    """Serve stdin until it ends, ``close`` or a signal; ``prompt`` (from ``-p``) goes first."""
    from taor.cli.rewind import rewind_first
    from taor.cli.setup import session_from

    session, model = session_from(args, settings)
    if not await rewind_first(args, session, render):
        await session.close()
        await model.aclose()
        return EXIT_USAGE
    run = StreamRun(session, render, log, quiet=settings.verbosity == "quiet")
    signalled = on_signals(session)
    printer = asyncio.create_task(run.print_events(session.events()))
    signal_seen = asyncio.create_task(signalled.wait())
    try:
        await session.start()
        if prompt.strip():
            await run.apply(Submit(text=prompt))
        await run.serve(read_lines(), stops=(signal_seen, printer))
    finally:
        signal_seen.cancel()
        await session.close()
        await printer  # up to session_end
        await model.aclose()
    return EXIT_INTERRUPTED if signalled.is_set() else run.exit_code


class StreamRun:
    """Applies the commands to the session and prints its events, with a result per cycle."""

    def __init__(
        self, session: Session, render: Renderer, log: Logger, *, quiet: bool = False
    ) -> None:
        self.session, self.render, self.log, self.quiet = session, render, log, quiet
        self.exit_code = EXIT_DONE  # of the last cycle that ended
        self._cycle: tuple[int, Outcome] | None = None  # the running cycle's
        self._queued = self._ended = 0  # inputs given; cycles ended (one per input)
        self._settled = asyncio.Event()
        self._settled.set()
        self._asking: dict[tuple[str, str], str] = {}  # (agent, call id): open request's id
        self._left_unanswered: set[str] = set()  # requests denied at the end of the input
        self._input_ended = False

    async def serve(
        self, lines: asyncio.Queue[bytes | None], *, stops: tuple[asyncio.Future[Any], ...]
    ) -> None:
        """Apply each line until ``close`` or the end of the input (then wait for the work
        in hand), or until one of ``stops`` is done."""
        number = 0
        while (raw := await _unless(lines.get(), stops)) is not None:
            number += 1
            try:
                command = parse_line(raw)
                if isinstance(command, ListCheckpoints | Rewind):
                    await self.answer(command)
                elif command is not None:
                    await self.apply(command)
                if isinstance(command, Close):
                    return
            except TaorError as error:
                self.render.event(
                    ErrorEvent(message=f"input line {number}: {error}", error_type="invalid_input")
                )
        if not any(stop.done() for stop in stops):
            self._end_of_input()
            await _unless(self._settled.wait(), stops)

    async def apply(self, command: Command) -> None:
        """A command the session is told; an input (``submit``, ``follow_up``) is one more
        cycle to wait for before the end of the input ends the run."""
        await self.session.apply(command)
        if isinstance(command, Submit | FollowUp):
            self._input_given()

    async def answer(self, query: ListCheckpoints | Rewind) -> None:
        """A ``checkpoints`` or ``rewind`` line, answered with a line of that type."""
        reply = await self.session.apply(query)
        if isinstance(reply, list):
            listed = [dataclasses.asdict(c) for c in reply]
            self.render.result({"type": "checkpoints", "checkpoints": listed})
        elif reply is not None:
            self.render.result(as_json(reply))

    async def print_events(self, events: AsyncIterator[Event]) -> None:
        async for event in events:
            self.render.event(event)
            log_event(self.log, event)
            self._track(event)

    def _track(self, event: Event) -> None:
        if isinstance(event, PermissionRequest):
            self._asking[event.agent_id, event.call_id] = event.request_id
            if self._input_ended:
                self._deny(event.request_id, event.agent_id)
        elif isinstance(event, PermissionDecision):
            self._asking.pop((event.agent_id, event.call_id), None)
            if event.request_id in self._left_unanswered and self._cycle is not None:
                self._cycle[1].deny(event.name, event.call_id)
        if event.agent_id:
            return
        if isinstance(event, UserInput):
            self._cycle = (event.cycle, Outcome())
        if isinstance(event, ProcessingEnd):
            self._cycle_ended(event)
        elif self._cycle is not None:
            self._cycle[1].feed(event)

    def _cycle_ended(self, event: ProcessingEnd) -> None:
        """Its result line. An input closed before it ran has no cycle of its own."""
        outcome = Outcome()
        if self._cycle is not None and self._cycle[0] == event.cycle:
            outcome, self._cycle = self._cycle[1], None
        outcome.feed(event)
        summary = outcome.summary(self.session.id)
        self.render.final(summary)
        if not self.quiet and (line := stop_line(outcome, summary)) is not None:
            self.render.problem(line)
        self.exit_code = outcome.exit_code()
        self._ended += 1
        if self._ended >= self._queued:
            self._settled.set()

    def _input_given(self) -> None:
        self._queued += 1
        self._settled.clear()

    def _end_of_input(self) -> None:
        self._input_ended = True
        for (agent_id, _), request_id in list(self._asking.items()):
            self._deny(request_id, agent_id)

    def _deny(self, request_id: str, agent_id: str) -> None:
        try:
            self.session.decide(request_id, "deny", NO_ONE_LEFT, agent_id=agent_id)
        except TaorError:  # answered or withdrawn meanwhile (an interrupt)
            return
        if not agent_id:
            self._left_unanswered.add(request_id)


async def _unless(work: Coroutine[Any, Any, T], stops: tuple[asyncio.Future[Any], ...]) -> T | None:
    """``work``'s result, or None (``work`` cancelled) once one of ``stops`` is done."""
    if any(stop.done() for stop in stops):
        work.close()
        return None
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait([task, *stops], return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        return task.result()
    task.cancel()
    return None

"""``RemoteSession``: a ``SessionLike`` whose session runs in the taor service, so that a host
written against ``Session`` drives a run of the service by changing the line that makes it:

    session = Session.recorded(path, model)            # in this process
    session = client.session(model="anthropic:...")    # in the service (``Client.session``)

The first ``submit`` creates a run with its text; the events are the run's, read over SSE
(reconnecting by itself), up to the run's ``processing_end`` (its ``session_start`` is in
``events``, as a started ``Session`` gives it). A later ``submit`` sends its text
as the run's follow-up and reads on to the next ``processing_end``. ``steer``, ``follow_up``,
``interrupt`` and ``decide`` are sent in the background, in the order they were called (they
are not async on a ``Session`` either); a refusal from the service (``ServiceError``) is
raised from the events being read, or from the next ``apply`` or ``close``. ``apply`` sends a
command and waits for the service to take it. ``close`` cancels a run still working.

What a remote session cannot do, because the service's API does not offer it: images with an
input; ``compact`` on request; ``checkpoints`` and ``rewind``; answering a subagent's request
by ``agent_id``; ``steer`` or ``follow_up`` before the first ``submit`` (there is no run yet);
``parked`` is always None (a run's pending requests are in ``Client.get``). A ``submit`` after
the run has ended continues it with that text (the service queues it again). Nothing local
(model, environment, tools, history) exists here: the service composes the run's session.

A run that moves to another worker (a service spread over machines) reads on as one session:
the ``processing_end`` and ``session_end`` of a worker that stopped and handed the run back
are left out once the run is said to have moved (they are held until then, and given if the
run ends instead), and the cycle goes on to the ``processing_end`` of the worker that took it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from taor.agent.commands import (
    Answer,
    Close,
    Command,
    FollowUp,
    Interrupt,
    ListCheckpoints,
    Reply,
    Rewind,
    Steer,
    Submit,
)
from taor.agent.events import (
    Event,
    PermissionDecision,
    PermissionRequest,
    ProcessingEnd,
    SessionEnd,
    SessionStart,
)
from taor.agent.policy.decisions import Decision
from taor.agent.result import ResultBuilder, RunResult
from taor.agent.runtime import SessionState
from taor.errors import ServiceConflictError, SessionClosedError, SessionError, UnknownIdError
from taor.llm.types import ImagePart
from taor.server.client_views import RunMoved

if TYPE_CHECKING:
    from taor.server.client import Client

_Item = Event | RunMoved | BaseException | None  # (a failure to raise; None: the stream's end)


class RemoteSession:
    """A run of the service as a ``SessionLike`` (see the module docstring)."""

    def __init__(self, client: Client, **run: Any) -> None:
        self._client = client
        self._run = run  # create_run's keywords
        self._run_id = ""
        self._state: SessionState = "idle"
        self._last = 0  # the last event number a submit's reader was given
        self._pending: set[str] = set()  # permission requests waiting for an answer
        self._outbox: asyncio.Queue[Command] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self._inboxes: set[asyncio.Queue[_Item]] = set()
        self._failure: BaseException | None = None
        self._made = asyncio.Event()  # set once the first submit has made the run

    @property
    def id(self) -> str:
        """The run's id ("" before the first submit)."""
        return self._run_id

    @property
    def state(self) -> SessionState:
        return self._state

    @property
    def parked(self) -> PermissionRequest | None:
        return None

    async def start(self) -> None:
        self._check_open()

    async def close(self, reason: str = "closed") -> None:
        """Send what waits to be sent, cancel the run if it is still working; idempotent."""
        if self._state == "closed":
            return
        with contextlib.suppress(Exception):
            await self._outbox.join()
        working = self._state in ("running", "awaiting_permission")
        self._state = "closed"
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sender
        if working and self._run_id:
            with contextlib.suppress(ServiceConflictError):  # it ended meanwhile
                await self._client.cancel(self._run_id)

    def submit(self, text: str, *, images: Sequence[ImagePart] = ()) -> AsyncIterator[Event]:
        self._check_open()
        if images:
            raise SessionError("a run of the service takes text only: send the images' paths")
        return self._cycle(text)

    def events(self) -> AsyncIterator[Event]:
        """Every event of the run from its first (waiting for the first submit to make it),
        to the end of the run's stream."""
        return self._follow(0, until_cycle_end=False)

    async def run(self, text: str) -> RunResult:
        builder = ResultBuilder()
        async for event in self.submit(text):
            if not event.agent_id:
                builder.feed(event)
        return builder.result()

    def steer(self, text: str) -> None:
        self._send(Steer(text=text))

    def follow_up(self, text: str) -> None:
        self._send(FollowUp(text=text))

    def interrupt(self) -> None:
        if self._run_id and self._state in ("running", "awaiting_permission"):
            self._send(Interrupt())

    def compact(self, focus: str | None = None) -> None:
        raise SessionError("the service does not compact a run on request")

    def decide(
        self, request_id: str, decision: Decision | str, message: str = "", *, agent_id: str = ""
    ) -> None:
        decided = Decision.of(decision, message)  # a bad answer is refused here, as locally
        if agent_id:
            raise SessionError("the service answers a run's own permission requests only")
        if request_id not in self._pending:
            waiting = ", ".join(sorted(self._pending)) or "none"
            raise UnknownIdError(
                f"no pending permission request {request_id!r} (waiting: {waiting})"
            )
        self._send(Answer(request_id=request_id, decision=decided.kind, message=decided.message))

    async def apply(self, command: Command) -> Reply:
        """Carry out ``command`` through the service; raises what it refuses."""
        self._raise_failure()
        await self._outbox.join()  # after what was sent before it
        match command:
            case Submit(text=text, images=images):
                if images:
                    raise SessionError("a run of the service takes text only")
                await self._begin(text)
            case Steer() | FollowUp() | Interrupt() | Answer():
                self._check_open()
                await self._carry_out(command)
            case ListCheckpoints() | Rewind():
                raise SessionError(f"the service does not offer {command.kind} yet")
            case Close(reason=reason):
                await self.close(reason)
        return None

    # --- internals ---

    async def _cycle(self, text: str) -> AsyncIterator[Event]:
        self._raise_failure()
        await self._begin(text)
        async for event in self._follow(self._last, until_cycle_end=True):
            self._last = max(self._last, event.seq)
            if not isinstance(event, SessionStart):  # as a started Session's submit: events()
                yield event

    async def _begin(self, text: str) -> None:
        if not self._run_id:
            self._run_id = (await self._client.create_run(text, **self._run)).id
            self._made.set()
        else:
            await self._outbox.join()
            await self._client.follow_up(self._run_id, text)
        self._state = "running"

    async def _follow(self, after: int, *, until_cycle_end: bool) -> AsyncIterator[Event]:
        await self._made.wait()
        inbox: asyncio.Queue[_Item] = asyncio.Queue()
        self._inboxes.add(inbox)
        pump = asyncio.create_task(self._pump(inbox, after))
        held: list[Event] = []  # the session's ending on a worker that stopped, while unsure
        try:
            while (item := await inbox.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, RunMoved):  # the run goes on elsewhere: it did not end
                    held.clear()
                    continue
                if held or _closed_at_the_top(item):
                    held.append(item)
                    continue
                self._note(item)
                yield item
                if until_cycle_end and _cycle_end(item):
                    return
            for event in held:  # it ended after all (cancelled): the stream ended after it
                self._note(event)
                yield event
                if until_cycle_end and _cycle_end(event):
                    return
        finally:
            self._inboxes.discard(inbox)
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    async def _pump(self, inbox: asyncio.Queue[_Item], after: int) -> None:
        try:
            async for event in self._client.events(self._run_id, after, on_moved=inbox.put_nowait):
                inbox.put_nowait(event)
            inbox.put_nowait(None)
        except Exception as error:
            inbox.put_nowait(error)

    def _note(self, event: Event) -> None:
        """Keep ``state`` and the pending requests in step with the run's events."""
        if event.agent_id or self._state == "closed":
            return
        if isinstance(event, PermissionRequest):
            self._pending.add(event.request_id)
            self._state = "awaiting_permission"
        elif isinstance(event, PermissionDecision):
            self._pending.discard(event.request_id)
            if not self._pending:
                self._state = "running"
        elif isinstance(event, ProcessingEnd | SessionEnd):
            self._pending.clear()
            self._state = "idle"

    def _send(self, command: Command) -> None:
        self._check_open()
        if not self._run_id:
            raise SessionError(f"no run yet to {command.kind}: submit an input first")
        self._outbox.put_nowait(command)
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_all(), name=f"taor-remote-{self._run_id}")

    async def _send_all(self) -> None:
        while True:
            command = await self._outbox.get()
            try:
                await self._carry_out(command)
            except Exception as error:  # for the reader, or the next apply or close
                self._fail(error)
            finally:
                self._outbox.task_done()

    async def _carry_out(self, command: Command) -> None:
        client, run_id = self._client, self._run_id
        match command:
            case Steer(text=text):
                await client.steer(run_id, text)
            case FollowUp(text=text):
                await client.follow_up(run_id, text)
            case Interrupt():
                await client.interrupt(run_id)
            case Answer(request_id=request_id, decision=decision, message=message):
                await client.answer(run_id, request_id, decision, message)
            case _:
                raise SessionError(f"{command.kind} is not sent in the background")

    def _fail(self, error: BaseException) -> None:
        if self._inboxes:
            for inbox in self._inboxes:
                inbox.put_nowait(error)
        else:
            self._failure = error

    def _raise_failure(self) -> None:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def _check_open(self) -> None:
        if self._state == "closed":
            raise SessionClosedError("this remote session is closed: make a new one")


def _closed_at_the_top(event: Event) -> bool:
    """Whether the run's own session was closed under it: cancelled, or its worker stopped
    and handed the run back (then a ``RunMoved`` follows and another worker goes on)."""
    return isinstance(event, ProcessingEnd) and not event.agent_id and event.stop_reason == "closed"


def _cycle_end(event: Event) -> bool:
    return isinstance(event, ProcessingEnd) and not event.agent_id


if TYPE_CHECKING:
    from taor.agent.session_like import SessionLike

    def _a_remote_session_is_session_like(session: RemoteSession) -> SessionLike:
        return session  # mypy checks it has all of it, with the same signatures

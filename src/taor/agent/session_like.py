"""``SessionLike``: what a host uses of a session, so that a session run elsewhere (in a worker,
behind HTTP and SSE) can stand in for a ``Session``.

It is the session's commands (``submit``, ``steer``, ``follow_up``, ``interrupt``, ``decide``
to answer a permission request, ``compact``, ``close``; and ``apply``, which takes any of them
as data, ``taor.agent.commands``), its events (``events``: numbered,
``seq``) and the facts a host shows (``id``, ``state``, the request a resumed session is
``parked`` on). Everything that crosses it is data: text, request ids, decisions and events,
which ``taor.agent.record.codec`` turns into JSON and back. What only a local session has (its
model, environment, tools, history and reports) stays on ``Session``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from taor.agent.events import Event, PermissionRequest
from taor.agent.policy.decisions import Decision
from taor.agent.result import RunResult
from taor.agent.runtime import SessionState
from taor.llm.types import ImagePart

if TYPE_CHECKING:
    from taor.agent.commands import Command, Reply
    from taor.agent.session import Session


@runtime_checkable
class SessionLike(Protocol):
    """A session as a host drives it (``Session`` is one; see the module docstring)."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> SessionState: ...

    @property
    def parked(self) -> PermissionRequest | None: ...

    async def start(self) -> None: ...

    async def close(self, reason: str = "closed") -> None: ...

    def submit(self, text: str, *, images: Sequence[ImagePart] = ()) -> AsyncIterator[Event]: ...

    def events(self) -> AsyncIterator[Event]: ...

    async def run(self, text: str) -> RunResult: ...

    def steer(self, text: str) -> None: ...

    def follow_up(self, text: str) -> None: ...

    def interrupt(self) -> None: ...

    def compact(self, focus: str | None = None) -> None: ...

    def decide(
        self, request_id: str, decision: Decision | str, message: str = "", *, agent_id: str = ""
    ) -> None: ...

    async def apply(self, command: Command) -> Reply: ...


if TYPE_CHECKING:

    def _a_session_is_session_like(session: Session) -> SessionLike:
        return session  # mypy checks that ``Session`` has all of it, with the same signatures

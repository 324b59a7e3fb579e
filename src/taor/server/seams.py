"""The service's seams: what its runs, their events, its queue and its fan-out must do, as
small protocols. This process fills them with SQLite (``store``), a list (``queue``) and
in-memory feeds (``feed``); a service spread over machines fills the same protocols with a
shared database, a shared queue and a shared fan-out, and nothing above them changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol

from taor._records import frozen
from taor.agent.commands import Command, Reply
from taor.agent.events import PermissionRequest
from taor.server.store.runs import RunRecord, StoredEvent
from taor.server.store.tokens import User


class RunStore(Protocol):
    async def create(
        self,
        user: User,
        *,
        prompt: str,
        model: str,
        workspace: str,
        options: Mapping[str, Any],
        metadata: Mapping[str, Any],
    ) -> RunRecord: ...

    async def get(self, run_id: str, user: User) -> RunRecord | None: ...

    async def page(
        self,
        user: User,
        *,
        status: str | None = None,
        owner: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[RunRecord]: ...

    async def change(self, run_id: str, **values: Any) -> None: ...

    async def delete(self, run_id: str) -> None: ...

    async def count(self, states: Sequence[str], user: User | None = None) -> int: ...

    async def in_states(self, states: Sequence[str]) -> list[str]: ...


class EventStore(Protocol):
    """Each run's events by number, each number kept once."""

    async def write(self, run_id: str, batch: Sequence[StoredEvent]) -> None: ...

    async def write_all(self, batches: Mapping[str, Sequence[StoredEvent]]) -> None:
        """Several runs' batches at once (one transaction where the store has them)."""
        ...

    async def since(self, run_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]: ...

    async def last(self, run_id: str) -> int: ...


class RunQueue(Protocol):
    """Runs waiting for a worker, first in first out."""

    async def put(self, run_id: str) -> None: ...

    async def take(self) -> str | None:
        """The next run, when there is one; None once the queue is closed."""
        ...

    async def remove(self, run_id: str) -> bool: ...

    def position(self, run_id: str) -> int | None: ...

    async def close(self) -> None: ...


@frozen
class Moved:
    """A notice between a run's events, not one of them (it has no number): ``worker`` took
    the run over after the event numbered ``after`` (its worker died or was stopped)."""

    worker: str
    after: int
    kind: Literal["moved"] = "moved"


class Fanout(Protocol):
    """Each run's events, live, to every client following it; replayed from any number.
    ``follow`` may send a ``Moved`` notice between them (a fan-out across machines says so
    when another worker took the run over); the embedded one sends events alone."""

    def open(self, run_id: str) -> None: ...

    def publish(self, run_id: str, event: StoredEvent) -> None: ...

    def end(self, run_id: str) -> None: ...

    def follow(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent | Moved]: ...


class Manager(Protocol):
    """What the API asks of whatever carries out runs: this process's workers
    (``taor.server.runner``), or workers elsewhere reached through Redis
    (``taor.server.spread``)."""

    @property
    def admission(self) -> AbstractAsyncContextManager[Any]:
        """One quota check and create at a time: in this process (an asyncio.Lock), or across
        every API process (the spread manager's, on Redis)."""
        ...

    async def start(self) -> None: ...

    async def submit(self, run_id: str) -> None: ...

    def position(self, run_id: str) -> int | None: ...

    def is_live(self, run_id: str) -> bool: ...

    def state_of(self, run_id: str, recorded: str) -> str: ...

    def pending(self, run_id: str) -> list[PermissionRequest]: ...

    async def pending_of(self, run_id: str) -> list[PermissionRequest]:
        """The run's open permission requests, wherever the run is carried out."""
        ...

    async def command(self, run_id: str, command: Command) -> Reply: ...

    async def cancel(self, run_id: str) -> bool: ...

    async def close(self) -> None: ...

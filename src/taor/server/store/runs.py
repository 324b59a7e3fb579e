"""Runs and their events, as the service keeps them.

``Runs`` creates a run (queued), reads one or a page of them as its user may see them (a user
their own, an admin every one), changes its state, and deletes it. Ids sort by creation time
(``run_`` then a millisecond stamp and randomness), so a page is cut by the last id seen.

``EventLog`` keeps each run's events by sequence number, written in batches (one transaction
for many events), and reads them back from a number on: the SSE stream's replay after a
``Last-Event-ID``. A number written twice is kept once (a batch written again after a failure
changes nothing).
"""

from __future__ import annotations

import datetime
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError

from taor._records import frozen
from taor.server.store.database import Database, insert_new
from taor.server.store.schema import events, runs, users
from taor.server.store.tokens import User

log = logging.getLogger("taor.server")

RunStatus = Literal[
    "queued", "running", "awaiting_permission", "finished", "failed", "interrupted", "cancelled"
]
ENDED: frozenset[str] = frozenset({"finished", "failed", "interrupted", "cancelled"})


@frozen
class RunRecord:
    id: str
    user: str
    status: RunStatus
    prompt: str
    model: str
    workspace: str
    options: Mapping[str, Any]
    metadata: Mapping[str, Any]
    created_at: datetime.datetime
    started_at: datetime.datetime | None = None
    finished_at: datetime.datetime | None = None
    usage: Mapping[str, Any] | None = None
    cost: float | None = None
    stop_reason: str | None = None
    error: str | None = None


@frozen
class StoredEvent:
    seq: int
    kind: str
    data: str  # the event's JSON, as the library's codec wrote it


class Runs:
    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._transactional = database.transactional

    async def create(
        self,
        user: User,
        *,
        prompt: str,
        model: str,
        workspace: str,
        options: Mapping[str, Any],
        metadata: Mapping[str, Any],
    ) -> RunRecord:
        """A new run of ``user``'s, queued."""
        run_id = new_run_id()
        values: dict[str, Any] = {
            "id": run_id,
            "user_id": user.id,
            "status": "queued",
            "prompt": prompt,
            "model": model,
            "workspace": workspace,
            "options": dict(options),
            "metadata": dict(metadata),
            "created_at": datetime.datetime.now(datetime.UTC),
        }
        async with self._engine.begin() as db:
            await db.execute(insert(runs).values(**values))
        found = await self.get(run_id, user)
        assert found is not None
        return found

    async def get(self, run_id: str, user: User) -> RunRecord | None:
        """The run, when ``user`` may see it (theirs, or any for an admin); else None."""
        query = _visible(select(*runs.c, users.c.name.label("user_name")), user)
        async with self._engine.connect() as db:
            row = (await db.execute(query.where(runs.c.id == run_id))).mappings().first()
        return _record(row) if row is not None else None

    async def page(
        self,
        user: User,
        *,
        status: str | None = None,
        owner: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[RunRecord]:
        """Runs ``user`` may see, newest first: with ``status``, of ``owner`` (a user's name;
        only an admin sees others'), older than the run ``after``; at most ``limit``."""
        query = _visible(select(*runs.c, users.c.name.label("user_name")), user)
        if status is not None:
            query = query.where(runs.c.status == status)
        if owner is not None:
            query = query.where(users.c.name == owner)
        if after is not None:
            query = query.where(runs.c.id < after)
        query = query.order_by(runs.c.id.desc()).limit(limit)
        async with self._engine.connect() as db:
            rows = (await db.execute(query)).mappings().all()
        return [_record(row) for row in rows]

    async def change(self, run_id: str, **values: Any) -> None:
        """Set some of a run's columns (``status``, ``started_at``, ``usage``, ...)."""
        async with self._engine.begin() as db:
            await db.execute(update(runs).where(runs.c.id == run_id).values(**values))

    async def delete(self, run_id: str) -> None:
        """Remove the run and its events."""
        async with self._transactional.begin() as db:
            await db.execute(delete(events).where(events.c.run_id == run_id))
            await db.execute(delete(runs).where(runs.c.id == run_id))

    async def count(self, states: Sequence[str], user: User | None = None) -> int:
        """How many runs are in one of ``states`` (``user``'s only, when given)."""
        query = select(func.count()).select_from(runs).where(runs.c.status.in_(states))
        if user is not None:
            query = query.where(runs.c.user_id == user.id)
        async with self._engine.connect() as db:
            return int(await db.scalar(query) or 0)

    async def in_states(self, states: Sequence[str]) -> list[str]:
        """The ids of every run in one of ``states``, oldest first (for a restart)."""
        query = select(runs.c.id).where(runs.c.status.in_(states)).order_by(runs.c.id)
        async with self._engine.connect() as db:
            return list((await db.execute(query)).scalars())


class EventLog:
    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def write(self, run_id: str, batch: Sequence[StoredEvent]) -> None:
        """Keep ``batch``; numbers already kept are left as they are."""
        await self.write_all({run_id: batch})

    async def write_all(self, batches: Mapping[str, Sequence[StoredEvent]]) -> None:
        """Keep the batches of many runs in one statement (a database has one writer at a
        time: one transaction for all is far cheaper than one per run); numbers already kept
        are left as they are, and the events of a run that is gone (deleted meanwhile) are let
        go without holding up the others."""
        try:
            await insert_new(self._engine, events, _rows(batches))
        except IntegrityError:
            for run_id, batch in batches.items():
                try:
                    await insert_new(self._engine, events, _rows({run_id: batch}))
                except IntegrityError:
                    log.warning("events of run %s not kept: the run is gone", run_id)

    async def since(self, run_id: str, after: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """The run's events numbered above ``after``, in order, at most ``limit``."""
        query = (
            select(events.c.seq, events.c.kind, events.c.data)
            .where(events.c.run_id == run_id, events.c.seq > after)
            .order_by(events.c.seq)
            .limit(limit)
        )
        async with self._engine.connect() as db:
            rows = (await db.execute(query)).all()
        return [StoredEvent(seq=row[0], kind=row[1], data=row[2]) for row in rows]

    async def last(self, run_id: str) -> int:
        """The highest number kept for the run (0 for none)."""
        query = select(events.c.seq).where(events.c.run_id == run_id)
        async with self._engine.connect() as db:
            found = await db.scalar(query.order_by(events.c.seq.desc()).limit(1))
        return int(found or 0)


def _rows(batches: Mapping[str, Sequence[StoredEvent]]) -> list[dict[str, Any]]:
    return [
        {"run_id": run_id, "seq": e.seq, "kind": e.kind, "data": e.data}
        for run_id, batch in batches.items()
        for e in batch
    ]


def new_run_id() -> str:
    """``run_`` + 12 hex digits of milliseconds + 8 random hex digits: sorts by creation."""
    return f"run_{time.time_ns() // 1_000_000:012x}{secrets.token_hex(4)}"


def _visible(query: Any, user: User) -> Any:
    query = query.join(users, users.c.id == runs.c.user_id)
    return query if user.admin else query.where(runs.c.user_id == user.id)


def _record(row: RowMapping) -> RunRecord:
    fields = {k: v for k, v in row.items() if k not in ("user_id", "user_name")}
    return RunRecord(user=row["user_name"], **fields)

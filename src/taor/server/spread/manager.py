"""``SpreadManager``: what an API process does with runs that workers elsewhere carry out.

A run is queued as an entry of the ``runs`` stream (a worker takes it with the consumer
group); a command is an entry of the run's command stream, kept there until the worker that
holds the run reads it (also one that takes the run over later). ``cancel`` of a queued run
marks it cancelled at once (a worker that takes it lets it go); of a running one, it is a
command like the others. The queue's order is Redis's: a run shows no position.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException
from redis.exceptions import LockError

from taor.agent.commands import Command, Reply
from taor.agent.events import PermissionRequest
from taor.agent.record.codec import event_from_json, to_json
from taor.server.carry import now
from taor.server.runner import NotLive
from taor.server.spread.fanout import StreamFeeds
from taor.server.spread.streams import RUNS, commands_key, ensure_group, state_key
from taor.server.store.runs import ENDED
from taor.server.store.tokens import SERVICE

if TYPE_CHECKING:
    from taor.server.service import Service

CANCEL = "cancel"  # the command stream's word for cancel (not a session command)
ADMISSION = "taor:admission"  # the lock every API process takes to check a quota and create
ADMISSION_HOLD_S = 10.0  # the longest a holder keeps it (a process that dies holding it)
ADMISSION_WAIT_S = 20.0  # the longest a request waits for it before a 503


class SharedAdmission:
    """One quota check and create at a time across every API process (two processes checking
    at once would each see room for the last run): this process's lock, then Redis's."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._here = asyncio.Lock()  # (a redis-py lock object holds one token: one at a time)
        self._held: Any = None

    async def __aenter__(self) -> None:
        await self._here.acquire()
        try:
            lock = self._client.lock(
                ADMISSION, timeout=ADMISSION_HOLD_S, blocking_timeout=ADMISSION_WAIT_S
            )
            if not await lock.acquire():
                raise HTTPException(
                    503,
                    "the service is too busy to start a run right now: try again shortly",
                    headers={"Retry-After": "5"},
                )
            self._held = lock
        except BaseException:
            self._here.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        held, self._held = self._held, None
        try:
            with contextlib.suppress(LockError):  # held past its time: another has it now
                await held.release()
        finally:
            self._here.release()


class SpreadManager:
    def __init__(self, service: Service) -> None:
        assert isinstance(service.feeds, StreamFeeds)
        self._service = service
        self._feeds = service.feeds
        self.client: Any = service.feeds.client
        self.admission = SharedAdmission(self.client)

    async def start(self) -> None:
        await ensure_group(self.client)

    async def submit(self, run_id: str) -> None:
        self._feeds.open(run_id)
        await self.client.xadd(RUNS, {"run": run_id})

    def position(self, run_id: str) -> int | None:
        return None

    def is_live(self, run_id: str) -> bool:
        return False  # the run's row says whether it is

    def state_of(self, run_id: str, recorded: str) -> str:
        return recorded

    def pending(self, run_id: str) -> list[PermissionRequest]:
        return []  # known in Redis only: ``pending_of``

    async def pending_of(self, run_id: str) -> list[PermissionRequest]:
        kept = await self.client.hgetall(state_key(run_id))
        found = []
        for name, data in kept.items():
            if name.startswith("p:"):
                event = event_from_json(json.loads(data))
                if isinstance(event, PermissionRequest):
                    found.append(event)
        return found

    async def command(self, run_id: str, command: Command) -> Reply:
        await self._send(run_id, json.dumps(to_json(command)))
        return None

    async def cancel(self, run_id: str) -> bool:
        record = await self._service.runs.get(run_id, SERVICE)
        if record is None or record.status in ENDED:
            return False
        if record.status == "queued":  # a worker that takes it lets it go
            await self._service.runs.change(run_id, status="cancelled", finished_at=now())
            self._feeds.end(run_id)
        await self.client.xadd(commands_key(run_id), {"c": CANCEL})
        return True

    async def close(self) -> None:
        await self._feeds.aclose()

    async def _send(self, run_id: str, text: str) -> None:
        record = await self._service.runs.get(run_id, SERVICE)
        if record is None or record.status in ENDED:
            raise NotLive(run_id)
        await self.client.xadd(commands_key(run_id), {"c": text})

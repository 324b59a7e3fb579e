"""``SpreadManager``: what an API process does with runs that workers elsewhere carry out.

A run is queued as an entry of the ``runs`` stream (a worker takes it with the consumer
group); a command is an entry of the run's command stream, kept there until the worker that
holds the run reads it (also one that takes the run over later). ``cancel`` of a queued run
marks it cancelled at once (a worker that takes it lets it go); of a running one, it is a
command like the others. The queue's order is Redis's: a run shows no position.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

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


class SpreadManager:
    def __init__(self, service: Service) -> None:
        assert isinstance(service.feeds, StreamFeeds)
        self._service = service
        self._feeds = service.feeds
        self.client: Any = service.feeds.client
        self.admission = asyncio.Lock()

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

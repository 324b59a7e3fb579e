"""``Worker``: one ``taor worker`` process, carrying out runs queued on the ``runs`` stream.

It takes a run with ``XREADGROUP`` (the consumer group ``workers``: each run goes to one
worker) when it has a free slot, and carries it out as the embedded service does
(``taor.server.carry``), its events onto the run's stream (``StreamFeeds``) and into the
database. The entry is acknowledged when the run ends.

Every third of the heartbeat timeout it says it is alive (``taor:worker:<name>``, expiring
after the timeout, with its runs) and claims its entries again (``XCLAIM``), which keeps them
from looking idle. A worker that stops heartbeating (killed, its machine lost) leaves its
entries idle: once they are idle longer than the timeout another worker takes them
(``XAUTOCLAIM``). It first copies into the database the events the stream has and the
database lacks, says on the stream that the run moved, and continues the run from its
transcript (written into the database as the run goes, ``Mirror``, and before each tool call
runs): a tool call that may have run is answered ``interrupted`` and never run again, and the
events go on after the last one written.

Commands reach the run through its command stream, read from the position the run keeps in
Redis (a command sent while no worker held the run is read by the next). ``stop`` (SIGTERM)
takes no more runs, lets each run's running tool call finish, closes its sessions (their
transcripts stay valid) and hands their runs back as new entries (naming it: the worker that
continues one says on the stream that the run moved, as after a death), for another worker to
continue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any

from taor.agent.record.codec import command_from_json
from taor.errors import TaorError
from taor.server.carry import Live, carry_out, now
from taor.server.compose import composer, transcript_of
from taor.server.spread.fanout import StreamFeeds
from taor.server.spread.manager import CANCEL
from taor.server.spread.streams import (
    GROUP,
    RUNS,
    WORKERS,
    commands_key,
    ensure_group,
    events_key,
    state_key,
)
from taor.server.spread.transcripts import Mirror
from taor.server.store.runs import ENDED, StoredEvent
from taor.server.store.tokens import SERVICE
from taor.server.store.transcripts import Transcripts

if TYPE_CHECKING:
    from taor.agent.session import Session
    from taor.llm.model import Model
    from taor.server.service import Service

WRITE_AHEAD_S = 5.0  # the longest a tool call waits for its record to reach the database
FINISH_CALL_S = 600.0  # the longest a command may run: a stopping worker waits that long at most
log = logging.getLogger("taor.server")


class Worker:
    def __init__(self, service: Service, *, name: str | None = None) -> None:
        assert isinstance(service.feeds, StreamFeeds)
        self.service = service
        self.feeds = service.feeds
        self.client: Any = service.feeds.client
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"
        self._compose = composer(service.config, write_ahead=self._write_ahead)
        self._timeout = service.config.worker_timeout
        self._slots = asyncio.Semaphore(service.config.workers)
        self._held: dict[str, str] = {}  # run: its entry on the runs stream
        self._lives = _Lives(self._listen)
        self._preparing: dict[str, asyncio.Task[tuple[Session, Model]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = asyncio.Event()
        self._started = time.time()
        self._mirror = Mirror(Transcripts(service.database))

    async def run(self) -> None:
        """Take and carry out runs until ``stop``; then hand the running ones back."""
        await ensure_group(self.client)
        await self._beat()
        beating = asyncio.create_task(self._heartbeat(), name="taor-heartbeat")
        try:
            while not self._stopping.is_set():
                await self._slots.acquire()
                taken = await self._next()
                if taken is None:
                    self._slots.release()
                    break
                task = asyncio.create_task(self._carry(*taken), name=f"taor-run-{taken[1]}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            await self._hand_back()
        finally:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
            with contextlib.suppress(Exception):  # (its heartbeat expires all the same)
                async with asyncio.timeout(self._timeout):
                    await self.client.delete(WORKERS + self.name)

    def stop(self) -> None:
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    # --- taking runs ---

    async def _next(self) -> tuple[str, str, bool] | None:
        """(entry, run, whether it is taken over: from a dead worker, or handed back by a
        stopping one) of the next run; None once stopping."""
        idle = int(self._timeout * 1000)
        while not self._stopping.is_set():
            _, claimed, *_ = await self.client.xautoclaim(
                RUNS, GROUP, self.name, min_idle_time=idle, start_id="0-0", count=1
            )
            if claimed:
                entry_id, fields = claimed[0]
                return entry_id, fields.get("run", ""), True
            reply = await self.client.xreadgroup(
                GROUP, self.name, {RUNS: ">"}, count=1, block=int(min(self._timeout, 1.0) * 1000)
            )
            if reply and reply[0][1]:
                entry_id, fields = reply[0][1][0]
                return entry_id, fields.get("run", ""), "from" in fields  # (handed back)
        return None

    async def _carry(self, entry_id: str, run_id: str, moved: bool) -> None:
        self._held[run_id] = entry_id
        handed_back = False
        try:
            await self._beat()
            record = await self.service.runs.get(run_id, SERVICE)
            if record is None or record.status in ENDED:
                return  # deleted, cancelled while queued, or ended before its worker died
            await self._recover(run_id)
            transcript = transcript_of(self.service.config, run_id)
            await self._mirror.restore(run_id, transcript)
            if moved:
                log.warning("run %s taken over by %s", run_id, self.name)
                self.feeds.moved(run_id, self.name)
            done = asyncio.Event()
            mirroring = asyncio.create_task(self._mirror.follow(run_id, transcript, done))
            try:
                await carry_out(
                    self.service,
                    self._compose,
                    run_id,
                    self._lives,  # (a dict that also listens)
                    self._preparing,
                    self._stopping.is_set,
                )
            finally:
                done.set()
                await mirroring  # its last sync: the whole transcript
                self._mirror.forget(run_id)
            handed_back = self._stopping.is_set() and await self._requeue(run_id)
        except Exception:  # a bug of taor's: the run fails, the worker goes on
            log.exception("run %s failed", run_id)
            await self.service.runs.change(
                run_id, status="failed", error="internal error", finished_at=now()
            )
        finally:
            self.feeds.let_go(run_id)
            if not handed_back:
                self.feeds.end(run_id)
            await self.feeds.drain()
            await self.client.xack(RUNS, GROUP, entry_id)
            del self._held[run_id]
            self._slots.release()

    async def _write_ahead(self, run_id: str) -> None:
        """Copy the run's transcript into the database before a tool call runs: the call is
        then on record for whichever worker continues the run. With the database out of reach
        the call runs all the same (running runs keep going); the file and the next sync keep
        it, and a worker dying meanwhile is the one case left to the shared folder's file."""
        try:
            async with asyncio.timeout(WRITE_AHEAD_S):
                await self._mirror.sync(run_id, transcript_of(self.service.config, run_id))
        except Exception:
            log.warning("run %s: its transcript could not reach the database", run_id)

    async def _recover(self, run_id: str) -> None:
        """Copy into the database the run's events its stream has and the database lacks (a
        worker that died before writing them)."""
        last = await self.service.events.last(run_id)
        entries = await self.client.xrange(events_key(run_id), min=f"{last + 1}-0")
        found = [
            StoredEvent(seq=int(fields["s"]), kind=fields["k"], data=fields["d"])
            for _, fields in entries
            if "s" in fields
        ]
        if found:
            await self.service.events.write(run_id, found)

    async def _requeue(self, run_id: str) -> bool:
        """Hand a run this worker stopped back to the queue; False when it had ended."""
        record = await self.service.runs.get(run_id, SERVICE)
        if record is None or record.status not in ("interrupted", "queued"):
            return False
        options = {**record.options, "next_input": ""}
        await self.service.runs.change(
            run_id, status="queued", finished_at=None, stop_reason=None, options=options
        )
        self.feeds.open(run_id)
        await self.client.xadd(RUNS, {"run": run_id, "from": self.name})
        return True

    async def _hand_back(self) -> None:
        for run_id in self._held:
            self.feeds.hold(run_id)
        for preparing in list(self._preparing.values()):
            preparing.cancel()
        await asyncio.gather(
            *(self._close_between_calls(live) for live in list(self._lives.values())),
            return_exceptions=True,
        )
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    @staticmethod
    async def _close_between_calls(live: Live) -> None:
        """Let the tool call running now finish (up to the longest a command may run), then
        close the session: the next worker goes on from a call that ended, not one cut short."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(live.between_calls.wait(), FINISH_CALL_S)
        await live.session.close("worker stopped")

    # --- heartbeats ---

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self._timeout / 3)
            try:
                await self._beat()
            except Exception:
                log.warning("heartbeat failed", exc_info=True)

    async def _beat(self) -> None:
        """Say this worker is alive, with its runs, and keep its entries from looking idle."""
        seen = {
            "name": self.name,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "since": self._started,
            "runs": sorted(self._held),
        }
        ttl = max(1, int(self._timeout + 0.999))
        await self.client.set(WORKERS + self.name, json.dumps(seen), ex=ttl)
        if self._held:
            await self.client.xclaim(
                RUNS, GROUP, self.name, 0, list(self._held.values()), justid=True
            )

    # --- commands ---

    async def _listen(self, run_id: str, live: Live) -> None:
        """Apply the run's commands, from the position the run keeps, for as long as it is
        live here (cancelled then)."""
        key, state = commands_key(run_id), state_key(run_id)
        position = await self.client.hget(state, "cmd") or "0-0"
        while True:
            reply = await self.client.xread({key: position}, count=50, block=1000)
            for entry_id, fields in reply[0][1] if reply else []:
                await _apply(live, fields.get("c", ""))
                position = entry_id
                await self.client.hset(state, "cmd", position)


async def _apply(live: Live, text: str) -> None:
    """Carry out one command from the stream; one the session refuses is only logged (the
    API answered it already)."""
    try:
        if text == CANCEL:
            live.cancelled = True
            await live.session.close("cancelled")
        else:
            await live.session.apply(command_from_json(json.loads(text)))
    except (TaorError, ValueError) as error:
        log.warning("a command was not carried out: %s", error)


class _Lives(dict[str, Live]):
    """The live runs by id, as ``carry_out`` keeps them; while a run is in it, a task reads
    the run's commands and applies them to its session."""

    def __init__(self, listen: Any) -> None:
        super().__init__()
        self._listen = listen
        self._readers: dict[str, asyncio.Task[None]] = {}

    def __setitem__(self, run_id: str, live: Live) -> None:
        super().__setitem__(run_id, live)
        self._readers[run_id] = asyncio.create_task(self._listen(run_id, live))

    def __delitem__(self, run_id: str) -> None:
        super().__delitem__(run_id)
        reader = self._readers.pop(run_id, None)
        if reader is not None:
            reader.cancel()

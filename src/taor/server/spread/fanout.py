"""``StreamFeeds``: each run's events on its own Redis stream (the ``Fanout`` seam).

``publish`` never waits: events go into a queue that one task writes to Redis in order, in
pipelines, each as the entry ``<seq>-0`` (Redis refuses an id that is not above the last, so
an event written again after a dropped connection is kept once). Markers say what happened
to the run between its events: ``open`` (queued again), ``moved`` (another worker took it
over), ``end`` (its last event); each is numbered ``<last seq>-<n>``, after the event it
follows. A finished run's stream is let go ``retention`` seconds after its end (its events
are in the database by then).

``follow`` reads what the database has after the client's number, then the stream from the
last one read, blocking for more, until an ``end`` marker with nothing after it, or the
database says the run has ended and the stream has nothing newer (and ends with ``end``, or
is gone). Each ``moved`` marker is sent on as a ``Moved`` notice after the event it follows:
from the stream, or, for the events read from the database, from the run's state hash, where
it is noted too (``m:<after>:<worker>``, kept as long as the stream). A follower that comes
back from the very number a notice follows hears it again (clients tell them by ``after``
and ``worker``); one that comes back from a later number does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from taor.server.feed import Ended, Replay
from taor.server.seams import Moved
from taor.server.spread.streams import events_key, state_key
from taor.server.store.runs import StoredEvent

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("taor.server")

Last = Callable[[str], Awaitable[int]]  # the highest number the database keeps for a run
_Item = tuple[str, str, Any]  # (run, what, its data)


class StreamFeeds:
    def __init__(
        self,
        client: Redis,
        replay: Replay,
        last: Last,
        *,
        ended: Ended,
        retention: float = 3600.0,
        recheck: float = 1.0,
        writer: Redis | None = None,
    ) -> None:
        self.client: Any = client  # (redis-py's replies are typed loosely)
        # The writes, in order, one pipeline at a time: on a connection of their own, never
        # waiting for one of the shared pool's (whose new connections cost round trips each).
        self._writer: Any = writer or client
        self._replay = replay
        self._kept_last = last
        self._ended = ended
        self._retention = max(1, int(retention))
        self._recheck = recheck
        self._out: asyncio.Queue[_Item] = asyncio.Queue()
        self._last: dict[str, int] = {}
        self._holding: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    # --- writing ---

    def open(self, run_id: str) -> None:
        self._put((run_id, "open", None))

    def publish(self, run_id: str, event: StoredEvent) -> None:
        self._put((run_id, "event", event))

    def end(self, run_id: str) -> None:
        if run_id not in self._holding:
            self._put((run_id, "end", None))

    def hold(self, run_id: str) -> None:
        """The run is handed back, not ended: its followers go on waiting (no ``end``)."""
        self._holding.add(run_id)

    def let_go(self, run_id: str) -> None:
        self._holding.discard(run_id)

    def moved(self, run_id: str, worker: str) -> None:
        """Say on the run's stream that ``worker`` took it over."""
        self._put((run_id, "moved", worker))

    async def drain(self) -> None:
        """Wait until everything given so far is in Redis."""
        await self._idle.wait()

    async def aclose(self) -> None:
        await self.drain()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.client.aclose()
        if self._writer is not self.client:
            await self._writer.aclose()

    def _put(self, item: _Item) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._write(), name="taor-stream-writer")
        self._idle.clear()
        self._out.put_nowait(item)

    async def _write(self) -> None:
        while True:
            items = [await self._out.get()]
            while not self._out.empty():
                items.append(self._out.get_nowait())
            while True:
                try:
                    await self._send(items)
                    break
                except Exception:  # the client retried a dropped connection already
                    log.warning("writing to Redis failed; trying again", exc_info=True)
                    await asyncio.sleep(0.5)
            if self._out.empty():
                self._idle.set()

    async def _send(self, items: list[_Item]) -> None:
        pipe = self._writer.pipeline(transaction=False)
        for run_id, what, data in items:
            key = events_key(run_id)
            if what == "event":
                self._last[run_id] = data.seq  # (in order: a marker after it follows it)
                fields = {"s": data.seq, "k": data.kind, "d": data.data}
                self._note_pending(pipe, run_id, data)  # first: known when the event is seen
                pipe.xadd(key, fields, id=f"{data.seq}-0")
                continue
            base = self._last.get(run_id)
            if base is None:
                base = self._last[run_id] = await self._base(run_id)
            marker = {"m": what, **({"w": data} if data else {})}
            pipe.xadd(key, marker, id=f"{base}-*")
            if what == "moved":  # also where a follower reading the database finds it
                pipe.hset(state_key(run_id), f"m:{base}:{data}", data)
            if what == "end":
                pipe.expire(key, self._retention)
                pipe.expire(state_key(run_id), self._retention)
                self._last.pop(run_id, None)
            else:
                pipe.persist(key)
                pipe.persist(state_key(run_id))
        for result in await pipe.execute(raise_on_error=False):
            if isinstance(result, Exception) and "equal or smaller" not in str(result):
                raise result  # (an event already there is kept once: that is not an error)

    @staticmethod
    def _note_pending(pipe: Any, run_id: str, event: StoredEvent) -> None:
        """A run's open permission requests, for whichever API process is answered."""
        if event.kind == "permission_request":
            request_id = json.loads(event.data).get("request_id", "")
            pipe.hset(state_key(run_id), f"p:{request_id}", event.data)
        elif event.kind == "permission_decision":
            request_id = json.loads(event.data).get("request_id", "")
            pipe.hdel(state_key(run_id), f"p:{request_id}")

    async def _base(self, run_id: str) -> int:
        """The number a marker follows: the stream's last event, else the database's."""
        newest = await self.client.xrevrange(events_key(run_id), count=1)
        if newest:
            return int(newest[0][0].split("-")[0])
        return await self._kept_last(run_id)

    # --- reading ---

    async def _closed(self, key: str) -> bool:
        """Whether the stream has its last entry: it ends with ``end``, or is gone (let go
        after the retention, or never made). A run's row can say it ended a moment before its
        last events are on the stream (they are on their way), so the row alone is not enough."""
        newest = await self.client.xrevrange(key, count=1)
        return not newest or newest[0][1].get("m") == "end"

    async def follow(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent | Moved]:
        moves = await self._moves(run_id, after)  # (for the events read from the database)
        last = after
        async for item in self._kept(run_id, after, moves):
            last = item.seq if isinstance(item, StoredEvent) else last
            yield item
        key, cursor, block = events_key(run_id), f"{last}-0", None
        while True:
            reply = await self.client.xread({key: cursor}, count=500, block=block)
            entries = reply[0][1] if reply else []
            if not entries:
                if await self._ended(run_id) and await self._closed(key):
                    async for item in self._kept(run_id, last, moves):  # the stream was let go
                        yield item
                    return
                block = int(self._recheck * 1000)
                continue
            stop = False
            for entry_id, fields in entries:
                cursor = entry_id
                if "m" in fields:
                    stop = fields["m"] == "end"
                    if fields["m"] == "moved":
                        move = Moved(worker=fields.get("w", ""), after=int(entry_id.split("-")[0]))
                        if move in moves:
                            moves.remove(move)  # (told here: not again from the database)
                        yield move
                    continue
                stop = False
                seq = int(fields["s"])
                if seq > last:
                    last = seq
                    _passed(moves, seq)  # (on the stream before it, so told)
                    yield StoredEvent(seq=seq, kind=fields["k"], data=fields["d"])
            if stop:
                return
            block = int(self._recheck * 1000)

    async def _kept(
        self, run_id: str, after: int, moves: list[Moved]
    ) -> AsyncIterator[StoredEvent | Moved]:
        """What the database has after ``after``; each of ``moves`` before the first event
        after it."""
        last = after
        while page := await self._replay(run_id, last):
            for event in page:
                for move in _passed(moves, event.seq):
                    yield move
                last = event.seq
                yield event

    async def _moves(self, run_id: str, after: int) -> list[Moved]:
        """The run's moves from the event numbered ``after`` on, in order."""
        kept = await self.client.hgetall(state_key(run_id))
        found = [
            Moved(worker=worker, after=int(name.split(":")[1]))
            for name, worker in kept.items()
            if name.startswith("m:")
        ]
        return sorted((move for move in found if move.after >= after), key=lambda m: m.after)


def _passed(moves: list[Moved], seq: int) -> list[Moved]:
    """Take from ``moves`` (in order) those that came before the event numbered ``seq``."""
    count = next((n for n, move in enumerate(moves) if move.after >= seq), len(moves))
    taken = moves[:count]
    del moves[:count]
    return taken

"""``Feeds``: each run's events, live, to every client following it, and replayed from any
sequence number.

A run's worker publishes each event as it happens; publishing never waits on a client or on the
disk. A client follows a run from a number on (its ``Last-Event-ID``): it gets the events after
that number from the event log (what is on disk), then from the feed's recent tail (what is not
on disk yet), then live, each once and in order. A client too slow to keep up (its queue is
full) is dropped rather than slowing the run or growing memory; it comes back with the number
it last saw and loses nothing.

This is the in-process fan-out of one service; the seam (``publish``, ``follow``, ``end``) is
what a fan-out across machines fills in the same way.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from taor.server.store.runs import StoredEvent

# What a client is given when it cannot keep up: it reconnects from its last number.
DROPPED = StoredEvent(seq=-1, kind="dropped", data="")

Replay = Callable[[str, int], Awaitable[list[StoredEvent]]]
"""(run id, after) -> the next kept events in order, some or all of them; none at the end."""
Ended = Callable[[str], Awaitable[bool]]  # whether a run has ended (or is gone)


@dataclass(kw_only=True, slots=True)
class _Feed:
    tail: collections.deque[StoredEvent]
    followers: set[asyncio.Queue[StoredEvent | None]] = field(default_factory=set)
    ended: bool = False


class Feeds:
    """Every run's live feed. ``replay`` reads a run's kept events after a number (the event
    log's ``since``); ``tail`` events per run are kept in memory for the time before they are
    on disk; ``queue`` events at most wait for each follower.

    With ``ended`` (whether a run has ended), a follower of a run that has not published yet
    (queued, or starting) waits for its events instead of finding nothing and coming back
    again and again; every ``recheck`` seconds it looks whether the run ended without any
    (cancelled while queued, or failed to start), and then finishes."""

    def __init__(
        self,
        replay: Replay,
        *,
        ended: Ended | None = None,
        recheck: float = 1.0,
        tail: int = 2000,
        queue: int = 1000,
    ) -> None:
        self._replay = replay
        self._ended = ended
        self._recheck = recheck
        self._tail = tail
        self._queue = queue
        self._feeds: dict[str, _Feed] = {}

    def open(self, run_id: str) -> None:
        """The run will emit events (it is queued): its followers wait for them until ``end``."""
        self._feed(run_id)

    def publish(self, run_id: str, event: StoredEvent) -> None:
        """Send ``event`` to the run's followers now; never waits."""
        feed = self._feed(run_id)
        feed.tail.append(event)
        for follower in list(feed.followers):
            if follower.full():
                feed.followers.discard(follower)
                _clear_and_put(follower, DROPPED)
            else:
                follower.put_nowait(event)

    def end(self, run_id: str) -> None:
        """The run has emitted its last event: its followers finish after it; later ones read
        the log alone. The tail is let go."""
        feed = self._feeds.pop(run_id, None)
        if feed is None:
            return
        for follower in feed.followers:
            if not follower.full():
                follower.put_nowait(None)
            else:
                _clear_and_put(follower, DROPPED)

    async def follow(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """The run's events numbered above ``after``: kept ones, then live ones until the run
        ends (or, if it is not live here, the kept ones only). Ends with ``DROPPED`` when the
        follower fell too far behind."""
        feed = self._feeds.get(run_id)
        if feed is None and self._ended is not None and not await self._ended(run_id):
            feed = self._feed(run_id)  # not started yet (or about to end: see _next)
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(self._queue)
        if feed is not None:
            feed.followers.add(queue)  # before reading the log: nothing falls in between
        try:
            last = after
            while page := await self._replay(run_id, last):  # page by page, to the end
                for event in page:
                    last = event.seq
                    yield event
                if feed is not None and feed.tail and feed.tail[0].seq <= last + 1:
                    break  # the tail has the rest
            if feed is None:
                return
            tail = list(feed.tail)
            if tail and tail[0].seq > last + 1:  # not on disk yet and gone from the tail
                yield DROPPED  # the client comes back from ``last``, when they are on disk
                return
            for kept in tail:
                if kept.seq > last:
                    last = kept.seq
                    yield kept
            while (live := await self._next(run_id, feed, queue)) is not None:
                if live is DROPPED:
                    yield live
                    return
                if live.seq > last:
                    last = live.seq
                    yield live
        finally:
            if feed is not None:
                feed.followers.discard(queue)

    async def _next(
        self, run_id: str, feed: _Feed, queue: asyncio.Queue[StoredEvent | None]
    ) -> StoredEvent | None:
        """The follower's next event; None at the run's end, also one that ended without
        publishing anything (its waiting feed is let go then)."""
        while True:
            try:
                async with asyncio.timeout(self._recheck if self._ended else None):
                    return await queue.get()
            except TimeoutError:
                pass
            if feed.tail or self._ended is None or not await self._ended(run_id):
                continue  # a run that has published is ended by ``end``
            if self._feeds.get(run_id) is feed and not feed.tail:
                del self._feeds[run_id]
            return None

    def _feed(self, run_id: str) -> _Feed:
        feed = self._feeds.get(run_id)
        if feed is None:
            feed = self._feeds[run_id] = _Feed(tail=collections.deque(maxlen=self._tail))
        return feed


def _clear_and_put(queue: asyncio.Queue[StoredEvent | None], item: StoredEvent) -> None:
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(item)

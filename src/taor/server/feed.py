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

Replay = Callable[[str, int], Awaitable[list[StoredEvent]]]  # (run id, after) -> kept events


@dataclass(kw_only=True, slots=True)
class _Feed:
    tail: collections.deque[StoredEvent]
    followers: set[asyncio.Queue[StoredEvent | None]] = field(default_factory=set)
    ended: bool = False


class Feeds:
    """Every run's live feed. ``replay`` reads a run's kept events after a number (the event
    log's ``since``); ``tail`` events per run are kept in memory for the time before they are
    on disk; ``queue`` events at most wait for each follower."""

    def __init__(self, replay: Replay, *, tail: int = 2000, queue: int = 1000) -> None:
        self._replay = replay
        self._tail = tail
        self._queue = queue
        self._feeds: dict[str, _Feed] = {}

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
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(self._queue)
        if feed is not None:
            feed.followers.add(queue)  # before reading the log: nothing falls in between
        try:
            last = after
            while page := await self._replay(run_id, last):  # a page at a time, to the end
                for event in page:
                    last = event.seq
                    yield event
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
            while (live := await queue.get()) is not None:
                if live is DROPPED:
                    yield live
                    return
                if live.seq > last:
                    last = live.seq
                    yield live
        finally:
            if feed is not None:
                feed.followers.discard(queue)

    def _feed(self, run_id: str) -> _Feed:
        feed = self._feeds.get(run_id)
        if feed is None:
            feed = self._feeds[run_id] = _Feed(tail=collections.deque(maxlen=self._tail))
        return feed


def _clear_and_put(queue: asyncio.Queue[StoredEvent | None], item: StoredEvent) -> None:
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(item)

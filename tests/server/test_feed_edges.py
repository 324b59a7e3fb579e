"""Following a run outside its live stretch: one that has ended replays from its kept events
alone, all of them, however many pages of the event log they fill; one that has not started
yet is waited for (and let go when it ends without starting)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from taor.server.feed import Feeds
from taor.server.store import Database, EventLog, Runs, StoredEvent, Tokens


async def test_an_ended_run_replays_every_page_of_its_events(tmp_path: Path) -> None:
    database = await Database.open(f"sqlite:///{tmp_path / 'taor.db'}")
    try:
        tokens = Tokens(database)
        owner = await tokens.authenticate(await tokens.create("ann"))
        assert owner is not None
        run = await Runs(database).create(
            owner, prompt="p", model="m", workspace="/w", options={}, metadata={}
        )
        log = EventLog(database)
        kept = [StoredEvent(seq=n, kind="warning", data="{}") for n in range(1, 2501)]
        await log.write(run.id, kept)
        feeds = Feeds(log.since)  # the log's pages hold 1000 events
        assert [e.seq async for e in feeds.follow(run.id)] == list(range(1, 2501))
        assert [e.seq async for e in feeds.follow(run.id, 1999)] == list(range(2000, 2501))
    finally:
        await database.close()


async def _no_events(run_id: str, after: int) -> list[StoredEvent]:
    return []


async def test_a_follower_of_a_run_not_started_waits_for_its_events() -> None:
    ended: set[str] = set()

    async def is_ended(run_id: str) -> bool:
        return run_id in ended

    feeds = Feeds(_no_events, ended=is_ended, recheck=0.01)
    following = asyncio.create_task(collect(feeds, "run_a"))
    await asyncio.sleep(0.05)  # it has found nothing yet, and waits
    assert not following.done()
    for n in (1, 2):
        feeds.publish("run_a", StoredEvent(seq=n, kind="warning", data="{}"))
    feeds.end("run_a")
    assert await following == [1, 2]


async def test_a_follower_of_a_run_that_ends_without_events_finishes() -> None:
    ended: set[str] = set()

    async def is_ended(run_id: str) -> bool:
        return run_id in ended

    feeds = Feeds(_no_events, ended=is_ended, recheck=0.01)
    following = asyncio.create_task(collect(feeds, "run_b"))
    await asyncio.sleep(0.05)
    ended.add("run_b")  # cancelled while queued: nothing was ever published
    assert await following == []
    assert [e.seq async for e in feeds.follow("run_b")] == []  # and no feed was left behind


async def collect(feeds: Feeds, run_id: str) -> list[int]:
    return [e.seq async for e in feeds.follow(run_id)]

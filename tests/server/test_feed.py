"""A run's feed: every follower gets each event once and in order, from any number on, across
the boundary between what is on disk and what is not; a slow follower is dropped without
slowing the run; events reach the disk in batches and none is lost. Outside its live stretch:
a run that has ended replays from its kept events alone, however many pages of the log they
fill; one that has not started yet is waited for (and let go when it ends without starting)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.server.feed import DROPPED, Feeds
from taor.server.store import Database, EventLog, Runs, StoredEvent, Tokens
from taor.server.writer import EventWriter


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[tuple[str, EventLog, EventWriter, Feeds]]:
    database = await Database.open(f"sqlite:///{tmp_path / 'taor.db'}")
    tokens = Tokens(database)
    owner = await tokens.authenticate(await tokens.create("ann"))
    assert owner is not None
    run = await Runs(database).create(
        owner, prompt="p", model="m", workspace="/w", options={}, metadata={}
    )
    log = EventLog(database)
    writer = EventWriter(log, interval=0.01)
    writer.start()
    yield run.id, log, writer, Feeds(log.since, tail=50, queue=20)
    await writer.close()
    await database.close()


def event(n: int) -> StoredEvent:
    return StoredEvent(seq=n, kind="assistant_text_delta", data=f'{{"seq":{n}}}')


def emit(run: str, writer: EventWriter, feeds: Feeds, n: int) -> None:
    writer.add(run, event(n))
    feeds.publish(run, event(n))


async def collect(feeds: Feeds, run: str, after: int = 0) -> list[int]:
    return [e.seq async for e in feeds.follow(run, after)]


async def test_followers_joining_at_any_time_get_each_event_once_in_order(
    setup: tuple[str, EventLog, EventWriter, Feeds],
) -> None:
    run, log, writer, feeds = setup
    early = asyncio.create_task(collect(feeds, run))
    for n in range(1, 31):
        emit(run, writer, feeds, n)
        if n == 10:
            await writer.flush(run)  # 1-10 on disk, the rest only in memory for a while
            late = asyncio.create_task(collect(feeds, run))
            resumed = asyncio.create_task(collect(feeds, run, after=7))
        await asyncio.sleep(0)
    await writer.flush(run)
    feeds.end(run)
    assert await early == list(range(1, 31))
    assert await late == list(range(1, 31))
    assert await resumed == list(range(8, 31))
    assert await collect(feeds, run, after=25) == [26, 27, 28, 29, 30]  # ended: from disk
    assert [e.seq for e in await log.since(run)] == list(range(1, 31))


async def test_a_follower_that_stops_reading_is_dropped_and_the_run_goes_on(
    setup: tuple[str, EventLog, EventWriter, Feeds],
) -> None:
    run, _, writer, feeds = setup
    stuck = feeds.follow(run)
    first = asyncio.create_task(anext(stuck))  # registered, then never reads again
    emit(run, writer, feeds, 1)
    assert (await first).seq == 1
    for n in range(2, 200):  # far more than its queue holds: publishing never waits
        emit(run, writer, feeds, n)
    assert await anext(stuck) is DROPPED
    await writer.flush(run)
    last_seen = 1
    assert (await anext(feeds.follow(run, last_seen))).seq == 2  # back, nothing lost


async def test_a_write_that_fails_is_tried_again_with_nothing_lost(
    setup: tuple[str, EventLog, EventWriter, Feeds],
) -> None:
    run, log, writer, _ = setup
    real = log.write
    failures = 2

    async def flaky(run_id: str, batch: list[StoredEvent]) -> None:
        nonlocal failures
        if failures:
            failures -= 1
            raise OSError("database is locked")
        await real(run_id, batch)

    log.write = flaky  # type: ignore[method-assign]
    for n in range(1, 6):
        writer.add(run, event(n))
    for _ in range(200):
        if failures == 0 and await log.last(run) == 5:
            break
        await asyncio.sleep(0.01)
    assert [e.seq for e in await log.since(run)] == [1, 2, 3, 4, 5]


async def test_a_run_with_more_events_than_a_page_is_replayed_whole(
    setup: tuple[str, EventLog, EventWriter, Feeds],
) -> None:
    run, log, _, feeds = setup
    await log.write(run, [event(n) for n in range(1, 2501)])  # the log reads 1000 at a time
    assert [e.seq for e in [e async for e in feeds.follow(run)]] == list(range(1, 2501))
    assert [e.seq for e in [e async for e in feeds.follow(run, 1999)]] == list(range(2000, 2501))


async def test_an_ended_run_replays_every_page_of_its_events(
    setup: tuple[str, EventLog, EventWriter, Feeds],
) -> None:
    run, log, _, feeds = setup
    await log.write(run, [event(n) for n in range(1, 2501)])  # the log's pages hold 1000
    assert await collect(feeds, run) == list(range(1, 2501))
    assert await collect(feeds, run, 1999) == list(range(2000, 2501))


def not_started() -> tuple[Feeds, set[str]]:
    """Feeds over an empty log, and the set of runs that have ended (none yet)."""
    ended: set[str] = set()

    async def nothing_kept(run_id: str, after: int) -> list[StoredEvent]:
        return []

    async def is_ended(run_id: str) -> bool:
        return run_id in ended

    return Feeds(nothing_kept, ended=is_ended, recheck=0.01), ended


async def test_a_follower_of_a_run_not_started_waits_for_its_events() -> None:
    feeds, _ = not_started()
    following = asyncio.create_task(collect(feeds, "run_a"))
    await asyncio.sleep(0.05)  # it has found nothing yet, and waits
    assert not following.done()
    for n in (1, 2):
        feeds.publish("run_a", event(n))
    feeds.end("run_a")
    assert await following == [1, 2]


async def test_a_follower_of_a_run_that_ends_without_events_finishes() -> None:
    feeds, ended = not_started()
    following = asyncio.create_task(collect(feeds, "run_b"))
    await asyncio.sleep(0.05)
    ended.add("run_b")  # cancelled while queued: nothing was ever published
    assert await following == []
    assert await collect(feeds, "run_b") == []  # and no feed was left behind

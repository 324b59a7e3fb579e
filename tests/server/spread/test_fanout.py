"""A run's stream on a real Redis (``StreamFeeds``): a follower hears that the run moved once,
after the event the move followed, whether it reads that stretch from the stream or from the
database; one that comes back from a later event does not hear it again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taor.server.seams import Moved
from taor.server.spread.fanout import StreamFeeds
from taor.server.spread.streams import connect
from taor.server.store import Database, EventLog, Runs, StoredEvent, Tokens

from .servers import RedisServer


def event(n: int) -> StoredEvent:
    return StoredEvent(seq=n, kind="assistant_text_delta", data=f'{{"seq":{n}}}')


@pytest.fixture
async def kept(tmp_path: Path) -> AsyncIterator[tuple[str, EventLog]]:
    """A run and the database's event log (SQLite here; the same code as PostgreSQL's)."""
    database = await Database.open(f"sqlite:///{tmp_path / 'taor.db'}")
    tokens = Tokens(database)
    owner = await tokens.authenticate(await tokens.create("ann"))
    assert owner is not None
    run = await Runs(database).create(
        owner, prompt="p", model="m", workspace="/w", options={}, metadata={}
    )
    yield run.id, EventLog(database)
    await database.close()


async def ended(_run: str) -> bool:
    return True


async def test_the_move_is_told_once_in_its_place_from_the_stream_or_the_database(
    redis: RedisServer, kept: tuple[str, EventLog]
) -> None:
    run_id, log = kept
    feeds = StreamFeeds(await connect(redis.url), log.since, log.last, ended=ended)
    try:
        for n in (1, 2, 3):
            feeds.publish(run_id, event(n))
        feeds.moved(run_id, "w2")
        for n in (4, 5):
            feeds.publish(run_id, event(n))
        feeds.end(run_id)
        await feeds.drain()
        await log.write(run_id, [event(1), event(2)])  # the database behind the stream

        async def read(after: int) -> list[int | Moved]:
            return [
                item.seq if isinstance(item, StoredEvent) else item
                async for item in feeds.follow(run_id, after)
            ]

        moved = Moved(worker="w2", after=3)
        from_the_stream = await read(0)
        await log.write(run_id, [event(3), event(4), event(5)])  # now all of them
        from_the_database = await read(0)
        back_at_the_move, back_after_it = await read(3), await read(4)
    finally:
        await feeds.aclose()
    assert from_the_stream == from_the_database == [1, 2, 3, moved, 4, 5]
    assert back_at_the_move == [moved, 4, 5]  # (it may not have been heard: told again)
    assert back_after_it == [5]


async def test_more_followers_than_a_default_pool_holds_all_hear_every_event(
    redis: RedisServer, kept: tuple[str, EventLog]
) -> None:
    """Each follower waits in a blocking read of its own: 150 at once on one API process
    (redis-py's pool holds 100 connections unless told otherwise)."""
    run_id, log = kept
    feeds = StreamFeeds(await connect(redis.url), log.since, log.last, ended=ended)
    followers = 150

    async def follow() -> list[int]:
        return [item.seq async for item in feeds.follow(run_id) if isinstance(item, StoredEvent)]

    try:
        feeds.publish(run_id, event(1))
        await feeds.drain()
        tasks = [asyncio.create_task(follow()) for _ in range(followers)]
        async with asyncio.timeout(60):
            # Redis lists each follower's connection once it is blocked in its read
            while len(await feeds.client.client_list(_type="normal")) < followers:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        for n in (2, 3):
            feeds.publish(run_id, event(n))
        feeds.end(run_id)
        heard = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    finally:
        await feeds.aclose()
    assert heard == [[1, 2, 3]] * followers

"""A run that has ended replays from its kept events alone: all of them, however many pages
of the event log they fill."""

from __future__ import annotations

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

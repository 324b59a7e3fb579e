"""``Service``: what one running service holds (its database, tokens, runs, events, feeds,
event writer, event files and the workers that carry out runs), opened and closed as one, and
its settings (``ServiceConfig``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from taor.server.compose import composer
from taor.server.config import ServiceConfig
from taor.server.eventfile import EventFiles
from taor.server.feed import Feeds
from taor.server.runner import RunManager
from taor.server.seams import EventStore, Fanout, Manager, RunStore
from taor.server.store import Database, EventLog, Runs, Tokens
from taor.server.store.runs import ENDED
from taor.server.store.tokens import User
from taor.server.writer import EventWriter


@dataclass(kw_only=True)
class Service:
    config: ServiceConfig
    database: Database
    tokens: Tokens
    runs: RunStore  # the seams (``taor.server.seams``), filled by this process's own
    events: EventStore
    feeds: Fanout
    writer: EventWriter
    files: EventFiles  # each run's events, on the way to the database
    manager: Manager = field(init=False, repr=False)
    first_token: str | None = field(default=None, repr=False)  # made on the first start

    @classmethod
    async def open(cls, config: ServiceConfig) -> Service:
        """Open the database (created and migrated as needed) and start the event writer; on
        the very first start, an admin token is made (``first_token``, shown once)."""
        database = await Database.open(config.database())
        tokens = Tokens(database)
        events = EventLog(database)
        runs = Runs(database)
        writer = EventWriter(events)
        service = cls(
            config=config,
            database=database,
            tokens=tokens,
            runs=runs,
            events=events,
            feeds=await _feeds(config, events, runs),
            writer=writer,
            files=EventFiles(config.data_dir / "events"),
            first_token=await tokens.first_admin(),
        )
        writer.start()
        if config.redis_url:  # workers elsewhere (``taor worker``) carry out the runs
            from taor.server.spread.manager import SpreadManager

            service.manager = SpreadManager(service)
        else:
            service.manager = RunManager(service, composer(config), workers=config.workers)
        await service.manager.start()
        return service

    async def close(self) -> None:
        """Stop taking runs, interrupt the running ones, write every event, close the database."""
        await self.manager.close()
        await self.writer.close()
        self.files.close()
        await self.database.close()


async def _feeds(config: ServiceConfig, events: EventLog, runs: Runs) -> Fanout:
    """This process's feeds; with Redis, the runs' streams there (any process follows any run)."""
    if not config.redis_url:
        return Feeds(events.since, ended=_ended(runs))
    from taor.server.spread.fanout import StreamFeeds
    from taor.server.spread.streams import connect

    client = await connect(config.redis_url)
    writer = await connect(config.redis_url, max_connections=1)
    return StreamFeeds(
        client,
        events.since,
        events.last,
        ended=_ended(runs),
        retention=config.stream_retention,
        writer=writer,
    )


def _ended(runs: Runs) -> Callable[[str], Awaitable[bool]]:
    """Whether a run has ended, or is gone (for the feeds: see ``Feeds``)."""
    service = User(id=0, name="(service)", admin=True)

    async def ended(run_id: str) -> bool:
        record = await runs.get(run_id, service)
        return record is None or record.status in ENDED

    return ended

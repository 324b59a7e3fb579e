"""``Service``: what one running service holds (its database, tokens, runs, events, feeds,
event writer and the workers that carry out runs), opened and closed as one, and its settings
(``ServiceConfig``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from taor.server.feed import Feeds
from taor.server.runner import RunManager
from taor.server.store import Database, EventLog, Runs, Tokens
from taor.server.writer import EventWriter

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: prompts and steering, not uploads


@dataclass(frozen=True, kw_only=True, slots=True)
class ServiceConfig:
    data_dir: Path
    database_url: str = ""  # "" is SQLite in data_dir
    max_body: int = DEFAULT_MAX_BODY
    cors_origins: tuple[str, ...] = ()  # none: CORS stays off
    default_model: str = "local"  # for a run that names none
    base_url: str = ""  # where the service reaches its models ("": each provider's own)
    workers: int = 2  # runs carried out at once
    sandbox: bool = True  # runs in bubblewrap when it is installed

    def database(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'taor.db'}"


@dataclass(kw_only=True)
class Service:
    config: ServiceConfig
    database: Database
    tokens: Tokens
    runs: Runs
    events: EventLog
    feeds: Feeds
    writer: EventWriter
    manager: RunManager = field(init=False, repr=False)
    first_token: str | None = field(default=None, repr=False)  # made on the first start

    @classmethod
    async def open(cls, config: ServiceConfig) -> Service:
        """Open the database (created and migrated as needed) and start the event writer; on
        the very first start, an admin token is made (``first_token``, shown once)."""
        database = await Database.open(config.database())
        tokens = Tokens(database)
        events = EventLog(database)
        writer = EventWriter(events)
        service = cls(
            config=config,
            database=database,
            tokens=tokens,
            runs=Runs(database),
            events=events,
            feeds=Feeds(events.since),
            writer=writer,
            first_token=await tokens.first_admin(),
        )
        writer.start()
        from taor.server.compose import composer

        service.manager = RunManager(service, composer(config), workers=config.workers)
        await service.manager.start()
        return service

    async def close(self) -> None:
        """Stop taking runs, interrupt the running ones, write every event, close the database."""
        await self.manager.close()
        await self.writer.close()
        await self.database.close()

"""The service's migrations on PostgreSQL: a database made by the previous schema is brought
to the newest, its rows kept."""

from __future__ import annotations

import datetime

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import insert, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from taor.server.store import Database
from taor.server.store.database import MIGRATIONS, async_url
from taor.server.store.schema import metadata, runs, users


def _to(revision: str, connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def test_a_postgresql_database_of_the_previous_schema_is_upgraded_rows_kept(
    database: str,
) -> None:
    engine = create_async_engine(async_url(database))
    now = datetime.datetime.now(datetime.UTC)
    async with engine.begin() as connection:
        await connection.run_sync(lambda sync: _to("0001", sync))
        await connection.execute(insert(users).values(id=1, name="ann", admin=True, created_at=now))
        await connection.execute(
            insert(runs).values(
                id="run_1", user_id=1, status="finished", prompt="p", model="m",
                workspace="/w", options={}, metadata={}, created_at=now,
            )
        )  # fmt: skip
    await engine.dispose()
    opened = await Database.open(database)
    try:
        async with opened.engine.connect() as connection:
            version = await connection.scalar(text("SELECT version_num FROM alembic_version"))
            differences = await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), metadata)
            )
            kept = (await connection.execute(select(runs.c.id, runs.c.status))).all()
    finally:
        await opened.close()
    assert version == "0002"
    assert differences == []  # what schema.py says, on PostgreSQL too
    assert kept == [("run_1", "finished")]

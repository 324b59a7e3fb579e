"""The service's database: created private, migrated to the schema the code describes, opened
again as it is, refused with one clear line when it cannot be used."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from taor.errors import ConfigurationError
from taor.server.store import Database
from taor.server.store.database import async_url, redacted
from taor.server.store.schema import metadata


async def test_a_new_database_is_created_private_and_at_the_newest_schema(tmp_path: Path) -> None:
    file = tmp_path / "data" / "taor.db"
    database = await Database.open(f"sqlite:///{file}")
    try:
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), metadata)
            )
        assert differences == []  # the migrations build exactly what schema.py says
    finally:
        await database.close()
    assert file.stat().st_mode & 0o777 == 0o600
    assert file.parent.stat().st_mode & 0o777 == 0o700
    with sqlite3.connect(file) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0002"


async def test_an_existing_database_opens_as_it_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'taor.db'}"
    first = await Database.open(url)
    async with first.engine.begin() as connection:
        await connection.exec_driver_sql(
            "INSERT INTO users (name, admin, created_at) VALUES ('ann', 0, '2026-01-01')"
        )
    await first.close()
    again = await Database.open(url)
    async with again.engine.connect() as connection:
        names = (await connection.exec_driver_sql("SELECT name FROM users")).scalars().all()
    await again.close()
    assert names == ["ann"]


async def test_a_database_from_a_newer_taor_is_refused_with_what_to_do(tmp_path: Path) -> None:
    file = tmp_path / "taor.db"
    await (await Database.open(f"sqlite:///{file}")).close()
    with sqlite3.connect(file) as raw:
        raw.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(ConfigurationError, match="upgrade taor"):
        await Database.open(f"sqlite:///{file}")


async def test_a_file_that_is_not_a_database_is_refused_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "taor.db"
    file.write_bytes(b"not a database at all\n" * 100)
    with pytest.raises(ConfigurationError, match="cannot open the database"):
        await Database.open(f"sqlite:///{file}")


@pytest.mark.parametrize(
    ("url", "full"),
    [
        ("sqlite:////var/taor.db", "sqlite+aiosqlite:////var/taor.db"),
        ("postgresql://u:p@db/taor", "postgresql+asyncpg://u:p@db/taor"),
        ("postgres://u@db/taor", "postgresql+asyncpg://u@db/taor"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite:///x.db"),
    ],
)
def test_urls_name_their_async_driver(url: str, full: str) -> None:
    assert async_url(url) == full


@pytest.mark.parametrize("url", ["taor.db", "mysql://db/taor"])
def test_other_urls_are_refused_with_the_forms_that_work(url: str) -> None:
    with pytest.raises(ConfigurationError, match="sqlite:///"):
        async_url(url)


def test_a_password_never_reaches_a_message() -> None:
    assert redacted("postgresql://taor:s3cret@db:5432/taor") == "postgresql://taor:***@db:5432/taor"
    assert redacted("sqlite:///x.db") == "sqlite:///x.db"

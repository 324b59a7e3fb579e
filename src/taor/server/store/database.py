"""``Database``: the service's database, opened on SQLAlchemy's async engine and brought to the
newest schema by its Alembic migrations before anything else touches it.

URLs: ``sqlite:///path/taor.db`` (the default, under the user data directory; the file and its
folder are private to the user: it holds prompts and transcripts) or ``postgresql://...``; the
async driver (aiosqlite, asyncpg) is filled in. SQLite runs in WAL mode with foreign keys on and
a busy timeout, so the API and the workers of one machine share it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taor._private import private_dir, private_open
from taor.errors import ConfigurationError

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.engine import Connection
    from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).with_name("migrations")
_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}


class Database:
    """An open database (``await Database.open(url)``); ``engine`` is SQLAlchemy's."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @classmethod
    async def open(cls, url: str) -> Database:
        """The database at ``url``, created or upgraded to the newest schema."""
        from sqlalchemy import event
        from sqlalchemy.exc import SQLAlchemyError
        from sqlalchemy.ext.asyncio import create_async_engine

        full = async_url(url)
        if full.startswith("sqlite"):
            _prepare_sqlite_file(full)
        # A shared server's connections can go (a restart): each is tried before it is used.
        engine = create_async_engine(full, pool_pre_ping=not full.startswith("sqlite"))
        if engine.dialect.name == "sqlite":
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        try:
            async with engine.begin() as connection:
                await connection.run_sync(upgrade)
        except (SQLAlchemyError, OSError) as error:
            await engine.dispose()
            raise ConfigurationError(
                f"cannot open the database {redacted(url)}: {error}"
            ) from error
        except BaseException:
            await engine.dispose()
            raise
        return cls(engine)

    async def close(self) -> None:
        await self.engine.dispose()


async def insert_new(engine: AsyncEngine, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` in one transaction; when some are there already (the same key), insert
    the others one at a time and leave those as they are."""
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    try:
        async with engine.begin() as db:
            await db.execute(insert(table), rows)
    except IntegrityError:
        for row in rows:
            try:
                async with engine.begin() as db:
                    await db.execute(insert(table).values(**row))
            except IntegrityError:
                continue


def connection_lost(error: BaseException) -> bool:
    """Whether ``error`` is the database's connection failing (its server down, restarting or
    out of reach), not a query's fault."""
    from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

    if isinstance(error, OSError):
        return True
    if isinstance(error, DBAPIError):
        return bool(error.connection_invalidated) or isinstance(
            error, (InterfaceError, OperationalError)
        )
    return False


def async_url(url: str) -> str:
    """``url`` with the async driver of its database named (a driver given is kept)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ConfigurationError(
            f"not a database URL: {url!r}; use sqlite:///path/to/taor.db or postgresql://..."
        )
    if "+" in scheme:
        return url
    if scheme == "postgres":
        scheme = "postgresql"
    if scheme not in _DRIVERS:
        raise ConfigurationError(
            f"unsupported database {scheme!r}: use sqlite:///path/to/taor.db or postgresql://..."
        )
    return f"{_DRIVERS[scheme]}://{rest}"


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"


def upgrade(connection: Connection) -> None:
    """Run the migrations up to the newest schema, on ``connection``."""
    from alembic import command
    from alembic.config import Config
    from alembic.util.exc import CommandError

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    try:
        command.upgrade(config, "head")
    except CommandError as error:  # a revision this taor does not know: made by a newer one
        raise ConfigurationError(
            f"the service's database has a schema this taor does not know ({error}); "
            "upgrade taor, or point it at another database"
        ) from error


def _prepare_sqlite_file(url: str) -> None:
    """Create the database file 0600 in a 0700 folder before SQLite creates it with the
    umask's modes (an in-memory database has no file)."""
    path = url.partition(":///")[2].partition("?")[0]
    if not path or path == ":memory:":
        return
    file = Path(path).expanduser()
    private_dir(file.parent)
    os.close(private_open(file, os.O_RDWR | os.O_CREAT))


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    for pragma in (
        "journal_mode=WAL",
        "foreign_keys=ON",
        "busy_timeout=10000",
        "synchronous=NORMAL",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()

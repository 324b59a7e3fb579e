"""``Database``: the service's database, opened on SQLAlchemy's async engine and brought to the
newest schema by its Alembic migrations before anything else touches it.

URLs: ``sqlite:///path/taor.db`` (the default, under the user data directory; the file and its
folder are private to the user: it holds prompts and transcripts) or ``postgresql://...``; the
async driver (aiosqlite, asyncpg) is filled in. SQLite runs in WAL mode with foreign keys on and
a busy timeout, so the API and the workers of one machine share it.

On PostgreSQL each statement of ``engine`` is its own transaction (autocommit): a write of one
statement (all the service makes but two) or a read is one round trip to the server, where a
transaction around it costs three more (``BEGIN``, ``COMMIT`` and the connection's check).
``transactional`` is for the units of several statements that must hold together.
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
    """An open database (``await Database.open(url)``): SQLAlchemy's ``engine`` for single
    statements, and ``transactional``, the same pool, for a transaction of several."""

    def __init__(self, engine: AsyncEngine, transactional: AsyncEngine | None = None) -> None:
        self.engine = engine
        self.transactional = transactional or engine

    @classmethod
    async def open(cls, url: str) -> Database:
        """The database at ``url``, created or upgraded to the newest schema."""
        from sqlalchemy import event
        from sqlalchemy.exc import SQLAlchemyError
        from sqlalchemy.ext.asyncio import create_async_engine

        full = async_url(url)
        if full.startswith("sqlite"):
            _prepare_sqlite_file(full)
            engine = transactional = create_async_engine(full)
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        else:
            # A shared server's connections can go (a restart): each is tried before it is
            # used, which in autocommit is one round trip.
            engine = create_async_engine(full, pool_pre_ping=True, isolation_level="AUTOCOMMIT")
            transactional = engine.execution_options(isolation_level="READ COMMITTED")
        try:
            async with transactional.begin() as connection:
                await connection.run_sync(upgrade)
        except (SQLAlchemyError, OSError) as error:
            await engine.dispose()
            raise ConfigurationError(
                f"cannot open the database {redacted(url)}: {error}"
            ) from error
        except BaseException:
            await engine.dispose()
            raise
        return cls(engine, transactional)

    async def close(self) -> None:
        await self.engine.dispose()


async def insert_new(engine: AsyncEngine, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` in one statement; those whose key is there already are left as they
    are (``ON CONFLICT DO NOTHING``, which SQLite and PostgreSQL both have)."""
    if not rows:
        return
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        statement: Any = postgresql_insert(table).on_conflict_do_nothing()
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        statement = sqlite_insert(table).on_conflict_do_nothing()
    async with engine.begin() as db:
        await db.execute(statement, rows)


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

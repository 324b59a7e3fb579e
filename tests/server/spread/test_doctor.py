"""``taor doctor`` on a machine of a service spread over machines, through the real command,
against a real Redis and a real PostgreSQL: both up (AOF on, the schema the newest, the run
queue made or not yet), named by the config file or by ``--redis``/``--database``; AOF off;
a database behind; nothing listening, a database that is not there or not one taor opens, a
shared folder that is a file. Each gap one line saying what to do, never a traceback, never fatal."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy.ext.asyncio import create_async_engine

from taor.server.store import Database
from taor.server.store.database import MIGRATIONS, async_url

from ...cli.support import taor
from ..process import free_port
from ..test_doctor import configure
from .servers import PostgresServer, RedisServer

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test-0123456789"}  # a model: only the service is checked


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    (tmp_path / "shared").mkdir()
    return tmp_path / "project"


def doctor(project: Path, *flags: str) -> dict[str, str]:
    """The service's lines by name, as printed; doctor exits 0 (the service is never fatal)."""
    done = taor("doctor", *flags, cwd=project, env=KEY)
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[1] == "service")
    return {line.split()[1]: line for line in lines[start:]}


async def newest(url: str) -> str:
    """``url``, its database brought to the newest schema (as opening it does)."""
    await (await Database.open(url)).close()
    return url


async def behind(url: str) -> None:
    """The database as the previous taor left it: its newest migration undone."""
    engine = create_async_engine(async_url(url))

    def downgrade(connection: object) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.downgrade(config, "-1")

    async with engine.begin() as connection:
        await connection.run_sync(downgrade)
    await engine.dispose()


@pytest.fixture
def aof_off(redis: RedisServer) -> Iterator[None]:
    assert redis.command("CONFIG", "SET", "appendonly", "no").startswith("+OK")
    try:
        yield
    finally:
        redis.command("CONFIG", "SET", "appendonly", "yes")


async def test_redis_and_postgresql_up_as_the_config_file_names_them(
    project: Path, redis: RedisServer, postgres_server: PostgresServer
) -> None:
    url = await asyncio.to_thread(postgres_server.new_database)
    shared = project.parent / "shared"
    configure(
        project,
        f'[serve]\nport = 0\ndata_dir = "{shared}"\n'
        f'redis_url = "{redis.url}"\ndatabase_url = "{url}"\n',
    )
    fresh = doctor(project)
    assert (
        fresh["service"].startswith("ok")
        and f"shared folder {shared} (writable)" in fresh["service"]
    )
    assert fresh["redis"].startswith("ok") and f"{redis.url} answers (Redis " in fresh["redis"]
    assert (
        fresh["redis-aof"].startswith("ok") and "AOF on (appendfsync always)" in fresh["redis-aof"]
    )
    assert fresh["run-queue"].startswith("ok") and "not made yet" in fresh["run-queue"]
    assert fresh["database"].startswith("ok") and "no tables yet" in fresh["database"]
    assert list(shared.iterdir()) == []  # the probe is gone
    await newest(url)
    redis.command("XGROUP", "CREATE", "taor:runs", "workers", "0", "MKSTREAM")
    made = doctor(project)
    assert made["run-queue"].startswith("ok") and "with its group workers" in made["run-queue"]
    assert made["database"].startswith("ok") and "the newest" in made["database"]


async def test_flags_name_them_as_taor_serve_takes_them_and_an_old_schema_says_what_upgrades_it(
    project: Path, redis: RedisServer, postgres_server: PostgresServer
) -> None:
    url = await newest(await asyncio.to_thread(postgres_server.new_database))
    await behind(url)
    configure(project, f'[serve]\nport = 0\ndata_dir = "{project.parent / "shared"}"\n')
    lines = doctor(project, "--redis", redis.url, "--database", url)
    assert lines["redis"].startswith("ok")
    assert lines["database"].startswith("note")
    assert "1 migration behind; taor serve upgrades it when it starts" in lines["database"]


def test_aof_off_is_a_note_saying_how_to_turn_it_on(
    project: Path, redis: RedisServer, aof_off: None
) -> None:
    configure(project, f'[serve]\nport = 0\ndata_dir = "{project.parent / "shared"}"\n')
    line = doctor(project, "--redis", redis.url)["redis-aof"]
    assert line.startswith("note") and "AOF is off" in line
    assert "redis-cli CONFIG SET appendonly yes, and appendonly yes in redis.conf" in line


def test_nothing_listening_or_no_such_database_or_a_file_for_a_folder_one_line_each(
    project: Path, postgres_server: PostgresServer
) -> None:
    blocker = project.parent / "blocker"
    blocker.write_text("a file\n")
    configure(project, f'[serve]\nport = 0\ndata_dir = "{blocker}"\n')
    refused = f"redis://127.0.0.1:{free_port()}/0"
    nowhere = f"postgresql://taor:secret@127.0.0.1:{free_port()}/taor"
    lines = doctor(project, "--redis", refused, "--database", nowhere)
    assert (
        lines["service"].startswith("broken") and f"{blocker} is not a folder" in lines["service"]
    )
    assert lines["redis"].startswith("broken")
    assert f"cannot reach Redis at {refused}" in lines["redis"] and "start it" in lines["redis"]
    assert "redis-aof" not in lines and "run-queue" not in lines  # nothing more to say
    assert (
        lines["database"].startswith("broken") and "cannot reach PostgreSQL at" in lines["database"]
    )
    assert "secret" not in lines["database"] and "start it, or fix --database" in lines["database"]
    missing = postgres_server.url("no_such_database")
    line = doctor(project, "--redis", refused, "--database", missing)["database"]
    assert line.startswith("broken") and "does not exist: make it (createdb" in line
    line = doctor(project, "--database", "mysql://u:secret@h/z")["database"]
    assert line.startswith("broken") and "unsupported database 'mysql'" in line
    assert "secret" not in line

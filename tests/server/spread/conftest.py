"""The service spread over processes as it is over machines: a real Redis server and a real
PostgreSQL server (one of each for the session), ``taor serve --redis`` API processes and
``taor worker`` processes sharing one data folder, the runs' model a ``FakeProviderServer``."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer

from ..process import Home
from .cluster import Cluster, scripted
from .servers import PostgresServer, RedisServer, postgres_bin, redis_binary


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    binary = redis_binary()
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(binary, tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    folder = postgres_bin()
    if folder is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    server = PostgresServer(folder)
    try:
        server.start()
    except (subprocess.CalledProcessError, OSError) as error:
        server.remove()
        pytest.skip(f"PostgreSQL could not be started here: {error}")
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop()
        server.remove()


@pytest.fixture
def redis(redis_server: RedisServer) -> RedisServer:
    """The session's Redis, emptied (and running: a test may have stopped it)."""
    if redis_server.process is None or redis_server.process.poll() is not None:
        redis_server.start()
    redis_server.command("FLUSHALL")
    return redis_server


@pytest.fixture
def database(postgres_server: PostgresServer) -> str:
    """A new PostgreSQL database's URL."""
    return postgres_server.new_database()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """The file the runs' tool calls append to: one line per call carried out."""
    return tmp_path / "calls.txt"


@pytest.fixture
def model(marker: Path) -> Iterator[FakeProviderServer]:
    with FakeProviderServer(default=scripted(marker)) as server:
        yield server


@pytest.fixture
def cluster(
    tmp_path: Path, redis: RedisServer, database: str, model: FakeProviderServer
) -> Iterator[Cluster]:
    """2 API processes and 2 workers over ``redis`` and ``database``; ``model`` answers."""
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
    made = Cluster(Home(tmp_path / "home"), redis=redis, database=database, model=model)
    try:
        made.start(apis=2, workers=2)
        yield made
    finally:
        made.stop()

"""The service spread over processes as it is over machines: a real Redis server and a real
PostgreSQL server (one of each for the session), ``taor serve --redis`` API processes and
``taor worker`` processes sharing one data folder, the runs' model a ``FakeProviderServer``."""

from __future__ import annotations

import contextlib
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


@pytest.fixture(scope="module")
def redis(redis_server: RedisServer) -> RedisServer:
    """The session's Redis, emptied for the module (and running: a test may have stopped it)."""
    if redis_server.process is None or redis_server.process.poll() is not None:
        redis_server.start()
    redis_server.command("FLUSHALL")
    return redis_server


@pytest.fixture(scope="module")
def database(postgres_server: PostgresServer) -> str:
    """A new PostgreSQL database's URL."""
    return postgres_server.new_database()


@pytest.fixture(scope="module")
def marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file the runs' tool calls append to: one line per call carried out."""
    return tmp_path_factory.mktemp("marker") / "calls.txt"


@pytest.fixture(scope="module")
def model(marker: Path) -> Iterator[FakeProviderServer]:
    with FakeProviderServer(default=scripted(marker)) as server:
        yield server


@pytest.fixture(scope="module")
def spread(
    tmp_path_factory: pytest.TempPathFactory,
    redis: RedisServer,
    database: str,
    model: FakeProviderServer,
) -> Iterator[Cluster]:
    """2 API processes and 2 workers over ``redis`` and ``database``; ``model`` answers (one
    set for a module: starting them is most of a test's time)."""
    made = Cluster(
        Home(tmp_path_factory.mktemp("home")), redis=redis, database=database, model=model
    )
    try:
        made.start(apis=2, workers=2)
        yield made
    finally:
        made.stop()


@pytest.fixture
def cluster(spread: Cluster) -> Cluster:
    """The module's cluster, with 2 live workers (a test before may have killed one)."""
    spread.ensure(workers=2)
    return spread

"""Where things are in Redis, and the client every process uses.

- ``taor:runs``: the runs to carry out, one entry per queued run, read by the consumer group
  ``workers``; an entry is acknowledged when its run ends (or handed back as a new entry);
- ``taor:run:<id>:events``: the run's events, each entry's id ``<seq>-0`` (so an event written
  twice is refused, and a client reads from its ``Last-Event-ID``), with marker entries
  (``m``: ``open``, ``end``, ``moved``) numbered after the event they follow;
- ``taor:run:<id>:commands``: commands for the run, read by the worker that holds it from the
  position it keeps in ``taor:run:<id>`` (with the run's open permission requests and the
  workers it moved to);
- ``taor:worker:<name>``: a worker's heartbeat (its runs), expiring after the timeout.

The client retries a command that met a dropped connection or a restarting server, with
exponential back-off, for as long as it takes: what a process had written is on the server
(run Redis with AOF on) and what it writes next waits for it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from taor.errors import ConfigurationError

if TYPE_CHECKING:
    from redis.asyncio import Redis

RUNS = "taor:runs"
GROUP = "workers"
WORKERS = "taor:worker:"


def events_key(run_id: str) -> str:
    return f"taor:run:{run_id}:events"


def commands_key(run_id: str) -> str:
    return f"taor:run:{run_id}:commands"


def state_key(run_id: str) -> str:
    return f"taor:run:{run_id}"


def redacted(url: str) -> str:
    """``url`` without its password."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    return f"{scheme}://***@{host}" if sep and at and credentials else url


MAX_CONNECTIONS = 10_000  # Redis's own default limit of clients


async def connect(url: str, *, wait: float = 10.0, max_connections: int = MAX_CONNECTIONS) -> Redis:
    """A client of the Redis server at ``url``, which answered within ``wait`` seconds, with
    at most ``max_connections`` at once."""
    from redis import exceptions
    from redis.asyncio import Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    try:
        client = Redis.from_url(
            url,
            decode_responses=True,
            retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), -1),  # for as long as it takes
            retry_on_error=[exceptions.ConnectionError, exceptions.TimeoutError],
            health_check_interval=5,
            # each SSE follower waits in a blocking read on a connection of its own: the pool's
            # default (100) would refuse the 101st follower of an API process
            max_connections=max_connections,
        )
    except ValueError as error:
        raise ConfigurationError(f"not a Redis URL: {redacted(url)} ({error})") from None
    probe = Redis.from_url(url, decode_responses=True)
    try:
        async with asyncio.timeout(wait):
            while True:
                try:
                    await probe.ping()
                    break
                except (exceptions.ConnectionError, OSError):
                    await asyncio.sleep(0.2)
    except TimeoutError:
        await client.aclose()
        raise ConfigurationError(
            f"cannot reach Redis at {redacted(url)} (no answer in {wait:.0f}s); "
            "start it, or check --redis"
        ) from None
    except exceptions.RedisError as error:
        await client.aclose()
        raise ConfigurationError(f"Redis at {redacted(url)} refused: {error}") from None
    finally:
        await probe.aclose()
    return client


async def ensure_group(client: Redis) -> None:
    """The ``runs`` stream and its consumer group, made when missing."""
    from redis.exceptions import ResponseError

    try:
        await client.xgroup_create(RUNS, GROUP, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise

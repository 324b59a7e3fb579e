"""``taor doctor``'s checks of a service spread over machines, as its settings name Redis
(``redis_url``), PostgreSQL (``database_url``) and the shared folder (``data_dir``):

- Redis answers ``PING``; AOF is on (``CONFIG GET appendonly``: off, a restart loses what was
  not yet saved); the run queue and its consumer group are there (or not made yet: the first
  ``taor serve`` or ``taor worker`` makes them), with the live workers' count;
- PostgreSQL answers, and its schema is the newest (or how far behind, and what upgrades it);
- the shared folder takes a file (a probe written and removed, as a worker does).

Each gap is one line saying what to do; none is fatal (taor runs without a service). Each
server is given a few seconds to answer. redis-py and asyncpg are imported here only, when a
setting names their server.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from taor.host.checks import Check
from taor.server.spread.streams import GROUP, RUNS, WORKERS, redacted
from taor.server.store.database import redacted as redacted_database

WAIT = 3.0  # seconds a server has to answer
INSTALL = "pip install 'taor[server]'"


def redis_checks(url: str) -> list[Check]:
    """Reachable; AOF on; the run queue's consumer group (when reachable)."""
    try:
        import redis
    except ImportError:
        return [Check(name="redis", status="missing", detail=f"no Redis client: {INSTALL}")]
    shown = redacted(url)
    try:
        client: Any = redis.Redis.from_url(
            url, socket_connect_timeout=WAIT, socket_timeout=WAIT, decode_responses=True
        )
    except ValueError as error:
        return [_broken("redis", f"not a Redis URL: {shown} ({error}); fix --redis or redis_url")]
    try:
        client.ping()
        version = client.info("server").get("redis_version", "?")
        reached = Check(name="redis", status="ok", detail=f"{shown} answers (Redis {version})")
        return [reached, _aof(client), _queue(client)]
    except redis.AuthenticationError as error:
        return [_broken("redis", f"{shown} refused the password ({error}): fix it in the URL")]
    except (redis.ConnectionError, redis.TimeoutError) as error:
        detail = f"cannot reach Redis at {shown} ({_first_line(error)}): start it, or fix "
        return [_broken("redis", detail + "--redis or redis_url in [serve]")]
    except redis.RedisError as error:
        return [_broken("redis", f"Redis at {shown} refused: {_first_line(error)}")]
    finally:
        client.close()


def _aof(client: Any) -> Check:
    from redis import ResponseError

    try:
        settings = client.config_get("append*")
    except ResponseError:  # (a managed Redis may not offer CONFIG)
        detail = "cannot ask whether AOF is on (CONFIG is not allowed): make sure it is"
        return Check(name="redis-aof", status="note", detail=detail)
    if settings.get("appendonly") == "yes":
        every = settings.get("appendfsync", "?")
        return Check(name="redis-aof", status="ok", detail=f"AOF on (appendfsync {every})")
    detail = (
        "AOF is off: a Redis restart loses the runs queued and events not yet in the database; "
        "turn it on: redis-cli CONFIG SET appendonly yes, and appendonly yes in redis.conf"
    )
    return Check(name="redis-aof", status="note", detail=detail)


def _queue(client: Any) -> Check:
    from redis import ResponseError

    try:
        live = sum(1 for _ in client.scan_iter(match=WORKERS + "*", count=1000))
        workers = f"{live} live worker{'' if live == 1 else 's'}"
    except ResponseError as error:  # (a user without SCAN)
        workers = f"the live workers unknown ({_first_line(error)})"
    try:
        groups = {group["name"]: group for group in client.xinfo_groups(RUNS)}
    except ResponseError as error:
        if "no such key" not in str(error).lower():
            detail = f"cannot read {RUNS} ({_first_line(error)}): the user needs stream commands"
            return Check(name="run-queue", status="broken", detail=detail)
        groups = {}  # nothing has queued a run yet
    if GROUP not in groups:
        detail = f"{RUNS} not made yet (the first taor serve or taor worker makes it); {workers}"
        return Check(name="run-queue", status="ok", detail=detail)
    pending = groups[GROUP].get("pending", 0)
    detail = f"{RUNS} with its group {GROUP}: {pending} runs held by workers; {workers}"
    return Check(name="run-queue", status="ok", detail=detail)


def postgres_check(url: str) -> tuple[Check, str | None]:
    """Whether PostgreSQL answers, and (when it does) the revision its schema is at: a
    broken check and None, or an ok one (with where) and the revision ("" for none yet)."""
    try:
        import asyncpg  # type: ignore[import-untyped]
    except ImportError:
        return Check(name="database", status="missing", detail=f"no asyncpg: {INSTALL}"), None
    shown = redacted_database(url)
    rest = url.partition("://")[2]
    dsn = f"postgresql://{rest}"  # (asyncpg's own scheme; a driver named in the URL dropped)
    try:
        current = asyncio.run(_revision(asyncpg, dsn))
    except (OSError, TimeoutError) as error:
        why = getattr(error, "strerror", None) or _first_line(error)
        detail = f"cannot reach PostgreSQL at {shown} ({why}): start it, or fix "
        detail += "--database or database_url in [serve]"
        return _broken("database", detail), None
    except asyncpg.InvalidCatalogNameError as error:
        detail = f"{shown}: {_first_line(error)}: make it (createdb -O USER NAME)"
        return _broken("database", detail), None
    except asyncpg.InvalidAuthorizationSpecificationError as error:
        detail = f"{shown} refused the user ({_first_line(error)}): fix the URL's user"
        return _broken("database", detail), None
    except asyncpg.InvalidPasswordError as error:
        detail = f"{shown} refused the password ({_first_line(error)}): fix it in the URL"
        return _broken("database", detail), None
    except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as error:
        return _broken("database", f"PostgreSQL at {shown} refused: {_first_line(error)}"), None
    return Check(name="database", status="ok", detail=shown), current


async def _revision(asyncpg: Any, dsn: str) -> str:
    connection = await asyncpg.connect(dsn, timeout=WAIT)
    try:
        found = await connection.fetchval("SELECT to_regclass('alembic_version') IS NOT NULL")
        if not found:
            return ""
        return str(await connection.fetchval("SELECT version_num FROM alembic_version") or "")
    finally:
        await connection.close()


def shared_folder(folder: Path) -> Check:
    """The folder every machine mounts: a file can be written there, as a worker writes."""
    fix = "mount it read-write for this user, or pick another with --data-dir (data_dir)"
    if folder.exists() and not folder.is_dir():
        return _broken("service", f"shared folder {folder} is not a folder: {fix}")
    if not folder.exists():
        detail = (
            f"shared folder {folder} does not exist yet (taor serve and taor worker make it, "
            "but every machine must see the same one): mount the shared volume there"
        )
        return Check(name="service", status="note", detail=detail)
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".taor-doctor-"):
            pass
    except OSError as error:
        detail = f"cannot write the shared folder {folder} ({error.strerror}): {fix}"
        return _broken("service", detail)
    return Check(name="service", status="ok", detail=f"shared folder {folder} (writable)")


def _broken(name: str, detail: str) -> Check:
    return Check(name=name, status="broken", detail=detail)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__

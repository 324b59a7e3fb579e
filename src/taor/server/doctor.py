"""``taor doctor``'s checks of the service (``taor serve``) on this machine, as its settings
say (``[serve]`` of the person's config file, ``TAOR_SERVE_*``, doctor's ``--redis`` and
``--database``): the server extra, the data folder, the database's schema and the port; across
machines (``redis_url``), Redis, PostgreSQL and the shared folder (``spread.doctor``).

They import none of the server's libraries, so doctor stays fast and still answers when the
``server`` extra is missing: the database is read with the standard library's sqlite3, the
migrations' revision ids are read from their files, and a port in use is asked for
``/healthz`` over loopback with a short timeout. Only a Redis or PostgreSQL named in the
settings is asked with its own client (redis-py, asyncpg). None of these gaps is fatal: taor
runs without a service.
"""

from __future__ import annotations

import ast
import errno
import importlib.util
import json
import os
import socket
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from taor.errors import ConfigurationError
from taor.host.checks import Check
from taor.server.config_file import Address, load

SERVER_MODULES = ("fastapi", "uvicorn", "sse_starlette", "sqlalchemy", "aiosqlite", "alembic")
PROBE_TIMEOUT = 1.0  # seconds for a /healthz answer on loopback


def service_checks(
    environ: Mapping[str, str], cwd: Path, flags: Mapping[str, str | None] | None = None
) -> list[Check]:
    """The checks of the service its settings describe (``flags``: ``taor serve``'s, by key:
    ``redis_url``, ``database_url``)."""
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        detail = f"taor serve needs the server extra: pip install 'taor[server]' (no {missing[0]})"
        return [Check(name="service", status="missing", detail=detail)]
    try:
        serve = load(flags=flags or {}, environ=environ, cwd=cwd)
    except ConfigurationError as error:
        return [Check(name="service", status="broken", detail=f"taor serve cannot start: {error}")]
    config, address = serve.config, serve.address
    if not config.redis_url:
        return [data_folder(config.data_dir), database(config.database()), port(address)]
    from taor.server.spread import doctor as spread  # across machines: Redis and the rest

    return [
        spread.shared_folder(config.data_dir),
        *spread.redis_checks(config.redis_url),
        database(config.database()),
        port(address),
    ]


def data_folder(folder: Path) -> Check:
    """The service's data folder: there and writable, or one ``taor serve`` can make."""
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    fix = "set data_dir in [serve] of your config file, or use taor serve --data-dir"
    if not existing.is_dir():
        what = "is not a folder" if existing == folder else f"cannot be made ({existing} is a file)"
        return Check(name="service", status="broken", detail=f"data folder {folder} {what}: {fix}")
    if not os.access(existing, os.W_OK | os.X_OK):
        detail = f"data folder {folder}: {existing} is not writable: fix its permissions, or {fix}"
        return Check(name="service", status="broken", detail=detail)
    if existing != folder:
        detail = f"data folder {folder} (not made yet: taor serve makes it)"
        return Check(name="service", status="ok", detail=detail)
    return Check(name="service", status="ok", detail=f"data folder {folder} (writable)")


def database(url: str) -> Check:
    """The database's schema against the migrations this taor has."""
    if url.partition(":")[0].partition("+")[0] in ("postgresql", "postgres"):
        return _postgres(url)
    path = url.partition(":///")[2].partition("?")[0] if url.startswith("sqlite") else ""
    if not path:  # the URL is not shown: it may hold a password
        from taor.server.store.database import async_url

        try:
            async_url(url if "://" in url else "")  # (its message then shows no URL)
        except ConfigurationError as error:
            why = str(error).partition("; ")[2] or str(error)  # what to use
            detail = f"database_url (or --database) cannot be used: {why}"
            return Check(name="database", status="broken", detail=detail)
        detail = f"a {url.partition(':')[0]} database (database_url): doctor cannot check it"
        return Check(name="database", status="note", detail=detail)
    if not Path(path).exists():
        return Check(name="database", status="ok", detail=f"none yet: taor serve makes {path}")
    try:
        current = _revision(Path(path))
    except sqlite3.Error as error:
        detail = f"{path} cannot be read ({error}): move it away, or set another data_dir"
        return Check(name="database", status="broken", detail=detail)
    return _schema(path, current, elsewhere=", or set another data_dir")


def _postgres(url: str) -> Check:
    from taor.server.spread.doctor import postgres_check

    reached, current = postgres_check(url)
    if current is None:
        return reached
    if not current:
        detail = f"{reached.detail}: no tables yet (taor serve or taor worker makes them)"
        return Check(name="database", status="ok", detail=detail)
    return _schema(reached.detail, current, elsewhere=" on every machine")


def _schema(where: str, current: str | None, *, elsewhere: str) -> Check:
    """The database at ``where`` is at the schema ``current``: the newest, behind (what
    upgrades it) or made by a newer taor."""
    revisions = migrations()
    if current is not None and current not in revisions:
        detail = f"{where} was made by a newer taor (schema {current}): upgrade taor{elsewhere}"
        return Check(name="database", status="broken", detail=detail)
    behind = len(revisions) - len(_lineage(current, revisions))
    if behind:
        plural = "s" if behind > 1 else ""
        detail = (
            f"{where}: {behind} migration{plural} behind; taor serve upgrades it when it starts"
        )
        return Check(name="database", status="note", detail=detail)
    return Check(name="database", status="ok", detail=f"{where} (schema {current}, the newest)")


def _revision(path: Path) -> str | None:
    """The schema revision the database is at (None: before the first migration)."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if "alembic_version" not in names:
            return None
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(row[0]) if row else None


def migrations() -> dict[str, tuple[str, ...]]:
    """Each migration's revision id and the ones it follows, read from the scripts' text."""
    import taor.server

    versions = Path(taor.server.__file__).parent / "store" / "migrations" / "versions"
    found: dict[str, tuple[str, ...]] = {}
    for script in versions.glob("*.py"):
        values = _assigned(ast.parse(script.read_text(encoding="utf-8")))
        down = values.get("down_revision")
        parents = tuple(down) if isinstance(down, list | tuple) else (down,) if down else ()
        if isinstance(values.get("revision"), str):
            found[str(values["revision"])] = tuple(str(p) for p in parents)
    return found


def _assigned(tree: ast.Module) -> dict[str, object]:
    """The literal values a script gives ``revision`` and ``down_revision``."""
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
            try:
                values[target.id] = ast.literal_eval(value)
            except ValueError:
                continue
    return values


def _lineage(revision: str | None, revisions: Mapping[str, tuple[str, ...]]) -> set[str]:
    """``revision`` and every one before it: the migrations a database at it has had."""
    done: set[str] = set()
    todo = [revision] if revision else []
    while todo:
        current = todo.pop()
        if current not in done:
            done.add(current)
            todo += revisions.get(current, ())
    return done


def port(address: Address) -> Check:
    """Free, held by a taor service (it answers ``/healthz``), or held by something else."""
    host, number = address.host, address.port
    if number == 0:
        return Check(name="port", status="ok", detail="port = 0: taor serve takes any free port")
    shown = f"[{host}]:{number}" if ":" in host else f"{host}:{number}"
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, number))
        except OSError as error:
            failed = error
        else:
            return Check(name="port", status="ok", detail=f"{shown} is free")
    if failed.errno != errno.EADDRINUSE:
        detail = f"taor serve cannot listen on {shown}: {failed.strerror}; set host in [serve]"
        return Check(name="port", status="broken", detail=detail)
    version = _taor_at(host, number)
    if version is not None:
        detail = f"{shown} is in use by a running taor service (taor {version})"
        return Check(name="port", status="ok", detail=detail)
    detail = (
        f"{shown} is in use by another program: stop it, or set port in [serve] of your "
        "config file (taor serve --port N)"
    )
    return Check(name="port", status="broken", detail=detail)


def _taor_at(host: str, number: int) -> str | None:
    """The version of the taor service answering on the port (over loopback when it listens
    on every address), or None when what answers is not one."""
    import urllib.request

    loopback = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    where = f"[{loopback}]" if ":" in loopback else loopback
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with opener.open(f"http://{where}:{number}/healthz", timeout=PROBE_TIMEOUT) as answer:
            body = json.loads(answer.read(4096))
    except (OSError, ValueError):
        return None
    if isinstance(body, dict) and body.get("status") == "ok" and "version" in body:
        return str(body["version"])
    return None

"""``taor serve``: the service on this machine, and its tokens. The ``taor`` command hands
``serve`` here by name (``taor.cli`` imports nothing of the service).

    taor serve [--host 127.0.0.1] [--port 8765] [--data-dir DIR] [--workers 2] [--model M]
    taor serve token create NAME [--admin]
    taor serve token list
    taor serve token revoke NAME

Its settings come from the ``[serve]`` table of the person's own config file, then
``TAOR_SERVE_*`` variables, then the flags (``config_file``); a project's config file never
configures a service. ``serve`` prints its URL, where its data is and whether runs are
sandboxed; on the very first start it makes an admin token and prints it once. A port in use or
a data folder it cannot write is one line and exit 2. SIGTERM or Ctrl-C stops taking runs,
interrupts the running ones (their transcripts stay valid; they show as ``interrupted``) and
exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError
from taor.server.config_file import Serve, load, project_notice, user_file

DEFAULT_PORT = 8765
EPILOG = """settings: the [serve] table of your own config file (~/.config/taor/config.toml;
  never a project's .taor/config.toml), then TAOR_SERVE_<KEY> variables, then these flags.
  Keys: host, port, data_dir, workers, model, base_url, max_body, cors_origins, sandbox,
  database_url and the service's other settings by name, e.g.

    [serve]
    port = 9000
    workers = 4
    cors_origins = ["https://tools.example.org"]

exit codes: 0 stopped (SIGTERM, Ctrl-C); 2 a bad setting, a port in use, a data folder that
  cannot be written, or the server extra missing (pip install 'taor[server]')"""


class UsageError(ConfigurationError):
    """A flag or argument the command cannot use."""


def _parser(prog: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def run(argv: list[str]) -> int:
    return run_guarded(lambda: _token(argv[1:]) if argv[:1] == ["token"] else _serve(argv))


def run_guarded(command: Callable[[], int], name: str = "taor serve") -> int:
    """``command``'s exit code; a user's mistake or a missing extra is one line and 2."""
    try:
        return command()
    except ConfigurationError as error:
        hint = f" (see {name} --help)" if isinstance(error, UsageError) else ""
        first = str(error).splitlines()[0]  # a database's error can add a line of links
        print(f"taor: {first}{hint}", file=sys.stderr)
        return 2
    except SystemExit as leaving:  # argparse: --help, or a usage error it has printed
        return int(leaving.code or 0)
    except ModuleNotFoundError as error:
        print(f"taor: the service needs {error.name}: pip install 'taor[server]'", file=sys.stderr)
        return 2
    except OSError as error:  # a file of the service's it cannot use, met while starting
        where = f" {error.filename}" if error.filename else ""
        print(f"taor: cannot start:{where}: {error.strerror or error}", file=sys.stderr)
        return 2


def _serve(argv: list[str]) -> int:
    p = _parser("taor serve", "Run the taor service: runs over HTTP and SSE.", EPILOG)
    p.add_argument("--host", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, help=f"port ({DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--data-dir", help="where runs, events and the database are kept")
    p.add_argument("--workers", type=int, help="runs carried out at once (2)")
    p.add_argument("--model", help="the model of a run that names none (default: local)")
    p.add_argument("--base-url", help="where the service reaches its models")
    p.add_argument("--redis", help="across machines: Redis's URL; taor worker runs the runs")
    p.add_argument("--database", help="the database's URL (postgresql://...; default SQLite)")
    args = vars(p.parse_args(argv))
    args["redis_url"], args["database_url"] = args.pop("redis"), args.pop("database")
    serve = _settings(args)
    notice = project_notice(Path.cwd())
    if notice:
        print(f"taor: {notice}", file=sys.stderr)
    usable_data_dir(serve.config.data_dir)
    sock = _bound(serve.address.host, serve.address.port)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(serve.config, sock))
    return 0


def _settings(flags: dict[str, Any]) -> Serve:
    return load(flags=flags, environ=os.environ, cwd=Path.cwd())


def usable_data_dir(folder: Path) -> None:
    """Make the data folder (0700) or say in one line why it cannot be used."""
    from taor._private import private_dir

    fix = f"pick another with --data-dir, or data_dir in [serve] of {user_file()}"
    if folder.exists() and not folder.is_dir():  # checked first: a file is left as it is
        raise ConfigurationError(f"the data folder {folder} is not a folder; {fix}")
    try:
        private_dir(folder)
    except OSError as error:
        raise ConfigurationError(
            f"cannot make the data folder {folder}: {error.strerror}; {fix}"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigurationError(f"the data folder {folder} is not writable; {fix}")


async def _run(config: Any, sock: socket.socket) -> None:
    import uvicorn

    from taor.server.app import create_app
    from taor.server.service import Service

    service = await Service.open(config)
    host, port = sock.getsockname()[:2]
    where = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    print(f"taor service on {where}  (docs: {where}/docs)")
    print(f"data in {config.data_dir} ({_kept(config)})")
    if service.first_token is not None:
        print(f"first admin token (shown once, keep it): {service.first_token}")
    print(_sandboxing(config.sandbox))
    if config.redis_url:
        from taor.server.spread.streams import redacted as hidden

        print(f"runs queued on Redis at {hidden(config.redis_url)} for taor worker")
    sys.stdout.flush()
    server = uvicorn.Server(
        uvicorn.Config(create_app(service), log_level="warning", lifespan="off")
    )
    # uvicorn answers SIGINT and SIGTERM by shutting down, then raises the signal again for the
    # handler it found: let that one do nothing, so the service is closed below, runs and all.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    try:
        await server.serve(sockets=[sock])
    finally:
        await service.close()


def _kept(config: Any) -> str:
    """What is kept in the data folder, and the database when it is elsewhere."""
    from taor.server.store.database import redacted

    if config.database_url:
        database = f"database {redacted(config.database_url)}"
    else:
        database = "database taor.db"
    return f"{database}, transcripts in runs/, workspaces in workspaces/"


def _sandboxing(sandbox: bool) -> str:
    if not sandbox:
        return "runs are not sandboxed (sandbox = false)"
    if shutil.which("bwrap") is None:
        return (
            "runs are not sandboxed: bubblewrap is not installed "
            "(apt-get install bubblewrap; taor doctor checks it)"
        )
    return "runs are sandboxed by bubblewrap"


def _bound(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # connections wait from now on, also before the app takes them
    except OSError as error:
        sock.close()
        raise ConfigurationError(
            f"cannot listen on {host}:{port}: {error.strerror}; "
            f"pick another with --port, or port in [serve] of {user_file()}"
        ) from None
    return sock


def _token(argv: list[str]) -> int:
    p = _parser("taor serve token", "Make, list or revoke the service's bearer tokens.")
    p.add_argument("action", choices=("create", "list", "revoke"))
    p.add_argument("name", nargs="?", help="the token's name (its user's name)")
    p.add_argument("--admin", action="store_true", help="create: the user sees every run")
    p.add_argument("--data-dir", help="the service's data folder (default: as taor serve finds it)")
    args = p.parse_args(argv)
    if args.action != "list" and not args.name:
        raise UsageError(f"token {args.action} needs a NAME")
    return asyncio.run(_tokens(args, _settings({"data_dir": args.data_dir}).config))


async def _tokens(args: Any, config: Any) -> int:
    from taor.server.store import Database, Tokens

    usable_data_dir(config.data_dir)
    database = await Database.open(config.database())
    try:
        tokens = Tokens(database)
        if args.action == "create":
            print(await tokens.create(args.name, admin=args.admin))
        elif args.action == "revoke":
            if not await tokens.revoke(args.name):
                print(f"taor: no token {args.name!r} in use", file=sys.stderr)
                return 1
            print(f"revoked {args.name}")
        else:
            for info in await tokens.list():
                state = "revoked" if info.revoked_at else "in use"
                used = (
                    info.last_used_at.isoformat(timespec="seconds")
                    if info.last_used_at
                    else "never"
                )
                role = "admin" if info.admin else "user"
                print(f"{info.name}\t{role}\t{state}\tlast used {used}")
    finally:
        await database.close()
    return 0

"""``taor serve``: the service on this machine, and its tokens. The ``taor`` command hands
``serve`` here by name (``taor.cli`` imports nothing of the service).

    taor serve [--host 127.0.0.1] [--port 8765] [--data-dir DIR] [--workers 2]
    taor serve token create NAME [--admin]
    taor serve token list
    taor serve token revoke NAME

``serve`` prints its URL and where its data is; on the very first start it makes an admin
token and prints it once. SIGTERM or Ctrl-C stops taking runs, interrupts the running ones
(their transcripts stay valid; they show as ``interrupted``) and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError

DEFAULT_PORT = 8765


class UsageError(ConfigurationError):
    """A flag or argument the command cannot use."""


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=description)


def run(argv: list[str]) -> int:
    try:
        if argv[:1] == ["token"]:
            return _token(argv[1:])
        return _serve(argv)
    except ConfigurationError as error:
        hint = " (see taor serve --help)" if isinstance(error, UsageError) else ""
        print(f"taor: {error}{hint}", file=sys.stderr)
        return 2
    except SystemExit as leaving:  # argparse: --help, or a usage error it has printed
        return int(leaving.code or 0)
    except ModuleNotFoundError as error:
        print(f"taor: the service needs {error.name}: pip install 'taor[server]'", file=sys.stderr)
        return 2


def _serve(argv: list[str]) -> int:
    p = _parser("taor serve", "Run the taor service: runs over HTTP and SSE.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT})")
    p.add_argument("--data-dir", help="where runs, events and the database are kept")
    p.add_argument("--workers", type=int, default=2, help="runs carried out at once (2)")
    p.add_argument("--model", help="the model of a run that names none (default: local)")
    p.add_argument("--base-url", help="where the service reaches its models")
    args = p.parse_args(argv)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: use 1 to 65535 (0: any free port)")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    from taor.server.config import ServiceConfig

    config = ServiceConfig(
        data_dir=_data_dir(args.data_dir),
        workers=args.workers,
        default_model=args.model or "local",
        base_url=args.base_url or "",
    )
    sock = _bound(args.host, args.port)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(config, sock))
    return 0


async def _run(config: Any, sock: socket.socket) -> None:
    import uvicorn

    from taor.server.app import create_app
    from taor.server.service import Service

    service = await Service.open(config)
    host, port = sock.getsockname()[:2]
    print(f"taor service on http://{host}:{port}  (docs: http://{host}:{port}/docs)")
    print(f"data in {config.data_dir}")
    if service.first_token is not None:
        print(f"first admin token (shown once, keep it): {service.first_token}")
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
            f"cannot listen on {host}:{port}: {error.strerror}; pick another with --port"
        ) from None
    return sock


def _token(argv: list[str]) -> int:
    p = _parser("taor serve token", "Make, list or revoke the service's bearer tokens.")
    p.add_argument("action", choices=("create", "list", "revoke"))
    p.add_argument("name", nargs="?", help="the token's name (its user's name)")
    p.add_argument("--admin", action="store_true", help="create: the user sees every run")
    p.add_argument("--data-dir", help="the service's data folder")
    args = p.parse_args(argv)
    if args.action != "list" and not args.name:
        raise UsageError(f"token {args.action} needs a NAME")
    return asyncio.run(_tokens(args, _data_dir(args.data_dir)))


async def _tokens(args: Any, data_dir: Path) -> int:
    from taor.server.config import ServiceConfig
    from taor.server.store import Database, Tokens

    database = await Database.open(ServiceConfig(data_dir=data_dir).database())
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


def _data_dir(given: str | None) -> Path:
    if given:
        return Path(given).expanduser().resolve()
    if os.environ.get("TAOR_SERVE_DATA_DIR"):
        return Path(os.environ["TAOR_SERVE_DATA_DIR"]).expanduser().resolve()
    from platformdirs import user_data_dir

    return Path(user_data_dir("taor")) / "service"

"""``taor mcp serve``: taor's agent as an MCP server. The ``taor`` command hands the arguments
after ``serve`` to ``run`` (``taor.cli`` imports nothing of this package).

    taor mcp serve [--http [--host 127.0.0.1] [--port 8766]] [--cwd DIR] [--model M]
                   [--base-url URL] [--permission-mode MODE] [--allow RULE] [--deny RULE]
                   [--max-turns N] [--max-budget-usd X] [--max-wall S] [--answer-timeout S]

Over stdio (the default) an MCP client starts it as a command; with ``--http`` it listens for
streamable HTTP on 127.0.0.1 (its URL on stderr; ``--port 0`` picks a free port). Tasks run
with the person's settings for their folder (a project's own files act only in a trusted
folder), under these flags: the model and the base URL for tasks that name none, the permission
rules, and limits no call may exceed. Exit codes: 0 stopped (its client went away, Ctrl-C,
SIGTERM); 2 a bad flag, a port in use, or the mcp extra missing.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import Any

from taor.errors import ConfigurationError

DEFAULT_PORT = 8766
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="taor mcp serve",
        description="Serve taor's agent to MCP clients: one tool, run_task.",
    )
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="with --http (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    p.add_argument("--cwd", help="the folder of tasks that name none (default: here)")
    p.add_argument("--model", help="provider:model for tasks that name none")
    p.add_argument("--base-url", help="the provider's endpoint")
    p.add_argument("--permission-mode", help="default, accept_edits, plan or bypass")
    p.add_argument("--allow", action="append", default=None, metavar="RULE")
    p.add_argument("--deny", action="append", default=None, metavar="RULE")
    p.add_argument("--max-turns", type=int, help="most model calls of a task")
    p.add_argument("--max-budget-usd", type=float, help="most cost of a task")
    p.add_argument("--max-wall", type=float, help="most seconds of a task")
    p.add_argument(
        "--answer-timeout",
        type=float,
        default=600.0,
        help="seconds a task waits for its client to answer a permission request (default 600)",
    )
    return p


def run(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as leaving:  # --help, or a usage error argparse has printed
        return int(leaving.code or 0)
    try:
        return _serve(args)
    except ConfigurationError as error:
        print(f"taor: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("mcp"):
            raise
        print("taor: taor mcp serve needs the MCP SDK: pip install 'taor[mcp]'", file=sys.stderr)
        return 2
    except OSError as error:  # the port: in use, or not ours to take
        print(f"taor: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


def flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the flags give, by config key (as ``taor.host.settings`` reads them)."""
    given = {
        "model": args.model,
        "base_url": args.base_url,
        "permissions.mode": args.permission_mode,
        "permissions.allow": args.allow,
        "permissions.deny": args.deny,
        "max_turns": args.max_turns,
        "max_budget_usd": args.max_budget_usd,
        "max_wall": args.max_wall,
    }
    return {key: value for key, value in given.items() if value is not None}


def _serve(args: argparse.Namespace) -> int:
    import anyio

    from taor.host.settings.project import settings_for
    from taor.mcp_server.app import build
    from taor.mcp_server.job import Jobs
    from taor.mcp_server.task import Defaults

    folder = Path(args.cwd or os.getcwd()).resolve()
    if not folder.is_dir():
        raise ConfigurationError(f"--cwd {args.cwd!r} is not a directory")
    settings_for(folder, os.environ, flags=flags(args))  # a bad flag fails now, not per task
    jobs = Jobs(patience=args.answer_timeout)
    server = build(Defaults(flags=flags(args), folder=folder), jobs)
    if not args.http:
        anyio.run(_stdio, server, jobs)
        return 0
    listening = _bind(args.host, args.port)
    anyio.run(_http, server, jobs, listening)
    return 0


async def _stdio(server: Any, jobs: Any) -> None:
    try:
        await server.run_stdio_async()
    finally:
        await jobs.close_all()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # before the address is printed: a client that reads it may connect
    except OSError:
        sock.close()
        raise
    return sock


async def _http(server: Any, jobs: Any, sock: socket.socket) -> None:
    import uvicorn

    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    app = server.streamable_http_app(host=host)
    if host not in LOOPBACK:
        print(
            f"taor: warning: listening on {host}: anyone who can reach it can run tasks "
            "here (there is no authentication)",
            file=sys.stderr,
        )
    print(f"taor mcp serve: http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await jobs.close_all()

"""``taor mcp``: the MCP servers taor starts (``taor.host.mcp``).

- ``taor mcp add NAME [-- ]COMMAND [ARGS...]`` (``--`` before a command whose arguments
  start with ``-``) or ``taor mcp add NAME URL`` (``--transport http``
  is implied by a URL), with ``--env KEY=VALUE``, ``--header "Name: value"`` and
  ``--scope user|project`` (the person's ``mcp.json`` or the project's ``.mcp.json``);
- ``taor mcp list``: every server, where it is configured and whether it answers now (each is
  started once, all at once, within its timeout; a project's only in a trusted folder);
- ``taor mcp get NAME``: one server (secrets shown as ``***``);
- ``taor mcp remove NAME [--scope ...]``;
- ``taor mcp serve ...``: taor as an MCP server, a front end of its own (``taor.mcp_server``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from taor.cli.args import UsageError, parser_for
from taor.errors import ConfigurationError

if TYPE_CHECKING:
    from taor.tools.mcp.config import McpServerConfig
    from taor.tools.mcp.server import McpServer

SERVE_MODULE = "taor.mcp_server.command"


def run(argv: list[str]) -> int:
    if argv and argv[0] == "serve":
        return serve(argv[1:])
    try:
        args = parser().parse_args(argv)
        if args.action is None:
            raise UsageError("say what to do: add, list, get, remove or serve")
        return int(args.action(args))
    except ConfigurationError as error:
        hint = " (see taor mcp --help)" if isinstance(error, UsageError) else ""
        print(f"taor: {error}{hint}", file=sys.stderr)
        return 2


def serve(argv: list[str]) -> int:
    from importlib import import_module

    try:
        module = import_module(SERVE_MODULE)
    except ImportError as error:
        print(
            f"taor: taor mcp serve is not available in this installation ({error}); "
            "install taor with its mcp extra: pip install 'taor[mcp]'",
            file=sys.stderr,
        )
        return 2
    return int(module.run(argv))


def parser() -> argparse.ArgumentParser:
    p = parser_for(
        "taor mcp", "The MCP servers taor starts.", "taor mcp serve: taor as an MCP server"
    )
    p.set_defaults(action=None)
    sub = p.add_subparsers(metavar="add|list|get|remove|serve")
    add = sub.add_parser("add", help="add a server (stdio command, or an http URL)")
    add.add_argument("name")
    add.add_argument("target", help="the command to run, or the server's URL")
    add.add_argument("args", nargs="*", help="the command's arguments (after --: any)")
    add.add_argument("--transport", choices=("stdio", "http"))
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar='"NAME: VALUE"')
    add.add_argument("--cwd", dest="server_cwd", metavar="DIR", help="the server's directory")
    _scope(add)
    add.set_defaults(action=_add)
    listed = sub.add_parser("list", help="every server and whether it answers")
    listed.add_argument("--no-check", action="store_true", help="do not start them")
    listed.set_defaults(action=_list)
    get = sub.add_parser("get", help="one server")
    get.add_argument("name")
    get.set_defaults(action=_get)
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("name")
    _scope(remove, default=None)
    remove.set_defaults(action=_remove)
    return p


def _scope(p: argparse.ArgumentParser, default: str | None = "user") -> None:
    p.add_argument(
        "-s",
        "--scope",
        choices=("user", "project"),
        default=default,
        help="your own mcp.json (every project) or this project's .mcp.json (shared)",
    )


def _places() -> tuple[Path, Path]:
    from taor.host.sessions.paths import project_root
    from taor.host.settings.project import user_config

    return project_root(Path(os.getcwd()).resolve()), user_config()


def _file(scope: str) -> tuple[Path, bool]:
    from taor.host.mcp import PROJECT_JSON, USER_JSON

    root, config_dir = _places()
    return (config_dir / USER_JSON, True) if scope == "user" else (root / PROJECT_JSON, False)


def _add(args: argparse.Namespace) -> int:
    from taor.host.mcp_files import add_server
    from taor.tools.mcp.config import McpServerConfig

    is_url = args.target.startswith(("http://", "https://"))
    transport = args.transport or ("http" if is_url else "stdio")
    if transport == "http" and (args.args or args.env or args.server_cwd):
        raise UsageError("an http server takes a URL only (no arguments, --env or --cwd)")
    if transport == "stdio" and args.header:
        raise UsageError("--header is for http servers")
    server = McpServerConfig(
        name=args.name,
        command="" if transport == "http" else args.target,
        args=tuple(args.args),
        env=_pairs(args.env, "=", "--env KEY=VALUE"),
        cwd=args.server_cwd,
        url=args.target if transport == "http" else "",
        headers=_pairs(args.header, ":", '--header "Name: value"'),
    )
    path, private = _file(args.scope)
    replaced = add_server(path, server, private=private)
    print(f"{'replaced' if replaced else 'added'} MCP server {server.name} ({transport}) in {path}")
    if args.scope == "project":
        print("it starts for people who trust this folder (taor trust)")
    return 0


def _pairs(items: list[str], separator: str, shape: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition(separator)
        if not sep or not key.strip():
            raise UsageError(f"{item!r}: expected {shape}")
        found[key.strip()] = value.strip() if separator == ":" else value
    return found


def _list(args: argparse.Namespace) -> int:
    from taor.host.mcp import configured
    from taor.host.settings.trust import TrustList

    root, config_dir = _places()
    servers = configured(root, config_dir)
    if not servers:
        print("no MCP servers (taor mcp add NAME COMMAND [ARGS...])")
        return 0
    trusted = TrustList(config_dir).trusts(root)
    chosen = {c.server.name: c for c in servers}  # the one a run starts
    startable = [c.server for c in chosen.values() if trusted or not c.project]
    states = {} if args.no_check else asyncio.run(_check(startable, root))
    for item in servers:
        server = item.server
        where = server.url or " ".join((server.command, *server.args))
        if chosen[server.name] is not item:
            state = "overridden"
        elif item.project and not trusted:
            state = "not started: this folder is not trusted (taor trust)"
        else:
            state = states.get(server.name, "not checked")
        print(f"{server.name}: {where} ({server.transport}, {item.origin}) - {state}")
    return 0


async def _check(servers: list[McpServerConfig], root: Path) -> dict[str, str]:
    from taor.env.local import LocalEnvironment
    from taor.tools.mcp.servers import McpServers

    environment = LocalEnvironment(str(root))
    await environment.initialize()
    group = McpServers(servers, environment=environment)
    try:
        await group.start()
        return {name: _state(server) for name, server in group.servers.items()}
    finally:
        await group.close()
        await environment.cleanup()


def _state(server: McpServer) -> str:
    state = server.state
    if state.status == "connected":
        return f"connected, {state.tools} tools"
    return f"{state.status}: {state.message}"


def _get(args: argparse.Namespace) -> int:
    import json

    from taor.host.mcp import configured

    root, config_dir = _places()
    found = [c for c in configured(root, config_dir) if c.server.name == args.name]
    if not found:
        raise ConfigurationError(f"no MCP server {args.name!r} (taor mcp list shows them)")
    item = found[-1]
    shown = {"name": args.name, **item.server.redacted(), "configured_in": item.origin}
    print(json.dumps(shown, indent=2, ensure_ascii=False))
    return 0


def _remove(args: argparse.Namespace) -> int:
    from taor.host.mcp_files import remove_server

    scopes = [args.scope] if args.scope else ["project", "user"]
    for scope in scopes:
        path, private = _file(scope)
        if path.exists() and remove_server(path, args.name, private=private):
            print(f"removed MCP server {args.name} from {path}")
            return 0
    raise ConfigurationError(
        f"no MCP server {args.name!r} in {' or '.join(str(_file(s)[0]) for s in scopes)} "
        "(one in a config.toml is removed by editing that file)"
    )

"""The MCP servers a run starts, from every place they are configured.

Later wins, by server name:

1. the person's ``config.toml`` (``[mcp.servers.NAME]``, and ``[mcp]``'s defaults
   ``startup_timeout`` / ``call_timeout`` / ``max_restarts`` for every server), then their
   ``mcp.json`` beside it (what ``taor mcp add`` writes);
2. the project's ``.taor/config.toml`` (``[mcp.servers.NAME]``) and ``.mcp.json``
   (``{"mcpServers": {...}}``): they start processes, so only in a folder the person trusts
   (``taor trust``, the interactive question, ``--trust``); otherwise they are held back and
   named (``McpPlan.held_back``) for one line on stderr;
3. ``--mcp-config FILE`` files: given for this run, so started.

A server's own keys win over the ``[mcp]`` defaults. ``${VAR}`` stays as written here (it is
filled when the server starts).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.tools.mcp.config import McpServerConfig, server_from_entry, servers_from_json

PROJECT_JSON = ".mcp.json"
USER_JSON = "mcp.json"
DEFAULT_KEYS = ("startup_timeout", "call_timeout", "max_restarts")


@frozen
class McpPlan:
    """The servers to start, and the project's servers held back (``name (file)``)."""

    servers: tuple[McpServerConfig, ...] = ()
    held_back: tuple[str, ...] = ()


def mcp_plan(
    root: Path, config_dir: Path, *, trusted: bool, files: Sequence[str | Path] = ()
) -> McpPlan:
    user_table = mcp_table(config_dir / "config.toml")
    defaults = {k: user_table[k] for k in DEFAULT_KEYS if k in user_table}
    chosen: dict[str, McpServerConfig] = {}
    _put(chosen, toml_servers(user_table, config_dir / "config.toml"))
    if (config_dir / USER_JSON).is_file():
        _put(chosen, json_file_servers(config_dir / USER_JSON))
    project = project_servers(root)
    held: list[str] = []
    if trusted:
        _put(chosen, (server for server, _ in project))
    else:
        held = [f"{server.name} ({where})" for server, where in project]
    for file in files:
        _put(chosen, json_file_servers(Path(file)))
    servers = tuple(with_defaults(s, defaults) for s in chosen.values())
    return McpPlan(servers=servers, held_back=tuple(held))


@frozen
class Configured:
    """A server as configured: where (``origin``: a file), and whether it is the project's."""

    server: McpServerConfig
    origin: str
    project: bool


def configured(root: Path, config_dir: Path) -> list[Configured]:
    """Every server configured for ``root``, the person's first (a later one of the same name
    wins when a run starts)."""
    toml = config_dir / "config.toml"
    found = [
        Configured(server=s, origin=str(toml), project=False)
        for s in toml_servers(mcp_table(toml), toml)
    ]
    user_json = config_dir / USER_JSON
    if user_json.is_file():
        found += [
            Configured(server=s, origin=str(user_json), project=False)
            for s in json_file_servers(user_json)
        ]
    found += [
        Configured(server=s, origin=str(root / where), project=True)
        for s, where in project_servers(root)
    ]
    return found


def held_back_line(plan: McpPlan) -> str:
    """The one line that says which project servers did not start, and how to start them."""
    names = ", ".join(plan.held_back)
    return (
        f"not starting the project's MCP servers {names}: this folder is not trusted "
        "(taor trust, or --trust for this run)"
    )


def project_servers(root: Path) -> list[tuple[McpServerConfig, str]]:
    """The project's servers with the file each comes from."""
    toml = root / ".taor" / "config.toml"
    found = [(s, ".taor/config.toml") for s in toml_servers(mcp_table(toml), toml)]
    json_path = root / PROJECT_JSON
    if json_path.is_file():
        found += [(s, PROJECT_JSON) for s in json_file_servers(json_path)]
    return found


def mcp_table(path: Path) -> Mapping[str, Any]:
    """The ``[mcp]`` table of a TOML config file (empty without one)."""
    import tomllib

    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle).get("mcp", {})
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"{path}: cannot be read: {error}") from None
    if not isinstance(table, dict):
        raise ConfigurationError(f"{path}: [mcp] must be a table.")
    unknown = sorted(set(table) - {"servers", *DEFAULT_KEYS})
    if unknown:
        raise ConfigurationError(f"{path}: unknown key(s) in [mcp]: {', '.join(unknown)}.")
    for key in DEFAULT_KEYS:
        value = table.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigurationError(f"{path}: [mcp] {key} must be a number of at least 0.")
    return table


def toml_servers(table: Mapping[str, Any], path: Path) -> list[McpServerConfig]:
    servers = table.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigurationError(f"{path}: [mcp.servers] must be a table of servers.")
    try:
        return [server_from_entry(name, entry) for name, entry in servers.items()]
    except ConfigurationError as error:
        raise ConfigurationError(f"{path}: {error}") from None


def json_file_servers(path: Path) -> list[McpServerConfig]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigurationError(f"{path}: no such MCP config file.") from None
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"{path}: not a readable JSON file: {error}") from None
    return servers_from_json(data, source=str(path))


def with_defaults(server: McpServerConfig, defaults: Mapping[str, Any]) -> McpServerConfig:
    """``server`` with the ``[mcp]`` defaults for the keys it leaves at the built-in value."""
    built_in = McpServerConfig(name=server.name, command="x")
    changes = {
        key: value
        for key, value in defaults.items()
        if getattr(server, key) == getattr(built_in, key)
    }
    try:
        return dataclasses.replace(server, **changes)
    except (TypeError, ValueError) as error:
        raise ConfigurationError(f"[mcp] defaults: {error}") from None


def _put(chosen: dict[str, McpServerConfig], servers: Iterable[McpServerConfig]) -> None:
    for server in servers:
        chosen.pop(server.name, None)
        chosen[server.name] = server
